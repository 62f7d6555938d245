//! The steps of a round that are not extraction or agreement: the fit on the
//! round's rows (the SVR or the streaming learner) and the match against the
//! material engine. (The learners that read games are `learn.rs`.)

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use super::figures::{Figures, FitFigures, MatchFigures};
use super::recipe::Recipe;
use super::run::{io_at, other, Observer, PipelineError};
use crate::eval::{load_engine_evaluator, EvalChoice, Material};
use crate::features::{FeatureSet, Features};
use crate::libsvm::read_paths_compact;
use crate::model::ModelMeta;
use crate::train::{Event, Solver};

/// Plays the round's model against the material engine (`[match]`) at the
/// recipe's depth, or with `movetime` (milliseconds) on that move time; CSA
/// records and `results.csv` go to `DIR/round-N/match/` (`match-timed/` on
/// the clock).
pub(crate) fn play_material(
    recipe: &Recipe,
    model: &Path,
    dir: &Path,
    movetime: Option<u64>,
) -> Result<MatchFigures, PipelineError> {
    use crate::arena::{default_openings, read_openings, run_match, MatchConfig, TimeControl};
    let start = Instant::now();
    let openings = match &recipe.arena.openings {
        None => default_openings(),
        Some(p) => {
            let text = fs::read_to_string(p).map_err(io_at(p))?;
            read_openings(&text, p).map_err(other)?
        }
    };
    // As `usi` and `match` play it: its sums updated by the move, its
    // values rounded to its sidecar's grain (`[match] grain`).
    let eval = load_engine_evaluator(&EvalChoice::Model(model.to_path_buf())).map_err(other)?;
    let cfg = MatchConfig {
        depth: movetime.is_none().then_some(recipe.arena.depth),
        time: movetime.map(|ms| TimeControl::MoveTime(std::time::Duration::from_millis(ms))),
        games: recipe.arena.games,
        ..MatchConfig::default()
    };
    let report = run_match(&eval, &Material, &openings, &cfg, |_| {});
    let match_dir = dir.join(if movetime.is_some() {
        "match-timed"
    } else {
        "match"
    });
    let mut files = crate::arena::files::MatchFiles::create(&match_dir, "model", "material")
        .map_err(io_at(&match_dir))?;
    for g in &report.games {
        files.add(g).map_err(io_at(&match_dir))?;
    }
    files
        .finish(&report.summary_line("model", "material"))
        .map_err(io_at(&match_dir))?;
    let (low, high) = report.elo_interval95();
    Ok(MatchFigures {
        depth: recipe.arena.depth,
        wins: report.wins as u32,
        losses: report.losses as u32,
        draws: report.draws as u32,
        elo: report.elo(),
        elo_low: low,
        elo_high: high,
        seconds: start.elapsed().as_secs_f64(),
        movetime_ms: movetime,
        nps_ratio: report.nodes_per_second().map(|[a, b]| a / b),
    })
}

/// Fits the round's model; writes the figures and the sidecar before the model,
/// so an existing model always has both.
pub(crate) fn fit_svr(
    recipe: &Recipe,
    features: &Features,
    svm: &[PathBuf],
    model_path: &Path,
    dir: &Path,
    figures: &mut Figures,
    observer: &Arc<dyn Observer>,
) -> Result<FitFigures, PipelineError> {
    let fitted = svr_fit(recipe, features, svm, None, Some(observer.clone()))?;
    figures.fit = Some(fitted.figures.clone());
    figures.save(dir)?;
    fitted
        .model
        .save_with_meta(model_path, false, &fitted.meta)
        .map_err(io_at(model_path))?;
    Ok(fitted.figures)
}

/// A model the recipe's `[solver]` SVR fitted, not yet saved.
pub(crate) struct SvrFitted {
    /// The model, its feature set named.
    pub model: crate::model::Model,
    /// Its sidecar: the solver's options and what it reached.
    pub meta: ModelMeta,
    /// Objective, iterations and seconds.
    pub figures: FitFigures,
}

/// Fits the `[solver]` SVR (`fit svr`'s options; a recipe without
/// `tolerance` stops its dual and dense solvers at
/// [`super::recipe::DEFAULT_TOLERANCE`]) to the rows of `svm`, around the
/// prior `w0` in model units when one is given
/// ([`crate::train::SvrValidParams::fit_around`]); `observer` sees each
/// iteration and the iteration cap's warning.
pub(crate) fn svr_fit(
    recipe: &Recipe,
    features: &Features,
    svm: &[PathBuf],
    w0: Option<&[f64]>,
    observer: Option<Arc<dyn Observer>>,
) -> Result<SvrFitted, PipelineError> {
    let s = &recipe.solver;
    let mut params = s.params();
    if s.tolerance.is_none() && matches!(s.solver, Solver::Dual | Solver::Dense) {
        params = params.tolerance(super::recipe::DEFAULT_TOLERANCE);
    }
    if let Some(progress) = observer.clone() {
        params = params.observer(Arc::new(move |e: &Event<'_>| {
            if let Event::Iteration(p) = e {
                progress.fit_iteration(p)
            }
        }));
    }
    let checked = linfa::ParamGuard::check(params).map_err(other)?;
    let start = Instant::now();
    let data = read_paths_compact(svm).map_err(other)?;
    let fitted = checked.fit_around(data.x, data.y, w0).map_err(other)?;
    if let (Some(w), Some(observer)) = (fitted.iteration_cap_warning(), &observer) {
        observer.warning(&w);
    }
    let figures = FitFigures {
        objective: fitted.objective,
        iterations: fitted.iterations,
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut model = fitted.model;
    model.features = features.name();
    let meta = ModelMeta {
        // `auto` ends in the dual or the primal solver: the model says which.
        solver: Some(model.solver_type.clone()),
        c: Some(s.c),
        p: Some(s.p),
        tolerance: Some(checked.tolerance()),
        bias: Some(s.bias),
        max_iterations: Some(s.max_iterations as u64),
        iterations: Some(fitted.iterations as u64),
        objective: Some(fitted.objective),
        binary: Some(false),
        ..ModelMeta::new(&model.features)
    };
    Ok(SvrFitted {
        model,
        meta,
        figures,
    })
}

/// Fits the round's model with the streaming learner (`docs/streaming.md`) on
/// the round's rows, files in sorted order; `[learner]` gives `rate`,
/// `epochs` and `batch_games`.
pub(crate) fn fit_streaming(
    recipe: &Recipe,
    features: &Features,
    svm: &[PathBuf],
    model_path: &Path,
    dir: &Path,
    figures: &mut Figures,
) -> Result<FitFigures, PipelineError> {
    use crate::train::Quiet;
    let params = linfa::ParamGuard::check(recipe.streaming_params()).map_err(other)?;
    let start = Instant::now();
    let fit = params
        .fit(svm, features.dimension() as usize, &Quiet)
        .map_err(other)?;
    let mse = fit.epochs.last().map_or(0.0, |s| s.mse);
    let figures_fit = FitFigures {
        objective: mse,
        iterations: params.epochs(),
        seconds: start.elapsed().as_secs_f64(),
    };
    let model = fit.into_model(&features.name());
    figures.fit = Some(figures_fit.clone());
    figures.save(dir)?;
    model
        .save_with_meta(
            model_path,
            false,
            &ModelMeta {
                mse: Some(mse),
                binary: Some(false),
                ..params.meta(&model.features)
            },
        )
        .map_err(io_at(model_path))?;
    Ok(figures_fit)
}
