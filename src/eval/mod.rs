//! Evaluators: a position's value for the side to move, in centipawns.
//!
//! Shared by labelling (`label`) and the engine (`engine`): both take an
//! [`Evaluator`] as a generic parameter. The [`Material`] evaluator is the
//! first labeller and the baseline every learned model must beat.

use crate::shogi::{piece_value, Color, Piece, Position, HAND_PIECES};

mod choice;
pub mod linear;

pub use choice::{load_evaluator, load_linear, DynEvaluator, EvalChoice};
pub use linear::Linear;

/// Largest magnitude an evaluator returns; mate scores lie beyond it.
pub const EVAL_LIMIT: i32 = 10_000;

/// A static evaluation of a position.
pub trait Evaluator: Sync {
    /// Value of `pos` for the side to move, in centipawns, clamped to ±[`EVAL_LIMIT`].
    fn evaluate(&self, pos: &Position) -> i32;
}

/// Piece values on the board and in hand (the `relation` values: P 90 … R 990,
/// promoted pieces at their promoted value; held pieces at their unpromoted
/// value; kings do not count).
#[derive(Clone, Copy, Debug, Default)]
pub struct Material;

impl Material {
    /// Material of `color` minus material of its opponent.
    pub fn balance(pos: &Position, color: Color) -> i32 {
        let board = pos.board();
        let mut v = 0;
        for piece in Piece::ALL {
            if piece == Piece::King {
                continue;
            }
            let bb = board.pieces(piece);
            let own = (bb & board.colors(color)).len() as i32;
            let theirs = (bb & board.colors(!color)).len() as i32;
            v += piece_value(piece) * (own - theirs);
        }
        for piece in HAND_PIECES {
            let own = pos.hand_count(color, piece) as i32;
            let theirs = pos.hand_count(!color, piece) as i32;
            v += piece_value(piece) * (own - theirs);
        }
        v
    }
}

impl Evaluator for Material {
    fn evaluate(&self, pos: &Position) -> i32 {
        Self::balance(pos, pos.side_to_move()).clamp(-EVAL_LIMIT, EVAL_LIMIT)
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
