//! Evaluators: a position's value for the side to move, in centipawns.
//!
//! Shared by labelling (`label`) and the engine (`engine`): both take an
//! [`Evaluator`] as a generic parameter. The [`Material`] evaluator is the
//! first labeller and the baseline every learned model must beat.

use crate::shogi::{Color, Move, Position};

mod choice;
mod grain;
pub mod incremental;
pub mod linear;
mod ties;

pub use choice::{
    load_engine_evaluator, load_engine_parts, load_evaluator, load_linear, DynEvaluator, EvalChoice,
};
pub(crate) use grain::forward_sums;
pub use grain::{Grained, GRAIN_RANGE, MAX_GRAIN};
pub use incremental::{Accumulator, EngineModel};
pub use linear::{Linear, LinearView};
pub use ties::hit_probability;

/// Largest magnitude an evaluator returns; mate scores lie beyond it.
pub const EVAL_LIMIT: i32 = 10_000;

/// A static evaluation of a position.
pub trait Evaluator: Sync {
    /// Value of `pos` for the side to move, in centipawns, clamped to ±[`EVAL_LIMIT`].
    fn evaluate(&self, pos: &Position) -> i32;

    /// The value after `mv` (legal in `pos`) for the side that made it,
    /// `−evaluate(after)`, when the evaluator knows it without playing the
    /// move: `None` when it does not (by default). A child that stands pat
    /// is worth no more than this to the mover, so the labelling search
    /// settles, unplayed, the moves that give no check and whose value here
    /// cannot beat its best score (`search::MoveOrder::Labelling`).
    /// [`Material`]: its balance plus the move's gain.
    #[inline]
    fn value_after(&self, pos: &Position, mv: Move) -> Option<i32> {
        let _ = (pos, mv);
        None
    }

    /// True when one evaluation costs far more than a probe of a small table
    /// (a model: a few hundred weight look-ups against material's piece
    /// counts), so a search keeps the values it computed and reuses them for
    /// positions met again (`search::EvalCache`). The value is a function
    /// of the position alone either way. [`Material`]: false; by default false.
    fn costly(&self) -> bool {
        false
    }

    /// True when the evaluator keeps sums beside the position that a move
    /// updates ([`EngineModel`]): a search then keeps one [`Accumulator`] a
    /// ply, [`Evaluator::refresh`]es the root's, builds each child's with
    /// [`Evaluator::update`] and evaluates with [`Evaluator::evaluate_from`].
    /// By default false, and the three below do nothing of their own.
    fn incremental(&self) -> bool {
        false
    }

    /// Sets `acc` to the sums of `pos`, from scratch.
    fn refresh(&self, pos: &Position, acc: &mut Accumulator) {
        let _ = (pos, acc);
    }

    /// The sums of `child`, the position after `mv` (legal in `pos`), from
    /// `parent`, the sums of `pos`.
    fn update(
        &self,
        pos: &Position,
        mv: Move,
        child: &Position,
        parent: &Accumulator,
    ) -> Accumulator {
        let _ = (pos, mv, child);
        *parent
    }

    /// [`Evaluator::evaluate`] given `acc`, the sums of `pos`: the same value.
    #[inline]
    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        let _ = acc;
        self.evaluate(pos)
    }
}

/// Piece values on the board and in hand (the `relation` values: P 90 … R 990,
/// promoted pieces at their promoted value; held pieces at their unpromoted
/// value; kings do not count).
#[derive(Clone, Copy, Debug, Default)]
pub struct Material;

impl Material {
    /// Material of `color` minus material of its opponent (kept by the
    /// position as moves are played: [`Position::material`]).
    #[inline(always)]
    pub fn balance(pos: &Position, color: Color) -> i32 {
        pos.material(color)
    }
}

impl Evaluator for Material {
    fn evaluate(&self, pos: &Position) -> i32 {
        Self::balance(pos, pos.side_to_move()).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    /// The mover's balance plus what the move captures and promotes; the
    /// clamp is symmetric.
    #[inline(always)]
    fn value_after(&self, pos: &Position, mv: Move) -> Option<i32> {
        let balance = pos.material(pos.side_to_move()) + pos.material_gain(mv);
        Some(balance.clamp(-EVAL_LIMIT, EVAL_LIMIT))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn start_position_is_balanced_and_a_capture_counts_on_both_sides() {
        let mut pos = Position::startpos();
        assert_eq!(Material.evaluate(&pos), 0);
        for mv in ["7g7f", "3c3d", "8h2b+"] {
            pos.play_usi(mv).unwrap();
        }
        // Black has a horse (945) and White's bishop in hand (855); White has no bishop left.
        let black = Material::balance(&pos, Color::Black);
        assert_eq!(black, 945 + 855);
        assert_eq!(Material.evaluate(&pos), -black);
    }
}
