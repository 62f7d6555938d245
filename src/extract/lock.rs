//! One writer per output folder: `DIR/.lock`, held with the operating system's
//! advisory file lock (`flock` on Linux) for as long as a run writes `DIR`.
//!
//! The kernel drops the lock when the holder exits, however it exits, so a
//! killed run leaves no stale lock to clean up: the file stays, unlocked, and
//! the next run takes it. The file holds the holder's pid, for the message a
//! second run prints. The file is never deleted (deleting it while another
//! process has it open would let two runs lock two different files).

use std::fs::{File, OpenOptions, TryLockError};
use std::io::{self, Read, Seek, Write};
use std::path::{Path, PathBuf};

/// File name of the lock in an output folder.
pub const LOCK_FILE: &str = ".lock";

/// A held lock on an output folder; released when dropped (or when the process ends).
#[derive(Debug)]
pub struct OutputLock {
    file: File,
    path: PathBuf,
}

impl OutputLock {
    /// Locks `dir` (which must exist) for `what` (e.g. `extract`), or fails with
    /// an error naming the folder and the pid of the run that holds it.
    pub fn acquire(dir: &Path, what: &str) -> io::Result<Self> {
        let path = dir.join(LOCK_FILE);
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(&path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        match file.try_lock() {
            Ok(()) => {}
            Err(TryLockError::WouldBlock) => {
                let mut holder = String::new();
                let _ = file.read_to_string(&mut holder);
                let holder = holder.trim();
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "{} is being written by another run ({}); wait for it to end \
                         (two runs on one folder would mix their files)",
                        dir.display(),
                        if holder.is_empty() {
                            "pid unknown".to_string()
                        } else {
                            holder.to_string()
                        }
                    ),
                ));
            }
            Err(TryLockError::Error(e)) => {
                return Err(io::Error::new(
                    e.kind(),
                    format!("{}: cannot lock: {e}", path.display()),
                ))
            }
        }
        file.set_len(0)?;
        file.rewind()?;
        writeln!(file, "pid {} ({what})", std::process::id())?;
        file.flush()?;
        Ok(Self { file, path })
    }

    /// The lock file.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl Drop for OutputLock {
    fn drop(&mut self) {
        let _ = self.file.unlock();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_lock_is_refused_with_the_holders_pid_and_taken_after_release() {
        let dir = std::env::temp_dir().join(format!("kifulearn-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = OutputLock::acquire(&dir, "extract").unwrap();
        let e = OutputLock::acquire(&dir, "extract").unwrap_err();
        assert_eq!(e.kind(), io::ErrorKind::WouldBlock);
        let msg = e.to_string();
        assert!(
            msg.contains(&format!(
                "another run (pid {} (extract))",
                std::process::id()
            )),
            "{msg}"
        );
        drop(first);
        // A lock file left behind (as by a killed run) is no obstacle.
        let again = OutputLock::acquire(&dir, "extract").unwrap();
        assert!(again.path().ends_with(LOCK_FILE));
        drop(again);
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
