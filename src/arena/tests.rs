//! Referee rules on real positions, and match-level properties.

use super::*;
use crate::eval::Material;
use crate::search::{Limits, TranspositionTable};
use crate::shogi::parse_usi_move;

/// Plays its moves in order, whatever the position; `None` when they run out.
struct Script(std::vec::IntoIter<Move>);

impl Script {
    fn new(moves: &[&str]) -> Self {
        let moves: Vec<Move> = moves.iter().map(|m| parse_usi_move(m).unwrap()).collect();
        Self(moves.into_iter())
    }
}

impl Player for Script {
    fn choose(&mut self, _: &Turn<'_>) -> Reply {
        self.0.next().map_or(Reply::Resign, Reply::Move)
    }
}

fn searcher(table: &mut TranspositionTable, depth: u32) -> SearchPlayer<'_, Material> {
    SearchPlayer::new(
        &Material,
        table,
        Limits {
            depth: Some(depth),
            ..Limits::default()
        },
    )
}

#[test]
fn a_mate_in_one_is_played_and_wins() {
    // The development collection's (not shipped) GPS Shogi tournament log
    // olympiad2011/x1_20111121-18-02-44-14548-Bonanza_ACG13-gps.csa
    // after 205 plies: White (to move) mates with G*8e, its only mate, as GPS played.
    let pos = Position::from_sfen(MATE_IN_ONE).unwrap();
    let (mut t1, mut t2) = (TranspositionTable::new(1), TranspositionTable::new(1));
    let r = referee(
        &pos,
        &[],
        &mut searcher(&mut t1, 1),
        &mut searcher(&mut t2, 1),
        &Rules::untimed(320),
    );
    assert_eq!(r.end, GameEnd::Checkmate, "{:?}", r.moves);
    assert_eq!(r.moves, [parse_usi_move("G*8e").unwrap()]);
    assert_eq!(r.winner, Some(Color::White));
    assert!(!r.final_position.has_legal_move());
}

const MATE_IN_ONE: &str = "9/1nsg2g1+B/1l1pkspp1/4ppn1p/K8/1l1P4P/9/3s5/+lN3g1NL w 2RB2Pgs8p 206";

#[test]
fn four_fold_repetition_is_a_draw() {
    // After a real floodgate opening both rooks shuffle: the position after
    // 24 plies recurs at plies 28, 32 and 36; the fourth occurrence ends the game.
    let opening = &default_openings()[0];
    let mut black = Script::new(&["2h3h", "3h2h", "2h3h", "3h2h", "2h3h", "3h2h", "9g9f"]);
    let mut white = Script::new(&["8b7b", "7b8b", "8b7b", "7b8b", "8b7b", "7b8b", "9c9d"]);
    let opening_moves = opening.moves.clone();
    let pos = opening.position();
    assert!(
        pos.is_legal(parse_usi_move("2h3h").unwrap()),
        "{}",
        pos.to_sfen()
    );
    let r = referee(
        &opening.start,
        &opening_moves,
        &mut black,
        &mut white,
        &Rules::untimed(320),
    );
    assert_eq!(r.end, GameEnd::Repetition);
    assert_eq!(r.winner, None);
    assert_eq!(r.moves.len(), 24 + 12);
    assert!(r.final_position.same_position(&pos));
}

#[test]
fn perpetual_check_loses_for_the_checker() {
    // A rook chases the king up and down the 9th file: Black checks on every
    // move, White only escapes. The position after 9i9b recurs after plies
    // 5, 9 and 13; at the fourth occurrence Black, the checker, loses.
    let pos = Position::from_sfen("9/3k5/9/9/9/9/9/9/R3K4 b - 1").unwrap();
    let mut black = Script::new(&[
        "9i9b", "9b9c", "9c9b", "9b9c", "9c9b", "9b9c", "9c9b", "9b9c",
    ]);
    let mut white = Script::new(&[
        "6b6c", "6c6b", "6b6c", "6c6b", "6b6c", "6c6b", "6b6c", "6c6b",
    ]);
    let r = referee(&pos, &[], &mut black, &mut white, &Rules::untimed(320));
    assert_eq!(
        r.end,
        GameEnd::PerpetualCheck {
            checker: Color::Black
        }
    );
    assert_eq!(r.winner, Some(Color::White));
    assert_eq!(r.moves.len(), 13);
    // The kings stepping back and forth instead: nobody checks, a plain draw.
    let pos = Position::from_sfen("9/3k5/9/9/9/9/9/9/R3K4 b - 1").unwrap();
    let mut black = Script::new(&["5i4h", "4h5i", "5i4h", "4h5i", "5i4h", "4h5i"]);
    let mut white = Script::new(&["6b6c", "6c6b", "6b6c", "6c6b", "6b6c", "6c6b"]);
    let r = referee(&pos, &[], &mut black, &mut white, &Rules::untimed(320));
    assert_eq!(r.end, GameEnd::Repetition);
    assert_eq!(r.moves.len(), 12);
}

