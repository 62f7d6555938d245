use super::table::Entry;
use super::*;
use crate::eval::{Linear, Material};
use crate::shogi::{Color, Siblings};

fn run(sfen: &str, depth: u32) -> SearchResult {
    let pos = Position::from_sfen(sfen).unwrap();
    let mut tt = TranspositionTable::new(4);
    let control = Control::new();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    Searcher::new(&Material, &mut tt, &control, limits).search(&pos, &[], |_| {})
}

#[test]
fn checkmated_side_has_no_move_and_a_mate_in_one_is_found() {
    let mated = run("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", 3);
    assert_eq!(mated.best, None);
    let mate = run("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", 3);
    assert_eq!(mate.best.unwrap().to_string(), "G*5b");
    assert_eq!(mate.score, Score::Mate(1));
}

#[test]
fn a_hanging_rook_is_taken() {
    // Black's rook on 2h takes the undefended rook on 2b, promoting.
    let r = run("4k4/7r1/9/9/9/9/9/7R1/4K4 b - 1", 2);
    assert_eq!(r.best.unwrap().to_string(), "2h2b+");
    assert!(matches!(r.score, Score::Cp(v) if v > 1000), "{:?}", r.score);
}

#[test]
fn pawn_drop_mate_is_not_played_or_counted() {
    // P*1b would mate (uchifuzume) and is illegal; no other move mates in one.
    let r = run("8k/9/7GN/9/9/9/9/9/4K4 b P 1", 1);
    assert_ne!(r.best.unwrap().to_string(), "P*1b");
    assert!(!matches!(r.score, Score::Mate(1)), "{:?}", r.score);
}

#[test]
fn repetition_is_a_draw_and_perpetual_check_loses_for_the_checker() {
    let mv = |s: &str| crate::shogi::parse_usi_move(s).unwrap();
    let start = Position::startpos();
    let shuffle: Vec<Move> = ["2h3h", "8b7b", "3h2h", "7b8b"]
        .iter()
        .map(|m| mv(m))
        .collect();
    let path = game_path(&start, &shuffle);
    assert_eq!(find_repetition(&path), Some(Repetition::Draw));
    assert_eq!(find_repetition(&path[..4]), None);

    // A king chased by a rook: Black gives check on every move, White only escapes.
    let pos = Position::from_sfen("9/3k5/9/9/9/9/9/9/R3K4 b - 1").unwrap();
    let chase: Vec<Move> = ["9i9b", "6b6c", "9b9c", "6c6b", "9c9b", "6b6c"]
        .iter()
        .map(|m| mv(m))
        .collect();
    let path = game_path(&pos, &chase);
    assert!(path[1].in_check && path[3].in_check && path[5].in_check);
    assert_eq!(find_repetition(&path[..5]), None);
    // After 9c9b White is to move in a repeated position and was checked throughout.
    assert_eq!(find_repetition(&path[..6]), Some(Repetition::Win));
    // After 6b6c Black is to move in a repeated position and gave every check.
    assert_eq!(find_repetition(&path), Some(Repetition::Loss));
}

#[test]
fn pawn_drop_mate_let_through_by_the_generator_is_filtered() {
    // From a match game: White's P*7f would mate; haitaka generates it anyway.
    let sfen =
        "p3pp1p1/1+S1p2k1l/2+L5n/1p1g2g1p/P1s5s/6p1g/LPK2+p+p+b+n/7+rg/1+b1L3+pr w Nsn5p 230";
    let pos = Position::from_sfen(sfen).unwrap();
    let drop = crate::shogi::parse_usi_move("P*7f").unwrap();
    let mut ours = Vec::new();
    pos.for_each_legal_move(|mv| ours.push(mv));
    assert!(!ours.contains(&drop));
    assert_eq!(ours.len(), pos.count_legal_moves());
    for depth in 1..=3 {
        let r = run(sfen, depth);
        assert!(pos.is_legal(r.best.unwrap()), "depth {depth}: {:?}", r.best);
    }
}

