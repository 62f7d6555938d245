//! `kifulearn match` against external USI engines, run as the built binary:
//!
//! - a fake engine (`tests/fake_usi_player.py`, our own `kifulearn usi`
//!   behind a python pipe) that crashes, hangs, answers an illegal move or
//!   overruns its clock once: that game is lost by the fake's side, the
//!   fault is named in `results.csv`, the CSA ending and its comment (read
//!   back by cshogi, `tests/match_cshogi.py`, when python has it), and the
//!   match goes on with the engine restarted;
//! - our own engine as `usi:kifulearn usi` plays the same games as our
//!   in-process search, whatever `--jobs` (no clock: deterministic);
//! - Fairy-Stockfish (Debian `fairy-stockfish`) on a 50 ms move time: a
//!   short real match with no fault (a move time: Fairy-Stockfish 11.1 reads
//!   USI's `btime`/`wtime` swapped, its issue #269, and loses on a clock
//!   whose two times differ; `docs/arena.md`). Skipped with a note when the binary is
//!   missing; a failure when `CI` is set (`.ci/install-peers.sh` installs it).

mod common;

use std::path::{Path, PathBuf};
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_kifulearn");

/// The python interpreter itself (not a shim), or `None` (skipped; a failure in CI).
fn python() -> Option<String> {
    let out = Command::new("python3")
        .args(["-c", "import sys; print(sys.executable)"])
        .output();
    let path = out
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    common::peer(path.is_some(), "python3").then(|| path.unwrap())
}

fn quote(p: &Path) -> String {
    format!("'{}'", p.display())
}

/// `usi:` + the fake making `fault` at its `k`-th `go`, once (state in `dir`).
fn fake(python: &str, fault: &str, k: u32, dir: &Path) -> String {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake_usi_player.py");
    format!(
        "usi:'{python}' {} {fault} {k} {} '{BIN}' usi",
        quote(&script),
        quote(&dir.join("state"))
    )
}

/// Runs `kifulearn match ARGS -q --out DIR`; returns stdout and the rows
/// of `results.csv` as maps.
fn play(args: &[&str], out: &Path) -> (String, Vec<Row>) {
    let mut all: Vec<&str> = vec!["match"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["-q", "--out", out.to_str().unwrap()]);
    let o = common::run_with(&all, &[], 120);
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "kifulearn {all:?}:\n{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    (stdout, rows(&out.join("results.csv")))
}

type Row = std::collections::BTreeMap<String, String>;

fn rows(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).unwrap();
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header: Vec<String> = reader
        .headers()
        .unwrap()
        .iter()
        .map(str::to_string)
        .collect();
    reader
        .records()
        .map(|r| {
            header
                .iter()
                .cloned()
                .zip(r.unwrap().iter().map(str::to_string))
                .collect()
        })
        .collect()
}

fn csa(out: &Path, game: usize) -> String {
    std::fs::read_to_string(out.join(format!("games/{game:04}.csa"))).unwrap()
}

fn starts(dir: &Path) -> usize {
    std::fs::read_to_string(dir.join("state.starts"))
        .unwrap_or_default()
        .lines()
        .count()
}

