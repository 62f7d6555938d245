//! Choosing an evaluator at run time: the built-in material evaluator or a model file.
//!
//! This is the one trait-object boundary between the command line, USI options
//! and recipes on one side and the monomorphized search and labeller on the
//! other: the choice is made once, the hot paths see one concrete type.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{Accumulator, EngineModel, Evaluator, Grained, Linear, Material};
use crate::features::Features;
use crate::model::{Model, ModelMeta};
use crate::shogi::{Move, Position};

/// Which evaluator to use.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EvalChoice {
    /// The built-in material evaluator.
    Material,
    /// A model file (liblinear text or kifulearn binary, with its feature set).
    Model(PathBuf),
}

impl EvalChoice {
    /// The name that selects [`EvalChoice::Material`]: every `--evaluator`'s
    /// default.
    pub const MATERIAL: &'static str = "material";

    /// `material` (any case) or empty selects [`EvalChoice::Material`]; anything else is a path.
    pub fn parse(text: &str) -> Self {
        let t = text.trim();
        if t.is_empty() || t.eq_ignore_ascii_case(Self::MATERIAL) || t == "<empty>" {
            EvalChoice::Material
        } else {
            EvalChoice::Model(PathBuf::from(t))
        }
    }

    /// The name shown in reports and USI options.
    pub fn name(&self) -> String {
        match self {
            EvalChoice::Material => Self::MATERIAL.to_string(),
            EvalChoice::Model(p) => p.display().to_string(),
        }
    }
}

/// An evaluator chosen at run time.
#[derive(Clone)]
pub struct DynEvaluator(Arc<dyn Evaluator + Send + Sync>);

impl DynEvaluator {
    /// `eval`, chosen at run time (an evaluator of one's own in the USI
    /// engine or a match, beside those [`load_evaluator`] builds).
    pub fn new(eval: impl Evaluator + Send + 'static) -> Self {
        Self(Arc::new(eval))
    }
}

impl Evaluator for DynEvaluator {
    #[inline]
    fn evaluate(&self, pos: &Position) -> i32 {
        self.0.evaluate(pos)
    }

    #[inline]
    fn value_after(&self, pos: &Position, mv: Move) -> Option<i32> {
        self.0.value_after(pos, mv)
    }

    crate::eval::forward_sums!(0);

    #[inline]
    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        self.0.evaluate_from(pos, acc)
    }
}

/// Builds the evaluator `choice` names.
pub fn load_evaluator(choice: &EvalChoice) -> Result<DynEvaluator, String> {
    match choice {
        EvalChoice::Material => Ok(DynEvaluator::new(Material)),
        EvalChoice::Model(path) => Ok(DynEvaluator::new(load_linear(path)?)),
    }
}

/// Builds the evaluator `choice` names as the engine plays it: a model
/// read in integers with its sums updated by the move ([`EngineModel`]),
/// its values rounded to the grain its meta names ([`ModelMeta::grain`]).
/// For matches and recipes' matches; labellers and learners read models
/// with [`load_evaluator`], whose values their rows are pinned to.
pub fn load_engine_evaluator(choice: &EvalChoice) -> Result<DynEvaluator, String> {
    let (eval, grain) = load_engine_parts(choice)?;
    Ok(if grain > 1 {
        DynEvaluator::new(Grained::new(eval, grain as i32))
    } else {
        eval
    })
}

/// [`load_engine_evaluator`] in two parts: the evaluator unrounded and the
/// grain its meta names (1: none). The USI engine rounds by its `EvalGrain`
/// option, whose default 0 takes this grain.
pub fn load_engine_parts(choice: &EvalChoice) -> Result<(DynEvaluator, u32), String> {
    match choice {
        EvalChoice::Material => Ok((DynEvaluator::new(Material), 1)),
        EvalChoice::Model(path) => {
            let (linear, meta) = load_linear_with_meta(path)?;
            let grain = meta.and_then(|m| m.grain).unwrap_or(1).max(1);
            Ok((DynEvaluator::new(EngineModel::new(&linear)), grain))
        }
    }
}

