//! Small file helpers every room may use, kept below them all so no two rooms
//! import each other for them (`libsvm` and `model` did): the limit on a
//! declared feature count, atomic writes (the one helper: [`write_atomic`],
//! [`write_atomic_with`]) and TOML strings. `model` re-exports
//! them under their old paths.

use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

/// The largest number of features (`nr_feature`, the largest 1-based libsvm index)
/// any file may declare: 2^27 = 134,217,728, over twice the dimension of the
/// largest combination of feature sets (`relation,relation-typed,material,kp,pp`,
/// 59,520,362), and 1 GB per `f64` weight vector. A count beyond it is a
/// damaged file, not a model.
pub const MAX_FEATURES: usize = 1 << 27;

/// `PATH.tmp`: where a file is written before it is renamed to `path`.
pub fn tmp_path(path: &Path) -> PathBuf {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    PathBuf::from(tmp)
}

/// Writes `bytes` to `path` through `PATH.tmp` and a rename, so a reader (or a
/// rerun after a kill) sees the whole file or none.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = tmp_path(path);
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path)
}

/// [`write_atomic`] for contents written piece by piece: `body` writes them
/// to a buffered `PATH.tmp`, which is flushed and renamed to `path` when it
/// succeeds (and left behind, never renamed, when it fails).
pub fn write_atomic_with<E: From<io::Error>>(
    path: &Path,
    body: impl FnOnce(&mut dyn io::Write) -> Result<(), E>,
) -> Result<(), E> {
    let tmp = tmp_path(path);
    let mut writer = io::BufWriter::new(std::fs::File::create(&tmp)?);
    body(&mut writer)?;
    io::Write::flush(&mut writer)?;
    drop(writer);
    std::fs::rename(&tmp, path)?;
    Ok(())
}

/// Puts the file `from` at `to` through `tmp` (removed first if a killed run
/// left it) and a rename: a hard link, or a copy where the file system
/// cannot link. Shard merges use it: the merged folder shares the shards'
/// bytes without doubling the disk they take.
pub fn link_or_copy(from: &Path, tmp: &Path, to: &Path) -> io::Result<()> {
    match std::fs::remove_file(tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    if std::fs::hard_link(from, tmp).is_err() {
        std::fs::copy(from, tmp)?;
    }
    std::fs::rename(tmp, to)
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
