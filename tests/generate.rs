//! `kifulearn generate` run as the built binary: what it writes reads back
//! (positions and CSA records agree), the output does not depend on the thread
//! count, a resumed run equals an uninterrupted one, shards merged equal one
//! run, test openings are refused.

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use kifulearn::positions::{read_positions, GameResult, PositionRecord};
use kifulearn::record::{self, Game};

fn dir(name: &str) -> PathBuf {
    let d = Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("generate")
        .join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(d.parent().unwrap()).unwrap();
    d
}

/// A quick run (depth 1, one game a chunk) with `extra` options.
fn generate(out: &Path, extra: &[&str]) -> Output {
    generate_chunked(out, &[&["--chunk-games", "1"], extra].concat())
}

/// A quick run (depth 1) with `extra` options, `--chunk-games` among them.
fn generate_chunked(out: &Path, extra: &[&str]) -> Output {
    let output = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("generate")
        .arg("--out")
        .arg(out)
        .args(["--depth", "1", "--hash", "1", "-q"])
        .args(extra)
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    output
}

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    v.sort();
    v
}

/// Every file of a run, by name relative to it, with its bytes.
fn snapshot(out: &Path) -> Vec<(String, Vec<u8>)> {
    let mut all = vec![out.join("generate.toml")];
    all.extend(files(&out.join("positions")));
    all.extend(files(&out.join("chunks")));
    all.extend(files(&out.join("games")));
    all.into_iter()
        .map(|p| {
            (
                p.strip_prefix(out).unwrap().display().to_string(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect()
}

fn records(out: &Path) -> Vec<PositionRecord> {
    files(&out.join("positions"))
        .iter()
        .flat_map(|p| read_positions(p).unwrap())
        .map(|r| r.expect("every record decodes: a legal position and move"))
        .collect()
}

fn games(out: &Path) -> Vec<Game> {
    files(&out.join("games"))
        .iter()
        .flat_map(|p| record::read_file(p).games)
        .map(|g| g.expect("every record reads"))
        .collect()
}

#[test]
fn a_small_run_reads_back_consistent_with_its_games() {
    let out = dir("small");
    generate(&out, &["--positions", "300", "--jobs", "2"]);
    let recs = records(&out);
    assert!(recs.len() >= 300, "{}", recs.len());
    // `kifulearn positions` counts the same, with no error.
    let paths = files(&out.join("positions"));
    let listed = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("positions")
        .args(&paths)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&listed.stdout);
    assert!(
        text.contains(&format!("positions: {} ok, 0 failed", recs.len())),
        "{text}"
    );
    let mut hashes = HashSet::new();
    for r in &recs {
        assert!(r.score.abs() <= 3000, "score {}", r.score);
        assert!(r.best_move.is_some());
        assert!(r.ply > 16, "ply {} before --skip-plies", r.ply);
        assert!(
            hashes.insert(r.position.hash()),
            "duplicate {}",
            r.position.to_sfen()
        );
    }
    // The records are, in order, a subsequence of the games' positions, each
    // with its game's result (from the CSA ending) for its side to move.
    let games = games(&out);
    assert!(!games.is_empty());
    let mut next = recs.iter().peekable();
    let mut decided = 0;
    for game in &games {
        assert_ne!(game.result, record::GameResult::Unknown);
        decided += usize::from(game.result != record::GameResult::Draw);
        for (pos, _) in game.positions() {
            if let Some(r) = next.peek() {
                if r.position.same_position(&pos) && r.ply == pos.move_number() {
                    let side = pos.side_to_move();
                    assert_eq!(r.result, GameResult::for_side(game.result, side));
                    let winner = match game.result {
                        record::GameResult::BlackWin => Some(kifulearn::shogi::Color::Black),
                        record::GameResult::WhiteWin => Some(kifulearn::shogi::Color::White),
                        _ => None,
                    };
                    if winner == Some(side) {
                        assert_eq!(r.result, GameResult::Win);
                    }
                    next.next();
                }
            }
        }
    }
    assert!(next.next().is_none(), "a record matches no game position");
    assert!(decided > 0);
}

#[test]
fn the_thread_count_changes_no_byte() {
    let (one, two) = (dir("jobs1"), dir("jobs2"));
    generate(&one, &["--positions", "300", "--jobs", "1", "--seed", "7"]);
    generate(&two, &["--positions", "300", "--jobs", "2", "--seed", "7"]);
    let (a, b) = (snapshot(&one), snapshot(&two));
    assert!(a.len() > 3);
    assert_eq!(a, b);
}

#[test]
fn a_resumed_run_equals_an_uninterrupted_one() {
    let (resumed, single) = (dir("resumed"), dir("single"));
    // Short games (at most 96 positions each), so 150 and 300 end in different chunks.
    let short = ["--max-plies", "120"];
    generate(
        &resumed,
        &[&short[..], &["--positions", "150", "--jobs", "2"]].concat(),
    );
    let first = records(&resumed).len();
    assert!((150..300).contains(&first), "{first}");
    let second = generate(
        &resumed,
        &[&short[..], &["--positions", "300", "--jobs", "2"]].concat(),
    );
    assert!(second.stdout.is_empty(), "-q prints nothing");
    generate(
        &single,
        &[&short[..], &["--positions", "300", "--jobs", "1"]].concat(),
    );
    assert_eq!(snapshot(&resumed), snapshot(&single));
    // Other options are refused, naming the option.
    let refused = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("generate")
        .arg("--out")
        .arg(&single)
        .args([
            "--depth",
            "2",
            "--chunk-games",
            "1",
            "--hash",
            "1",
            "--max-plies",
            "120",
            "-q",
        ])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("option --depth differs"), "{err}");
}

fn merge(shards: &[&Path], out: &Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args(["dataset", "merge"])
        .args(shards)
        .arg("--out")
        .arg(out)
        .output()
        .unwrap()
}

#[test]
fn shards_of_a_games_run_merge_into_the_run_byte_for_byte() {
    // 11 games in chunks of 2: each shard ends in a partial chunk, and the
    // run's chunks mix the shards' games. Short games with few random plies
    // and no skipped plies repeat positions across games, so the merge has
    // duplicates to leave out.
    let opts = [
        "--games",
        "11",
        "--chunk-games",
        "2",
        "--max-plies",
        "60",
        "--skip-plies",
        "0",
        "--random-plies",
        "2",
    ];
    let single = dir("games-single");
    generate_chunked(&single, &[&opts[..], &["--jobs", "2"]].concat());
    let one = snapshot(&single);
    assert_eq!(
        one.iter().filter(|(n, _)| n.starts_with("games/")).count(),
        11
    );
    assert_eq!(
        one.iter()
            .filter(|(n, _)| n.starts_with("positions/"))
            .count(),
        6
    );
    let within: usize = records(&single).len();
    let mut hashes = HashSet::new();
    assert!(records(&single)
        .iter()
        .all(|r| hashes.insert(r.position.hash())));

    for n in [2, 3] {
        let parts: Vec<PathBuf> = (0..n).map(|k| dir(&format!("games-{k}of{n}"))).collect();
        for (k, part) in parts.iter().enumerate() {
            generate_chunked(
                part,
                &[&opts[..], &["--jobs", "1", "--shard", &format!("{k}/{n}")]].concat(),
            );
        }
        // The shards hold each position of theirs once, but together more
        // than the run: what an earlier game of another shard wrote.
        let in_shards: usize = parts.iter().map(|p| records(p).len()).sum();
        assert!(in_shards > within, "{n} shards: {in_shards} vs {within}");
        let merged = dir(&format!("games-merged-{n}"));
        let refs: Vec<&Path> = parts.iter().rev().map(PathBuf::as_path).collect();
        let done = merge(&refs, &merged);
        let err = String::from_utf8_lossy(&done.stderr);
        assert!(done.status.success(), "{err}");
        assert!(
            err.contains(&format!("merged {n} generate shards: 11 games, 6 chunks")),
            "{err}"
        );
        assert_eq!(snapshot(&merged), one, "{n} shards merged");
    }

    // A shard made with other options, a missing shard, a --positions run
    // are refused, naming what is wrong.
    let other = dir("games-other");
    generate_chunked(
        &other,
        &[&opts[..], &["--shard", "1/2", "--seed", "2"]].concat(),
    );
    let refused = merge(&[&dir_of("games-0of2"), &other], &dir("games-bad"));
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("has --seed \"2\" but"), "{err}");
    let missing = merge(
        &[&dir_of("games-0of3"), &dir_of("games-2of3")],
        &dir("games-bad"),
    );
    let err = String::from_utf8_lossy(&missing.stderr);
    assert!(err.contains("shard 1/3 missing"), "{err}");
    let sharded_positions = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args(["generate", "--depth", "1", "--shard", "0/2", "--out"])
        .arg(dir("positions-shard"))
        .output()
        .unwrap();
    assert!(!sharded_positions.status.success());
    let err = String::from_utf8_lossy(&sharded_positions.stderr);
    assert!(err.contains("--shard 0/2 needs --games M"), "{err}");
}

/// A folder of this test binary's, as [`dir`] names it, left as it is.
fn dir_of(name: &str) -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR"))
        .join("generate")
        .join(name)
}

