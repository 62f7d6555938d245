//! Teacher labels from USI engines, run as the built binary:
//!
//! - a fake engine (`tests/fake_usi_teacher.py`) that crashes, hangs and
//!   answers garbage on chosen positions: the run finishes in bounded time,
//!   the retried and skipped counts are exact, every other position is
//!   labelled with the fake's score;
//! - Fairy-Stockfish (Debian `fairy-stockfish`): a rook up scores strongly
//!   for the side with it, mates give mate scores, the labels do not depend
//!   on the number of processes, and `generate --teacher` writes its scores.
//!
//! The Fairy-Stockfish tests are skipped with a note when the binary is
//! missing, and fail when `CI` is set (`.ci/install-peers.sh` installs it).
//! The fake engine needs python3.

mod common;
mod positions_common;

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use kifulearn::positions::{
    read_positions, GameResult, PositionFormat, PositionRecord, PositionWriter,
};
use kifulearn::shogi::Position;

fn write_psv(path: &Path, records: &[PositionRecord]) {
    let mut w = PositionWriter::new(Vec::new(), PositionFormat::Psv);
    for r in records {
        w.write(r).unwrap();
    }
    std::fs::write(path, w.finish().unwrap()).unwrap();
}

fn read_psv(path: &Path) -> Vec<PositionRecord> {
    read_positions(path).unwrap().map(|r| r.unwrap()).collect()
}

