//! Finding and reading record files without silent failures or hangs: a missing
//! path, an empty file, a FIFO named like a record, a symbolic-link loop. Run as
//! the built binary, each with a deadline so a hang fails the test.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;
use common::{dir, run};

/// A bundled CSA file with two games.
fn two_games() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/assembled/selfplay-two-games.csa")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn last_line(out: &Output) -> String {
    text(&out.stdout).lines().last().unwrap_or("").to_string()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn mkfifo(path: &Path) -> bool {
    Command::new("mkfifo")
        .arg(path)
        .status()
        .map(|s| s.success())
        .unwrap_or(false)
}

#[test]
fn games_on_a_missing_path_fails_naming_it() {
    let out = run(&["games", "/nonexistent"]);
    assert!(
        matches!(out.status.code(), Some(c) if c != 0),
        "{:?}",
        out.status
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("/nonexistent: no such file or directory"),
        "{err}"
    );
}

#[test]
fn extract_on_a_missing_path_prints_the_reason() {
    let d = dir("trust_extract_missing");
    let out = run(&["extract", "/nonexistent", "--out", s(&d.join("rows"))]);
    assert!(
        matches!(out.status.code(), Some(c) if c != 0),
        "{:?}",
        out.status
    );
    let err = text(&out.stderr);
    assert!(
        err.contains("/nonexistent: no such file or directory"),
        "{err}"
    );
}

#[test]
fn an_empty_sfen_file_is_reported_as_no_game() {
    let d = dir("trust_empty_sfen");
    let empty = d.join("empty.sfen");
    std::fs::write(&empty, "").unwrap();
    let out = run(&["games", s(&empty)]);
    let stdout = text(&out.stdout);
    assert!(stdout.contains("no game in the file"), "{stdout}");
    assert!(stdout.contains(": unknown, 0 ok, 1 failed") || stdout.contains("0 ok, 1 failed"));
    assert_eq!(
        last_line(&out),
        "games: 0 ok, 1 failed, 0 problem positions (one king)"
    );
}

#[test]
fn a_fifo_named_like_a_record_does_not_hang_games() {
    let d = dir("trust_fifo_games");
    std::fs::copy(two_games(), d.join("a.csa")).unwrap();
    if !mkfifo(&d.join("b.csa")) {
        eprintln!("skipped: mkfifo not available");
        return;
    }
    // In a folder, and named on the command line.
    for args in [
        vec!["games", s(&d)],
        vec!["games", s(&d.join("a.csa")), s(&d.join("b.csa"))],
    ] {
        let out = run(&args);
        assert_eq!(out.status.code(), Some(0), "{args:?}");
        assert_eq!(
            last_line(&out),
            "games: 2 ok, 0 failed, 0 problem positions (one king)"
        );
        let err = text(&out.stderr);
        assert!(err.contains("b.csa: not a regular file"), "{args:?}: {err}");
    }
}

#[test]
fn a_fifo_named_like_a_record_does_not_hang_extract() {
    let d = dir("trust_fifo_extract");
    let input = d.join("in");
    std::fs::create_dir_all(&input).unwrap();
    std::fs::copy(two_games(), input.join("a.csa")).unwrap();
    if !mkfifo(&input.join("b.csa")) {
        eprintln!("skipped: mkfifo not available");
        return;
    }
    let out = run(&[
        "extract",
        s(&input),
        "--out",
        s(&d.join("rows")),
        "--max-plies",
        "4",
    ]);
    let err = text(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "{err}");
    assert!(err.contains("b.csa: not a regular file"), "{err}");
}

#[cfg(unix)]
#[test]
fn a_symlink_loop_reads_each_game_once() {
    let d = dir("trust_symlink_loop");
    std::fs::copy(two_games(), d.join("a.csa")).unwrap();
    // A link back to the folder itself, and a second name for the same file.
    std::os::unix::fs::symlink(&d, d.join("loop")).unwrap();
    std::os::unix::fs::symlink(d.join("a.csa"), d.join("same.csa")).unwrap();
    let out = run(&["games", s(&d)]);
    assert_eq!(out.status.code(), Some(0));
    assert_eq!(
        last_line(&out),
        "games: 2 ok, 0 failed, 0 problem positions (one king)"
    );
    let err = text(&out.stderr);
    assert!(err.contains("a folder already read"), "{err}");
    assert!(err.contains("a file already read"), "{err}");
}