#[test]
fn stop_flag_still_gives_a_legal_move() {
    let pos = Position::startpos();
    let mut tt = TranspositionTable::new(1);
    let control = Control::new();
    control.stop.store(true, Ordering::Relaxed);
    let r =
        Searcher::new(&Material, &mut tt, &control, Limits::default()).search(&pos, &[], |_| {});
    assert!(pos.is_legal(r.best.unwrap()));
}

#[test]
fn node_limit_is_respected_within_a_check_interval() {
    let pos = Position::startpos();
    let mut tt = TranspositionTable::new(1);
    let control = Control::new();
    let limits = Limits {
        nodes: Some(5000),
        ..Limits::default()
    };
    let mut s = Searcher::new(&Material, &mut tt, &control, limits);
    let r = s.search(&pos, &[], |_| {});
    assert!(r.nodes < 5000 + 1024, "{}", r.nodes);
    assert!(r.depth >= 1);
}

#[test]
fn table_size_follows_megabytes() {
    let one = TranspositionTable::new(1).len();
    let sixteen = TranspositionTable::new(16).len();
    assert_eq!(sixteen, one * 16);
    assert!(one * std::mem::size_of::<Option<Entry>>() <= 1024 * 1024);
}

/// Every 2nd position of the bundled tournament games (middle and end games:
/// captures, checks and mates) and every position of 8 floodgate opening lines.
fn fixture_positions() -> Vec<Position> {
    let mut out = Vec::new();
    for name in [
        "040501.csa",
        "olympiad2011-shokidoki-gps.csa",
        "wcsc20-0504-7-gpsshogi-otsukishogi.csa",
        "wcsc22-day3-7-ponanza.csa",
        "wcsc23-day2-4-ponanza.csa",
    ] {
        let path = crate::testdata::fixture(&format!("tournament/{name}"));
        let game = crate::record::read_file(&path).games.remove(0).unwrap();
        out.extend(game.positions().map(|(pos, _)| pos).step_by(2));
    }
    out.extend(crate::testdata::floodgate_positions(8));
    out
}

/// The value `line` reaches from `pos`: the static value (or mate) of the
/// position at its end, for the side to move at `pos`.
fn value_of_line<E: Evaluator + ?Sized>(eval: &E, pos: &Position, line: &[Move]) -> i32 {
    let mut end = pos.clone();
    for &mv in line {
        assert!(end.is_legal(mv), "{} in {}", mv, end.to_sfen());
        end.play_unchecked(mv);
    }
    let v = if end.in_check() && !end.has_legal_move() {
        -(MATE - line.len() as i32)
    } else {
        eval.evaluate(&end)
    };
    if line.len().is_multiple_of(2) {
        v
    } else {
        -v
    }
}

