//! Model files: liblinear's text format (so `liblinear-predict` reads ours and
//! we read its) and a compact binary form for the engine.
//!
//! Text: see `docs/formats.md` ("The text model"); weights are printed
//! as C's `%.17g` so our files are byte-identical to liblinear's.
//! Binary (little-endian): magic `KFLM`, version `u32` = 1, feature-set name
//! (`u32` length + UTF-8), `nr_feature` `u32`, bias `f64`, bias weight `f32`,
//! layout `u8` (0 dense: `nr_feature` × `f32`; 1 sparse: count `u32`, then
//! count × (`u32` 0-based index, `f32` weight)). Sparse is chosen when fewer
//! than half the weights are nonzero. Then, optionally (written by
//! [`Model::save_with_meta`]), the meta section: `META`, `u32` length, the
//! sidecar's TOML (UTF-8), so a `.bin` alone knows its feature set and options;
//! readers that predate it ignore bytes after the weights, and files without
//! it still load.
//! A sidecar `MODEL.meta.toml` keeps the feature-set name and the options.
//!
//! Sizes are checked before they are believed, so a damaged or hostile file gives
//! an error naming the file and the line (text) or byte offset (binary), never a
//! huge allocation:
//! - `nr_feature` (text or binary) is at most [`MAX_FEATURES`];
//! - a text model has exactly `nr_feature` weights (plus the bias weight when
//!   `bias >= 0`) after `w`, no fewer and no more;
//! - a binary model's counts × their sizes fit in the bytes that remain.
//!
//! A model and its sidecar are one unit ([`Model::load`] checks them together):
//! - the sidecar's `features` must name a known feature set, whose dimension is at
//!   least the model's `nr_feature` (a model cannot have weights for features its
//!   set does not have);
//! - a sidecar `nr_feature` key, when present, must equal the model's;
//! - a binary model's sidecar, when present, must name the header's feature set;
//!   without a sidecar, the meta section inside the binary is checked instead;
//! - a sidecar `model_hash` (FNV-1a 64 of the model file's bytes, written by
//!   [`Model::save_with_meta`]) must match the model file: the pair is written
//!   as two temporary files renamed sidecar first, model last, so a crash
//!   between the renames leaves a new sidecar beside the old model and the
//!   new model complete in `MODEL.tmp`: [`Model::load`] then finishes the
//!   save (renames `MODEL.tmp`) and reads the new pair. Any other mismatch is
//!   refused at load instead of being read as one model.

mod binary;
mod meta;
mod sidecar;
#[cfg(test)]
mod tests;
mod text;

use std::io;
use std::path::{Path, PathBuf};

pub use crate::files::{toml_string, write_atomic, MAX_FEATURES};
use binary::MAGIC;
pub use meta::{f32_as_written, ModelMeta, Seed};
use sidecar::{check_model_hash, finish_interrupted_save};
pub use sidecar::{meta_path, set_grain, write_meta};
pub use text::{format_g, format_g17};

/// Centipawns per unit of a model's output: labels are centipawns / this, and
/// a model evaluates as `clamp(prediction × this)` (the engine's `EvalScale`
/// default). One definition for the learners, the rows and the engine.
pub const LABEL_SCALE: i32 = 10_000;

/// A linear regression model: `y = w · x (+ w_b * bias when bias >= 0)`.
#[derive(Debug, Clone, PartialEq)]
pub struct Model {
    /// liblinear's solver name (`L2R_L2LOSS_SVR`, `L2R_L2LOSS_SVR_DUAL`, ...).
    pub solver_type: String,
    /// Weight of feature index `j + 1` at `w[j]`; `w.len()` is `nr_feature`.
    pub w: Vec<f64>,
    /// The constant feature value (`-B`); negative means no bias term.
    pub bias: f64,
    /// The bias weight (0 when there is no bias term).
    pub bias_weight: f64,
    /// The feature set the model was trained on (from the sidecar / binary header).
    pub features: String,
}

/// A model file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// I/O failure.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// Malformed content.
    #[error("{path}: {message}")]
    Format {
        /// The file.
        path: PathBuf,
        /// What was expected.
        message: String,
    },
}

impl Model {
    /// liblinear's `nr_feature`.
    pub fn nr_feature(&self) -> usize {
        self.w.len()
    }

    /// Predicts one row given as ascending `(0-based column, value)` pairs,
    /// summing in the row's order in `f64` like liblinear-predict; columns
    /// beyond the model are ignored.
    pub fn predict_row(&self, indices: &[u32], values: &[f32]) -> f64 {
        let mut sum = 0.0;
        for (&j, &v) in indices.iter().zip(values) {
            if let Some(&wj) = self.w.get(j as usize) {
                sum += wj * v as f64;
            }
        }
        if self.bias >= 0.0 {
            sum += self.bias_weight * self.bias;
        }
        sum
    }