#[test]
fn each_fault_loses_its_game_is_recorded_and_the_engine_is_restarted() {
    let Some(python) = python() else { return };
    // (fault, results.csv ending, CSA ending (B is White in game 0), detail)
    for (fault, ending, csa_end, detail) in [
        (
            "crash",
            "crash",
            "%-ILLEGAL_ACTION",
            "engine B exited while waiting for bestmove",
        ),
        (
            "hang",
            "time_up",
            "%TIME_UP",
            "engine B gave no bestmove within 0.3",
        ),
        (
            "illegal",
            "illegal_move",
            "%ILLEGAL_MOVE",
            "answered \"bestmove 5a5a\", not a legal move here",
        ),
        (
            "overrun",
            "time_up",
            "%TIME_UP",
            "engine B gave no bestmove within 0.3",
        ),
    ] {
        let dir = common::dir(&format!("match-usi-{fault}"));
        let out = dir.join("match");
        let b = fake(&python, fault, 3, &dir);
        let (stdout, rows) = play(
            &[
                "--engine-a",
                "material",
                "--engine-b",
                &b,
                "--movetime",
                "50",
                // Generous, for a loaded machine: our side must not lose on time.
                "--time-margin",
                "300",
                "--games",
                "3",
                "--jobs",
                "1",
                "--max-plies",
                "60",
            ],
            &out,
        );
        assert!(stdout.contains("+"), "{stdout}");
        assert_eq!(rows.len(), 3, "{fault}");
        // Game 0: A (material) is Black; B's third move (ply 30) fails, so
        // the game ends after 29 plies, won by A.
        let r = &rows[0];
        assert_eq!(
            (
                r["ending"].as_str(),
                r["result"].as_str(),
                r["plies"].as_str()
            ),
            (ending, "win", "29"),
            "{fault}: {r:?}"
        );
        assert!(r["detail"].contains(detail), "{fault}: {r:?}");
        // Its answers counted: two moves, and the illegal one.
        let answers = if fault == "illegal" { "3" } else { "2" };
        assert_eq!(r["b_moves"], answers, "{fault}: {r:?}");
        let record = csa(&out, 0);
        assert!(record.trim_end().ends_with(csa_end), "{fault}: {record}");
        assert!(
            record.contains(&format!("'result: {ending} (win for A): ")),
            "{fault}: {record}"
        );
        // The games after it are played out by a restarted, healthy engine.
        for r in &rows[1..] {
            assert!(
                !["crash", "time_up", "illegal_move"].contains(&r["ending"].as_str()),
                "{fault}: {r:?}"
            );
            assert_eq!(r["detail"], "", "{fault}: {r:?}");
            assert!(r["b_moves"].parse::<u32>().unwrap() > 3, "{fault}: {r:?}");
        }
        // Started to check the command, then for game 0, then again.
        assert_eq!(starts(&dir), 3, "{fault}");
        let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
        assert!(
            summary.contains(&format!("faults: A none; B {ending} 1")),
            "{fault}: {summary}"
        );
        // cshogi reads the records, the fault's ending and its winner as we do.
        if common::have_python("cshogi", "cshogi") {
            let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/match_cshogi.py");
            let o = Command::new(&python)
                .arg(&script)
                .arg(&out)
                .arg("60")
                .output()
                .unwrap();
            let text = String::from_utf8_lossy(&o.stdout);
            assert!(o.status.success(), "{fault}: {text}");
            assert!(text.contains("3 games checked"), "{fault}: {text}");
        }
    }
}

#[test]
fn without_a_clock_a_crash_costs_one_game_and_a_fresh_engine_plays_the_next() {
    let Some(python) = python() else { return };
    let dir = common::dir("match-usi-untimed-crash");
    let out = dir.join("match");
    let b = fake(&python, "crash", 1, &dir);
    let (_, rows) = play(
        &[
            "--engine-a",
            "material",
            "--engine-b",
            &b,
            "--depth",
            "1",
            "--games",
            "2",
            "--max-plies",
            "40",
        ],
        &out,
    );
    assert_eq!(rows[0]["ending"], "crash");
    assert_eq!(rows[0]["plies"], "25");
    assert_ne!(rows[1]["ending"], "crash");
    assert_eq!(starts(&dir), 3);
}

/// The columns that make a game (not its timings).
fn games(rows: &[Row]) -> Vec<String> {
    rows.iter()
        .map(|r| {
            [
                "game",
                "result",
                "ending",
                "plies",
                "final_sfen",
                "a_nodes",
                "b_nodes",
                "a_moves",
                "b_moves",
                "a_depth",
                "b_depth",
            ]
            .iter()
            .map(|k| r[*k].as_str())
            .collect::<Vec<_>>()
            .join(",")
        })
        .collect()
}

