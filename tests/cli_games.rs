//! `kifulearn games` on the bundled fixtures, run as the built binary.

use std::path::{Path, PathBuf};
use std::process::Command;

fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures")
}

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn games_on_fixtures_writes_summary_csv_and_usi() {
    let dir = out_dir("cli_games");
    let (csv_path, usi_path) = (dir.join("games.csv"), dir.join("games.usi"));
    let out = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("games")
        .arg(fixtures())
        .arg("--csv")
        .arg(&csv_path)
        .arg("--usi")
        .arg(&usi_path)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    let lines: Vec<&str> = stdout.lines().collect();

    let mut csv = csv::Reader::from_path(&csv_path).unwrap();
    assert_eq!(
        csv.headers().unwrap().iter().collect::<Vec<_>>(),
        [
            "source",
            "index",
            "format",
            "plies",
            "result",
            "ending",
            "ending_word",
            "error"
        ]
    );
    let rows: Vec<csv::StringRecord> = csv.records().map(Result::unwrap).collect();
    let ok = rows.iter().filter(|r| r[7].is_empty()).count();
    let problems = rows.iter().filter(|r| r[7].contains("one king")).count();
    let failed = rows.len() - ok - problems;
    // The summary agrees with the CSV, whatever the KIF reader's state.
    assert_eq!(
        lines.last().unwrap().to_string(),
        format!("games: {ok} ok, {failed} failed, {problems} problem positions (one king)")
    );
    // 19 CSA games (one file holds two), 30 USI lines and the 575 test
    // openings of `openings/match.sfen`, all read (the one-king problem in
    // `formats/` is not a game).
    let csa_usi_ok = rows
        .iter()
        .filter(|r| (&r[2] == "csa" || &r[2] == "usi") && r[7].is_empty())
        .count();
    assert_eq!(csa_usi_ok, 624);
    assert_eq!(rows.iter().filter(|r| &r[2] == "kif").count(), 5);
    assert_eq!(problems, 2);
    assert_eq!(
        rows.iter()
            .filter(|r| &r[2] == "ki2" && r[7].is_empty())
            .count(),
        3 + 16 // formats/, and one of each handicap in handicaps/
    );

    let two = rows
        .iter()
        .filter(|r| r[0].ends_with("selfplay-two-games.csa"))
        .map(|r| r.iter().skip(1).collect::<Vec<_>>().join(","))
        .collect::<Vec<_>>();
    assert_eq!(
        two,
        [
            "0,csa,74,white,resign,%TORYO,",
            "1,csa,77,black,resign,%TORYO,"
        ]
    );
    let handicap = rows
        .iter()
        .find(|r| r[0].ends_with("pro/kifu25654.csa"))
        .unwrap();
    assert_eq!(
        handicap.iter().skip(1).collect::<Vec<_>>(),
        ["0", "csa", "103", "unknown", "unfinished", "", ""]
    );

    // One USI line per game read, and each file gets one summary line.
    let usi = std::fs::read_to_string(&usi_path).unwrap();
    assert_eq!(usi.lines().count(), ok);
    assert!(usi.lines().any(|l| l.starts_with(
        "sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d 7g7f"
    )));
    let floodgate = std::fs::read_to_string(fixtures().join("floodgate-30.sfen")).unwrap();
    for line in floodgate.lines() {
        assert!(usi.lines().any(|l| l == line.trim()));
    }
    assert!(lines.contains(
        &format!(
            "{}: usi, 30 ok, 0 failed",
            fixtures().join("floodgate-30.sfen").display()
        )
        .as_str()
    ));
    assert!(!dir.join("games.csv.tmp").exists());
}

#[test]
fn games_reports_a_bad_game_and_keeps_going() {
    let dir = out_dir("cli_games_bad");
    let text = std::fs::read_to_string(fixtures().join("assembled/selfplay-two-games.csa"))
        .unwrap()
        .replacen("+7776FU", "+7776XX", 1);
    let bad = dir.join("bad.csa");
    std::fs::write(&bad, text).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("games")
        .arg(&bad)
        .arg(fixtures().join("pro"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0));
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(
        stdout.lines().take(2).collect::<Vec<_>>(),
        [
            format!("{}: csa, 1 ok, 1 failed", bad.display()),
            format!(
                "  error: {}:line 17: found \"+7776XX\", expected a CSA piece code (FU KY KE GI KI KA HI OU TO NY NK NG UM RY)",
                bad.display()
            ),
        ]
    );
    assert_eq!(
        stdout.lines().last(),
        Some("games: 3 ok, 1 failed, 0 problem positions (one king)")
    );
}

#[test]
fn usage_errors_exit_with_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("games")
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    let out = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args(["games", "fixtures", "--bogus"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
}
