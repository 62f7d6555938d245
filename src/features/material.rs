//! The dense `material` set: board piece counts and one feature per held piece.

use super::describe::{kind_text, FeatureName};
use super::state::FeatureIndex;
use super::{FeatureSet, FeatureSink};
use crate::shogi::{kind_index, Color, Piece, Position, KIND_ORDER};

/// Hand kinds in the set's order, with the most a side can hold of each.
const HAND_SLOTS: [(Piece, u32); 7] = [
    (Piece::Pawn, 18),
    (Piece::Lance, 4),
    (Piece::Knight, 4),
    (Piece::Silver, 4),
    (Piece::Gold, 4),
    (Piece::Bishop, 2),
    (Piece::Rook, 2),
];

/// Hand features per side: 18 + 4 × 4 + 2 × 2.
const HAND_PER_SIDE: u32 = 38;

/// Board-count features: 14 kinds for each of the two sides (indices 1–28).
const BOARD_COUNTS: u32 = 28;

/// The first hand feature's index (the view side's 1st pawn).
const FIRST_HAND: u32 = BOARD_COUNTS + 1;

/// Dimension of `material`: 28 board counts and 2 × 38 hand pieces.
pub const MATERIAL_DIMENSION: u32 = BOARD_COUNTS + 2 * HAND_PER_SIDE;

/// Board counts per side and kind (indices 1–28: the view side's P…+R, then the
/// other side's), then hand pieces one feature per held piece (29–66 the view
/// side's, 67–104 the other side's; within a side P 1st…18th, L 1st…4th, N, S,
/// G, B 1st–2nd, R 1st–2nd), so the k-th pawn in hand gets its own weight.
///
/// Named `MaterialSet` (the other sets are `Relation`, `Kp`) so that it is
/// not read as [`crate::eval::Material`], the evaluator.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MaterialSet;

impl MaterialSet {
    /// The runs of per-count hand features, as `(first index, length, view
    /// side's)`: one run per kind and side (the 1st…18th pawn, …, the 1st–2nd rook).
    pub fn hand_runs() -> impl Iterator<Item = (u32, u32, bool)> {
        [true, false].into_iter().flat_map(|own| {
            let mut first = FIRST_HAND + if own { 0 } else { HAND_PER_SIDE };
            HAND_SLOTS.into_iter().map(move |(_, most)| {
                let run = (first, most, own);
                first += most;
                run
            })
        })
    }
}

impl MaterialSet {
    /// The index of the left–right mirror image: `material` has no squares,
    /// so every index is its own.
    #[inline(always)]
    pub fn mirror(index: FeatureIndex) -> FeatureIndex {
        index
    }

    /// What an index stands for (`board own P`, `hand opp R #2`); `None`
    /// outside `1..=MATERIAL_DIMENSION`.
    pub fn describe(index: FeatureIndex) -> Option<FeatureName> {
        let index = index.get();
        let named = |piece_a: String, name: String| FeatureName {
            set: "material",
            piece_a,
            square_a: String::new(),
            piece_b: String::new(),
            square_b: String::new(),
            name,
        };
        if (1..FIRST_HAND).contains(&index) {
            let piece = kind_text(index - 1);
            return Some(named(piece.clone(), format!("board {piece}")));
        }
        if !(FIRST_HAND..=MATERIAL_DIMENSION).contains(&index) {
            return None;
        }
        let own = index < FIRST_HAND + HAND_PER_SIDE;
        let mut slot = (index - FIRST_HAND) % HAND_PER_SIDE;
        for (piece, most) in HAND_SLOTS {
            if slot < most {
                let piece = kind_text(kind_index(piece) as u32 + if own { 0 } else { 14 });
                let name = format!("hand {piece} #{}", slot + 1);
                return Some(named(piece, name));
            }
            slot -= most;
        }
        None
    }
}