#[test]
fn a_test_opening_is_refused() {
    let out = dir("refused");
    let test_lines: Vec<String> = std::fs::read_to_string("fixtures/openings/match.sfen")
        .unwrap()
        .lines()
        .take(3)
        .map(str::to_string)
        .collect();
    let openings = out.with_extension("sfen");
    std::fs::write(
        &openings,
        format!("{}\nstartpos moves 2g2f 8c8d\n", test_lines.join("\n")),
    )
    .unwrap();
    let run = generate(
        &out,
        &[
            "--positions",
            "100",
            "--openings",
            openings.to_str().unwrap(),
        ],
    );
    let err = String::from_utf8_lossy(&run.stderr);
    assert!(err.contains("3 opening line(s) refused"), "{err}");
    let toml = std::fs::read_to_string(out.join("generate.toml")).unwrap();
    assert!(toml.contains("floodgate-30.sfen + "), "{toml}");
    // No game starts with a test opening's moves.
    let prefixes: Vec<String> = test_lines
        .iter()
        .map(|l| l.trim_start_matches("startpos moves ").to_string())
        .collect();
    for game in games(&out) {
        let line: Vec<String> = game.moves.iter().map(|m| m.to_string()).collect();
        let line = line.join(" ");
        assert!(prefixes.iter().all(|p| !line.starts_with(p.as_str())));
    }
}
