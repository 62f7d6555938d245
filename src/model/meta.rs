//! [`ModelMeta`], what a model's sidecar `MODEL.meta.toml` (and a binary
//! model's META section) says: the one struct every writer fills and every
//! reader parses, so no sidecar is quoted or split by hand.
//!
//! Every key but `features` is optional. The file is flat TOML, one `key =
//! value` a line in the order of the fields below; floats are written as
//! Rust's `{:?}` prints them (the shortest text that reads back the same
//! number: `0.1`, `1e-6`, `2.0`), strings as TOML basic strings. Besides
//! kifulearn's own keys, the keys `scripts/liblinear_io.py` (scikit-learn,
//! Spark) and `scripts/liblinear_fit.sh` write are modelled (`alpha`,
//! `reg_param`, `label_std`, `rows`, `master`; `data` as one string); any
//! other key is accepted and not kept.

use std::fmt::Write as _;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::files::toml_string;

/// A model's sidecar (see the module docs); [`ModelMeta::new`] then the
/// fields a learner knows, [`ModelMeta::to_toml`] to write, [`ModelMeta::parse`]
/// to read.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ModelMeta {
    /// The feature set the weights index (`relation`, `material,kp`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub features: Option<String>,
    /// The learner: `positions`, `ranking`, `streaming` (none: the SVR).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub method: Option<String>,
    /// The SVR's solver as liblinear names it, or the peer's fitter.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub solver: Option<String>,
    /// The positions learner's teacher (`material`, a model, `usi:...`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teacher: Option<String>,
    /// The teacher's search depth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub teacher_depth: Option<u32>,
    /// The positions learner's weight of the game result (λ).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub result_weight: Option<f64>,
    /// The positions learner's sigmoid scale.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub eval_k: Option<f64>,
    /// The positions learner's L2 strength.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mu: Option<f64>,
    /// The ranking learner's step rule.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub optimizer: Option<String>,
    /// The learning rate.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// The ranking learner's window.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub window: Option<f64>,
    /// The ranking learner's L2 strength.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub lambda: Option<f64>,
    /// The streaming learner's minimum frequency.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_frequency: Option<u32>,
    /// The streaming learner's weight bound.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bound: Option<f64>,
    /// The SVR's cost C.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// The SVR's tube ε.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p: Option<f64>,
    /// The SVR's stopping tolerance.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    /// The SVR's bias feature value (negative: none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bias: Option<f64>,
    /// The SVR's iteration cap.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_iterations: Option<u64>,
    /// Passes over the data.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epochs: Option<u64>,
    /// The positions learner's batch size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch: Option<u64>,
    /// Games (files) per update.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub batch_games: Option<u64>,
    /// The shuffling seed (`sorted`: the streaming learner's files in order).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<Seed>,
    /// Plies left out at the start of each game (ranking).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_opening: Option<u64>,
    /// Plies left out at the start of each game (positions).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_plies: Option<u64>,
    /// Plies past which positions are not used.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_plies: Option<u64>,
    /// The ranking learner's leaf (`sibling` is not written).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub leaf: Option<String>,
    /// The streamed positions fit's chunk size.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub chunk: Option<u64>,
    /// The prior the weights start from (`zero`, `material`, a model).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prior: Option<String>,
    /// Whether the prior's material weights were held.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub anchor_material: Option<bool>,
    /// Positions learned from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub positions: Option<u64>,
    /// Rows learned from (the peers).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rows: Option<u64>,
    /// Iterations the solver made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub iterations: Option<u64>,
    /// The final objective.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objective: Option<f64>,
    /// The ranking learner's last objective per position.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub objective_per_position: Option<f64>,
    /// The ranking learner's last top-1 agreement.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top1: Option<f64>,
    /// The positions learner's last training cross-entropy.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub train_cross_entropy: Option<f64>,
    /// The streaming learner's last mean squared error.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub mse: Option<f64>,
    /// The streaming learner's mean squared error of each epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub epoch_mse: Option<Vec<f64>>,
    /// scikit-learn's `Ridge` α (`scripts/sklearn_fit.py`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    /// Spark's `regParam` (`scripts/spark/fit_l2.py`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reg_param: Option<f64>,
    /// The labels' standard deviation Spark scaled by.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub label_std: Option<f64>,
    /// The Spark master the fit ran on.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub master: Option<String>,
    /// Whether the model file is the binary form.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binary: Option<bool>,
    /// The files learned from (one string, as `scripts/liblinear_fit.sh`
    /// writes it, reads as a list of one).
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "one_or_many"
    )]
    pub data: Option<Vec<String>>,
    /// Whether hand-piece worth was made non-increasing.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub monotone_hand: Option<bool>,
    /// The grain in centipawns the engine rounds the model's values to when
    /// it plays it (`usi`, `match`, a recipe's `[match] grain`; USI
    /// `EvalGrain 0` means this). Unset: 1, not rounded. Learners and
    /// labellers read the model unrounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub grain: Option<u32>,
    /// The model's `nr_feature`, checked at load when present.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nr_feature: Option<u64>,
    /// FNV-1a 64 of the model file's bytes (`Model::save_with_meta`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_hash: Option<String>,
}