/// What the searcher's modes give on every sibling of `positions` at `depth`;
/// returns (siblings, of which the engine mode proper valued differently).
fn one_search<E: Evaluator + ?Sized>(
    eval: &E,
    positions: &[Position],
    depth: u32,
) -> (usize, usize) {
    let mut labelling = Searcher::labelling(eval, true);
    // The capped labeller's searcher: one quiescence table kept through
    // every sibling of every position.
    let mut tabled = Searcher::labelling(eval, true).with_mode(Mode {
        quiescence_table: true,
        ..Mode::labelling(true)
    });
    let control = Control::new();
    let mut siblings = Siblings::new();
    let (mut checked, mut evasions_differ) = (0, 0);
    for pos in positions {
        siblings.expand(pos);
        for (mv, sib) in siblings.iter(pos) {
            let at = || format!("{} after {mv}, depth {depth}", pos.to_sfen());
            let (value, line) = labelling.line(&sib, &[], depth);
            let line = line.to_vec();
            assert_eq!(value_of_line(eval, &sib, &line), value, "{}", at());

            // With the quiescence table: the same value, and with a window
            // (alpha, ∞) the value above alpha, an upper bound at or below it.
            assert_eq!(tabled.value(&sib, &[], depth), value, "{}", at());
            assert_eq!(
                tabled.value_above(&sib, depth, value - 1),
                value,
                "{}",
                at()
            );
            if value.abs() < MATE_BOUND {
                let bound = tabled.value_above(&sib, depth, value + 30);
                assert!(value <= bound && bound <= value + 30, "{bound} {}", at());
            }

            // The engine's machinery (table, null windows, repetition) with the
            // labelling rules: the same value and the same line.
            let mut tt = TranspositionTable::new(1);
            let mut engine =
                Searcher::new(eval, &mut tt, &control, Limits::default()).with_mode(Mode {
                    null_window: true,
                    repetition: true,
                    ..Mode::labelling(true)
                });
            let (v, l) = engine.line(&sib, &[], depth);
            assert_eq!((v, l), (value, line.as_slice()), "{}", at());

            // The engine's move order too: the same value; a line to it.
            let mut tt = TranspositionTable::new(1);
            let mut engine =
                Searcher::new(eval, &mut tt, &control, Limits::default()).with_mode(Mode {
                    evasion_plies: 0,
                    ..Mode::ENGINE
                });
            let (v, l) = engine.line(&sib, &[], depth);
            assert_eq!(v, value, "{}", at());
            assert_eq!(value_of_line(eval, &sib, l), value, "{}", at());

            // The engine mode proper differs only by searching evasions in
            // its first quiescence plies.
            let mut tt = TranspositionTable::new(1);
            let mut engine = Searcher::new(eval, &mut tt, &control, Limits::default());
            let (v, l) = engine.line(&sib, &[], depth);
            assert_eq!(value_of_line(eval, &sib, l), v, "{}", at());
            evasions_differ += usize::from(v != value);
            checked += 1;
        }
    }
    (checked, evasions_differ)
}

#[test]
fn labelling_mode_is_the_engine_search_with_its_parts_off_material() {
    let positions = fixture_positions();
    let (checked, differ) = one_search(&Material, &positions, 1);
    eprintln!(
        "material, depth 1: {checked} siblings, {differ} valued otherwise by the engine mode"
    );
    assert!(checked > 20_000, "{checked}");
    // Evasions change some values (a reply that checks), not most.
    assert!(differ > 0 && differ < checked / 4, "{differ} of {checked}");
    let sample: Vec<Position> = positions.into_iter().step_by(12).collect();
    let (checked, _) = one_search(&Material, &sample, 2);
    assert!(checked > 1_500, "{checked}");
}

#[test]
fn labelling_mode_is_the_engine_search_with_its_parts_off_model() {
    let model = Linear::hashed("relation,material,kp".parse().unwrap(), 2e-4, 15);
    let positions: Vec<Position> = fixture_positions().into_iter().step_by(4).collect();
    let (checked, differ) = one_search(&model, &positions, 1);
    eprintln!("model, depth 1: {checked} siblings, {differ} valued otherwise by the engine mode");
    assert!(checked > 5_000, "{checked}");
    assert!(differ < checked / 4, "{differ} of {checked}");
}

#[test]
fn labelling_mode_scores_mates_with_the_one_constant() {
    // White to move after Black's G*5b: mated at the sibling itself (ply 0);
    // one ply below a sibling from which Black mates in one: mate at ply 1.
    let mated = Position::from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1").unwrap();
    let mut s = Searcher::labelling(&Material, true);
    assert_eq!(s.line(&mated, &[], 1), (-MATE, &[][..]));
    let mating = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
    let (v, line) = s.line(&mating, &[], 1);
    assert_eq!(v, MATE - 1);
    assert_eq!(line.len(), 1);
    assert_eq!(line[0].to_string(), "G*5b");
}

