//! `kifulearn fit`: libsvm files to a model file.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;
use std::time::Instant;

use clap::{Args as ClapArgs, ValueEnum};
use kifulearn::libsvm::{expand_paths, read_paths};
use kifulearn::model::{toml_string, write_meta};
use kifulearn::train::{Progress, Solver, SparseDataset, SvrParams};
use linfa::prelude::*;

use super::fit_streaming::{self, StreamingArgs};
use super::CliResult;

/// Options of `fit` (defaults as `liblinear-train -s 11`).
#[derive(ClapArgs)]
pub struct Args {
    /// libsvm files, or folders of `*.svm` files.
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// Model file to write (liblinear text, or binary with --binary).
    #[arg(long)]
    out: PathBuf,
    /// Learner: the in-memory SVR, or the streaming learner (docs/streaming.md).
    #[arg(long, value_enum, default_value_t = Method::Svr)]
    method: Method,
    /// Optimizer.
    #[arg(long, value_enum, default_value_t = SolverArg::Primal)]
    solver: SolverArg,
    /// Cost C.
    #[arg(short = 'c', default_value_t = 1.0, allow_negative_numbers = true)]
    c: f64,
    /// Tube width p (epsilon of the loss).
    #[arg(short = 'p', default_value_t = 0.1, allow_negative_numbers = true)]
    p: f64,
    /// Stopping tolerance (default: liblinear's, 0.0001 primal, 0.1 dual).
    #[arg(short = 'e', allow_negative_numbers = true)]
    tolerance: Option<f64>,
    /// Bias feature value (negative: no bias).
    #[arg(short = 'B', default_value_t = -1.0, allow_negative_numbers = true)]
    bias: f64,
    /// Maximum iterations (Newton steps or epochs).
    #[arg(long, default_value_t = 1000)]
    max_iter: usize,
    /// Write the compact binary model instead of liblinear's text.
    #[arg(long)]
    binary: bool,
    /// Name of the feature set the data was extracted with (kept in MODEL.meta.toml).
    #[arg(long, default_value = "unspecified")]
    features: String,
    #[command(flatten)]
    streaming: StreamingArgs,
}

#[derive(Clone, Copy, ValueEnum)]
enum Method {
    Svr,
    Streaming,
}

#[derive(Clone, Copy, ValueEnum)]
enum SolverArg {
    Primal,
    Dual,
    Dense,
}

/// Runs `fit`.
pub fn run(args: Args) -> CliResult {
    if let Method::Streaming = args.method {
        return fit_streaming::run(
            &args.data,
            &args.out,
            &args.features,
            args.binary,
            &args.streaming,
        );
    }
    if let Some(option) = args.streaming.first_given() {
        return Err(format!("{option} applies to --method streaming").into());
    }
    let solver = match args.solver {
        SolverArg::Primal => Solver::Primal,
        SolverArg::Dual => Solver::Dual,
        SolverArg::Dense => Solver::Dense,
    };
    let mut params = SvrParams::new()
        .c(args.c)
        .p(args.p)
        .bias(args.bias)
        .solver(solver)
        .max_iterations(args.max_iter)
        .progress(Arc::new(|p: &Progress| {
            eprintln!(
                "{} iter {:4}  objective {:.6e}  |g| {:.3e}  {:.2}s",
                p.solver, p.iteration, p.objective, p.gradient_norm, p.seconds
            )
        }));
    if let Some(e) = args.tolerance {
        params = params.tolerance(e);
    }
    // Reject bad options before reading gigabytes.
    let checked = linfa::ParamGuard::check_ref(&params)?.clone();
    let files = expand_paths(&args.data)?;
    let t = Instant::now();
    let data = read_paths(&files)?;
    eprintln!(
        "read {} file(s): {} rows, {} features, {} nonzeros in {:.2}s",
        files.len(),
        data.x.rows(),
        data.x.cols(),
        data.x.nnz(),
        t.elapsed().as_secs_f64()
    );
    if solver == Solver::Dense && args.p != 0.0 {
        eprintln!(
            "note: the dense solver fits squared error; p = {} is not used",
            args.p
        );
    }
    let dataset = DatasetBase::new(SparseDataset(data.x), data.y);
    let t = Instant::now();
    let fitted = checked.fit(&dataset)?;
    eprintln!(
        "trained in {:.2}s, {} iterations, primal objective {:.10}",
        t.elapsed().as_secs_f64(),
        fitted.iterations,
        fitted.objective
    );
    let mut model = fitted.model;
    model.features = args.features.clone();
    if solver == Solver::Dense {
        for (j, w) in model.w.iter().enumerate() {
            println!("{} {}", j + 1, w);
        }
        if model.bias >= 0.0 {
            println!("bias {}", model.bias_weight);
        }
    }
    model.save(&args.out, args.binary)?;
    let quoted: Vec<String> = files
        .iter()
        .map(|f| toml_string(&f.display().to_string()))
        .collect();
    write_meta(
        &args.out,
        &args.features,
        &[
            ("solver", toml_string(solver.liblinear_name())),
            ("c", format!("{:?}", args.c)),
            ("p", format!("{:?}", args.p)),
            ("tolerance", format!("{:?}", checked.tolerance())),
            ("bias", format!("{:?}", args.bias)),
            ("iterations", fitted.iterations.to_string()),
            ("objective", format!("{:?}", fitted.objective)),
            ("binary", args.binary.to_string()),
            ("data", format!("[{}]", quoted.join(", "))),
        ],
    )?;
    Ok(ExitCode::SUCCESS)
}
