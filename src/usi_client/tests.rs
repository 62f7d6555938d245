use std::time::{Duration, Instant};

use super::*;

#[test]
fn split_command_like_a_shell() {
    let w = |s: &str| split_command(s).unwrap();
    assert_eq!(
        w("/usr/games/fairy-stockfish"),
        ["/usr/games/fairy-stockfish"]
    );
    assert_eq!(w("  python3   fake.py  a "), ["python3", "fake.py", "a"]);
    assert_eq!(w("sh -c 'echo a b'"), ["sh", "-c", "echo a b"]);
    assert_eq!(w(r#"x "a \"b\" \n" c\ d"#), ["x", r#"a "b" \n"#, "c d"]);
    assert_eq!(w("a''b \"\""), ["ab", ""]);
    assert!(w("").is_empty());
    assert!(split_command("x 'open").is_err());
    assert!(split_command("x \"open").is_err());
}

#[test]
fn info_scores() {
    let p = |s: &str| parse_info_score(s).unwrap();
    assert_eq!(
        p("info depth 3 seldepth 3 multipv 1 score cp 258 nodes 236 pv 7i7h"),
        Some(InfoScore::Cp(258))
    );
    assert_eq!(p("info score cp -20 lowerbound"), Some(InfoScore::Cp(-20)));
    assert_eq!(
        p("info depth 2 score mate 1 pv G*5b"),
        Some(InfoScore::Mate(1))
    );
    assert_eq!(p("info score mate -4"), Some(InfoScore::Mate(-4)));
    assert_eq!(p("info score mate +3"), Some(InfoScore::Mate(3)));
    assert_eq!(p("info score mate +"), Some(InfoScore::Mate(1000)));
    assert_eq!(p("info score mate -"), Some(InfoScore::Mate(-1000)));
    assert_eq!(p("info depth 5 nodes 100"), None);
    assert_eq!(p("info string score cp x"), None);
    assert!(parse_info_score("info score cp").is_err());
    assert!(parse_info_score("info score pawns 3").is_err());
    assert!(parse_info_score("info score mate x").is_err());
}

#[test]
fn each_field_comes_from_the_last_line_that_gave_it() {
    let mut info = Info::default();
    for line in [
        "info depth 11 seldepth 14 multipv 1 score cp -116 nodes 30211 nps 296186 tbhits 0 time 102 pv 5a4b 2g2f",
        "info depth 12 currmove 7g7f currmovenumber 1",
        "info nodes 40000 time 130",
        "info string depth 99 nodes 1",
    ] {
        info.read(line);
    }
    assert_eq!(info.depth, Some(12));
    assert_eq!(info.nodes, Some(40_000));
    assert_eq!(info.time, Some(Duration::from_millis(130)));
    assert_eq!(info.score, Some(InfoScore::Cp(-116)));
    assert_eq!(info.garbage, None);
    info.read("info depth 13 score cp banana nodes 5");
    assert!(info.garbage.as_deref().unwrap().contains("banana"));
}

#[test]
fn options_are_name_equals_value() {
    assert_eq!(
        parse_option(" UCI_Variant = shogi"),
        Some(("UCI_Variant".into(), "shogi".into()))
    );
    assert_eq!(
        parse_option("EvalDir=a=b"),
        Some(("EvalDir".into(), "a=b".into()))
    );
    assert_eq!(parse_option("Threads"), None);
    assert_eq!(parse_option("=3"), None);
}

#[test]
fn positions_are_stated_from_the_start_with_the_moves() {
    let start = Position::startpos();
    assert_eq!(
        position_command(&start, &[]),
        "position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
    );
    let moves: Vec<Move> = ["7g7f", "3c3d"]
        .iter()
        .map(|m| crate::shogi::parse_usi_move(m).unwrap())
        .collect();
    assert!(position_command(&start, &moves).ends_with(" b - 1 moves 7g7f 3c3d"));
}

#[test]
fn search_timeouts_grow_with_the_work() {
    assert_eq!(search_timeout(Some(6), None), Duration::from_secs(10));
    assert_eq!(search_timeout(Some(14), None), Duration::from_secs(40));
    assert_eq!(search_timeout(None, Some(500_000)), Duration::from_secs(15));
}

/// A USI engine in a few lines of shell: plays 7g7f at once, or hangs at
/// `go` when `hang` (a `sleep`, killed with the process).
fn shell_engine(hang: bool) -> UsiSpec {
    let go = if hang {
        "sleep 30"
    } else {
        "echo 'info depth 3 nodes 77 time 5 score cp 12 pv 7g7f'; echo 'bestmove 7g7f ponder 3c3d'"
    };
    let script = format!(
        "while read l; do case \"$l\" in usi) echo 'id name shell'; echo usiok;; \
         isready) echo readyok;; go*) {go};; quit) exit 0;; esac; done"
    );
    UsiSpec::new(&format!("sh -c {}", shell_quote(&script)), "engine A")
}

fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

#[test]
fn a_process_answers_go_and_a_hang_meets_its_deadline() {
    let mut client = UsiClient::start(shell_engine(false)).unwrap();
    assert_eq!(client.name(), Some("shell"));
    let start = Position::startpos();
    let deadline = Instant::now() + Duration::from_secs(10);
    let answer = client
        .process()
        .unwrap()
        .go(&position_command(&start, &[]), "go movetime 10", deadline)
        .unwrap();
    assert_eq!(answer.best, "7g7f");
    assert_eq!(answer.ponder.as_deref(), Some("3c3d"));
    assert_eq!((answer.info.depth, answer.info.nodes), (Some(3), Some(77)));
    assert_eq!(answer.info.score, Some(InfoScore::Cp(12)));
    // Killed after a failure, started again when asked: a restart.
    client.fail();
    assert_eq!(client.restarts, 0);
    client.process().unwrap();
    assert_eq!(client.restarts, 1);
    // A fresh process for unrelated work is not a restart.
    client.fresh().unwrap();
    assert_eq!(client.restarts, 1);

    let mut hung = UsiClient::start(shell_engine(true)).unwrap();
    let asked = Instant::now();
    let err = hung
        .process()
        .unwrap()
        .go(
            "position startpos",
            "go movetime 10",
            asked + Duration::from_millis(200),
        )
        .unwrap_err();
    assert!(
        asked.elapsed() < Duration::from_secs(5),
        "{:?}",
        asked.elapsed()
    );
    assert!(
        err.to_string()
            .starts_with("engine A gave no bestmove within 0.2"),
        "{err}"
    );
    let killed = Instant::now();
    hung.fail();
    assert!(killed.elapsed() < Duration::from_secs(1));
}

#[test]
fn a_missing_or_silent_command_fails_to_start() {
    match UsiClient::start(UsiSpec::new("/nonexistent/engine", "teacher")) {
        Err(UsiError::Spawn { command, .. }) => assert!(command.contains("nonexistent")),
        Err(e) => panic!("expected a spawn error, got {e}"),
        Ok(_) => panic!("a missing command started"),
    }
    let err = UsiClient::start(UsiSpec::new("true", "teacher"))
        .err()
        .expect("`true` exits at once");
    assert_eq!(err.to_string(), "teacher exited while waiting for usiok");
    assert!(UsiClient::start(UsiSpec::new(" ", "teacher")).is_err());
}
