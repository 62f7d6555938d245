//! Sibling expansion: every legal move of a position and the position after it.
//!
//! The one home of "play every legal move and hand out the sibling" for the
//! labeller (`label`), move agreement (`engine::agreement`) and the ranking
//! learner (`train::ranking`): the moves come in `haitaka`'s generation order
//! ([`Position::for_each_legal_move`], pawn-drop mates filtered), each sibling
//! a fresh copy of the position with the move played.

use super::{Move, Position};

/// The legal moves of the last position expanded, kept for a walk over its
/// siblings; reuse one per thread on hot paths (the buffer is kept).
#[derive(Clone, Debug, Default)]
pub struct Siblings {
    moves: Vec<Move>,
}

impl Siblings {
    /// An empty expansion.
    pub fn new() -> Self {
        Self::default()
    }

    /// Generates the legal moves of `pos` (replacing the last position's) and
    /// returns them, in generation order.
    pub fn expand(&mut self, pos: &Position) -> &[Move] {
        pos.legal_moves_into(&mut self.moves);
        &self.moves
    }

    /// The moves of the last [`Siblings::expand`].
    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Where `mv` is among the moves of the last [`Siblings::expand`].
    pub fn index_of(&self, mv: Move) -> Option<usize> {
        self.moves.iter().position(|&m| m == mv)
    }

    /// `(move, sibling)` for every move of the last [`Siblings::expand`] of
    /// `pos` (which must be the position expanded), in its order.
    pub fn iter<'a>(&'a self, pos: &'a Position) -> impl Iterator<Item = (Move, Position)> + 'a {
        self.moves.iter().map(move |&mv| (mv, sibling(pos, mv)))
    }
}

/// The position after the legal move `mv` of `pos`.
#[inline]
pub fn sibling(pos: &Position, mv: Move) -> Position {
    let mut child = pos.clone();
    child.play_unchecked(mv);
    child
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_legal_move_once_in_generation_order_with_its_position() {
        // From a match game: White's P*7f would mate (illegal) and is left out.
        let pos = Position::from_sfen(
            "p3pp1p1/1+S1p2k1l/2+L5n/1p1g2g1p/P1s5s/6p1g/LPK2+p+p+b+n/7+rg/1+b1L3+pr w Nsn5p 230",
        )
        .unwrap();
        let mut s = Siblings::new();
        let moves = s.expand(&pos).to_vec();
        assert_eq!(moves, pos.legal_moves());
        assert!(moves.len() > 30, "{}", moves.len());
        assert!(!moves.contains(&super::super::parse_usi_move("P*7f").unwrap()));
        let mut n = 0;
        for (i, (mv, child)) in s.iter(&pos).enumerate() {
            assert_eq!(mv, moves[i]);
            assert_eq!(s.index_of(mv), Some(i));
            let mut played = pos.clone();
            played.play(mv).unwrap();
            assert!(child.same_position(&played), "{mv}");
            assert_eq!(child.side_to_move(), !pos.side_to_move());
            n += 1;
        }
        assert_eq!(n, moves.len());
        // A mated side has no sibling.
        let mated = Position::from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1").unwrap();
        assert!(s.expand(&mated).is_empty());
        assert_eq!(s.iter(&mated).count(), 0);
    }
}