/// A model that counts its evaluations and says whether it is costly.
struct Counted<'a> {
    model: &'a Linear<crate::features::Features>,
    costly: bool,
    calls: std::sync::atomic::AtomicU64,
}

impl Evaluator for Counted<'_> {
    fn evaluate(&self, pos: &Position) -> i32 {
        self.calls.fetch_add(1, Ordering::Relaxed);
        self.model.evaluate(pos)
    }

    fn costly(&self) -> bool {
        self.costly
    }
}

/// Depth-3 searches of `positions` in order, each with a fresh table, under
/// `model` counted (`costly` or not), the evaluation cache handed on from each
/// search to the next when `keep`: (best, score, nodes, depth) of each, and
/// the evaluations made.
type Searched = (Vec<(Option<Move>, Score, u64, u32)>, u64);
fn depth3_searches(
    model: &Linear<crate::features::Features>,
    positions: &[Position],
    costly: bool,
    keep: bool,
) -> Searched {
    let eval = Counted {
        model,
        costly,
        calls: Default::default(),
    };
    let mut kept = SearchMemory::default();
    let results = positions
        .iter()
        .map(|pos| {
            let mut tt = TranspositionTable::new(4);
            let control = Control::new();
            let limits = Limits {
                depth: Some(3),
                ..Limits::default()
            };
            let mut s = Searcher::new(&eval, &mut tt, &control, limits)
                .with_memory(std::mem::take(&mut kept));
            let r = s.search(pos, &[], |_| {});
            if keep {
                kept = s.take_memory();
            }
            (r.best, r.score, r.nodes, r.depth)
        })
        .collect();
    (results, eval.calls.into_inner())
}

#[test]
fn the_evaluation_cache_saves_evaluations_and_changes_no_search() {
    let model = Linear::hashed("relation,material,kp".parse().unwrap(), 2e-4, 15);
    let positions: Vec<Position> = fixture_positions().into_iter().step_by(15).collect();
    let (cached, with) = depth3_searches(&model, &positions, true, false);
    let (plain, without) = depth3_searches(&model, &positions, false, false);
    assert!(positions.len() > 20, "{}", positions.len());
    assert_eq!(cached, plain);
    // About a quarter of an engine search's evaluations are repeats.
    eprintln!("{with} evaluations with the cache, {without} without");
    assert!(with * 100 < without * 90, "{with} of {without}");
}

/// A cache handed from search to search (the match player's moves, the USI
/// engine's `go`s, `evaluate --depth`'s siblings) changes no search either,
/// and saves more: the next search meets what the last one evaluated.
#[test]
fn a_cache_kept_from_search_to_search_changes_nothing() {
    let model = Linear::hashed("relation,material,kp".parse().unwrap(), 2e-4, 15);
    // Consecutive positions of games: each search follows the one before.
    let positions: Vec<Position> = fixture_positions().into_iter().take(40).collect();
    let (kept, with) = depth3_searches(&model, &positions, true, true);
    let (fresh, without) = depth3_searches(&model, &positions, true, false);
    assert_eq!(kept, fresh);
    eprintln!("{with} evaluations with the cache kept, {without} with a cache a search");
    assert!(with < without, "{with} of {without}");
}

/// A fixed-depth search of `pos` in `mode` with the material evaluator.
fn search_in(mode: Mode, pos: &Position, depth: u32) -> SearchResult {
    let mut tt = TranspositionTable::new(4);
    let control = Control::new();
    let limits = Limits {
        depth: Some(depth),
        ..Limits::default()
    };
    Searcher::new(&Material, &mut tt, &control, limits)
        .with_mode(mode)
        .search(pos, &[], |_| {})
}

#[test]
fn a_null_move_passes_and_is_refused_in_check() {
    let pos = Position::startpos();
    let passed = pos.null_move().unwrap();
    assert_eq!(
        passed.to_sfen(),
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 2"
    );
    assert_eq!(passed.material(Color::Black), pos.material(Color::Black));
    let checked = Position::from_sfen("4k4/4G4/9/9/9/9/9/9/4K4 w - 1").unwrap();
    assert!(checked.null_move().is_none());
}