/// A seed as a sidecar records it: a number, or `sorted` (the streaming
/// learner without a seed). A number past TOML's `i64` is written as a string.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Seed(pub Option<u64>);

impl Serialize for Seed {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self.0 {
            None => s.serialize_str("sorted"),
            Some(n) => match i64::try_from(n) {
                Ok(n) => s.serialize_i64(n),
                Err(_) => s.serialize_str(&n.to_string()),
            },
        }
    }
}

impl<'de> Deserialize<'de> for Seed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Raw {
            Number(u64),
            Text(String),
        }
        match Raw::deserialize(d)? {
            Raw::Number(n) => Ok(Seed(Some(n))),
            Raw::Text(t) if t == "sorted" => Ok(Seed(None)),
            Raw::Text(t) => t
                .parse()
                .map(|n| Seed(Some(n)))
                .map_err(|_| serde::de::Error::custom(format!("seed = {t:?}: not a number"))),
        }
    }
}

fn one_or_many<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<String>>, D::Error> {
    #[derive(Deserialize)]
    #[serde(untagged)]
    enum Raw {
        One(String),
        Many(Vec<String>),
    }
    Ok(Some(match Raw::deserialize(d)? {
        Raw::One(s) => vec![s],
        Raw::Many(v) => v,
    }))
}

/// An `f32` as the `f64` with the same shortest decimal text, so a sidecar
/// shows `0.01`, the number that was given, not `0.009999999776482582`.
pub fn f32_as_written(x: f32) -> f64 {
    format!("{x:?}").parse().unwrap_or(f64::from(x))
}

impl ModelMeta {
    /// A sidecar naming the feature set and nothing else.
    pub fn new(features: &str) -> Self {
        Self {
            features: Some(features.to_string()),
            ..Self::default()
        }
    }

    /// Reads a sidecar's TOML.
    pub fn parse(text: &str) -> Result<Self, String> {
        toml::from_str(text).map_err(|e| e.to_string().trim_end().to_string())
    }

    /// The sidecar's TOML: `key = value` lines in field order. A count past
    /// TOML's `i64` (an iteration cap of `u64::MAX`) is an error, not a file
    /// that no reader takes.
    pub fn to_toml(&self) -> std::io::Result<String> {
        // toml_edit keeps the fields' order (toml::Table would sort them);
        // the values are then written here, floats as `{:?}` prints them.
        let doc = toml_edit::ser::to_document(self).map_err(|e| {
            std::io::Error::new(std::io::ErrorKind::InvalidInput, format!("sidecar: {e}"))
        })?;
        let mut s = String::new();
        for (key, item) in doc.as_table().iter() {
            let value = item.as_value().expect("every field is a plain value");
            let _ = writeln!(s, "{key} = {}", value_text(value));
        }
        Ok(s)
    }

    /// The files as given, as the `data` list.
    pub fn data_files<'a>(
        mut self,
        files: impl IntoIterator<Item = &'a std::path::PathBuf>,
    ) -> Self {
        self.data = Some(files.into_iter().map(|f| f.display().to_string()).collect());
        self
    }
}

fn value_text(value: &toml_edit::Value) -> String {
    use toml_edit::Value;
    match value {
        Value::String(s) => toml_string(s.value()),
        Value::Integer(i) => i.value().to_string(),
        Value::Float(f) => float_text(*f.value()),
        Value::Boolean(b) => b.value().to_string(),
        Value::Array(a) => {
            let items: Vec<String> = a.iter().map(value_text).collect();
            format!("[{}]", items.join(", "))
        }
        other => other.to_string(),
    }
}

/// `{:?}`, which TOML reads back as the same number; TOML's words for the
/// values it has no digits for.
fn float_text(x: f64) -> String {
    match x {
        x if x.is_nan() => "nan".into(),
        f64::INFINITY => "inf".into(),
        f64::NEG_INFINITY => "-inf".into(),
        x => format!("{x:?}"),
    }
}