#[test]
fn the_ply_limit_draws_and_counts_the_opening() {
    let opening = &default_openings()[1];
    let (mut t1, mut t2) = (TranspositionTable::new(1), TranspositionTable::new(1));
    let r = referee(
        &opening.start,
        &opening.moves,
        &mut searcher(&mut t1, 1),
        &mut searcher(&mut t2, 1),
        &Rules::untimed(30),
    );
    assert_eq!(r.end, GameEnd::MaxPlies);
    assert_eq!(r.winner, None);
    assert_eq!(r.moves.len(), 30);
    assert_eq!(&r.moves[..24], &opening.moves[..]);
}

#[test]
fn a_side_that_may_declare_does_and_wins() {
    // shogi/declaration.rs: Black's king on 5b with 10 pieces in camp and 28 points.
    let pos = Position::from_sfen("GGSS4k/+P+PSS+R+BK2/9/9/9/9/9/9/9 b 10P 1").unwrap();
    let (mut t1, mut t2) = (TranspositionTable::new(1), TranspositionTable::new(1));
    let r = referee(
        &pos,
        &[],
        &mut searcher(&mut t1, 1),
        &mut searcher(&mut t2, 1),
        &Rules::untimed(320),
    );
    assert_eq!(r.end, GameEnd::Declaration);
    assert_eq!(r.winner, Some(Color::Black));
    assert!(r.moves.is_empty());
}

#[test]
fn an_illegal_or_missing_move_loses_and_is_never_played() {
    let start = Position::startpos();
    // Black's first move is a pawn move two squares: not legal, not played.
    let mut black = Script::new(&["7g7e"]);
    let mut white = Script::new(&[]);
    let r = referee(&start, &[], &mut black, &mut white, &Rules::untimed(320));
    assert_eq!(r.end, GameEnd::IllegalMove);
    assert_eq!(
        r.detail.as_deref(),
        Some("answered 7g7e, not a legal move here")
    );
    assert_eq!(r.winner, Some(Color::White));
    assert!(r.moves.is_empty());
    // White has nothing to say after 7g7f: it resigns.
    let mut black = Script::new(&["7g7f"]);
    let mut white = Script::new(&[]);
    let r = referee(&start, &[], &mut black, &mut white, &Rules::untimed(320));
    assert_eq!((r.end, r.winner), (GameEnd::Resign, Some(Color::Black)));
    assert_eq!(r.moves.len(), 1);
    assert_eq!(r.detail, None);
}

/// Answers `reply` after `delay`, and keeps the `go` command it was given.
struct Faulty {
    reply: Reply,
    delay: std::time::Duration,
    gos: Vec<String>,
    result: Option<Option<bool>>,
}

impl Faulty {
    fn new(reply: Reply, delay_ms: u64) -> Self {
        Self {
            reply,
            delay: std::time::Duration::from_millis(delay_ms),
            gos: Vec::new(),
            result: None,
        }
    }
}

impl Player for Faulty {
    fn choose(&mut self, turn: &Turn<'_>) -> Reply {
        self.gos.extend(turn.clock.map(GameClock::go_command));
        std::thread::sleep(self.delay);
        self.reply.clone()
    }

    fn game_over(&mut self, won: Option<bool>) {
        self.result = Some(won);
    }
}

#[test]
fn every_fault_loses_for_the_side_that_made_it() {
    let start = Position::startpos();
    let seven = Reply::Move(parse_usi_move("7g7f").unwrap());
    let rules = Rules::untimed(320);
    for (reply, end) in [
        (
            Reply::Crashed("gone".into()),
            GameEnd::Crash { side: Color::White },
        ),
        (Reply::NoAnswer("silent".into()), GameEnd::TimeUp),
        (Reply::Illegal("bestmove win".into()), GameEnd::IllegalMove),
    ] {
        let mut black = Faulty::new(seven.clone(), 0);
        let mut white = Faulty::new(reply, 0);
        let r = referee(&start, &[], &mut black, &mut white, &rules);
        assert_eq!((r.end, r.winner), (end, Some(Color::Black)));
        assert_eq!(r.moves.len(), 1);
        assert!(r.detail.is_some());
        assert_eq!(
            (black.result, white.result),
            (Some(Some(true)), Some(Some(false)))
        );
    }
    assert_eq!(
        GameEnd::Crash { side: Color::White }.ending(),
        crate::record::Ending::IllegalAction(Color::White)
    );
}

