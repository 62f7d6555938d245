//! Referee rules on real positions, and match-level properties.

use super::*;
use crate::eval::Material;
use crate::search::PathEntry;
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
    fn choose(&mut self, _: &Position, _: &[PathEntry]) -> Option<Move> {
        self.0.next()
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
    // ../shared/kifu/tournament/olympiad2011/x1_20111121-18-02-44-14548-Bonanza_ACG13-gps.csa
    // after 205 plies: White (to move) mates with G*8e, its only mate, as GPS played.
    let pos = Position::from_sfen(MATE_IN_ONE).unwrap();
    let (mut t1, mut t2) = (TranspositionTable::new(1), TranspositionTable::new(1));
    let r = referee(
        &pos,
        &[],
        &mut searcher(&mut t1, 1),
        &mut searcher(&mut t2, 1),
        320,
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
    let r = referee(&opening.start, &opening_moves, &mut black, &mut white, 320);
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
    let r = referee(&pos, &[], &mut black, &mut white, 320);
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
    let r = referee(&pos, &[], &mut black, &mut white, 320);
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
        30,
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
        320,
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
    let r = referee(&start, &[], &mut black, &mut white, 320);
    assert_eq!(r.end, GameEnd::Resign);
    assert_eq!(r.winner, Some(Color::White));
    assert!(r.moves.is_empty());
    // White has nothing to say after 7g7f: it loses.
    let mut black = Script::new(&["7g7f"]);
    let mut white = Script::new(&[]);
    let r = referee(&start, &[], &mut black, &mut white, 320);
    assert_eq!((r.end, r.winner), (GameEnd::Resign, Some(Color::Black)));
    assert_eq!(r.moves.len(), 1);
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
        assert_eq!(pair[0].nodes, [pair[1].nodes[1], pair[1].nodes[0]]);
        assert!(pair[0].nodes[0] > 1000 && pair[0].nodes[1] > 1000);
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
    assert!(one.speed_line().unwrap().starts_with("speed: A "));
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
