use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use super::*;
use crate::search::{Control, Limits, Searcher, TranspositionTable};
use crate::testdata::{floodgate_positions, tournament_positions};

/// Real positions to search from: every position of the bundled tournament
/// games (played to mate, kings in the fight) and of 30 floodgate lines.
fn positions() -> Vec<Position> {
    let mut all = tournament_positions(false);
    all.extend(floodgate_positions(30));
    all
}

fn model(set: &str) -> EngineModel {
    EngineModel::new(&Linear::hashed(set.parse().unwrap(), 1e-3, 7))
}

/// What the updates went through, and how many nodes were checked.
#[derive(Default)]
struct Counts {
    evaluated: AtomicU64,
    captures: AtomicU64,
    drops: AtomicU64,
    promotions: AtomicU64,
    king_moves: AtomicU64,
    checks: AtomicU64,
}

/// An [`EngineModel`] that checks, at every evaluation from kept sums, that
/// the sums are those of the position summed from scratch and the value the
/// full evaluation's; and counts the kinds of update the search made.
struct Checked<'a> {
    model: &'a EngineModel,
    counts: &'a Counts,
}

impl Evaluator for Checked<'_> {
    fn evaluate(&self, pos: &Position) -> i32 {
        self.model.evaluate(pos)
    }

    fn incremental(&self) -> bool {
        true
    }

    fn refresh(&self, pos: &Position, acc: &mut Accumulator) {
        self.model.refresh(pos, acc)
    }

    fn update(
        &self,
        pos: &Position,
        mv: Move,
        child: &Position,
        parent: &Accumulator,
    ) -> Accumulator {
        let c = self.counts;
        match mv {
            Move::Drop { .. } => c.drops.fetch_add(1, Relaxed),
            Move::BoardMove {
                from,
                to,
                promotion,
            } => {
                if pos.piece_on(to).is_some() {
                    c.captures.fetch_add(1, Relaxed);
                }
                if promotion {
                    c.promotions.fetch_add(1, Relaxed);
                }
                if pos.board().piece_on(from) == Some(Piece::King) {
                    c.king_moves.fetch_add(1, Relaxed);
                }
                0
            }
        };
        if child.in_check() {
            c.checks.fetch_add(1, Relaxed);
        }
        self.model.update(pos, mv, child, parent)
    }

    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        let mut fresh = Accumulator::default();
        self.model.refresh(pos, &mut fresh);
        assert_eq!(*acc, fresh, "{}", pos.to_sfen());
        let value = self.model.evaluate_from(pos, acc);
        assert_eq!(value, self.model.evaluate(pos), "{}", pos.to_sfen());
        self.counts.evaluated.fetch_add(1, Relaxed);
        value
    }
}

#[test]
fn incremental_equals_full_at_every_node() {
    let positions = positions();
    assert!(positions.len() >= 1_000, "{}", positions.len());
    for set in [
        "material,kp,mirror",
        "relation,material,kp",
        "material,kp,pp,mirror",
        "material,pp",
    ] {
        let model = model(set);
        let counts = Counts::default();
        let checked = Checked {
            model: &model,
            counts: &counts,
        };
        let control = Control::new();
        let mut table = TranspositionTable::new(1);
        for pos in &positions {
            table.clear();
            let limits = Limits {
                depth: Some(2),
                ..Limits::default()
            };
            Searcher::new(&checked, &mut table, &control, limits).search(pos, &[], |_| {});
        }
        let get = |n: &AtomicU64| n.load(Relaxed);
        let evaluated = get(&counts.evaluated);
        eprintln!(
            "{set}: {} positions, {evaluated} nodes checked; updates: {} captures, {} drops, {} promotions, {} king moves, {} checks",
            positions.len(),
            get(&counts.captures),
            get(&counts.drops),
            get(&counts.promotions),
            get(&counts.king_moves),
            get(&counts.checks)
        );
        // Each kind of update happens many times over (on 2026-11-26, for
        // `material,kp,mirror`: 1.69M nodes checked; 1.37M captures, 124k
        // drops, 277k promotions, 100k king moves, 177k checks).
        assert!(evaluated > 500_000, "{set}: {evaluated} nodes");
        assert!(get(&counts.captures) > 100_000, "{set}");
        assert!(get(&counts.drops) > 10_000, "{set}");
        assert!(get(&counts.promotions) > 10_000, "{set}");
        assert!(get(&counts.king_moves) > 10_000, "{set}");
        assert!(get(&counts.checks) > 10_000, "{set}");
    }
}

/// Hides an evaluator's sums: the search evaluates every node from scratch.
struct Plain<'a>(&'a EngineModel);

impl Evaluator for Plain<'_> {
    fn evaluate(&self, pos: &Position) -> i32 {
        self.0.evaluate(pos)
    }

    fn costly(&self) -> bool {
        self.0.costly()
    }
}

#[test]
fn a_search_through_the_sums_is_the_search_without_them() {
    let model = model("material,kp");
    assert!(model.incremental() && !model.costly());
    let control = Control::new();
    for pos in floodgate_positions(3).iter().step_by(7) {
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        let mut table = TranspositionTable::new(1);
        let with =
            Searcher::new(&model, &mut table, &control, limits.clone()).search(pos, &[], |_| {});
        let mut table = TranspositionTable::new(1);
        let without =
            Searcher::new(&Plain(&model), &mut table, &control, limits).search(pos, &[], |_| {});
        assert_eq!(with, without, "{}", pos.to_sfen());
    }
}

#[test]
fn the_engine_reads_a_model_as_linear_does_but_for_the_weights_rounding() {
    for set in [
        "material,kp,mirror",
        "relation,material,kp",
        "relation-typed,material",
        "material,pp,mirror",
    ] {
        let linear = Linear::hashed(set.parse().unwrap(), 1e-3, 11);
        let engine = EngineModel::new(&linear);
        let positions = tournament_positions(true);
        let mut same = 0;
        for pos in &positions {
            let (a, b) = (linear.evaluate(pos), engine.evaluate(pos));
            assert!((a - b).abs() <= 1, "{set}: {a} {b} {}", pos.to_sfen());
            same += usize::from(a == b);
        }
        assert!(
            same * 100 >= positions.len() * 95,
            "{set}: {same} of {}",
            positions.len()
        );
    }
}

#[test]
fn bias_scale_and_the_clamp_are_read_as_linear_reads_them() {
    let mut linear = Linear::hashed("material".parse().unwrap(), 0.0, 1);
    let pos = Position::startpos();
    linear.bias = 0.01;
    linear.scale = 5_000.0;
    assert_eq!(
        EngineModel::new(&linear).evaluate(&pos),
        linear.evaluate(&pos)
    );
    assert_eq!(linear.evaluate(&pos), -50);
    linear.bias = 5.0;
    assert_eq!(EngineModel::new(&linear).evaluate(&pos), -EVAL_LIMIT);
}