#[test]
fn a_move_later_than_its_time_and_the_tolerance_loses_on_time() {
    let start = Position::startpos();
    let seven = Reply::Move(parse_usi_move("7g7f").unwrap());
    let three = Reply::Move(parse_usi_move("3c3d").unwrap());
    let ms = std::time::Duration::from_millis;
    let rules = Rules {
        max_plies: 320,
        time: Some(TimeControl::MoveTime(ms(10))),
        tolerance: ms(20),
    };
    // In time (within 10 + 20 ms), then 80 ms: late.
    let mut black = Faulty::new(seven, 0);
    let mut white = Faulty::new(three, 80);
    let r = referee(&start, &[], &mut black, &mut white, &rules);
    assert_eq!((r.end, r.winner), (GameEnd::TimeUp, Some(Color::Black)));
    assert_eq!(r.moves.len(), 1);
    let detail = r.detail.unwrap();
    assert!(
        detail.contains("10 ms allowed + 20 ms tolerance"),
        "{detail}"
    );
    assert_eq!(white.gos, ["go movetime 10"]);
}

#[test]
fn the_clock_runs_down_and_byoyomi_follows() {
    let start = Position::startpos();
    let ms = std::time::Duration::from_millis;
    let rules = Rules {
        max_plies: 4,
        time: Some(TimeControl::Clock {
            time: ms(60),
            inc: ms(0),
            byoyomi: ms(200),
        }),
        tolerance: ms(100),
    };
    let mut black = Script::new(&["7g7f", "2g2f"]);
    let mut white = Faulty::new(Reply::Move(parse_usi_move("3c3d").unwrap()), 70);
    // White spends its 60 ms main time on its first move (70 ms: 10 ms of
    // byoyomi), then moves in byoyomi; its second answer is not legal.
    let r = referee(&start, &[], &mut black, &mut white, &rules);
    assert_eq!(r.end, GameEnd::IllegalMove);
    assert_eq!(white.gos.len(), 2);
    assert!(
        white.gos[0].ends_with("wtime 60 byoyomi 200"),
        "{:?}",
        white.gos
    );
    assert!(
        white.gos[1].ends_with("wtime 0 byoyomi 200"),
        "{:?}",
        white.gos
    );
}

#[test]
fn a_clocked_match_searches_by_the_clock_and_loses_no_game_on_time() {
    let openings = select_openings(default_openings(), 3, None);
    let cfg = MatchConfig {
        games: 2,
        depth: None,
        time: Some(TimeControl::MoveTime(std::time::Duration::from_millis(20))),
        // Generous, for a loaded machine (the default is 100 ms).
        time_margin: std::time::Duration::from_millis(300),
        jobs: 1,
        hash_mb: 1,
        max_plies: 40,
        ..MatchConfig::default()
    };
    let report = run_match(&Material, &Material, &openings, &cfg, |_| {});
    assert_eq!(report.games.len(), 2);
    assert_eq!(report.fault_line(), None, "{:?}", report.games);
    // Every move after the openings was searched by one side, and each side
    // moved in each game (how long a game lasts depends on the clock).
    for g in &report.games {
        let moves = g.sides.iter().map(|s| s.moves as usize);
        assert_eq!(moves.sum::<usize>(), g.moves.len() - g.opening_plies);
        assert!(g.sides.iter().all(|s| s.moves >= 1), "{:?}", g.sides);
    }
    for side in report.side_stats() {
        // 20 ms a move less the 5 ms margin: about 15 ms of search.
        assert!(side.moves >= 2, "{side:?}");
        assert!(side.ms_per_move() >= 12.0, "{side:?}");
        assert!(side.mean_depth() >= 2.0, "{side:?}");
    }
}

fn config(games: usize, jobs: usize) -> MatchConfig {
    MatchConfig {
        games,
        depth: Some(1),
        jobs,
        hash_mb: 1,
        max_plies: 160,
        ..MatchConfig::default()
    }
}

