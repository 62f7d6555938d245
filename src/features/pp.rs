//! The `pp` set: every unordered pair of pieces on the board, by where each
//! stands (Bonanza's PP, the two-piece half of KPP).
//!
//! For each pair {A, B} of pieces on the board, one feature of value 1 at
//! `b × (b − 1) / 2 + a + 1`, where `a < b` are the two pieces' states (the
//! `relation` piece state, kind × 81 + square after the perspective
//! normalization; two pieces never share a square, so `a ≠ b`). Kings are
//! pieces like the others, so the set holds every `kp` pair too. Unlike
//! `relation`, a pair's feature does not depend on what attacks what: a
//! move changes only the pairs of the pieces it moves, captures, drops or
//! promotes, so the set can be updated from the move (`docs/features.md`).
//! It was written to measure whether such a set is worth its cost before
//! the engine updates it (`docs/speed.md`, "The feature-set decision").

use super::describe::{kind_text, square_text, FeatureName};
use super::relation::{Relation, RELATION_STATES};
use super::state::{FeatureIndex, PieceState};
use super::{FeatureSet, FeatureSink};
use crate::shogi::{Color, Position};

/// Dimension of `pp`: one index per unordered pair of distinct piece states.
pub const PP_DIMENSION: u32 = RELATION_STATES * (RELATION_STATES - 1) / 2;

/// Piece–piece placement features (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pp;

impl Pp {
    /// The index (1-based) of the pair {a, b} of distinct states, in either order.
    #[inline(always)]
    pub fn index(a: PieceState, b: PieceState) -> FeatureIndex {
        debug_assert_ne!(a, b, "two pieces never share a square");
        let (lo, hi) = if a.0 < b.0 { (a.0, b.0) } else { (b.0, a.0) };
        FeatureIndex(hi * (hi - 1) / 2 + lo + 1)
    }

    /// The pair `(a, b)` with `a < b` of an index in `1..=PP_DIMENSION`.
    pub fn decode(index: FeatureIndex) -> (PieceState, PieceState) {
        let i = u64::from(index.get() - 1);
        // The largest hi with hi × (hi − 1) / 2 ≤ i, from the square root, then corrected.
        let mut hi = ((1.0 + (1.0 + 8.0 * i as f64).sqrt()) / 2.0) as u64;
        while hi * (hi - 1) / 2 > i {
            hi -= 1;
        }
        while (hi + 1) * hi / 2 <= i {
            hi += 1;
        }
        let lo = i - hi * (hi - 1) / 2;
        (PieceState(lo as u32), PieceState(hi as u32))
    }

    /// The index of the left–right mirror image: both squares reflected.
    #[inline(always)]
    pub fn mirror(index: FeatureIndex) -> FeatureIndex {
        let (a, b) = Self::decode(index);
        Self::index(a.mirrored(), b.mirrored())
    }

    /// What an index stands for (`own P 7g : opp K 5a`); `None` outside `1..=PP_DIMENSION`.
    pub fn describe(index: FeatureIndex) -> Option<FeatureName> {
        if index.get() == 0 || index.get() > PP_DIMENSION {
            return None;
        }
        let (a, b) = Self::decode(index);
        let (piece_a, square_a) = (kind_text(a.kind()), square_text(a.square()));
        let (piece_b, square_b) = (kind_text(b.kind()), square_text(b.square()));
        Some(FeatureName {
            set: "pp",
            name: format!("{piece_a} {square_a} : {piece_b} {square_b}"),
            piece_a,
            square_a,
            piece_b,
            square_b,
        })
    }

    /// The states of the pieces on the board seen from `view`, into `states`;
    /// returns how many (at most 40).
    #[inline(always)]
    pub fn states(pos: &Position, view: Color, states: &mut [PieceState; 40]) -> usize {
        let mut n = 0;
        super::board_pieces(pos, |color, piece, square| {
            states[n] = Relation::state(view, color, piece, square);
            n += 1;
        });
        n
    }
}

impl FeatureSet for Pp {
    #[inline]
    fn visit<S: FeatureSink>(&self, pos: &Position, view: Color, sink: &mut S) {
        let mut states = [PieceState(0); 40];
        let n = Self::states(pos, view, &mut states);
        for j in 1..n {
            for i in 0..j {
                sink.feature(Self::index(states[i], states[j]), 1.0);
            }
        }
    }

    fn dimension(&self) -> u32 {
        PP_DIMENSION
    }

    fn name(&self) -> String {
        "pp".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{BaseSet, Kp, RowBuilder};
    use crate::shogi::Position;

    #[test]
    fn start_position_has_every_pair_of_its_forty_pieces_once() {
        let pos = Position::startpos();
        let mut rows = RowBuilder::new();
        let black = rows.build(&Pp, &pos, Color::Black).to_vec();
        assert_eq!(black.len(), 40 * 39 / 2);
        assert!(black.iter().all(|&(_, v)| v == 1.0));
        // Own king 5i (square 44, kind 7 in KIND_ORDER's numbering is checked
        // through Relation::state) with the opponent's king 5a (36).
        let own_king = Relation::state(
            Color::Black,
            Color::Black,
            crate::shogi::Piece::King,
            pos.king(Color::Black),
        );
        let opp_king = Relation::state(
            Color::Black,
            Color::White,
            crate::shogi::Piece::King,
            pos.king(Color::White),
        );
        assert_eq!((own_king.square(), opp_king.square()), (44, 36));
        assert!(black.contains(&(Pp::index(own_king, opp_king).get(), 1.0)));
        // The start position is symmetric under the 180° turn: White's row is Black's.
        assert_eq!(rows.build(&Pp, &pos, Color::White).to_vec(), black);
        // Every `kp` pair is a `pp` pair: 78 of them.
        let kp = rows.build(&Kp, &pos, Color::Black).len();
        assert_eq!(kp, 78);
    }

    #[test]
    fn decode_inverts_index_at_the_edges_and_mirror_is_an_involution() {
        let last = RELATION_STATES - 1;
        for (a, b) in [
            (0, 1),
            (0, 2),
            (1, 2),
            (0, last),
            (last - 1, last),
            (60, 44),
            (1000, 999),
        ] {
            let index = Pp::index(PieceState(a), PieceState(b));
            assert!((1..=PP_DIMENSION).contains(&index.get()), "{a} {b}");
            assert_eq!(
                Pp::decode(index),
                (PieceState(a.min(b)), PieceState(a.max(b)))
            );
            let m = BaseSet::Pp.mirror(index);
            assert!((1..=PP_DIMENSION).contains(&m.get()));
            assert_eq!(BaseSet::Pp.mirror(m), index);
        }
        assert_eq!(Pp::index(PieceState(0), PieceState(1)).get(), 1);
        assert_eq!(
            Pp::index(PieceState(last - 1), PieceState(last)).get(),
            PP_DIMENSION
        );
        // Every index decodes to a pair that encodes back to it.
        for i in (1..=PP_DIMENSION).step_by(997) {
            let (a, b) = Pp::decode(FeatureIndex(i));
            assert!(a < b);
            assert_eq!(Pp::index(a, b).get(), i);
        }
    }

    #[test]
    fn describe_names_both_pieces() {
        let i = Pp::index(PieceState::new(0, 60), PieceState::new(14 + 7, 36));
        let name = Pp::describe(i).unwrap().name;
        assert!(name.starts_with("own P "), "{name}");
        assert!(name.contains(" : opp "), "{name}");
        assert!(Pp::describe(FeatureIndex(0)).is_none());
        assert!(Pp::describe(FeatureIndex(PP_DIMENSION + 1)).is_none());
    }
}
