//! The leaf cache of the streamed learner: each chunk's leaf rows, built
//! once in the first epoch, encoded compactly into a temporary file next to
//! the model and read back in later epochs instead of searching again.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::PathBuf;

use super::{io_error, StreamError};
use crate::train::positions::Leaves;

/// A file of encoded leaf chunks, indexed by chunk; removed on drop.
pub(super) struct LeafCache {
    path: PathBuf,
    file: File,
    /// Bytes written so far.
    pub(super) end: u64,
    index: Vec<Option<(u64, u64)>>,
}

impl LeafCache {
    pub(super) fn create(path: PathBuf, chunks: usize) -> Result<Self, StreamError> {
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(io_error(&path))?;
        Ok(Self {
            path,
            file,
            end: 0,
            index: vec![None; chunks],
        })
    }

    pub(super) fn put(&mut self, chunk: usize, leaves: &Leaves) -> Result<(), StreamError> {
        let bytes = encode(leaves);
        self.file
            .seek(SeekFrom::Start(self.end))
            .and_then(|_| self.file.write_all(&bytes))
            .map_err(io_error(&self.path))?;
        self.index[chunk] = Some((self.end, bytes.len() as u64));
        self.end += bytes.len() as u64;
        Ok(())
    }

    pub(super) fn get(&mut self, chunk: usize) -> Result<Option<Leaves>, StreamError> {
        let Some((offset, len)) = self.index[chunk] else {
            return Ok(None);
        };
        let mut bytes = vec![0; len as usize];
        self.file
            .seek(SeekFrom::Start(offset))
            .and_then(|_| self.file.read_exact(&mut bytes))
            .map_err(io_error(&self.path))?;
        decode(&bytes).map(Some).ok_or_else(|| StreamError::Io {
            path: self.path.clone(),
            source: std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("leaf cache chunk at byte {offset} does not decode"),
            ),
        })
    }
}

impl Drop for LeafCache {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

/// Row values: all 1 (none stored), small integers (one byte each), or f32.
const ONES: u8 = 0;
const BYTES: u8 = 1;
const FLOATS: u8 = 2;

/// Rows as bytes: per row sign (i8), score and result (f32), nonzeros (u32),
/// value kind (u8), indices (u32) and values (by kind); little-endian.
fn encode(leaves: &Leaves) -> Vec<u8> {
    let kind = |val: &[f32]| {
        if val.iter().all(|&v| v == 1.0) {
            ONES
        } else if val
            .iter()
            .all(|&v| v == f32::from(v as i8) && v.to_bits() != (-0.0f32).to_bits())
        {
            BYTES
        } else {
            FLOATS
        }
    };
    let kinds: Vec<u8> = (0..leaves.len()).map(|i| kind(leaves.row(i).1)).collect();
    let size: usize = (0..leaves.len())
        .map(|i| {
            let nnz = leaves.row(i).0.len();
            14 + 4 * nnz + [0, 1, 4][kinds[i] as usize] * nnz
        })
        .sum();
    let mut out = Vec::with_capacity(size);
    for (i, &kind) in kinds.iter().enumerate() {
        let (idx, val) = leaves.row(i);
        out.push(leaves.sign[i] as i8 as u8);
        out.extend_from_slice(&leaves.score[i].to_le_bytes());
        out.extend_from_slice(&leaves.result[i].to_le_bytes());
        out.extend_from_slice(&(idx.len() as u32).to_le_bytes());
        out.push(kind);
        for &j in idx {
            out.extend_from_slice(&j.to_le_bytes());
        }
        match kind {
            ONES => {}
            BYTES => out.extend(val.iter().map(|&v| v as i8 as u8)),
            _ => val
                .iter()
                .for_each(|v| out.extend_from_slice(&v.to_le_bytes())),
        }
    }
    out
}

/// The inverse of [`encode`]; `None` on bytes it did not write.
fn decode(mut bytes: &[u8]) -> Option<Leaves> {
    fn take<'b>(bytes: &mut &'b [u8], n: usize) -> Option<&'b [u8]> {
        let (head, tail) = (bytes.get(..n)?, bytes.get(n..)?);
        *bytes = tail;
        Some(head)
    }
    fn four(bytes: &mut &[u8]) -> Option<[u8; 4]> {
        take(bytes, 4)?.try_into().ok()
    }
    // At most a nonzero per 4 bytes and a row per 14: no growing by doubling.
    let mut leaves = Leaves {
        start: Vec::with_capacity(bytes.len() / 14 + 1),
        index: Vec::with_capacity(bytes.len() / 4),
        value: Vec::with_capacity(bytes.len() / 4),
        ..Leaves::default()
    };
    leaves.start.push(0);
    while !bytes.is_empty() {
        leaves.sign.push(f32::from(take(&mut bytes, 1)?[0] as i8));
        leaves.score.push(f32::from_le_bytes(four(&mut bytes)?));
        leaves.result.push(f32::from_le_bytes(four(&mut bytes)?));
        let nnz = u32::from_le_bytes(four(&mut bytes)?) as usize;
        let kind = take(&mut bytes, 1)?[0];
        for c in take(&mut bytes, 4 * nnz)?.chunks_exact(4) {
            leaves.index.push(u32::from_le_bytes(c.try_into().ok()?));
        }
        match kind {
            ONES => leaves.value.extend(std::iter::repeat_n(1.0, nnz)),
            BYTES => leaves
                .value
                .extend(take(&mut bytes, nnz)?.iter().map(|&b| f32::from(b as i8))),
            FLOATS => {
                for c in take(&mut bytes, 4 * nnz)?.chunks_exact(4) {
                    leaves.value.push(f32::from_le_bytes(c.try_into().ok()?));
                }
            }
            _ => return None,
        }
        leaves.start.push(leaves.index.len());
    }
    Some(leaves)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::positions::NO_RESULT;

    #[test]
    fn leaf_rows_survive_the_cache_encoding() {
        let leaves = Leaves {
            start: vec![0, 3, 5, 5, 7],
            index: vec![0, 7, 9, 1, 2, 4_000_000, 3],
            value: vec![1.0, 1.0, 1.0, 2.0, -3.0, 0.25, 1.0],
            sign: vec![1.0, -1.0, 1.0, -1.0],
            score: vec![120.0, -3000.0, 0.0, 7.0],
            result: vec![1.0, NO_RESULT, 0.5, 0.0],
        };
        let bytes = encode(&leaves);
        let back = decode(&bytes).unwrap();
        assert_eq!(back.start, leaves.start);
        assert_eq!(back.index, leaves.index);
        assert_eq!(back.value, leaves.value);
        assert_eq!(back.sign, leaves.sign);
        assert_eq!(back.score, leaves.score);
        assert_eq!(back.result, leaves.result);
        // Ones cost no value bytes, small integers one.
        assert_eq!(bytes.len(), 4 * 14 + 7 * 4 + 2 + 2 * 4);
        assert!(decode(&bytes[..bytes.len() - 1]).is_none());
    }
}