#[test]
fn identical_evaluators_mirror_each_pair_and_threads_change_nothing() {
    let openings = select_openings(default_openings(), 10, None);
    let one = run_match(&Material, &Material, &openings, &config(6, 1), |_| {});
    let mut seen = Vec::new();
    let two = run_match(&Material, &Material, &openings, &config(6, 2), |g| {
        seen.push(g.game)
    });
    assert_eq!(one, two);
    assert_eq!(seen, (0..6).collect::<Vec<_>>());
    assert_eq!(one.wins + one.losses + one.draws, 6);
    for (k, pair) in one.games.chunks(2).enumerate() {
        // Same evaluator on both sides: the two games of an opening are the same
        // game, so A's results mirror and the score of each pair is exactly ½.
        assert_eq!(pair[0].moves, pair[1].moves);
        assert_eq!(pair[0].winner, pair[1].winner);
        // The same searches on the other side: A's nodes of one game are B's
        // of the other (and `assert_eq!(one, two)` above compared the nodes
        // across thread counts).
        assert_eq!(pair[0].sides, [pair[1].sides[1], pair[1].sides[0]]);
        assert!(pair[0].sides.iter().all(|s| s.nodes > 1000 && s.moves > 10));
        assert_eq!(pair[0].detail, None);
        assert_eq!(pair[0].score_a() + pair[1].score_a(), 1.0);
        assert_eq!(pair[0].opening_line, 11 + k);
        assert_eq!(pair[1].opening_line, 11 + k);
        assert_eq!(pair[0].a_color, Color::Black);
        assert_eq!(pair[1].a_color, Color::White);
    }
    assert_eq!(one.wins, one.losses);
    assert_eq!(one.score(), 0.5);
    // Every pair scores 1 of 2: no spread between pairs, so Elo 0 exactly and no nElo.
    assert_eq!(one.pentanomial().counts, [0, 0, 3, 0, 0]);
    assert!(
        one.summary_line("A", "B")
            .ends_with(", Elo +0.0 ± 0.0 [+0.0, +0.0], pairs 0/0/3/0/0, nElo -, SPRT: off"),
        "{}",
        one.summary_line("A", "B")
    );
    let [a, b] = one.nodes_per_second().unwrap();
    assert!(a > 0.0 && b > 0.0);
    let lines = one.speed_lines();
    assert!(lines[0].starts_with("speed A: "), "{lines:?}");
    assert!(lines[1].starts_with("speed B: "), "{lines:?}");
    assert!(lines[0].contains(" ms/move ("), "{lines:?}");
    assert!(lines[2].starts_with("speed A/B: "), "{lines:?}");
    assert_eq!(one.fault_line(), None);
}

/// An evaluator that misjudges everything: it counts its own material negatively.
struct Upside;

impl crate::eval::Evaluator for Upside {
    fn evaluate(&self, pos: &Position) -> i32 {
        -Material.evaluate(pos)
    }
}

#[test]
fn sprt_stops_at_the_first_pair_that_decides_whatever_the_threads() {
    let openings = default_openings();
    let mut cfg = config(40, 1);
    cfg.sprt = Some(SprtConfig {
        model: EloModel::Logistic,
        elo0: 0.0,
        elo1: 200.0,
        alpha: 0.05,
        beta: 0.05,
    });
    let one = run_match(&Material, &Upside, &openings, &cfg, |_| {});
    cfg.jobs = 2;
    let two = run_match(&Material, &Upside, &openings, &cfg, |_| {});
    assert_eq!(one, two);
    let sprt = one.sprt.unwrap();
    assert_eq!(sprt.verdict, SprtVerdict::H1, "{sprt} {:?}", one.tally());
    assert!(one.games.len() < 40 && one.games.len() % 2 == 0);
    // The LLR reported is the one of the pairs counted, and it crossed only at the end.
    assert_eq!(sprt.llr, one.pentanomial().llr_logistic(0.0, 200.0));
    let before = MatchReport {
        games: one.games[..one.games.len() - 2].to_vec(),
        ..one.clone()
    };
    assert_eq!(
        cfg.sprt.unwrap().result(&before.pentanomial()).verdict,
        SprtVerdict::Inconclusive
    );
}

#[test]
fn a_normalized_sprt_counts_whole_pairs_and_stops() {
    let openings = default_openings();
    let mut cfg = config(41, 2);
    let test = SprtConfig {
        model: EloModel::Normalized,
        elo0: 0.0,
        elo1: 100.0,
        alpha: 0.05,
        beta: 0.05,
    };
    cfg.sprt = Some(test);
    let r = run_match(&Material, &Upside, &openings, &cfg, |_| {});
    let sprt = r.sprt.unwrap();
    assert_eq!(sprt.verdict, SprtVerdict::H1, "{sprt}");
    assert!(r.games.len() < 40 && r.games.len() % 2 == 0);
    assert_eq!(sprt.llr, r.pentanomial().llr_normalized(0.0, 100.0));
    let line = r.summary_line("A", "B");
    assert!(
        line.contains(&format!(
            "SPRT: LLR {:.2} [-2.94, 2.94] (nelo0 0, nelo1 100, alpha 0.05, beta 0.05): H1 accepted",
            sprt.llr
        )),
        "{line}"
    );

    // An odd game count: the last game counts in W/L/D, in no pair.
    let mut cfg = config(5, 2);
    cfg.sprt = Some(test);
    let r = run_match(&Material, &Upside, &openings, &cfg, |_| {});
    assert_eq!(r.games.len(), 5);
    assert_eq!(r.tally().games(), 5);
    assert_eq!(r.pentanomial().pairs(), 2);
    assert_eq!(
        r.sprt.unwrap().llr,
        r.pentanomial().llr_normalized(0.0, 100.0)
    );
}