#[test]
fn after_a_null_move_a_pinned_piece_stays_on_its_line() {
    // Black passes; White's gold on 5b stands between its king and Black's
    // rook, so it may only move along the file (5c, or not at all sideways).
    let pos = Position::from_sfen("4k4/4g4/9/9/9/9/9/9/K3R4 b - 1").unwrap();
    let passed = pos.null_move().unwrap();
    let fresh = Position::from_sfen(&passed.to_sfen()).unwrap();
    let mut moves: Vec<String> = passed.legal_moves().iter().map(|m| m.to_string()).collect();
    let mut expected: Vec<String> = fresh.legal_moves().iter().map(|m| m.to_string()).collect();
    moves.sort();
    expected.sort();
    assert_eq!(moves, expected);
    assert!(moves.contains(&"5b5c".to_string()));
    assert!(!moves.contains(&"5b4b".to_string()));
    assert!(!moves.contains(&"5b6b".to_string()));
    // White passes; Black's gold on 5c stands between White's king and
    // White's own pawn, which pins nothing: the gold moves sideways too.
    let pos = Position::from_sfen("4k4/9/4G4/9/4p4/9/9/9/8K w - 1").unwrap();
    let passed = pos.null_move().unwrap();
    let moves: Vec<String> = passed.legal_moves().iter().map(|m| m.to_string()).collect();
    assert!(moves.contains(&"5c4c".to_string()), "{moves:?}");
    assert!(moves.contains(&"5c6b".to_string()), "{moves:?}");
}

/// Over real positions and each of their children, a null move keeps the
/// board it makes only when its pins are right: its legal moves are those
/// of the same position read afresh from its SFEN.
#[test]
fn a_null_move_has_the_legal_moves_of_its_position_read_afresh() {
    let (mut passed, mut pinned) = (0, 0);
    for pos in fixture_positions() {
        let mut positions = vec![pos.clone()];
        pos.for_each_legal_move(|mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            positions.push(child);
        });
        for p in positions {
            let Some(after) = p.null_move() else { continue };
            let fresh = Position::from_sfen(&after.to_sfen()).unwrap();
            let mut moves = after.legal_moves();
            let mut expected = fresh.legal_moves();
            moves.sort_by_key(|m| m.to_string());
            expected.sort_by_key(|m| m.to_string());
            assert_eq!(moves, expected, "{}", after.to_sfen());
            passed += 1;
            let board = fresh.board();
            pinned +=
                usize::from(!(board.pinned() & board.colors(board.side_to_move())).is_empty());
        }
    }
    assert!(
        pinned >= 1000,
        "only {pinned} of {passed} null moves left the side to move a pinned piece"
    );
}

/// `Position::see_ge` answers as `see` compared, for every legal move of
/// the fixture positions and of every fifth of their children, at the
/// thresholds the search asks (0, and the static-exchange pruning's
/// margins at depths 1 to 6). (When this was written, the move alone
/// decided 46% of the same questions asked over all the children.)
#[test]
fn see_ge_is_see_compared() {
    let thresholds: Vec<i32> = std::iter::once(0)
        .chain((1..=6).flat_map(|d| {
            [
                -selective::see_margin(d, true),
                -selective::see_margin(d, false),
            ]
        }))
        .collect();
    let mut asked = 0usize;
    for pos in fixture_positions() {
        let mut positions = vec![pos.clone()];
        for mv in pos.legal_moves().into_iter().step_by(5) {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            positions.push(child);
        }
        for p in positions {
            for mv in p.legal_moves() {
                let see = p.see(mv);
                for &t in &thresholds {
                    assert_eq!(p.see_ge(mv, t), see >= t, "{} {mv} {t}", p.to_sfen());
                    asked += 1;
                }
            }
        }
    }
    assert!(asked > 1_000_000, "only {asked} questions");
}

