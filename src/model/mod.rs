//! Model files: liblinear's text format (so `liblinear-predict` reads ours and
//! we read its) and a compact binary form for the engine.
//!
//! Text: see `../shared/tools/LIBLINEAR_MODEL_FORMAT.md`; weights are printed
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

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

const MAGIC: &[u8; 4] = b"KFLM";
/// Tag of the binary model's meta section (after the weights).
const META_TAG: &[u8; 4] = b"META";
const VERSION: u32 = 1;

/// The largest number of features (`nr_feature`, the largest 1-based libsvm index)
/// any file may declare: 2^27 = 134,217,728, over twice the dimension of the
/// largest combination of feature sets (`relation,relation-typed,material,kp`,
/// 57,317,208), and 1 GB per `f64` weight vector. A count beyond it is a
/// damaged file, not a model.
pub const MAX_FEATURES: usize = 1 << 27;

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

    /// liblinear's text model.
    pub fn to_text(&self) -> String {
        let mut s = String::with_capacity(self.w.len() * 24 + 100);
        let _ = write!(
            s,
            "solver_type {}\nnr_class 2\nnr_feature {}\nbias {}\nw\n",
            self.solver_type,
            self.w.len(),
            format_g17(self.bias)
        );
        for &w in &self.w {
            s.push_str(&format_g17(w));
            s.push_str(" \n");
        }
        if self.bias >= 0.0 {
            s.push_str(&format_g17(self.bias_weight));
            s.push_str(" \n");
        }
        s
    }

    /// Reads liblinear's text model the way its `load_model` does: header keys
    /// in any order up to `w`, then whitespace-separated weights.
    pub fn from_text(path: &Path, text: &str) -> Result<Model, ModelError> {
        let err = |message: String| ModelError::Format {
            path: path.to_path_buf(),
            message,
        };
        // The line of a token of `text` (tokens are slices of it).
        let line_of = |token: &str| {
            let at = (token.as_ptr() as usize).saturating_sub(text.as_ptr() as usize);
            1 + text.as_bytes()[..at.min(text.len())]
                .iter()
                .filter(|&&b| b == b'\n')
                .count()
        };
        let mut tokens = text.split_ascii_whitespace();
        let (mut solver, mut nr_feature, mut bias, mut nr_class) = (None, None, None, None);
        let mut nr_feature_line = 0;
        let (w_line, w_at) = loop {
            let key = tokens
                .next()
                .ok_or_else(|| err("no \"w\" line before the end of the file".into()))?;
            let mut value = |what: &str| {
                tokens
                    .next()
                    .ok_or_else(|| err(format!("expected a value after \"{what}\"")))
            };
            match key {
                "w" => break (line_of(key), key.as_ptr() as usize - text.as_ptr() as usize),
                "solver_type" => solver = Some(value(key)?.to_string()),
                "nr_class" => nr_class = Some(value(key)?.to_string()),
                "nr_feature" => {
                    let v = value(key)?;
                    nr_feature_line = line_of(v);
                    let n = v.parse::<u32>().map_err(|_| {
                        err(format!(
                            "line {nr_feature_line}: found \"{v}\", expected a feature count after nr_feature"
                        ))
                    })?;
                    if n as usize > MAX_FEATURES {
                        return Err(err(format!(
                            "line {nr_feature_line}: nr_feature {n} is beyond the limit of {MAX_FEATURES} features"
                        )));
                    }
                    nr_feature = Some(n)
                }
                "bias" => {
                    let v = value(key)?;
                    bias =
                        Some(v.parse::<f64>().map_err(|_| {
                            err(format!("found \"{v}\", expected a number after bias"))
                        })?)
                }
                other => return Err(err(format!("unknown text in model file: \"{other}\""))),
            }
        };
        let solver = solver.ok_or_else(|| err("missing solver_type".into()))?;
        if !solver.contains("SVR") {
            return Err(err(format!(
                "solver_type {solver} is not a regression model (expected L2R_L2LOSS_SVR or an SVR dual)"
            )));
        }
        if nr_class.as_deref() != Some("2") {
            return Err(err("expected nr_class 2 for a regression model".into()));
        }
        let n = nr_feature.ok_or_else(|| err("missing nr_feature".into()))? as usize;
        let bias = bias.ok_or_else(|| err("missing bias".into()))?;
        let total = n + usize::from(bias >= 0.0);
        // Each weight takes at least two bytes (a digit and a separator): never
        // reserve more than the rest of the file can hold.
        let room = text.len().saturating_sub(w_at) / 2 + 1;
        let mut w = Vec::with_capacity(total.min(room));
        for k in 0..total {
            let t = tokens.next().ok_or_else(|| {
                err(format!(
                    "line {nr_feature_line}: nr_feature {n}{} needs {total} weights after \"w\" (line {w_line}), the file has {k}",
                    if bias >= 0.0 { " and the bias" } else { "" }
                ))
            })?;
            w.push(t.parse::<f64>().map_err(|_| {
                err(format!(
                    "line {}: found \"{t}\", expected weight {}",
                    line_of(t),
                    k + 1
                ))
            })?);
        }
        if let Some(t) = tokens.next() {
            return Err(err(format!(
                "line {}: found \"{t}\" after the {total} weights that nr_feature {n} (line {nr_feature_line}) announces",
                line_of(t)
            )));
        }
        let bias_weight = if bias >= 0.0 {
            w.pop().unwrap_or(0.0)
        } else {
            0.0
        };
        Ok(Model {
            solver_type: solver,
            w,
            bias,
            bias_weight,
            features: String::new(),
        })
    }

    /// The compact binary form (see the module docs).
    pub fn to_binary(&self) -> Vec<u8> {
        let nonzero = self.w.iter().filter(|&&w| w as f32 != 0.0).count();
        let sparse = nonzero * 2 < self.w.len();
        let mut b =
            Vec::with_capacity(32 + self.features.len() + 8 * nonzero.max(self.w.len() / 2));
        b.extend_from_slice(MAGIC);
        b.extend_from_slice(&VERSION.to_le_bytes());
        b.extend_from_slice(&(self.features.len() as u32).to_le_bytes());
        b.extend_from_slice(self.features.as_bytes());
        b.extend_from_slice(&(self.w.len() as u32).to_le_bytes());
        b.extend_from_slice(&self.bias.to_le_bytes());
        b.extend_from_slice(&(self.bias_weight as f32).to_le_bytes());
        if sparse {
            b.push(1);
            b.extend_from_slice(&(nonzero as u32).to_le_bytes());
            for (j, &w) in self.w.iter().enumerate() {
                if w as f32 != 0.0 {
                    b.extend_from_slice(&(j as u32).to_le_bytes());
                    b.extend_from_slice(&(w as f32).to_le_bytes());
                }
            }
        } else {
            b.push(0);
            for &w in &self.w {
                b.extend_from_slice(&(w as f32).to_le_bytes());
            }
        }
        b
    }

    /// The binary form with the meta section holding `meta` (the sidecar's TOML).
    pub fn to_binary_with_meta(&self, meta: &str) -> Vec<u8> {
        let mut b = self.to_binary();
        b.extend_from_slice(META_TAG);
        b.extend_from_slice(&(meta.len() as u32).to_le_bytes());
        b.extend_from_slice(meta.as_bytes());
        b
    }

    /// The meta section of a binary model's bytes: `Ok(None)` when the file
    /// has none (older files), an error when it is there but damaged.
    pub fn binary_meta(path: &Path, bytes: &[u8]) -> Result<Option<String>, ModelError> {
        let (_, end) = Model::read_binary(path, bytes)?;
        let err = |message: String| ModelError::Format {
            path: path.to_path_buf(),
            message,
        };
        let mut r = Cursor { bytes, at: end };
        match r.take(4) {
            None if end == bytes.len() => return Ok(None),
            Some(tag) if tag == META_TAG => {}
            _ => {
                return Err(err(format!(
                    "byte {end}: expected the end of the file or a META section after the weights"
                )))
            }
        }
        let at = r.at;
        let len = r.u32().ok_or_else(|| {
            err(format!(
                "byte {at}: truncated META section: expected its length"
            ))
        })? as usize;
        let at = r.at;
        let text = r.take(len).ok_or_else(|| {
            err(format!(
                "byte {at}: META section of {len} bytes, only {} remain",
                bytes.len() - at
            ))
        })?;
        let text = std::str::from_utf8(text)
            .map_err(|_| err(format!("byte {at}: META section is not UTF-8")))?;
        if r.at != bytes.len() {
            return Err(err(format!("byte {}: bytes after the META section", r.at)));
        }
        Ok(Some(text.to_string()))
    }

    /// Reads the binary form.
    pub fn from_binary(path: &Path, bytes: &[u8]) -> Result<Model, ModelError> {
        Model::read_binary(path, bytes).map(|(model, _)| model)
    }

    /// Reads the binary form; also returns where the weights end.
    fn read_binary(path: &Path, bytes: &[u8]) -> Result<(Model, usize), ModelError> {
        let err = |message: &str| ModelError::Format {
            path: path.to_path_buf(),
            message: message.to_string(),
        };
        let mut r = Cursor { bytes, at: 0 };
        if r.take(4) != Some(MAGIC.as_slice()) {
            return Err(err("not a kifulearn binary model (bad magic)"));
        }
        let size = bytes.len();
        let truncated = |at: usize, what: &str| {
            err(&format!(
                "byte {at}: truncated binary model: expected {what}, the file ends at byte {size}"
            ))
        };
        let version = r.u32().ok_or_else(|| truncated(r.at, "the version"))?;
        if version != VERSION {
            return Err(err(&format!(
                "binary model version {version}, this build reads version {VERSION}"
            )));
        }
        let len = r
            .u32()
            .ok_or_else(|| truncated(r.at, "the feature-set name's length"))?
            as usize;
        let at = r.at;
        let features = std::str::from_utf8(
            r.take(len)
                .ok_or_else(|| truncated(at, &format!("a feature-set name of {len} bytes")))?,
        )
        .map_err(|_| err(&format!("byte {at}: feature-set name is not UTF-8")))?
        .to_string();
        let at = r.at;
        let n = r.u32().ok_or_else(|| truncated(at, "nr_feature"))? as usize;
        if n > MAX_FEATURES {
            return Err(err(&format!(
                "byte {at}: nr_feature {n} is beyond the limit of {MAX_FEATURES} features"
            )));
        }
        let bias = f64::from_le_bytes(
            r.take(8)
                .ok_or_else(|| truncated(r.at, "the bias"))?
                .try_into()
                .unwrap(),
        );
        let bias_weight = r.f32().ok_or_else(|| truncated(r.at, "the bias weight"))? as f64;
        let layout = *r
            .take(1)
            .ok_or_else(|| truncated(r.at, "the weight layout"))?
            .first()
            .unwrap();
        // Counts are checked against the bytes that remain before anything is sized by them.
        let check_room = |at: usize, count: usize, each: usize, what: &str| {
            let remaining = size - at;
            if count.saturating_mul(each) > remaining {
                Err(err(&format!(
                    "byte {at}: {what} {count} needs {} bytes, only {remaining} remain",
                    count.saturating_mul(each)
                )))
            } else {
                Ok(())
            }
        };
        let mut w;
        match layout {
            0 => {
                check_room(r.at, n, 4, "nr_feature")?;
                w = vec![0.0; n];
                for wj in w.iter_mut() {
                    *wj = r.f32().ok_or_else(|| truncated(r.at, "a weight"))? as f64;
                }
            }
            1 => {
                let at = r.at;
                let count = r
                    .u32()
                    .ok_or_else(|| truncated(at, "the count of nonzero weights"))?
                    as usize;
                check_room(r.at, count, 8, "the count of nonzero weights")?;
                w = vec![0.0; n];
                for _ in 0..count {
                    let at = r.at;
                    let j = r.u32().ok_or_else(|| truncated(at, "an index"))? as usize;
                    let v = r.f32().ok_or_else(|| truncated(r.at, "a weight"))?;
                    *w.get_mut(j).ok_or_else(|| {
                        err(&format!(
                            "byte {at}: weight index {j} beyond nr_feature {n}"
                        ))
                    })? = v as f64;
                }
            }
            other => {
                return Err(err(&format!(
                    "byte {}: unknown weight layout {other}",
                    r.at - 1
                )))
            }
        }
        let model = Model {
            solver_type: "L2R_L2LOSS_SVR".into(),
            w,
            bias,
            bias_weight,
            features,
        };
        Ok((model, r.at))
    }

    /// Loads a model, text or binary (detected by the magic), with one read.
    /// A text model picks up its feature-set name from `MODEL.meta.toml`.
    pub fn load(path: &Path) -> Result<Model, ModelError> {
        let bytes = std::fs::read(path).map_err(|source| ModelError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let meta = std::fs::read_to_string(meta_path(path)).ok();
        let bytes = finish_interrupted_save(path, bytes, meta.as_deref())?;
        Model::from_bytes(path, &bytes, meta.as_deref())
    }

    /// Reads a model, text or binary (detected by the magic), from the bytes of
    /// `path` and the text of its sidecar (`None`: no sidecar), with every check of
    /// [`Model::load`]; `path` is used in messages only.
    pub fn from_bytes(path: &Path, bytes: &[u8], meta: Option<&str>) -> Result<Model, ModelError> {
        check_model_hash(path, bytes, meta)?;
        if bytes.starts_with(MAGIC) {
            let (model, end) = Model::read_binary(path, bytes)?;
            // Without a sidecar, the meta the binary carries is checked instead.
            let inside = if meta.is_none() && end < bytes.len() {
                Model::binary_meta(path, bytes)?
            } else {
                None
            };
            let meta = meta.or(inside.as_deref());
            if let Some(f) = meta.and_then(|m| meta_string(m, "features")) {
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
            model.check_meta(path, meta)?;
            return Ok(model);
        }
        let text = std::str::from_utf8(bytes).map_err(|_| ModelError::Format {
            path: path.to_path_buf(),
            message: "neither a binary model nor UTF-8 text".into(),
        })?;
        let mut model = Model::from_text(path, text)?;
        if let Some(f) = meta.and_then(|m| meta_string(m, "features")) {
            model.features = f;
        }
        model.check_meta(path, meta)?;
        Ok(model)
    }

    /// The model against its feature set and sidecar (see the module docs).
    fn check_meta(&self, path: &Path, meta: Option<&str>) -> Result<(), ModelError> {
        let refuse = |message: String| ModelError::Format {
            path: meta_path(path),
            message: format!("{message}: the model and its sidecar do not belong together"),
        };
        if let Some(n) = meta.and_then(|m| meta_value(m, "nr_feature")) {
            if n.parse::<usize>().ok() != Some(self.nr_feature()) {
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

    /// Writes the model and its sidecar as one unit: the sidecar is
    /// `features = "..."`, the `options` (`key = value`, strings already
    /// TOML-quoted) and `model_hash`, the hash of the model file's bytes; a
    /// binary model carries the same TOML (less the hash) in its meta section.
    /// Both go to temporary files first, then the sidecar is renamed, then the
    /// model: a crash leaves the old pair, or a new sidecar beside the old
    /// model, which [`Model::load`] refuses (the hash differs).
    pub fn save_with_meta(
        &self,
        path: &Path,
        binary: bool,
        features: &str,
        options: &[(&str, String)],
    ) -> io::Result<()> {
        self.save_with_meta_text(path, binary, &meta_text(features, options))
    }

    /// [`Model::save_with_meta`] with the sidecar's TOML as written (a
    /// `model_hash` line in it is replaced by this model file's).
    pub fn save_with_meta_text(&self, path: &Path, binary: bool, meta: &str) -> io::Result<()> {
        let meta: String = meta
            .lines()
            .filter(|l| !l.trim_start().starts_with("model_hash"))
            .map(|l| format!("{l}\n"))
            .collect();
        let bytes = if binary {
            self.to_binary_with_meta(&meta)
        } else {
            self.to_text().into_bytes()
        };
        let sidecar = format!(
            "{meta}model_hash = {}\n",
            toml_string(&crate::libsvm::dataset::Fnv64::hex_of(&bytes))
        );
        let model_tmp = tmp_path(path);
        let meta_file = meta_path(path);
        let meta_tmp = tmp_path(&meta_file);
        std::fs::write(&model_tmp, &bytes)?;
        std::fs::write(&meta_tmp, sidecar)?;
        std::fs::rename(&meta_tmp, &meta_file)?;
        std::fs::rename(&model_tmp, path)
    }

    /// Writes the model (text or binary) through a temporary name and a rename,
    /// so an interrupted run leaves the old file or the new one, never half.
    pub fn save(&self, path: &Path, binary: bool) -> io::Result<()> {
        let bytes = if binary {
            self.to_binary()
        } else {
            self.to_text().into_bytes()
        };
        write_atomic(path, &bytes)
    }
}

/// The sidecar path of a model: `MODEL.meta.toml`.
pub fn meta_path(model: &Path) -> PathBuf {
    let mut s = model.as_os_str().to_owned();
    s.push(".meta.toml");
    PathBuf::from(s)
}

/// Writes the sidecar: `features = "..."` then `key = value` lines (TOML).
/// Values are written as given; strings must already be TOML-quoted.
pub fn write_meta(model: &Path, features: &str, options: &[(&str, String)]) -> io::Result<()> {
    write_atomic(&meta_path(model), meta_text(features, options).as_bytes())
}

/// The sidecar's text: `features = "..."` then `key = value` lines.
fn meta_text(features: &str, options: &[(&str, String)]) -> String {
    let mut s = format!("features = {}\n", toml_string(features));
    for (k, v) in options {
        let _ = writeln!(s, "{k} = {v}");
    }
    s
}

/// `PATH.tmp`.
fn tmp_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Finishes a [`Model::save_with_meta`] that stopped between its two renames.
///
/// That write leaves the new sidecar beside the old model, with the new model
/// complete in `MODEL.tmp` (both temporary files are written before the first
/// rename). When the sidecar's `model_hash` disagrees with the model file but
/// matches `MODEL.tmp`, the last rename is done now and the new pair is read:
/// a crash anywhere in the save leaves the old pair or the new one. Any other
/// disagreement is left for [`check_model_hash`] to refuse.
fn finish_interrupted_save(
    path: &Path,
    bytes: Vec<u8>,
    meta: Option<&str>,
) -> Result<Vec<u8>, ModelError> {
    let Some(want) = meta.and_then(|m| meta_string(m, "model_hash")) else {
        return Ok(bytes);
    };
    if crate::libsvm::dataset::Fnv64::hex_of(&bytes) == want {
        return Ok(bytes);
    }
    let tmp = tmp_path(path);
    let Ok(pending) = std::fs::read(&tmp) else {
        return Ok(bytes);
    };
    if crate::libsvm::dataset::Fnv64::hex_of(&pending) != want {
        return Ok(bytes);
    }
    std::fs::rename(&tmp, path).map_err(|source| ModelError::Io {
        path: tmp.clone(),
        source,
    })?;
    Ok(pending)
}

/// A sidecar's `model_hash`, when present, against the model file's bytes.
fn check_model_hash(path: &Path, bytes: &[u8], meta: Option<&str>) -> Result<(), ModelError> {
    let Some(want) = meta.and_then(|m| meta_string(m, "model_hash")) else {
        return Ok(());
    };
    let got = crate::libsvm::dataset::Fnv64::hex_of(bytes);
    if want != got {
        return Err(ModelError::Format {
            path: meta_path(path),
            message: format!(
                "model_hash = \"{want}\" but {} hashes to {got}: the model and its sidecar \
                 do not belong together (a write interrupted between the two? fit again)",
                path.display()
            ),
        });
    }
    Ok(())
}

/// A TOML basic string.
pub fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04X}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The raw value of `key = value` in a sidecar.
fn meta_value<'a>(meta: &'a str, key: &str) -> Option<&'a str> {
    meta.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        (k.trim() == key).then_some(v.trim())
    })
}

