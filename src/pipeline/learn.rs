//! The learners that read the games themselves, as round steps: `positions`
//! (and `selfplay`) scores the training games' positions with a search
//! (material, or the previous round's model) and learns at their quiescence
//! leaves; `ranking` compares each game move with its siblings (Bonanza's
//! comparison training). Each writes the model with its sidecar.

use std::path::{Path, PathBuf};
use std::time::Instant;

use super::figures::{ExtractFigures, FitFigures};
use super::recipe::{Recipe, SelfplayFit};
use super::reports::round_dir;
use super::run::{io_at, other, PipelineError};
use crate::eval::{DynEvaluator, EvalChoice, Material};
use crate::features::Features;
use crate::model::ModelMeta;
use crate::record::Game;
use crate::train::positions::{
    named_prior, samples_from_games, samples_from_position_files, split_position_paths, Leaves,
};
use crate::train::Quiet;

/// What a learner step measured: the "extract" part (teacher scores and
/// leaves, or the ranked positions) and the fit.
pub struct PositionsFigures {
    /// Positions scored, with the teacher's name as the labeller.
    pub extract: ExtractFigures,
    /// The learner's final training cross-entropy and epochs.
    pub fit: FitFigures,
}

/// Generates the round's positions with `teacher` (resuming a partial run in
/// `dir`, `OUT/round-N/generate`) and returns their files, after those of the
/// `learn_rounds − 1` rounds before it (`OUT/round-K/generate`, in round
/// order).
fn generated_files(
    recipe: &Recipe,
    round: u32,
    teacher: &DynEvaluator,
    teacher_name: &str,
    dir: &Path,
) -> Result<Vec<PathBuf>, PipelineError> {
    use crate::generate::{generate, generation_openings};
    let l = &recipe.learner;
    let text;
    let extra = match &l.generate_openings {
        Some(p) => {
            text = std::fs::read_to_string(p).map_err(io_at(p))?;
            Some((text.as_str(), p.as_path()))
        }
        None => None,
    };
    let set = generation_openings(extra).map_err(other)?;
    let cfg = recipe.generate_config(round, teacher_name);
    generate(teacher, &set.openings, &cfg, dir, false, |_| {}).map_err(other)?;
    let first = (round + 1).saturating_sub(l.learn_rounds).max(1);
    let out = dir
        .parent()
        .and_then(Path::parent)
        .unwrap_or(Path::new("."));
    let mut positions: Vec<PathBuf> = (first..round)
        .map(|k| round_dir(out, k).join("generate/positions"))
        .collect();
    positions.push(dir.join("positions"));
    if let Some(missing) = positions.iter().find(|p| !p.is_dir()) {
        return Err(PipelineError::Other(format!(
            "{}: no generated positions for learner.learn_rounds = {} (the round that made them was not run here)",
            missing.display(),
            l.learn_rounds
        )));
    }
    let (files, _) = split_position_paths(&positions).map_err(io_at(dir))?;
    Ok(files)
}

/// The sidecar of a model learned from positions a teacher scored (the
/// positions learner's and the self-play SVR's): the learner, the teacher
/// and the depth of its scores (`Learner::scores_depth`), the target's λ
/// and K, the prior and the positions learned, over the fitter's own keys
/// in `fitter`.
fn scored_meta(
    recipe: &Recipe,
    teacher: String,
    prior: String,
    positions: u64,
    fitter: ModelMeta,
) -> ModelMeta {
    let l = &recipe.learner;
    ModelMeta {
        method: Some(l.method.name().into()),
        teacher: Some(teacher),
        teacher_depth: Some(l.scores_depth()),
        result_weight: Some(l.result_weight),
        eval_k: Some(l.eval_k),
        prior: Some(prior),
        positions: Some(positions),
        ..fitter
    }
}