#[test]
fn our_engine_over_usi_plays_our_search_game_for_game_whatever_the_jobs() {
    let dir = common::dir("match-usi-ours");
    let usi = format!("usi:'{BIN}' usi");
    let common_args = ["--depth", "2", "--games", "4", "--max-plies", "100"];
    let mut results = Vec::new();
    for (b, jobs) in [("material", "1"), (usi.as_str(), "1"), (usi.as_str(), "2")] {
        let out: PathBuf = dir.join(format!("{}-{jobs}", results.len()));
        let mut args = vec!["--engine-a", "material", "--engine-b", b, "--jobs", jobs];
        args.extend_from_slice(&common_args);
        let (_, rows) = play(&args, &out);
        results.push(games(&rows));
    }
    assert_eq!(results[0].len(), 4);
    assert_eq!(results[1], results[0], "over USI against in-process");
    assert_eq!(results[2], results[1], "--jobs 2 against --jobs 1");
}

/// `match --resume` after an interruption and to more games: the same rows,
/// records and summary as one uninterrupted run; without `--resume` an
/// earlier match is refused and left as it was; a resume from other
/// openings is refused.
#[test]
fn a_resumed_match_is_the_match_played_at_once() {
    let dir = common::dir("match-resume");
    let base = [
        "--engine-a",
        "material",
        "--engine-b",
        "material",
        "--depth",
        "2",
        "--max-plies",
        "80",
        "--jobs",
        "2",
    ];
    fn plus<'a>(base: &[&'a str], extra: &[&'a str]) -> Vec<&'a str> {
        let mut args = base.to_vec();
        args.extend_from_slice(extra);
        args
    }
    let with = |extra: &[&'static str]| plus(&base, extra);
    let full = dir.join("full");
    let (full_line, full_rows) = play(&with(&["--games", "12"]), &full);
    assert_eq!(full_rows.len(), 12);
    // A run of 7 games, then cut as an interruption leaves it: the table
    // still under its temporary name, its last pair incomplete.
    let part = dir.join("part");
    play(&with(&["--games", "7"]), &part);
    // Each kept row's A seconds are marked 99.000: a game counted from the
    // table keeps them, a game played again does not.
    let table = std::fs::read_to_string(part.join("results.csv")).unwrap();
    let marked: Vec<String> = table.lines().map(mark_seconds).collect();
    let kept: Vec<&str> = marked.iter().take(1 + 5).map(String::as_str).collect();
    std::fs::write(part.join("results.csv.tmp"), kept.join("\n") + "\n").unwrap();
    std::fs::remove_file(part.join("results.csv")).unwrap();
    std::fs::remove_file(part.join("summary.txt")).unwrap();
    // Without --resume the earlier match is refused, and left as it was.
    let o = common::run(&{
        let mut a = vec!["match"];
        a.extend(plus(
            &base,
            &["--games", "12", "-q", "--out", part.to_str().unwrap()],
        ));
        a
    });
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("holds a match already; --resume"), "{err}");
    assert_eq!(
        std::fs::read_to_string(part.join("results.csv.tmp")).unwrap(),
        kept.join("\n") + "\n"
    );
    // Resumed from other openings: refused.
    let o = common::run(&{
        let mut a = vec!["match"];
        a.extend(with(&[
            "--games",
            "12",
            "--openings-skip",
            "3",
            "--resume",
            "-q",
        ]));
        a.extend(["--out", part.to_str().unwrap()]);
        a
    });
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("this match opens it with line"), "{err}");
    // Resumed to 12 games: the match played at once.
    let (line, rows) = play(&with(&["--games", "12", "--resume"]), &part);
    assert_eq!(games(&rows), games(&full_rows));
    let seconds: Vec<&str> = rows.iter().map(|r| r["a_seconds"].as_str()).collect();
    assert_eq!(
        &seconds[..4],
        &["99.000"; 4],
        "the complete pairs are counted"
    );
    assert!(
        !seconds[4..].contains(&"99.000"),
        "the incomplete pair is played again"
    );
    assert_eq!(line, full_line);
    for g in 0..12 {
        assert_eq!(csa(&part, g), csa(&full, g), "game {g}");
    }
}