impl MaterialSet {
    /// The built-in material evaluator's piece values (`shogi::piece_value`),
    /// in centipawns, laid out as this set's 104 indices (index `i + 1` at
    /// `i`): a linear model with these weights evaluates exactly as
    /// [`crate::eval::Material`]. Learners start from it and anchor to it.
    pub fn piece_values() -> Vec<f32> {
        let board: Vec<f32> = KIND_ORDER
            .iter()
            .map(|&k| {
                if k == crate::shogi::Piece::King {
                    0.0
                } else {
                    crate::shogi::piece_value(k) as f32
                }
            })
            .collect();
        let hand: Vec<f32> = HAND_SLOTS
            .iter()
            .flat_map(|&(piece, most)| {
                std::iter::repeat_n(crate::shogi::piece_value(piece) as f32, most as usize)
            })
            .collect();
        let mut w = board.clone();
        w.extend(board.iter().map(|v| -v));
        w.extend(&hand);
        w.extend(hand.iter().map(|v| -v));
        w
    }
}

impl MaterialSet {
    /// The board-count feature of `color`'s `piece` seen from `view` (its
    /// value is the number of such pieces on the board).
    #[inline(always)]
    pub fn board_index(view: Color, color: Color, piece: Piece) -> FeatureIndex {
        let side = u32::from(color != view);
        FeatureIndex(1 + side * 14 + kind_index(piece) as u32)
    }

    /// The feature of the `nth` (0-based) `piece` that `color` holds, seen
    /// from `view` (value 1); `None` past the most a side can hold.
    #[inline(always)]
    pub fn hand_index(view: Color, color: Color, piece: Piece, nth: u32) -> Option<FeatureIndex> {
        // Each kind's first slot and count, as laid out by `HAND_SLOTS`
        // (a test checks the two agree).
        let (first, most) = match piece {
            Piece::Pawn => (0, 18),
            Piece::Lance => (18, 4),
            Piece::Knight => (22, 4),
            Piece::Silver => (26, 4),
            Piece::Gold => (30, 4),
            Piece::Bishop => (34, 2),
            Piece::Rook => (36, 2),
            _ => return None,
        };
        let base = FIRST_HAND + u32::from(color != view) * HAND_PER_SIDE + first;
        (nth < most).then_some(FeatureIndex(base + nth))
    }
}

impl FeatureSet for MaterialSet {
    #[inline]
    fn visit<S: FeatureSink>(&self, pos: &Position, view: Color, sink: &mut S) {
        let board = pos.board();
        for color in [view, !view] {
            let own = board.colors(color);
            for piece in KIND_ORDER {
                let n = (board.pieces(piece) & own).len();
                if n > 0 {
                    sink.feature(Self::board_index(view, color, piece), n as f32);
                }
            }
            for (piece, most) in HAND_SLOTS {
                let n = (pos.hand_count(color, piece) as u32).min(most);
                for i in 0..n {
                    if let Some(index) = Self::hand_index(view, color, piece, i) {
                        sink.feature(index, 1.0);
                    }
                }
            }
        }
    }

    fn dimension(&self) -> u32 {
        MATERIAL_DIMENSION
    }

    fn name(&self) -> String {
        "material".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_index_follows_the_hand_slots_layout() {
        for view in [Color::Black, Color::White] {
            for color in [Color::Black, Color::White] {
                let mut base = FIRST_HAND + u32::from(color != view) * HAND_PER_SIDE;
                for (piece, most) in HAND_SLOTS {
                    for nth in 0..most {
                        let index = MaterialSet::hand_index(view, color, piece, nth);
                        assert_eq!(index, Some(FeatureIndex(base + nth)));
                    }
                    assert_eq!(MaterialSet::hand_index(view, color, piece, most), None);
                    base += most;
                }
            }
        }
        assert_eq!(
            MaterialSet::hand_index(Color::Black, Color::Black, Piece::King, 0),
            None
        );
    }
}