/// A self-play round with `fit = "svr"`: the generated positions `files`
/// become position rows in `rows_dir` (`OUT/round-N/rows`, as `positions
/// --rows` writes them: the learner's target as the label, here the
/// teacher's score with `result_weight = 0`), which the `[solver]` SVR fits
/// around `prior` (as `fit svr DIR --prior`).
#[allow(clippy::too_many_arguments)]
fn svr_round(
    recipe: &Recipe,
    features: &Features,
    files: &[PathBuf],
    teacher_name: String,
    prior: &str,
    rows_dir: &Path,
    model_path: &Path,
    start: Instant,
) -> Result<PositionsFigures, PipelineError> {
    use crate::train::positions::rows::{PositionRows, RowLabels, RowTarget};
    use crate::train::prior::named_prior_model_units;
    let l = &recipe.learner;
    let labels = RowLabels::of(RowTarget::Score, &recipe.positions_params());
    let mut rows = PositionRows::create(rows_dir, features.clone(), labels, false, "pipeline run")
        .map_err(io_at(rows_dir))?;
    rows.write_files(files).map_err(other)?;
    let info = rows
        .finish(&teacher_name, Some(l.scores_depth()), 0)
        .map_err(io_at(rows_dir))?;
    let extract = ExtractFigures {
        labeller: teacher_name.clone(),
        train_games: info.games as usize,
        heldout_games: 0,
        rows: info.rows,
        nonzeros: info.nonzeros,
        seconds: start.elapsed().as_secs_f64(),
    };
    let svm = crate::libsvm::expand_paths(&[rows_dir.to_path_buf()]).map_err(other)?;
    let w0 = named_prior_model_units(features, prior).map_err(other)?;
    let fitted = super::steps::svr_fit(recipe, features, &svm, Some(&w0), None)?;
    fitted
        .model
        .save_with_meta(
            model_path,
            false,
            &scored_meta(
                recipe,
                teacher_name,
                prior.to_string(),
                info.rows,
                fitted.meta,
            ),
        )
        .map_err(io_at(model_path))?;
    Ok(PositionsFigures {
        extract,
        fit: fitted.figures,
    })
}

