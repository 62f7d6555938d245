use super::*;
use crate::eval::Material;
use crate::features::tests::floodgate_positions;
use crate::search::{MATE, MAX_PLY};

/// A second, independent search: negamax with alpha-beta over the moves in
/// generation order (no ordering, no buffers). Plain minimax without pruning is
/// out of reach here (capture trees on real positions are large), but
/// alpha-beta returns the minimax value whatever the order, so two
/// implementations with different orders must agree exactly.
fn reference(pos: &Position, depth: u32, quiescence: bool) -> i32 {
    reference_ab(pos, depth, quiescence, -(MATE + 1), MATE + 1, 0)
}

fn reference_ab(
    pos: &Position,
    depth: u32,
    quiescence: bool,
    mut alpha: i32,
    beta: i32,
    ply: usize,
) -> i32 {
    let moves = pos.legal_moves();
    if moves.is_empty() {
        return -(MATE - ply as i32);
    }
    if depth == 0 && (!quiescence || ply >= MAX_PLY - 1) {
        return Material.evaluate(pos);
    }
    let them = pos.board().colors(!pos.side_to_move());
    let mut best = -(MATE + 1);
    if depth == 0 {
        best = Material.evaluate(pos);
        if best >= beta {
            return best;
        }
        alpha = alpha.max(best);
    }
    for mv in moves {
        if depth == 0 && !(mv.is_board_move() && them.has(mv.to())) {
            continue;
        }
        let mut c = pos.clone();
        c.play_unchecked(mv);
        let v = -reference_ab(
            &c,
            depth.saturating_sub(1),
            quiescence,
            -beta,
            -alpha,
            ply + 1,
        );
        if v > best {
            best = v;
            if best >= beta {
                return best;
            }
            alpha = alpha.max(best);
        }
    }
    best
}

