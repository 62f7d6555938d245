//! The sidecar `MODEL.meta.toml` and the writes: a model and its sidecar
//! saved as one unit (temporary files, renames, `model_hash`), an
//! interrupted save finished at load, atomic single-file writes.

use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::{Model, ModelError, ModelMeta};
use crate::files::write_atomic;
use crate::libsvm::dataset::{Fnv64, HashingWriter};

impl Model {
    /// Writes the model and its sidecar as one unit: the sidecar is `meta`
    /// with `model_hash`, the hash of the model file's bytes; a binary model
    /// carries the same TOML (less the hash) in its meta section. Both go to
    /// temporary files first, then the sidecar is renamed, then the model: a
    /// crash leaves the old pair, or a new sidecar beside the old model, which
    /// [`Model::load`] refuses (the hash differs).
    pub fn save_with_meta(&self, path: &Path, binary: bool, meta: &ModelMeta) -> io::Result<()> {
        let mut meta = meta.clone();
        meta.model_hash = None;
        // Written before any file is, so a sidecar that cannot be leaves none.
        let text = meta.to_toml()?;
        let model_tmp = tmp_path(path);
        let hash = if binary {
            let bytes = self.to_binary_with_meta(&text);
            std::fs::write(&model_tmp, &bytes)?;
            Fnv64::hex_of(&bytes)
        } else {
            self.write_text_file(&model_tmp)?
        };
        meta.model_hash = Some(hash);
        let meta_file = meta_path(path);
        let meta_tmp = tmp_path(&meta_file);
        std::fs::write(&meta_tmp, meta.to_toml()?)?;
        std::fs::rename(&meta_tmp, &meta_file)?;
        std::fs::rename(&model_tmp, path)
    }

    /// Writes the model (text or binary) through a temporary name and a rename,
    /// so an interrupted run leaves the old file or the new one, never half.
    pub fn save(&self, path: &Path, binary: bool) -> io::Result<()> {
        if binary {
            return write_atomic(path, &self.to_binary());
        }
        let tmp = tmp_path(path);
        self.write_text_file(&tmp)?;
        std::fs::rename(&tmp, path)
    }

    /// Streams the text model into `path` ([`Model::write_text`]) and returns
    /// the hash of its bytes, so no copy of the whole text is ever held.
    fn write_text_file(&self, path: &Path) -> io::Result<String> {
        let file = std::fs::File::create(path)?;
        let mut out = HashingWriter::new(io::BufWriter::with_capacity(1 << 20, file));
        self.write_text(&mut out)?;
        let (mut inner, hash) = out.into_parts();
        inner.flush()?;
        Ok(hash.hex())
    }
}

/// The sidecar path of a model: `MODEL.meta.toml`.
pub fn meta_path(model: &Path) -> PathBuf {
    let mut s = model.as_os_str().to_owned();
    s.push(".meta.toml");
    PathBuf::from(s)
}

/// Writes the sidecar alone (the model is not touched, so no `model_hash`).
pub fn write_meta(model: &Path, meta: &ModelMeta) -> io::Result<()> {
    write_atomic(&meta_path(model), meta.to_toml()?.as_bytes())
}

/// Sets the `grain` a model is played at ([`ModelMeta::grain`]) in its
/// sidecar, which must exist; the rest of the sidecar (its `model_hash`
/// too) is kept. Nothing is written when it already says so.
pub fn set_grain(model: &Path, grain: u32) -> Result<(), ModelError> {
    let path = meta_path(model);
    let text = std::fs::read_to_string(&path).map_err(|source| ModelError::Io {
        path: path.clone(),
        source,
    })?;
    let mut meta = super::parse_meta(&path, &text)?;
    let grain = (grain > 1).then_some(grain);
    if meta.grain == grain {
        return Ok(());
    }
    meta.grain = grain;
    write_meta(model, &meta).map_err(|source| ModelError::Io { path, source })
}

pub(super) use crate::files::tmp_path;

/// Finishes a [`Model::save_with_meta`] that stopped between its two renames.
///
/// That write leaves the new sidecar beside the old model, with the new model
/// complete in `MODEL.tmp` (both temporary files are written before the first
/// rename). When the sidecar's `model_hash` disagrees with the model file but
/// matches `MODEL.tmp`, the last rename is done now and the new pair is read:
/// a crash anywhere in the save leaves the old pair or the new one. Any other
/// disagreement is left for [`check_model_hash`] to refuse.
pub(super) fn finish_interrupted_save(
    path: &Path,
    bytes: Vec<u8>,
    meta: Option<&ModelMeta>,
) -> Result<Vec<u8>, ModelError> {
    let Some(want) = meta.and_then(|m| m.model_hash.as_deref()) else {
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
pub(super) fn check_model_hash(
    path: &Path,
    bytes: &[u8],
    meta: Option<&ModelMeta>,
) -> Result<(), ModelError> {
    let Some(want) = meta.and_then(|m| m.model_hash.as_deref()) else {
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