fn meta_string(meta: &str, key: &str) -> Option<String> {
    meta.lines().find_map(|line| {
        let (k, v) = line.split_once('=')?;
        if k.trim() != key {
            return None;
        }
        let v = v.trim().strip_prefix('"')?.strip_suffix('"')?;
        Some(v.replace("\\\"", "\"").replace("\\\\", "\\"))
    })
}

/// Writes `bytes` to `path` through `PATH.tmp` and a rename, so a reader (or a
/// rerun after a kill) sees the whole file or none.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Cursor<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let s = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(s)
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn f32(&mut self) -> Option<f32> {
        Some(f32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
}

/// C's `printf("%.17g", x)`, which round-trips every `f64`.
pub fn format_g17(x: f64) -> String {
    format_g(x, 17)
}

/// C's `printf("%.Pg", x)`: `P` significant digits, trailing zeros removed,
/// scientific when the exponent is < -4 or >= P, exponent of two digits or more.
pub fn format_g(x: f64, precision: usize) -> String {
    let precision = precision.max(1);
    if x == 0.0 {
        return if x.is_sign_negative() { "-0" } else { "0" }.into();
    }
    if !x.is_finite() {
        return if x.is_nan() {
            "nan".into()
        } else if x > 0.0 {
            "inf".into()
        } else {
            "-inf".into()
        };
    }
    let sci = format!("{x:.*e}", precision - 1);
    let (mantissa, exp) = sci.split_once('e').expect("{:e} has an exponent");
    let exp: i32 = exp.parse().expect("{:e} exponent is an integer");
    if exp < -4 || exp >= precision as i32 {
        let m = strip_zeros(mantissa);
        let sign = if exp < 0 { '-' } else { '+' };
        format!("{m}e{sign}{:02}", exp.abs())
    } else {
        let decimals = (precision as i32 - 1 - exp) as usize;
        strip_zeros(&format!("{x:.decimals$}")).to_string()
    }
}

fn strip_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn examples() -> PathBuf {
        crate::testdata::fixture("liblinear")
    }

    #[test]
    #[allow(clippy::excessive_precision)] // the literals are printf's own output
    fn formats_like_printf_g17() {
        for (x, s) in [
            (7.8818309830442393e-05, "7.8818309830442393e-05"),
            (0.0022216645468907843, "0.0022216645468907843"),
            (1e-5, "1.0000000000000001e-05"),
            (1.0, "1"),
            (-1.0, "-1"),
            (-3.5e20, "-3.5e+20"),
            (0.1, "0.10000000000000001"),
            (123456.0, "123456"),
            (1e16, "10000000000000000"),
            (1e17, "1e+17"),
            (0.0001, "0.0001"),
        ] {
            assert_eq!(format_g17(x), s, "{x:e}");
        }
        assert_eq!(format_g(0.00888177123, 6), "0.00888177");
        assert_eq!(format_g(0.98442, 6), "0.98442");
        assert_eq!(format_g(1234567.0, 6), "1.23457e+06");
    }

    #[test]
    fn liblinear_text_models_round_trip_byte_for_byte() {
        for name in ["small_s11.model", "small_s11_bias.model"] {
            let path = examples().join(name);
            let text = std::fs::read_to_string(&path).unwrap();
            let model = Model::from_text(&path, &text).unwrap();
            assert_eq!(model.nr_feature(), 1000);
            assert_eq!(model.to_text(), text, "{name}");
        }
    }

    #[test]
    fn binary_round_trips_to_f32_and_load_detects_it() {
        let path = examples().join("small_s11_bias.model");
        let model = Model::load(&path).unwrap();
        let mut named = model.clone();
        named.features = "relation".into();
        let dir = std::env::temp_dir().join(format!("kifulearn-model-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let bin = dir.join("m.bin");
        named.save(&bin, true).unwrap();
        let back = Model::load(&bin).unwrap();
        assert_eq!(back.features, "relation");
        assert_eq!(back.bias, 1.0);
        assert_eq!(back.w.len(), 1000);
        for (a, b) in back.w.iter().zip(&model.w) {
            assert_eq!(*a, *b as f32 as f64);
        }
        // Mostly zero weights use the sparse layout.
        let mut sparse = model.clone();
        sparse.w.iter_mut().skip(10).for_each(|w| *w = 0.0);
        let bytes = sparse.to_binary();
        assert!(bytes.len() < 200, "{}", bytes.len());
        let back = Model::from_binary(&bin, &bytes).unwrap();
        assert_eq!(
            back.w[..10],
            sparse.w[..10]
                .iter()
                .map(|&w| w as f32 as f64)
                .collect::<Vec<_>>()[..]
        );
        assert!(back.w[10..].iter().all(|&w| w == 0.0));
        let e = Model::from_binary(&bin, &bytes[..bytes.len() - 3]).unwrap_err();
        assert!(
            e.to_string().ends_with(
                "m.bin: byte 33: the count of nonzero weights 10 needs 80 bytes, only 77 remain"
            ),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn the_feature_limit_covers_every_feature_set() {
        let largest: crate::features::Features = "relation,relation-typed,material,kp,mirror"
            .parse()
            .unwrap();
        let d = crate::features::FeatureSet::dimension(&largest) as usize;
        assert!(d * 2 <= MAX_FEATURES, "{d}");
    }

    #[test]
    fn binary_counts_are_checked_against_the_file_length() {
        let p = Path::new("m.bin");
        let e = |b: &[u8]| Model::from_binary(p, b).unwrap_err().to_string();
        assert_eq!(
            e(b"KFLM"),
            "m.bin: byte 4: truncated binary model: expected the version, the file ends at byte 4"
        );
        let header = |n: u32, layout: u8| {
            let mut b = Vec::new();
            b.extend_from_slice(b"KFLM");
            b.extend_from_slice(&1u32.to_le_bytes());
            b.extend_from_slice(&8u32.to_le_bytes());
            b.extend_from_slice(b"material");
            b.extend_from_slice(&n.to_le_bytes());
            b.extend_from_slice(&(-1f64).to_le_bytes());
            b.extend_from_slice(&0f32.to_le_bytes());
            b.push(layout);
            b
        };
        assert_eq!(
            e(&header(u32::MAX, 0)),
            "m.bin: byte 20: nr_feature 4294967295 is beyond the limit of 134217728 features"
        );
        assert_eq!(
            e(&header(1 << 20, 0)),
            "m.bin: byte 37: nr_feature 1048576 needs 4194304 bytes, only 0 remain"
        );
        let mut sparse = header(100, 1);
        sparse.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            e(&sparse),
            "m.bin: byte 41: the count of nonzero weights 4294967295 needs 34359738360 bytes, only 0 remain"
        );
        let mut name = b"KFLM".to_vec();
        name.extend_from_slice(&1u32.to_le_bytes());
        name.extend_from_slice(&u32::MAX.to_le_bytes());
        assert_eq!(
            e(&name),
            "m.bin: byte 12: truncated binary model: expected a feature-set name of 4294967295 bytes, the file ends at byte 12"
        );
    }

    #[test]
    fn a_model_and_its_sidecar_must_agree() {
        let dir = std::env::temp_dir().join(format!("kifulearn-meta-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("m.model");
        let model = Model {
            solver_type: "L2R_L2LOSS_SVR".into(),
            w: vec![0.5; 200],
            bias: -1.0,
            bias_weight: 0.0,
            features: String::new(),
        };
        model.save(&path, false).unwrap();
        // No sidecar: a liblinear model, loaded as it is.
        assert!(Model::load(&path).is_ok());
        // The material set has 104 features, the model 200 weights.
        write_meta(&path, "material", &[]).unwrap();
        let e = Model::load(&path).unwrap_err().to_string();
        assert!(
            e.ends_with(
                "m.model.meta.toml: features = \"material\" has dimension 104 but \
                 the model and its sidecar do not belong together"
            ) || e.contains("has dimension 104 but"),
            "{e}"
        );
        assert!(e.contains("has nr_feature 200"), "{e}");
        write_meta(&path, "no-such-set", &[]).unwrap();
        let e = Model::load(&path).unwrap_err().to_string();
        assert!(e.contains("features = \"no-such-set\""), "{e}");
        write_meta(&path, "relation", &[("nr_feature", "199".into())]).unwrap();
        let e = Model::load(&path).unwrap_err().to_string();
        assert!(e.contains("nr_feature = 199 but"), "{e}");
        write_meta(&path, "relation", &[("nr_feature", "200".into())]).unwrap();
        assert_eq!(Model::load(&path).unwrap().features, "relation");
        // A binary model's sidecar must name the header's set.
        let bin = dir.join("m.bin");
        let mut named = model.clone();
        named.features = "relation".into();
        named.save(&bin, true).unwrap();
        write_meta(&bin, "kp", &[]).unwrap();
        let e = Model::load(&bin).unwrap_err().to_string();
        assert!(
            e.contains("disagrees with the binary model's header (relation)"),
            "{e}"
        );
        std::fs::remove_dir_all(&dir).ok();
    }

    /// A model and its meta as one unit: the `.bin` carries the meta, old
    /// `.bin` files still load, and a sidecar beside another model is refused.
    #[test]
    fn model_and_meta_are_one_unit() {
        let dir = std::env::temp_dir().join(format!("kifulearn-unit-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let mut model = Model {
            solver_type: "L2R_L2LOSS_SVR".into(),
            w: (0..104).map(|i| f64::from(i) / 64.0).collect(),
            bias: -1.0,
            bias_weight: 0.0,
            features: "material".into(),
        };
        let options = [("method", toml_string("positions")), ("epochs", "3".into())];
        // Binary: the meta section holds the sidecar's TOML, less the hash.
        let bin = dir.join("m.bin");
        model
            .save_with_meta(&bin, true, "material", &options)
            .unwrap();
        let bytes = std::fs::read(&bin).unwrap();
        let inside = Model::binary_meta(&bin, &bytes).unwrap().unwrap();
        assert_eq!(
            inside,
            "features = \"material\"\nmethod = \"positions\"\nepochs = 3\n"
        );
        let sidecar = std::fs::read_to_string(meta_path(&bin)).unwrap();
        assert_eq!(
            sidecar,
            format!(
                "{inside}model_hash = \"{}\"\n",
                crate::libsvm::dataset::Fnv64::hex_of(&bytes)
            )
        );
        let loaded = Model::load(&bin).unwrap();
        // The .bin alone knows its set and is checked against it.
        std::fs::remove_file(meta_path(&bin)).unwrap();
        assert_eq!(Model::load(&bin).unwrap(), loaded);
        assert_eq!(loaded.features, "material");
        assert_eq!(Model::from_binary(&bin, &bytes).unwrap(), loaded);
        // An old .bin (no section) loads as before; a damaged section is refused.
        let old = model.to_binary();
        assert_eq!(Model::binary_meta(&bin, &old).unwrap(), None);
        assert_eq!(Model::from_bytes(&bin, &old, None).unwrap(), loaded);
        let cut = &bytes[..bytes.len() - 3];
        let e = Model::from_bytes(&bin, cut, None).unwrap_err().to_string();
        assert!(e.contains("META section of"), "{e}");
        let mut wrong_set = model.clone();
        wrong_set.w.push(1.0); // 105 weights: more than material's 104
        let e = Model::from_bytes(&bin, &wrong_set.to_binary_with_meta(&inside), None)
            .unwrap_err()
            .to_string();
        assert!(e.contains("has dimension 104 but"), "{e}");

        // Text: what a crash between the two renames leaves (the new sidecar
        // beside the old model) is refused, naming both.
        let txt = dir.join("m.model");
        model
            .save_with_meta(&txt, false, "material", &options)
            .unwrap();
        assert_eq!(Model::load(&txt).unwrap().features, "material");
        let old_text = model.to_text();
        model.w[0] = 0.25;
        model
            .save_with_meta(&txt, false, "material", &options)
            .unwrap();
        std::fs::write(&txt, &old_text).unwrap();
        let e = Model::load(&txt).unwrap_err().to_string();
        assert!(
            e.contains("m.model.meta.toml: model_hash = ") && e.contains("do not belong together"),
            "{e}"
        );
        // The same crash as `save_with_meta` leaves it, with the new model
        // complete in m.model.tmp: the load finishes the save and reads the
        // new pair.
        std::fs::write(tmp_path(&txt), model.to_text()).unwrap();
        assert_eq!(Model::load(&txt).unwrap().w[0], 0.25);
        assert!(!tmp_path(&txt).exists());
        assert_eq!(std::fs::read_to_string(&txt).unwrap(), model.to_text());
        // A stray m.model.tmp that is not the sidecar's model is left alone.
        std::fs::write(&txt, &old_text).unwrap();
        std::fs::write(tmp_path(&txt), "junk").unwrap();
        assert!(Model::load(&txt).is_err());
        assert!(tmp_path(&txt).exists());
        // A sidecar without a hash (written by other tools) is still read.
        write_meta(&txt, "material", &[]).unwrap();
        assert!(Model::load(&txt).is_ok());
        std::fs::remove_dir_all(&dir).ok();
    }

    /// `from_bytes` (the fuzz targets' entry) is `load` without the files: the
    /// same models and the same refusals, from memory.
    #[test]
    fn from_bytes_checks_what_load_checks() {
        let p = Path::new("m.model");
        let text = std::fs::read(examples().join("small_s11.model")).unwrap();
        let plain = Model::from_bytes(p, &text, None).unwrap();
        assert_eq!(
            plain,
            Model::load(&examples().join("small_s11.model")).unwrap()
        );
        let named = Model::from_bytes(p, &text, Some("features = \"relation\"\n")).unwrap();
        assert_eq!(named.features, "relation");
        assert_eq!(named.w, plain.w);
        let e = Model::from_bytes(p, &text, Some("features = \"material\"\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("m.model.meta.toml: features = \"material\" has dimension 104"),
            "{e}"
        );
        let bin = named.to_binary();
        assert_eq!(
            Model::from_bytes(p, &bin, None).unwrap().w.len(),
            plain.w.len()
        );
        let e = Model::from_bytes(p, &bin, Some("features = \"kp\"\n"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("disagrees with the binary model's header (relation)"),
            "{e}"
        );
        let e = Model::from_bytes(p, &[0xff, 0xfe], None)
            .unwrap_err()
            .to_string();
        assert_eq!(e, "m.model: neither a binary model nor UTF-8 text");
    }

    #[test]
    fn rejects_malformed_text_models() {
        let p = Path::new("m.model");
        let e = |t: &str| Model::from_text(p, t).unwrap_err().to_string();
        assert_eq!(
            e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 3\nbias -1\nw\n1\n2\n"),
            "m.model: line 3: nr_feature 3 needs 3 weights after \"w\" (line 5), the file has 2"
        );
        assert_eq!(
            e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 1\nbias 1\nw\n1\n"),
            "m.model: line 3: nr_feature 1 and the bias needs 2 weights after \"w\" (line 5), the file has 1"
        );
        assert_eq!(
            e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 1\nbias -1\nw\n1\n2\n"),
            "m.model: line 7: found \"2\" after the 1 weights that nr_feature 1 (line 3) announces"
        );
        // A count beyond the limit is refused before anything is allocated.
        assert_eq!(
            e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 4294967295\nbias -1\nw\n1\n"),
            "m.model: line 3: nr_feature 4294967295 is beyond the limit of 134217728 features"
        );
        // Within the limit but not in the file: an error, and no 16M reservation.
        assert_eq!(
            e("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 16777216\nbias -1\nw\n1\n"),
            "m.model: line 3: nr_feature 16777216 needs 16777216 weights after \"w\" (line 5), the file has 1"
        );
        assert_eq!(
            e("solver_type L2R_L2LOSS_SVR\nfoo 2\n"),
            "m.model: unknown text in model file: \"foo\""
        );
        assert_eq!(
            e("solver_type L2R_LR\nnr_class 2\nnr_feature 1\nbias -1\nw\n1\n"),
            "m.model: solver_type L2R_LR is not a regression model (expected L2R_L2LOSS_SVR or an SVR dual)"
        );
    }
}