#[test]
fn the_playing_search_mates_and_takes_as_the_exact_one() {
    let mate = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
    let r = search_in(Mode::PLAY, &mate, 3);
    assert_eq!(r.best.unwrap().to_string(), "G*5b");
    assert_eq!(r.score, Score::Mate(1));
    let hanging = Position::from_sfen("4k4/7r1/9/9/9/9/9/7R1/4K4 b - 1").unwrap();
    let r = search_in(Mode::PLAY, &hanging, 2);
    assert_eq!(r.best.unwrap().to_string(), "2h2b+");
}

/// Over real positions, the selective search reaches depth 4 with a fraction
/// of the exact search's nodes, and still finds every mate that the exact
/// search finds at depth 3 for the side to move.
#[test]
fn the_playing_search_prunes_but_keeps_the_mates() {
    let positions = fixture_positions();
    let (mut exact_nodes, mut play_nodes, mut mates) = (0, 0, 0);
    for pos in positions.iter().step_by(4) {
        exact_nodes += search_in(Mode::ENGINE, pos, 4).nodes;
        play_nodes += search_in(Mode::PLAY, pos, 4).nodes;
    }
    assert!(
        play_nodes * 3 < exact_nodes,
        "selective {play_nodes} nodes against exact {exact_nodes}"
    );
    for pos in &positions {
        let exact = search_in(Mode::ENGINE, pos, 3);
        if let Score::Mate(n) = exact.score {
            if n > 0 {
                mates += 1;
                let play = search_in(Mode::PLAY, pos, 3);
                assert!(
                    matches!(play.score, Score::Mate(m) if m > 0 && m <= n),
                    "{}: exact {:?}, selective {:?}",
                    pos.to_sfen(),
                    exact.score,
                    play.score
                );
            }
        }
    }
    assert!(mates >= 3, "only {mates} mates among the fixture positions");
}

/// The history table handed from one search of a game to the next
/// ([`Searcher::with_memory`]) orders the next selective search: over
/// positions of a real game, searches that start from the kept table
/// differ from searches that start from an empty one. The exact engine
/// search neither reads nor keeps it, so its results stay the same.
#[test]
fn a_history_kept_from_move_to_move_orders_only_the_selective_search() {
    let path = crate::testdata::fixture("tournament/040501.csa");
    let game = crate::record::read_file(&path).games.remove(0).unwrap();
    let control = Control::new();
    let limits = Limits {
        depth: Some(5),
        ..Limits::default()
    };
    let search = |mode: Mode, pos: &Position, history: History| {
        let mut tt = TranspositionTable::new(4);
        let memory = SearchMemory {
            eval_cache: None,
            history,
        };
        let mut s = Searcher::new(&Material, &mut tt, &control, limits.clone())
            .with_mode(mode)
            .with_memory(memory);
        let r = s.search(pos, &[], |_| {});
        (r, s.take_memory().history)
    };
    let mut kept = History::default();
    let (mut searched, mut differ) = (0, 0);
    for (pos, _) in game.positions().skip(30).step_by(2).take(8) {
        let (exact_kept, left) = search(Mode::ENGINE, &pos, kept.clone());
        let (exact, _) = search(Mode::ENGINE, &pos, History::default());
        assert!(left.is_empty(), "the exact search kept a history table");
        assert_eq!(
            (exact_kept.nodes, exact_kept.best, exact_kept.score),
            (exact.nodes, exact.best, exact.score)
        );
        let (fresh, _) = search(Mode::PLAY, &pos, History::default());
        let (warm, after) = search(Mode::PLAY, &pos, kept);
        assert!(!after.is_empty(), "the selective search gave no table back");
        differ += usize::from(searched > 0 && warm.nodes != fresh.nodes);
        searched += 1;
        kept = after;
    }
    assert!(
        differ >= 3,
        "a kept table changed {differ} of {searched} searches"
    );
}