/// Learns round `round`'s model into `model_path` (sidecar first, then the model).
/// `previous` is the previous round's model, if any. With `method = "selfplay"`
/// the training positions are generated first (`round-N/generate/`, by the
/// teacher at `generate_depth`) instead of taken from the training games.
#[allow(clippy::too_many_arguments)]
pub fn positions_round(
    recipe: &Recipe,
    round: u32,
    features: &Features,
    train: &[Game],
    heldout: &[Game],
    previous: Option<&Path>,
    model_path: &Path,
) -> Result<PositionsFigures, PipelineError> {
    let l = &recipe.learner;
    let start = Instant::now();
    let (teacher_name, teacher) = match (l.teacher.as_str(), previous) {
        ("previous", Some(p)) => {
            let choice = EvalChoice::Model(p.to_path_buf());
            (
                p.display().to_string(),
                crate::eval::load_evaluator(&choice).map_err(other)?,
            )
        }
        _ => (
            "material".to_string(),
            crate::eval::load_evaluator(&EvalChoice::Material).map_err(other)?,
        ),
    };
    let prior_name = match (l.prior.as_str(), previous) {
        ("previous", Some(p)) => p.display().to_string(),
        _ => "material".to_string(),
    };
    let score = |games: &[Game]| -> Leaves {
        let samples = samples_from_games::<DynEvaluator>(
            games,
            &teacher,
            l.teacher_depth,
            l.skip_plies,
            || {},
        );
        Leaves::build(features, &Material, &samples)
    };
    let train_leaves = if l.method == super::recipe::Method::Selfplay {
        let dir = model_path
            .parent()
            .unwrap_or(Path::new("."))
            .join("generate");
        let files = generated_files(recipe, round, &teacher, &teacher_name, &dir)?;
        if l.fit == SelfplayFit::Svr {
            let rows_dir = dir.with_file_name("rows");
            return svr_round(
                recipe,
                features,
                &files,
                teacher_name,
                &prior_name,
                &rows_dir,
                model_path,
                start,
            );
        }
        let (samples, _) = samples_from_position_files(&files).map_err(other)?;
        Leaves::build(features, &Material, &samples)
    } else {
        score(train)
    };
    let held_leaves = score(heldout);
    let extract = ExtractFigures {
        labeller: teacher_name.clone(),
        train_games: train.len(),
        heldout_games: heldout.len(),
        rows: train_leaves.len() as u64,
        nonzeros: train_leaves.nonzeros() as u64,
        seconds: start.elapsed().as_secs_f64(),
    };
    let start = Instant::now();
    let params = recipe.positions_params();
    let prior = named_prior(features, &prior_name).map_err(other)?;
    let held = (!held_leaves.is_empty()).then_some(&held_leaves);
    // One line per step on the console: the epochs' figures are in the sidecar
    // and rounds.csv (the final cross-entropy), not printed.
    let fitted = params
        .fit(features, &train_leaves, held, &prior, &Quiet)
        .map_err(other)?;
    let last = fitted.epochs.last().expect("epoch 0 is always reported");
    let fit_figures = FitFigures {
        objective: last.train.cross_entropy,
        iterations: params.epochs,
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut model = fitted.model;
    model.features = features.to_string();
    model
        .save_with_meta(
            model_path,
            false,
            &scored_meta(
                recipe,
                teacher_name,
                l.prior.clone(),
                train_leaves.len() as u64,
                ModelMeta {
                    mu: Some(l.mu),
                    rate: Some(params.rate),
                    epochs: Some(l.epochs as u64),
                    batch: Some(l.batch as u64),
                    anchor_material: Some(l.anchor_material),
                    binary: Some(false),
                    ..ModelMeta::new(&model.features)
                },
            ),
        )
        .map_err(io_at(model_path))?;
    Ok(PositionsFigures {
        extract,
        fit: fit_figures,
    })
}

/// Learns round `round`'s model with the ranking learner on the training
/// games (`docs/ranking.md`): the recipe's `[learner]` gives the step rule,
/// the leaf, λ and the prior (`previous` is the previous round's model, or
/// material in round 1); the ply range is `skip_plies..[labels] max_plies`.
pub fn ranking_round(
    recipe: &Recipe,
    features: &Features,
    train: &[Game],
    previous: Option<&Path>,
    model_path: &Path,
) -> Result<PositionsFigures, PipelineError> {
    let l = &recipe.learner;
    let start = Instant::now();
    let mut p = recipe.ranking_params();
    let prior = match (l.prior.as_str(), previous) {
        ("previous", Some(m)) => m.display().to_string(),
        ("previous", None) => "material".to_string(),
        (name, _) => name.to_string(),
    };
    if prior != "zero" {
        p = p
            .named_prior(features, &prior, l.anchor_material)
            .map_err(PipelineError::Other)?;
    }
    let params = linfa::ParamGuard::check(p).map_err(other)?;
    let fitted = params.fit(features, train, &[], &Quiet).map_err(other)?;
    let last = fitted.epochs.last().expect("at least one epoch");
    let extract = ExtractFigures {
        labeller: "ranking".to_string(),
        train_games: train.len(),
        heldout_games: 0,
        rows: last.train.positions,
        nonzeros: 0,
        seconds: 0.0,
    };
    let fit_figures = FitFigures {
        objective: last.objective_per_position(),
        iterations: fitted.epochs.len(),
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut model = fitted.model;
    model.features = features.to_string();
    model
        .save_with_meta(
            model_path,
            false,
            &ModelMeta {
                leaf: Some(params.leaf_kind().name().into()),
                prior: Some(prior),
                anchor_material: Some(l.anchor_material),
                top1: Some(last.train.top1_rate()),
                binary: Some(false),
                ..params.meta(&model.features)
            },
        )
        .map_err(io_at(model_path))?;
    Ok(PositionsFigures {
        extract,
        fit: fit_figures,
    })
}
