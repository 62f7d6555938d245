//! The `positions` learner as a round step: score the training games'
//! positions with a search (material, or the previous round's model), learn
//! at their quiescence leaves, write the model with its sidecar.

use std::path::Path;
use std::time::Instant;

use super::recipe::Recipe;
use super::run::{io_at, other, ExtractFigures, FitFigures, PipelineError};
use crate::eval::{DynEvaluator, EvalChoice, Material};
use crate::features::Features;
use crate::model::{toml_string, write_meta, Model};
use crate::record::Game;
use crate::train::positions::{
    fit, material_prior, model_prior, samples_from_games, Leaves, PositionsParams,
};

/// What the positions step measured: the "extract" part (teacher scores and
/// leaves) and the fit.
pub struct PositionsFigures {
    /// Positions scored, with the teacher's name as the labeller.
    pub extract: ExtractFigures,
    /// The learner's final training cross-entropy and epochs.
    pub fit: FitFigures,
}

/// The recipe's `[learner]` as checked parameters.
pub fn params(recipe: &Recipe) -> PositionsParams {
    let l = &recipe.learner;
    PositionsParams {
        epochs: l.epochs,
        batch: l.batch,
        rate: l.rate,
        final_rate: None,
        lambda: l.result_weight,
        eval_k: l.eval_k,
        mu: l.mu,
        anchor_material: l.anchor_material,
        seed: 1,
    }
}

/// Learns round `round`'s model into `model_path` (sidecar first, then the model).
/// `previous` is the previous round's model, if any.
pub fn positions_round(
    recipe: &Recipe,
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
    let prior = match (l.prior.as_str(), previous) {
        ("previous", Some(p)) => model_prior(features, &Model::load(p).map_err(other)?),
        _ => material_prior(features),
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
    let train_leaves = score(train);
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
    let params = params(recipe);
    let held = (!held_leaves.is_empty()).then_some(&held_leaves);
    // One line per step on the console: the epochs' figures are in the sidecar
    // and rounds.csv (the final cross-entropy), not printed.
    let fitted = fit(features, &train_leaves, held, &prior, &params, |_| {}).map_err(other)?;
    let last = fitted.epochs.last().expect("epoch 0 is always reported");
    let fit_figures = FitFigures {
        objective: last.train.cross_entropy,
        iterations: params.epochs,
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut model = fitted.model;
    model.features = features.to_string();
    write_meta(
        model_path,
        &model.features,
        &[
            ("method", toml_string("positions")),
            ("teacher", toml_string(&teacher_name)),
            ("teacher_depth", l.teacher_depth.to_string()),
            ("result_weight", format!("{:?}", l.result_weight)),
            ("eval_k", format!("{:?}", l.eval_k)),
            ("mu", format!("{:?}", l.mu)),
            ("rate", format!("{:?}", l.rate)),
            ("epochs", l.epochs.to_string()),
            ("batch", l.batch.to_string()),
            ("prior", toml_string(&l.prior)),
            ("anchor_material", l.anchor_material.to_string()),
            ("positions", train_leaves.len().to_string()),
            ("binary", "false".into()),
        ],
    )
    .map_err(io_at(&crate::model::meta_path(model_path)))?;
    model.save(model_path, false).map_err(io_at(model_path))?;
    Ok(PositionsFigures {
        extract,
        fit: fit_figures,
    })
}