fn stdout_of(args: &[&str]) -> String {
    let out = common::run(args);
    assert!(
        out.status.success(),
        "kifulearn {args:?} failed:\n{}\n{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The number after `word` in `text` (e.g. `"3 retried"` → `number(text, "retried")`).
fn number_before(text: &str, word: &str) -> u64 {
    let words: Vec<&str> = text.split_whitespace().collect();
    let i = words
        .iter()
        .position(|w| w.trim_end_matches(',') == word)
        .unwrap_or_else(|| panic!("no {word:?} in {text}"));
    words[i - 1].parse().unwrap()
}

/// The fake engine's key: the byte sum of the SFEN's board, side and hands.
fn fake_key(pos: &Position) -> u64 {
    let sfen = pos.to_sfen();
    let head: Vec<&str> = sfen.split(' ').take(3).collect();
    head.join(" ").bytes().map(u64::from).sum()
}

#[test]
fn a_faulty_teacher_is_restarted_retried_and_skipped_with_counts() {
    let dir = common::dir("teacher-fault");
    let state = dir.join("state");
    std::fs::create_dir_all(&state).unwrap();
    // Fixture positions with distinct keys, so "first time" is per position.
    let mut keys = HashSet::new();
    let records: Vec<PositionRecord> = positions_common::fixture_records()
        .into_iter()
        .step_by(7)
        .filter(|r| keys.insert(fake_key(&r.position)))
        .take(40)
        .collect();
    assert_eq!(records.len(), 40);
    let class = |r: &PositionRecord| fake_key(&r.position) % 10;
    let count = |c: u64| records.iter().filter(|r| class(r) == c).count() as u64;
    for c in 0..5 {
        assert!(count(c) > 0, "no fixture position of class {c}");
    }
    let input = dir.join("in.psv");
    let output = dir.join("out.psv");
    write_psv(&input, &records);
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_usi_teacher.py");
    // The interpreter itself, not a wrapper such as pyenv's shim: the fake is
    // started about 50 times, and a shim costs a shell start each time.
    let python = std::process::Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output()
        .expect("python3 runs the fake engine");
    let python = String::from_utf8(python.stdout).unwrap();
    let command = format!(
        "'{}' '{}' '{}'",
        python.trim(),
        script.display(),
        state.display()
    );
    let started = Instant::now();
    let text = stdout_of(&[
        "positions",
        input.to_str().unwrap(),
        "--relabel",
        output.to_str().unwrap(),
        "--teacher-usi",
        &command,
        "--teacher-timeout",
        "0.5",
        "--teacher-scale",
        "1",
        "--teacher-batch",
        "8",
        "--jobs",
        "2",
    ]);
    let elapsed = started.elapsed();
    let always = count(0) + count(1) + count(2);
    let once = count(3) + count(4);
    assert_eq!(number_before(&text, "retried"), always + once, "{text}");
    assert_eq!(number_before(&text, "skipped"), always, "{text}");
    // A failure is followed by a restart, unless the next position starts a
    // batch (a fresh process anyway) or there is none.
    let restarts = number_before(&text, "teacher");
    let failures = 2 * always + once;
    let batches = (records.len() as u64).div_ceil(8);
    assert!(
        restarts <= failures && restarts + batches >= failures,
        "{restarts} restarts for {failures} failures: {text}"
    );
    // Every hang costs one timeout (0.5 s): 2 per always-hanging position, 1
    // per hang-once position; the rest is quick.
    let hangs = 2 * count(1) + count(4);
    assert!(
        elapsed < Duration::from_secs_f64(30.0 + 0.5 * hangs as f64),
        "took {elapsed:?} for {hangs} hangs"
    );
    let expected: Vec<PositionRecord> = records
        .iter()
        .filter(|r| class(r) > 2)
        .map(|r| {
            let mut r = r.clone();
            r.score = (fake_key(&r.position) % 2001) as i16 - 1000;
            positions_common::as_read_back(&r, false)
        })
        .collect();
    let got = read_psv(&output);
    assert_eq!(got.len(), expected.len());
    assert_eq!(got, expected);
    assert!(!Path::new(&format!("{}.tmp", output.display())).exists());
}

#[test]
fn a_teacher_that_never_answers_stops_the_run_with_an_error() {
    let dir = common::dir("teacher-broken");
    let records: Vec<PositionRecord> = positions_common::fixture_records()
        .into_iter()
        .take(80)
        .collect();
    let input = dir.join("in.psv");
    write_psv(&input, &records);
    // `true` exits at once: the handshake fails before any file is written.
    let out = common::run(&[
        "positions",
        input.to_str().unwrap(),
        "--relabel",
        dir.join("out.psv").to_str().unwrap(),
        "--teacher",
        "true",
    ]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.contains("teacher exited while waiting for usiok"),
        "{err}"
    );
    assert!(!dir.join("out.psv").exists());
}

/// The Fairy-Stockfish binary, or `None` (skipped; a failure when CI is set).
fn fairy_stockfish() -> Option<String> {
    for candidate in ["/usr/games/fairy-stockfish", "fairy-stockfish"] {
        let ok = std::process::Command::new(candidate)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .status()
            .is_ok();
        if ok {
            return Some(candidate.to_string());
        }
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI is set but fairy-stockfish is missing (run .ci/install-peers.sh)"
    );
    eprintln!("skipped: fairy-stockfish not found (apt-get install fairy-stockfish)");
    None
}

fn record(sfen: &str) -> PositionRecord {
    PositionRecord {
        position: Position::from_sfen(sfen).unwrap(),
        score: 0,
        best_move: None,
        ply: 1,
        result: GameResult::Unknown,
    }
}

#[test]
fn fairy_stockfish_scores_are_sane_and_reproducible() {
    let Some(fs) = fairy_stockfish() else { return };
    let dir = common::dir("teacher-fs");
    let special = [
        // White's rook removed: Black to move, then White to move.
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
        // Black mates in one (G*5b).
        "4k4/9/4G4/9/9/9/9/9/4K4 b G 1",
        // White to move is checkmated.
        "4k4/4G4/4G4/9/9/9/9/9/4K4 w - 1",
    ];
    let mut records: Vec<PositionRecord> = special.iter().map(|s| record(s)).collect();
    records.extend(
        positions_common::fixture_records()
            .into_iter()
            .step_by(20)
            .take(300),
    );
    let input = dir.join("in.psv");
    write_psv(&input, &records);
    let relabel = |out: &Path, jobs: &str| {
        stdout_of(&[
            "positions",
            input.to_str().unwrap(),
            "--relabel",
            out.to_str().unwrap(),
            "--teacher-usi",
            &fs,
            "--teacher-depth",
            "5",
            "--teacher-batch",
            "128",
            "--teacher-scale",
            "1",
            "--jobs",
            jobs,
        ])
    };
    let (one, two): (PathBuf, PathBuf) = (dir.join("one.psv"), dir.join("two.psv"));
    let text = relabel(&one, "1");
    assert!(text.contains("0 skipped"), "{text}");
    relabel(&two, "2");
    let got = read_psv(&one);
    let scores_two: Vec<i16> = read_psv(&two).iter().map(|r| r.score).collect();
    let differ: Vec<usize> = (0..got.len())
        .filter(|&i| got[i].score != scores_two[i])
        .collect();
    assert!(
        differ.is_empty(),
        "labels depend on the number of teacher processes at {differ:?}"
    );
    assert_eq!(got.len(), records.len());
    let scores: Vec<i16> = got.iter().map(|r| r.score).collect();
    // Fairy-Stockfish's centipawns (scale 1) are about half of ours.
    assert!(scores[0] > 300, "a rook up, to move: {}", scores[0]);
    assert!(scores[1] < -300, "a rook down, to move: {}", scores[1]);
    assert_eq!(scores[2], 3000, "mate in one");
    assert_eq!(scores[3], -3000, "checkmated");
    // Game positions: mostly ordinary scores, and not all one value.
    let ordinary = scores[4..].iter().filter(|s| s.abs() < 3000).count();
    assert!(ordinary > 250, "{ordinary} of 300 below the limit");
    let distinct: HashSet<i16> = scores[4..].iter().copied().collect();
    assert!(distinct.len() > 100, "{} distinct scores", distinct.len());
    // Everything but the score is kept.
    for (g, r) in got.iter().zip(&records) {
        let mut r = positions_common::as_read_back(r, false);
        r.score = g.score;
        assert_eq!(*g, r);
    }
}

#[test]
fn generate_with_a_fairy_stockfish_teacher_writes_its_scores() {
    let Some(fs) = fairy_stockfish() else { return };
    let dir = common::dir("teacher-generate");
    // The same small generation, with `teacher` options added.
    let args = |out: &Path, teacher: &[&str]| -> Vec<String> {
        let mut args: Vec<String> = [
            "generate",
            "--out",
            out.to_str().unwrap(),
            "--depth",
            "1",
            "--positions",
            "60",
            "--chunk-games",
            "1",
            "--hash",
            "1",
        ]
        .map(String::from)
        .to_vec();
        args.extend(teacher.iter().map(|a| a.to_string()));
        args
    };
    let run = |out: &Path, teacher: bool| {
        let extra: &[&str] = if teacher {
            &["--teacher-usi", fs.as_str(), "--teacher-depth", "3"]
        } else {
            &[]
        };
        let args = args(out, extra);
        stdout_of(&args.iter().map(String::as_str).collect::<Vec<_>>())
    };
    let ours = dir.join("ours");
    let taught = dir.join("taught");
    run(&ours, false);
    let text = run(&taught, true);
    assert!(text.contains("0 skipped"), "{text}");
    let toml = std::fs::read_to_string(taught.join("generate.toml")).unwrap();
    assert!(toml.contains("teacher_depth = 3"), "{toml}");
    let read_dir = |d: &Path| -> Vec<PositionRecord> {
        let mut files: Vec<PathBuf> = std::fs::read_dir(d.join("positions"))
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        files.sort();
        files.iter().flat_map(|f| read_psv(f)).collect()
    };
    let (a, b) = (read_dir(&ours), read_dir(&taught));
    // The same games (our search plays them), other scores.
    assert_eq!(a.len(), b.len());
    assert!(a
        .iter()
        .zip(&b)
        .all(|(x, y)| x.position == y.position && x.best_move == y.best_move));
    let differ = a.iter().zip(&b).filter(|(x, y)| x.score != y.score).count();
    assert!(
        differ * 2 > a.len(),
        "only {differ} of {} scores differ",
        a.len()
    );
    // A rerun with another teacher depth is refused, naming the option. `--teacher`, the old
    // spelling of --teacher-usi, still names the engine.
    let args = args(&taught, &["--teacher", &fs, "--teacher-depth", "4"]);
    let out = common::run(&args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--teacher-depth"), "{err}");
}
