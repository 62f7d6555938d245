//! Helpers shared by the integration tests that drive the built binary.
//! (Each file under `tests/` is its own crate; `mod common;` brings these in.)
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// A fresh, empty folder `name` under Cargo's per-target scratch directory.
pub fn dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `kifulearn ARGS` with stdin closed (so `usi` sees end of input) and a
/// 60-second deadline, so a hang fails the test instead of stalling the suite.
pub fn run(args: &[&str]) -> Output {
    run_with(args, &[], 60)
}

/// [`run`] with environment variables `env` set and a deadline of `seconds`
/// (for the learners' longer runs).
pub fn run_with(args: &[&str], env: &[(&str, &str)], seconds: u64) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args(args)
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Drain the pipes while waiting, so a chatty run cannot block on a full pipe.
    let (mut out, mut err) = (child.stdout.take().unwrap(), child.stderr.take().unwrap());
    let out_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut out, &mut buf).map(|_| buf)
    });
    let err_reader = std::thread::spawn(move || {
        let mut buf = Vec::new();
        std::io::Read::read_to_end(&mut err, &mut buf).map(|_| buf)
    });
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("kifulearn {args:?} did not finish within {seconds} s (a hang)");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    Output {
        status,
        stdout: out_reader.join().unwrap().unwrap(),
        stderr: err_reader.join().unwrap().unwrap(),
    }
}

/// [`run`], and the run must succeed (its stderr is the failure message).
pub fn run_ok(args: &[&str]) -> Output {
    let out = run(args);
    assert!(
        out.status.success(),
        "kifulearn {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// SplitMix64: random choices in tests (kill delays, options), reproducible from a seed.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n` > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// Can python3 import `modules` (e.g. `"sklearn, numpy"`)? If not: a printed
/// note, or a failure when `CI` is set (`.ci/install-peers.sh` installs the peers).
pub fn have_python(modules: &str, what: &str) -> bool {
    let ok = Command::new("python3")
        .args(["-c", &format!("import {modules}")])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "{what} is required when CI is set (run .ci/install-peers.sh)"
        );
        eprintln!("note: python3 with {what} not found (run .ci/install-peers.sh); skipped");
    }
    ok
}

/// Runs `python3 -c SCRIPT ARGS...` and returns its standard output; fails the
/// test with python's error output if it fails.
pub fn python<S: AsRef<std::ffi::OsStr>>(script: &str, args: &[S]) -> String {
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("python3 starts");
    assert!(
        out.status.success(),
        "python failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The one policy for a missing peer (a tool, a python module, `../shared`):
/// when `available` is false, a visible note and `false` (the caller skips),
/// or a failure when `CI` is set, where `.ci/install-peers.sh` installs the
/// peers and `../shared` is checked out beside the repository.
pub fn peer(available: bool, what: &str) -> bool {
    if !available {
        assert!(
            std::env::var_os("CI").is_none(),
            "{what} is required when CI is set (run .ci/install-peers.sh; ../shared beside the clone)"
        );
        eprintln!("note: {what} not found; skipped");
    }
    available
}

/// `SHARED/PATH`, where SHARED is the development collection (records and
/// tools, not shipped): `$KIFULEARN_SHARED` when set (as for the benches and
/// scripts), else `../shared` beside the repository; or `None` with a note
/// (a failure in CI) when it is absent.
pub fn shared(path: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("KIFULEARN_SHARED")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared"));
    let p = dir.join(path);
    peer(p.exists(), &p.display().to_string()).then_some(p)
}

#[path = "../../src/testdata/files.rs"]
mod files;

/// `fixture(PATH)`: a file under `fixtures/`; `floodgate_lines(n)`: the
/// bundled floodgate opening lines (the same as the unit tests' `crate::testdata`).
#[allow(unused_imports)] // not every test crate uses both
pub use files::{fixture, floodgate_lines};

/// Starts `kifulearn usi ARGS` with its standard output read line by line on
/// a thread of its own: the process, its input, and the lines as they come.
pub fn usi_engine(
    args: &[&str],
) -> (
    std::process::Child,
    std::process::ChildStdin,
    std::sync::mpsc::Receiver<String>,
) {
    use std::io::{BufRead, BufReader};
    let mut child = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("usi")
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("kifulearn starts");
    let stdout = child.stdout.take().unwrap();
    let (tx, lines) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        for line in BufReader::new(stdout).lines() {
            let Ok(line) = line else { break };
            if tx.send(line).is_err() {
                break;
            }
        }
    });
    let stdin = child.stdin.take().unwrap();
    (child, stdin, lines)
}
