//! The compact binary model (layout in the module docs of [`super`]) and its
//! optional meta section.

use std::path::Path;

use super::{Model, ModelError, MAX_FEATURES};

pub(super) const MAGIC: &[u8; 4] = b"KFLM";
/// Tag of the binary model's meta section (after the weights).
const META_TAG: &[u8; 4] = b"META";
const VERSION: u32 = 1;

impl Model {
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
    pub(super) fn read_binary(path: &Path, bytes: &[u8]) -> Result<(Model, usize), ModelError> {
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