/// Loads a model file as a [`Linear`] evaluator over its feature set, with the
/// default label scale (10000 centipawns per unit of output).
///
/// The feature set comes from the binary header or the text model's
/// `MODEL.meta.toml` sidecar; a model from `liblinear-train` needs a sidecar
/// with one line, `features = "relation"` (or the set it was trained on).
pub fn load_linear(path: &Path) -> Result<Linear<Features>, String> {
    load_linear_with_meta(path).map(|(linear, _)| linear)
}

/// [`load_linear`], with the model's meta ([`Model::load_with_meta`]).
fn load_linear_with_meta(path: &Path) -> Result<(Linear<Features>, Option<ModelMeta>), String> {
    if path.to_string_lossy().starts_with("usi:") && !path.exists() {
        return Err(format!(
            "{}: expected `material` or a model file; a USI engine plays in `match` \
             (--engine-a/-b usi:COMMAND) and scores positions through --teacher-usi",
            path.display()
        ));
    }
    let (model, meta) = Model::load_with_meta(path).map_err(|e| e.to_string())?;
    if model.features.trim().is_empty() {
        return Err(format!(
            "{}: the model does not name its feature set: write {} with a line features = \"relation\" (or the set it was trained on)",
            path.display(),
            crate::model::meta_path(path).display()
        ));
    }
    let features: Features = model
        .features
        .parse()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    let dimension = crate::features::FeatureSet::dimension(&features) as usize;
    if model.w.len() > dimension {
        return Err(format!(
            "{}: the model has {} weights but feature set {} has dimension {dimension}",
            path.display(),
            model.w.len(),
            model.features
        ));
    }
    let mut linear = Linear::new(features, model.w.iter().map(|&w| w as f32).collect());
    if model.bias >= 0.0 {
        linear.bias = (model.bias * model.bias_weight) as f32;
    }
    Ok((linear, meta))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_model_file_becomes_a_linear_evaluator() {
        let dir = std::env::temp_dir().join(format!("kifulearn-choice-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        // Material set: index 1 = view side's pawns on the board, 15 = the other side's.
        let mut w = vec![0.0; 104];
        w[0] = 0.01;
        w[14] = -0.01;
        let model = Model {
            solver_type: "L2R_L2LOSS_SVR".into(),
            w,
            bias: -1.0,
            bias_weight: 0.0,
            features: "material".into(),
        };
        let path = dir.join("m.model");
        model.save(&path, false).unwrap();
        let no_meta = load_evaluator(&EvalChoice::Model(path.clone()))
            .err()
            .unwrap();
        assert!(
            no_meta.contains("does not name its feature set"),
            "{no_meta}"
        );
        crate::model::write_meta(&path, &crate::model::ModelMeta::new("material")).unwrap();
        let eval = load_evaluator(&EvalChoice::parse(path.to_str().unwrap())).unwrap();
        let mut pos = Position::startpos();
        assert_eq!(eval.evaluate(&pos), 0);
        for mv in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "2b3c", "4e3d"] {
            pos.play_usi(mv).unwrap();
        }
        // White to move, one pawn down: (8 − 9) × 0.01 × 10000.
        assert_eq!(eval.evaluate(&pos), -100);
        let bin = dir.join("m.bin");
        Model::load(&path).unwrap().save(&bin, true).unwrap();
        assert_eq!(
            load_evaluator(&EvalChoice::Model(bin))
                .unwrap()
                .evaluate(&pos),
            -100
        );
        // A grain in the sidecar: the engine's reading rounds (−100 to the
        // nearest multiple of 16), the learners' does not.
        crate::model::set_grain(&path, 16).unwrap();
        let choice = EvalChoice::Model(path.clone());
        assert_eq!(load_engine_evaluator(&choice).unwrap().evaluate(&pos), -96);
        assert_eq!(load_engine_parts(&choice).unwrap().1, 16);
        assert_eq!(load_evaluator(&choice).unwrap().evaluate(&pos), -100);
        std::fs::remove_dir_all(&dir).ok();
    }
}