/// A `results.csv` line with its `a_seconds` (the 10th column) set to
/// 99.000; the header as it is.
fn mark_seconds(line: &str) -> String {
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .from_reader(line.as_bytes());
    let record = reader.records().next().unwrap().unwrap();
    if &record[0] == "game" {
        return line.to_string();
    }
    let fields: Vec<&str> = record
        .iter()
        .enumerate()
        .map(|(i, f)| if i == 9 { "99.000" } else { f })
        .collect();
    let mut writer = csv::Writer::from_writer(Vec::new());
    writer.write_record(&fields).unwrap();
    String::from_utf8(writer.into_inner().unwrap())
        .unwrap()
        .trim_end()
        .to_string()
}

#[test]
fn an_engine_that_cannot_start_stops_the_match_before_it_begins() {
    let dir = common::dir("match-usi-missing");
    let o = common::run(&[
        "match",
        "--engine-a",
        "material",
        "--engine-b",
        "usi:/nonexistent/engine",
        "--movetime",
        "50",
        "--out",
        dir.join("m").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("cannot start engine B \"/nonexistent/engine\""),
        "{err}"
    );
    assert!(!dir.join("m").exists());
    let o = common::run(&[
        "match",
        "--engine-a",
        "material",
        "--engine-b",
        "material",
        "--option-b",
        "Threads=2",
    ]);
    assert!(!o.status.success());
    assert!(String::from_utf8_lossy(&o.stderr).contains("--option-b"));
}

#[test]
fn a_short_clocked_match_against_fairy_stockfish_has_no_fault() {
    let fs = Path::new("/usr/games/fairy-stockfish");
    if !common::peer(fs.exists(), "/usr/games/fairy-stockfish") {
        return;
    }
    let dir = common::dir("match-usi-fs");
    let out = dir.join("match");
    let (stdout, rows) = play(
        &[
            "--engine-a",
            "material",
            "--engine-b",
            "usi:/usr/games/fairy-stockfish",
            "--movetime",
            "50",
            // Generous, for a loaded machine: neither side should lose on time.
            "--time-margin",
            "500",
            "--games",
            "2",
        ],
        &out,
    );
    assert!(
        stdout.starts_with("material vs usi:/usr/games/fairy-stockfish: +"),
        "{stdout}"
    );
    assert_eq!(rows.len(), 2);
    for r in &rows {
        assert_eq!(r["detail"], "", "{r:?}");
        assert!(!["crash", "time_up", "illegal_move"].contains(&r["ending"].as_str()));
        // Fairy-Stockfish's own reports: deeper than our depth, nodes, about
        // 50 ms a move.
        let depth: f64 = r["b_depth"].parse().unwrap();
        let ms: f64 = r["b_ms_per_move"].parse().unwrap();
        assert!(depth >= 4.0, "{r:?}");
        assert!(r["b_nodes"].parse::<u64>().unwrap() > 0, "{r:?}");
        assert!((10.0..=150.0).contains(&ms), "{r:?}");
        // Our side spends its 50 ms less the 5 ms margin (some moves end
        // early on a mate found).
        let ours: f64 = r["a_ms_per_move"].parse().unwrap();
        assert!((20.0..=150.0).contains(&ours), "{r:?}");
    }
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert!(
        summary.contains("time: movetime 50 ms, tolerance 500 ms"),
        "{summary}"
    );
    assert!(summary.contains("speed B: "), "{summary}");
    assert!(!summary.contains("faults:"), "{summary}");
}