#[test]
fn alpha_beta_equals_an_unordered_search_on_real_positions() {
    // A sample: every 7th position
    // (all plies are visited across games: 7 and 25 are coprime).
    let positions = floodgate_positions(8);
    let mut checked = 0;
    for quiescence in [true, false] {
        let mut s = Searcher::labelling(&Material, quiescence);
        for pos in positions.iter().step_by(7) {
            for mv in pos.legal_moves() {
                let mut sib = pos.clone();
                sib.play_unchecked(mv);
                assert_eq!(
                    s.value(&sib, &[], 1),
                    reference(&sib, 1, quiescence),
                    "{} after {mv}",
                    pos.to_sfen()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 1000, "{checked}");
}

#[test]
fn rule_puts_the_game_move_a_margin_above_all() {
    let o = LabelOptions::default();
    let mut out = Vec::new();
    o.rule(&[50, 300, -20, 120], 0, &mut out);
    assert_eq!(out, [150, 50, -20, 50]);
    o.rule(&[50, 300, -20, 120], 1, &mut out);
    assert_eq!(out, [50, 400, -20, 120]);
    // At the clamps: a mating game move and a mating alternative; a mated game move.
    o.rule(&[10_000, 10_000, -10_000], 0, &mut out);
    assert_eq!(out, [10_000, 9_900, -10_000]);
    o.rule(&[-10_000, 10_000, -10_000], 0, &mut out);
    assert_eq!(out, [-9_900, -10_000, -10_000]);
}

#[test]
fn options_are_checked_with_messages() {
    let bad = |o: LabelOptions| o.check().unwrap_err().to_string();
    let d = LabelOptions::default();
    assert_eq!(
        bad(LabelOptions { margin: 0, ..d }),
        "margin 0 is out of range: expected 1 to 10000 centipawns"
    );
    assert_eq!(
        bad(LabelOptions { scale: -1.0, ..d }),
        "scale -1 is out of range: expected a positive finite number"
    );
    assert_eq!(
        bad(LabelOptions { depth: 5, ..d }),
        "depth 5 is out of range: expected 0 to 4 plies"
    );
    assert_eq!(d.check(), Ok(d));
}

/// Labels `game`'s position with every value exact, and again with the
/// siblings capped at the game's move, checks that both give the same labels
/// ([`same_labels_capped`]), and returns the exact siblings.
fn label(sfen: &str, game: &str, options: LabelOptions) -> (Vec<Sibling>, usize) {
    let pos = Position::from_sfen(sfen).unwrap();
    let mv = pos.parse_move(game).unwrap();
    let mut l = Labeller::new(&Material, options);
    let mut runs = [Vec::new(), Vec::new()];
    let mut g = 0;
    for (exact, out) in [true, false].into_iter().zip(&mut runs) {
        l.set_exact_values(exact);
        let mut seen = 0;
        g = l
            .label_position(&pos, mv, out, |i, m, sib, _| {
                assert_eq!(i, seen);
                seen += 1;
                assert_eq!(sib.side_to_move(), !pos.side_to_move());
                assert!(pos.legal_moves().contains(&m));
            })
            .unwrap();
        assert_eq!(seen, out.len());
    }
    let [exact, capped] = runs;
    same_labels_capped(&exact, &capped, g, options, &pos.to_sfen());
    (exact, g)
}

/// `capped` labels the same position as `exact` (every value exact), with
/// the same labels; every value it leaves inexact is a lower bound of the
/// exact value, at or above the cap, and every other value is the exact one.
fn same_labels_capped(
    exact: &[Sibling],
    capped: &[Sibling],
    game: usize,
    options: LabelOptions,
    at: &str,
) -> usize {
    assert_eq!(exact.len(), capped.len());
    assert!(exact.iter().all(|s| s.exact), "{at}");
    assert!(capped[game].exact, "{at}");
    let cap = options.cap(exact[game].value);
    let mut inexact = 0;
    for (e, c) in exact.iter().zip(capped) {
        assert_eq!((e.mv, e.label), (c.mv, c.label), "{at}");
        if c.exact {
            assert_eq!(c.value, e.value, "{} {at}", c.mv);
        } else {
            assert!(cap <= c.value && c.value <= e.value, "{} {at}", c.mv);
            inexact += 1;
        }
    }
    inexact
}

fn find<'a>(out: &'a [Sibling], mv: &str) -> &'a Sibling {
    out.iter().find(|s| s.mv.to_string() == mv).unwrap()
}

#[test]
fn mating_drops_get_the_mate_value() {
    // White king 1a, pawn 1c; Black silver 2c and a gold in hand: G*1b and G*2b
    // both mate (the silver guards the gold and 2b/1b), so no reply exists.
    let (out, g) = label(
        "8k/9/2p4Sp/9/9/9/9/9/4K4 b G 1",
        "G*1b",
        LabelOptions::default(),
    );
    assert_eq!(out[g].mv.to_string(), "G*1b");
    assert_eq!((out[g].value, out[g].label), (10_000, 1.0));
    let other = find(&out, "G*2b");
    assert_eq!((other.value, other.label), (10_000, 0.99));
    // A gold dropped far away: nothing happens; material is S + G − 2 P.
    assert_eq!(find(&out, "G*9i").value, 495 + 540 - 2 * 90);
}

#[test]
fn a_move_that_allows_a_drop_mate_gets_minus_the_mate_value() {
    // Black king 1i boxed in by its silver 2h and knight 2i; White holds a gold
    // and its knight 2f guards 1h: after the pawn push, G*1h mates.
    let sfen = "k8/9/9/9/9/7n1/P8/7S1/7NK b g 1";
    let (out, g) = label(sfen, "9g9f", LabelOptions::default());
    assert_eq!(out[g].value, -10_000);
    assert_eq!(out[g].label, -0.99);
    // Every sibling agrees with plain minimax, mated or not.
    let pos = Position::from_sfen(sfen).unwrap();
    for s in &out {
        let mut sib = pos.clone();
        sib.play_unchecked(s.mv);
        let v = (-reference(&sib, 1, true)).clamp(-10_000, 10_000);
        assert_eq!(s.value, v, "{}", s.mv);
        assert!(s.label <= -0.99 - 0.01 + 1e-12 || s.mv == out[g].mv);
    }
}

#[test]
fn hanging_and_saved_rooks() {
    // White's bishop 8b attacks Black's rook 2h. Moving the rook to 3h saves it
    // (White's best reply is B-1i+ for a horse: 990 − 945 = 45); leaving it,
    // loses it to a promoting capture: −(945 + 990).
    let (out, g) = label(
        "4k4/1b7/9/9/9/9/9/7R1/4K4 b - 1",
        "2h3h",
        LabelOptions::default(),
    );
    assert_eq!(out[g].value, 45);
    assert_eq!(find(&out, "5i4h").value, -1935);
    assert_eq!(find(&out, "5i4h").label, -0.1935);
    // Without quiescence the capture is still seen (it is the reply), and after
    // it nothing is searched: the same figure.
    let flat = LabelOptions {
        quiescence: false,
        ..LabelOptions::default()
    };
    let (out, _) = label("4k4/1b7/9/9/9/9/9/7R1/4K4 b - 1", "2h3h", flat);
    assert_eq!(find(&out, "5i4h").value, -1935);
}

#[test]
fn label_groups_on_real_games_have_one_maximum_the_game_move() {
    let lines = crate::testdata::floodgate_lines(5);
    let options = LabelOptions::default();
    let mut l = Labeller::new(&Material, options);
    let mut out = Vec::new();
    let mut groups = 0;
    for line in &lines {
        let mut pos = Position::startpos();
        for text in line.split_whitespace().skip(2) {
            let mv = pos.parse_move(text).unwrap();
            let g = l
                .label_position(&pos, mv, &mut out, |_, _, _, _| {})
                .unwrap();
            let others = out
                .iter()
                .enumerate()
                .filter(|&(i, _)| i != g)
                .map(|(_, s)| s.label)
                .fold(f64::NEG_INFINITY, f64::max);
            assert!(
                out[g].label - others >= 0.01 - 1e-12,
                "{} {text}",
                pos.to_sfen()
            );
            assert!(out.iter().all(|s| (-1.0..=1.0).contains(&s.label)));
            pos.play_unchecked(mv);
            groups += 1;
        }
    }
    assert_eq!(groups, 5 * 24);
}

#[test]
fn capped_siblings_get_the_labels_of_exact_values_on_real_games() {
    // Every position of 12 floodgate lines (24 plies each), at depths 0 to
    // 2, with material and with a model (hashed weights over every set).
    let lines = crate::testdata::floodgate_lines(12);
    let model = crate::eval::Linear::hashed("relation,material,kp".parse().unwrap(), 2e-4, 15);
    let (mut positions, mut siblings, mut inexact) = (0, 0, 0);
    for depth in 0..=2 {
        let options = LabelOptions {
            depth,
            ..LabelOptions::default()
        };
        let mut material = Labeller::new(&Material, options);
        let mut linear = Labeller::new(&model, options);
        for line in &lines {
            let mut pos = Position::startpos();
            for text in line.split_whitespace().skip(2) {
                let mv = pos.parse_move(text).unwrap();
                let (mut exact, mut capped) = (Vec::new(), Vec::new());
                for use_model in [false, true] {
                    // The model's depth-2 trees are slow in a debug build.
                    if use_model && depth == 2 {
                        continue;
                    }
                    let mut run = |exact_values: bool, out: &mut Vec<Sibling>| {
                        if use_model {
                            linear.set_exact_values(exact_values);
                            linear.label_position(&pos, mv, out, |_, _, _, _| {})
                        } else {
                            material.set_exact_values(exact_values);
                            material.label_position(&pos, mv, out, |_, _, _, _| {})
                        }
                        .unwrap()
                    };
                    let g = run(true, &mut exact);
                    assert_eq!(run(false, &mut capped), g);
                    inexact += same_labels_capped(&exact, &capped, g, options, &pos.to_sfen());
                    siblings += exact.len();
                    positions += 1;
                }
                pos.play_unchecked(mv);
            }
        }
    }
    assert_eq!(positions, 12 * 24 * 5);
    // The shortcut is taken: in these openings most moves keep the material
    // level, as the game's move does, and are capped (34,112 of 54,620).
    assert!(inexact * 2 > siblings, "{inexact} of {siblings}");
}
