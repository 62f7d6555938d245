//! The `kp` set: every piece's state relative to each king (Bonanza's KP idea).
//!
//! For each piece on the board and each of the two kings, one feature with
//! value 1 at `(king slot × 81 + king square) × 2268 + state(piece) + 1`,
//! where king slot 0 is the view side's king and 1 the other side's, and
//! `state` is the `relation` piece state (kind × 81 + square, after the
//! perspective normalization). A king is not paired with itself. The set
//! says where pieces stand around both kings, which the `relation` set sees
//! only for pieces whose effects touch: the king-safety and attack terms a
//! shallow search cannot find (`docs/features.md`).

use super::describe::{kind_text, square_text, FeatureName};
use super::relation::{Relation, RELATION_STATES};
use super::state::{mirror_square, FeatureIndex, PieceState};
use super::{FeatureSet, FeatureSink};
use crate::shogi::{Color, Piece, Position};

/// Dimension of `kp`: 2 king slots × 81 king squares × 2268 piece states.
pub const KP_DIMENSION: u32 = 2 * 81 * RELATION_STATES;

/// King–piece placement features (see the module docs).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Kp;

impl Kp {
    /// The index of `(king slot, king square, piece state)`, 1-based.
    #[inline(always)]
    pub fn index(slot: u32, king_square: u32, state: PieceState) -> FeatureIndex {
        FeatureIndex((slot * 81 + king_square) * RELATION_STATES + state.0 + 1)
    }

    /// `(king slot, king square, piece state)` of an index.
    #[inline(always)]
    pub fn decode(index: FeatureIndex) -> (u32, u32, PieceState) {
        let i = index.get() - 1;
        let (k, state) = (i / RELATION_STATES, i % RELATION_STATES);
        (k / 81, k % 81, PieceState(state))
    }

    /// The index of the left–right mirror image: the king's and the piece's squares reflected.
    #[inline(always)]
    pub fn mirror(index: FeatureIndex) -> FeatureIndex {
        let (slot, king, state) = Self::decode(index);
        Self::index(slot, mirror_square(king), state.mirrored())
    }

    /// What an index stands for (`own K 5i : own G 4h`); `None` outside `1..=KP_DIMENSION`.
    pub fn describe(index: FeatureIndex) -> Option<FeatureName> {
        if index.get() == 0 || index.get() > KP_DIMENSION {
            return None;
        }
        let (slot, king, state) = Self::decode(index);
        let piece_a = if slot == 0 { "own K" } else { "opp K" }.to_string();
        let square_a = square_text(king);
        let (piece_b, square_b) = (kind_text(state.kind()), square_text(state.square()));
        Some(FeatureName {
            set: "kp",
            name: format!("{piece_a} {square_a} : {piece_b} {square_b}"),
            piece_a,
            square_a,
            piece_b,
            square_b,
        })
    }
}

impl Kp {
    /// The kings' squares seen from `view`: its own king's (slot 0), then
    /// the other side's (slot 1), as [`Kp::piece`] takes them.
    #[inline(always)]
    pub fn kings(pos: &Position, view: Color) -> [u32; 2] {
        [view, !view].map(|c| pos.king(c).relative_to(view) as u32)
    }

    /// The features of one piece (`color`'s `piece` on `square`) seen from
    /// `view` with the kings on `kings` ([`Kp::kings`]), each of value 1: one
    /// per king, a king not paired with itself. The one definition the full
    /// traversal and the engine's update from a move
    /// (`eval::incremental`) both use.
    #[inline(always)]
    pub fn piece(
        view: Color,
        kings: [u32; 2],
        color: Color,
        piece: Piece,
        square: crate::shogi::Square,
        mut feature: impl FnMut(FeatureIndex),
    ) {
        let state = Relation::state(view, color, piece, square);
        let own_slot = u32::from(color != view);
        for (slot, &ks) in kings.iter().enumerate() {
            if piece == Piece::King && slot as u32 == own_slot {
                continue;
            }
            feature(Self::index(slot as u32, ks, state));
        }
    }
}

impl FeatureSet for Kp {
    #[inline]
    fn visit<S: FeatureSink>(&self, pos: &Position, view: Color, sink: &mut S) {
        let kings = Self::kings(pos, view);
        super::board_pieces(pos, |color, piece, square| {
            Self::piece(view, kings, color, piece, square, |i| sink.feature(i, 1.0));
        });
    }

    fn dimension(&self) -> u32 {
        KP_DIMENSION
    }

    fn name(&self) -> String {
        "kp".into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{BaseSet, RowBuilder};
    use crate::shogi::Position;

    #[test]
    fn start_position_known_answers_from_both_views() {
        let pos = Position::startpos();
        let mut rows = RowBuilder::new();
        // 38 pieces other than kings, each paired with both kings, and each king
        // paired with the other: 78 features of value 1, all distinct.
        let black = rows.build(&Kp, &pos, Color::Black).to_vec();
        assert_eq!(black.len(), 78);
        assert!(black.iter().all(|&(_, v)| v == 1.0));
        // Own king on 5i (square 4 × 9 + 8 = 44), own pawn on 7g (6 × 9 + 6 = 60):
        // slot 0, state = kind 0 × 81 + 60.
        assert!(black.contains(&(Kp::index(0, 44, PieceState(60)).get(), 1.0)));
        // The opponent's king on 5a (36) seen from Black; own pawn 7g in slot 1.
        assert!(black.contains(&(Kp::index(1, 36, PieceState(60)).get(), 1.0)));
        // The start position is symmetric under the 180° turn: White's row is Black's.
        assert_eq!(rows.build(&Kp, &pos, Color::White).to_vec(), black);
    }

    #[test]
    fn decode_inverts_index_and_mirror_is_an_involution() {
        for index in [1, 2268, 2269, 81 * 2268, 81 * 2268 + 1, KP_DIMENSION].map(FeatureIndex) {
            let (slot, king, state) = Kp::decode(index);
            assert_eq!(Kp::index(slot, king, state), index);
            let m = BaseSet::Kp.mirror(index);
            assert!((1..=KP_DIMENSION).contains(&m.get()));
            assert_eq!(BaseSet::Kp.mirror(m), index);
        }
        // Own king 5i stays on the centre file; a pawn on 7g goes to 3g.
        let i = Kp::index(0, 44, PieceState(60));
        assert_eq!(
            BaseSet::Kp.mirror(i),
            Kp::index(0, 44, PieceState(2 * 9 + 6))
        );
    }
}