    /// Loads a model, text or binary (detected by the magic), with one read.
    /// A text model picks up its feature-set name from `MODEL.meta.toml`.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        Model::load_with_meta(path).map(|(model, _)| model)
    }

    /// [`Model::load`], with the meta it was checked against: its sidecar,
    /// else the META section a binary model carries (`None`: neither).
    pub fn load_with_meta(path: &Path) -> Result<(Model, Option<ModelMeta>), ModelError> {
        let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let text = std::fs::read_to_string(meta_path(path)).ok();
        let meta = text
            .as_deref()
            .map(|t| parse_meta(&meta_path(path), t))
            .transpose()?;
        let bytes = finish_interrupted_save(path, bytes, meta.as_ref())?;
        Model::from_parts(path, &bytes, meta)
    }

    /// Reads a model, text or binary (detected by the magic), from the bytes of
    /// `path` and the text of its sidecar (`None`: no sidecar), with every check of
    /// [`Model::load`]; `path` is used in messages only.
    pub fn from_bytes(path: &Path, bytes: &[u8], meta: Option<&str>) -> Result<Model, ModelError> {
        let meta = meta.map(|t| parse_meta(&meta_path(path), t)).transpose()?;
        Model::from_parts(path, bytes, meta).map(|(model, _)| model)
    }

    /// [`Model::from_bytes`] with the sidecar read.
    fn from_parts(
        path: &Path,
        bytes: &[u8],
        meta: Option<ModelMeta>,
    ) -> Result<(Model, Option<ModelMeta>), ModelError> {
        check_model_hash(path, bytes, meta.as_ref())?;
        if bytes.starts_with(MAGIC) {
            let (model, end) = Model::read_binary(path, bytes)?;
            // Without a sidecar, the meta the binary carries is checked instead.
            let meta = match meta {
                None if end < bytes.len() => Model::binary_meta(path, bytes)?
                    .map(|text| parse_meta(path, &text))
                    .transpose()?,
                given => given,
            };
            if let Some(f) = meta.as_ref().and_then(|m| m.features.as_deref()) {
                if f != model.features {
                    return Err(ModelError::Format {
                        path: meta_path(path),
                        message: format!(
                            "features = \"{f}\" disagrees with the binary model's header ({})",
                            model.features
                        ),
                    });
                }
            }
            model.check_meta(path, meta.as_ref())?;
            return Ok((model, meta));
        }
        let text = std::str::from_utf8(bytes).map_err(|_| ModelError::Format {
            path: path.to_path_buf(),
            message: "neither a binary model nor UTF-8 text".into(),
        })?;
        let mut model = Model::from_text(path, text)?;
        if let Some(f) = meta.as_ref().and_then(|m| m.features.as_ref()) {
            model.features = f.clone();
        }
        model.check_meta(path, meta.as_ref())?;
        Ok((model, meta))
    }

    /// The model against its feature set and sidecar (see the module docs).
    fn check_meta(&self, path: &Path, meta: Option<&ModelMeta>) -> Result<(), ModelError> {
        let refuse = |message: String| ModelError::Format {
            path: meta_path(path),
            message: format!("{message}: the model and its sidecar do not belong together"),
        };
        if let Some(n) = meta.and_then(|m| m.nr_feature) {
            if n != self.nr_feature() as u64 {
                return Err(refuse(format!(
                    "nr_feature = {n} but {} has nr_feature {}",
                    path.display(),
                    self.nr_feature()
                )));
            }
        }
        if self.features.trim().is_empty() {
            return Ok(());
        }
        let features: crate::features::Features = self
            .features
            .parse()
            .map_err(|e| refuse(format!("features = \"{}\": {e}", self.features)))?;
        let dimension = crate::features::FeatureSet::dimension(&features) as usize;
        if self.nr_feature() > dimension {
            return Err(refuse(format!(
                "features = \"{}\" has dimension {dimension} but {} has nr_feature {}",
                self.features,
                path.display(),
                self.nr_feature()
            )));
        }
        Ok(())
    }
}

/// A sidecar's TOML read, or an error naming `path` (the sidecar, or the
/// binary model whose META section it is).
fn parse_meta(path: &Path, text: &str) -> Result<ModelMeta, ModelError> {
    ModelMeta::parse(text).map_err(|e| ModelError::Format {
        path: path.to_path_buf(),
        message: format!("not a model sidecar: {e}"),
    })
}
