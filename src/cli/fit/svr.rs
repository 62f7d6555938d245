//! `kifulearn fit svr`: labelled libsvm rows to an L2-loss ε-SVR model
//! (liblinear `-s 11`/`-s 12`, `kifulearn::train::svr`).

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::Args as ClapArgs;
use kifulearn::features::Features;
use kifulearn::libsvm::dataset::{self, DatasetInfo};
use kifulearn::libsvm::{expand_paths, read_paths_compact, Values};
use kifulearn::model::ModelMeta;
use kifulearn::train::prior::{column_counts, named_prior_model_units};
use kifulearn::train::{Event, Solver, SvrOptions};

use super::OutArgs;
use crate::cli::verbosity::{summary, trace};
use crate::cli::CliResult;

/// Options of `fit svr`.
#[derive(ClapArgs)]
pub struct Args {
    /// libsvm files, or folders of `*.svm` files (dataset folders).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    #[command(flatten)]
    out: OutArgs,
    /// Where the weights are pulled to instead of 0 (½‖w − w0‖²): `material`
    /// (the built-in piece values on the `material` part of --features),
    /// `zero`, or a model file.
    #[arg(long, default_value = "zero")]
    prior: String,
    /// Threads of the reader and the solvers' products (the same --jobs gives
    /// the same model, bit for bit) [default: all cores].
    #[arg(long)]
    jobs: Option<usize>,
    /// The SVR's options, also a recipe's `[solver]` table.
    #[command(flatten)]
    svr: SvrOptions,
}

/// The SVR's options, as `Debug` shows them (`fit::tests`).
#[cfg(test)]
pub(super) fn params_debug(args: &Args) -> (String, Vec<(&'static str, String)>) {
    (format!("{:?}", args.svr), Vec::new())
}

/// Runs `fit svr` on the libsvm files or dataset folders of `all.data`.
pub fn run(all: &Args) -> CliResult {
    // Reject bad options before reading gigabytes.
    let out = &all.out.model_out(&all.data, true)?;
    let (data, prior, jobs, args) = (&all.data[..], all.prior.as_str(), all.jobs, &all.svr);
    let set = out.features.as_str();
    let solver = args.solver;
    let params = args.params().observer(Arc::new(|e: &Event<'_>| {
        let Event::Iteration(p) = e else {
            return;
        };
        let gap = p.gap.map(|g| format!("  gap {g:.3e}")).unwrap_or_default();
        trace!(
            "{} iter {:4}  objective {:.6e}  |g| {:.3e}{gap}  {:.2}s",
            p.solver,
            p.iteration,
            p.objective,
            p.gradient_norm,
            p.seconds
        )
    }));
    let checked = linfa::ParamGuard::check_ref(&params)?.clone();
    // The prior w0 in model units, fitted as a shift of the labels
    // (`train::prior::shift_labels`).
    let w0 = match prior {
        "zero" => None,
        name => {
            let features: Features = set.parse().map_err(|e| {
                format!(
                    "--prior {name} needs the rows' feature set (--features or dataset.toml): {e}"
                )
            })?;
            Some(named_prior_model_units(&features, name)?)
        }
    };
    let data_dirs = data;
    let files = expand_paths(data)?;
    let pool = crate::cli::thread_pool(jobs)?;
    let t = Instant::now();
    let data = pool.install(|| read_paths_compact(&files))?;
    summary!(
        "read {} file(s): {} rows, {} features, {} nonzeros ({} values) in {:.2}s",
        files.len(),
        data.x.rows(),
        data.x.cols(),
        data.x.nnz(),
        match data.x.values() {
            Values::U8(_) => "u8",
            Values::F32(_) => "f32",
        },
        t.elapsed().as_secs_f64()
    );
    let position_rows = data_dirs
        .iter()
        .filter(|d| dataset::is_dataset(d))
        .any(|d| DatasetInfo::read(d).is_ok_and(|i| i.rows_at == "position"));
    if position_rows && args.p > 0.0 && solver != Solver::Dense {
        summary!(
            "note: position rows are labelled with search scores, and p = {} ignores every error under {} cp: fit them with -p 0 (docs/svr.md)",
            args.p,
            args.p * f64::from(kifulearn::model::LABEL_SCALE)
        );
    }
    if solver == Solver::Dense && args.p != 0.0 {
        summary!(
            "note: the dense solver fits squared error; p = {} is not used",
            args.p
        );
    }
    let counts = out.monotone_hand.as_ref().map(|_| column_counts(&data.x));
    if let Some(w0) = &w0 {
        if data.x.cols() > w0.len() {
            return Err(format!(
                "the rows have {} features but --features {} has {}: wrong set for --prior",
                data.x.cols(),
                set,
                w0.len()
            )
            .into());
        }
    }
    let t = Instant::now();
    // The rows are freed by the fit, before the model's text is written.
    let fitted = pool.install(|| checked.fit_around(data.x, data.y, w0.as_deref()))?;
    if let Some(w) = fitted.iteration_cap_warning() {
        eprintln!("warning: {w}");
    }
    summary!(
        "trained in {:.2}s, {} iterations, primal objective {:.10}",
        t.elapsed().as_secs_f64(),
        fitted.iterations,
        fitted.objective
    );
    let mut model = fitted.model;
    model.features = set.to_string();
    // `auto` ends in the dual or the primal solver: the model says which.
    let solver_type = model.solver_type.clone();
    if solver == Solver::Dense {
        for (j, w) in model.w.iter().enumerate() {
            println!("{} {}", j + 1, w);
        }
        if model.bias >= 0.0 {
            println!("bias {}", model.bias_weight);
        }
    }
    out.write(
        &mut model,
        counts.as_deref(),
        ModelMeta {
            solver: Some(solver_type),
            c: Some(args.c),
            p: Some(args.p),
            tolerance: Some(checked.tolerance()),
            bias: Some(args.bias),
            iterations: Some(fitted.iterations as u64),
            objective: Some(fitted.objective),
            prior: Some(prior.to_string()),
            ..ModelMeta::new(set).data_files(&files)
        },
    )?;
    Ok(ExitCode::SUCCESS)
}
