//! Static exchange evaluation (SEE): what a capture wins once every piece
//! that can recapture on its square has, cheapest first, with either side
//! free to stop when going on would lose.
//!
//! Written here rather than taken from a crate: `haitaka` gives bitboards and
//! moves but no exchange evaluation, and no shogi crate offers one over its
//! boards. The algorithm is the swap list of chess engines (Stockfish's
//! `see_ge`, Bonanza's `swap`): attackers are found by looking back from the
//! square with each kind's effect in the other colour ([`piece_effect`] is
//! symmetric that way), and recomputed after every capture, so a rook or
//! lance behind the piece that just captured joins in (x-rays).
//!
//! Drops play no part (a piece dropped on the square would only be captured
//! itself), pins are ignored, and a promotion on a recapture is not counted:
//! the value is an estimate for move ordering and for pruning captures in
//! the quiescence, not a search.

use haitaka::{BitBoard, Color, Move, Piece, Square};

use super::{piece_effect, piece_value, Position};

/// The kinds in the order an exchange spends them: cheapest first, the king
/// last (it may only take when nothing recaptures).
const BY_VALUE: [Piece; 14] = [
    Piece::Pawn,
    Piece::Lance,
    Piece::Knight,
    Piece::Silver,
    Piece::Tokin,
    Piece::PLance,
    Piece::PKnight,
    Piece::PSilver,
    Piece::Gold,
    Piece::Bishop,
    Piece::Rook,
    Piece::PBishop,
    Piece::PRook,
    Piece::King,
];

impl Position {
    /// The pieces of `color` that attack `square` with the board occupied by
    /// `occupied` (pieces outside it are taken as gone).
    pub fn attackers_to(&self, square: Square, color: Color, occupied: BitBoard) -> BitBoard {
        let board = self.board();
        let mut attackers = BitBoard::EMPTY;
        for piece in BY_VALUE {
            let theirs = board.colored_pieces(color, piece) & occupied;
            if !theirs.is_empty() {
                attackers |= piece_effect(!color, piece, square, occupied) & theirs;
            }
        }
        attackers
    }

    /// The static exchange value of `mv` for the side that plays it: the
    /// captured piece's value, less what the exchange on its square then
    /// gives back, in [`piece_value`] units. A quiet move or a drop is worth
    /// what the opponent wins by taking the piece moved (0 or less).
    pub fn see(&self, mv: Move) -> i32 {
        let board = self.board();
        let us = self.side_to_move();
        let (to, mut occupied, mut on_square) = match mv {
            Move::BoardMove { from, to, .. } => {
                let Some(piece) = self.piece_after(mv) else {
                    return 0;
                };
                (to, board.occupied() & !from.bitboard(), piece)
            }
            Move::Drop { piece, to } => (to, board.occupied() | to.bitboard(), piece),
        };
        let mut gain = [0i32; 40];
        gain[0] = self.captured_by(mv).map_or(0, piece_value);
        let mut depth = 0;
        let mut side = !us;
        loop {
            let attackers = self.attackers_to(to, side, occupied);
            if attackers.is_empty() {
                break;
            }
            // The cheapest attacker of `side`.
            let Some((from, piece)) = BY_VALUE.iter().find_map(|&p| {
                let set = attackers & board.colored_pieces(side, p);
                set.next_square().map(|sq| (sq, p))
            }) else {
                break;
            };
            // A king may not take into a square the other side still covers.
            if piece == Piece::King
                && !self
                    .attackers_to(to, !side, occupied & !from.bitboard())
                    .is_empty()
            {
                break;
            }
            depth += 1;
            gain[depth] = piece_value(on_square) - gain[depth - 1];
            if (-gain[depth - 1]).max(gain[depth]) < 0 || depth + 1 >= gain.len() {
                break;
            }
            occupied &= !from.bitboard();
            on_square = piece;
            side = !side;
        }
        while depth > 0 {
            gain[depth - 1] = -(-gain[depth - 1]).max(gain[depth]);
            depth -= 1;
        }
        gain[0]
    }

    /// Is [`Position::see`] of `mv` at least `threshold`? The same answer,
    /// without the swap list when the move alone decides it (Stockfish's
    /// `see_ge` asks the same question): the exchange never wins more than
    /// the captured piece, and never loses more than the piece that moves
    /// (its side may stop after the first recapture), so `victim ≥ threshold`
    /// is needed and `victim − mover ≥ threshold` is enough. Most quiet
    /// moves of a pawn, and most captures of a dearer piece by a cheaper one,
    /// are answered here.
    pub fn see_ge(&self, mv: Move, threshold: i32) -> bool {
        let Some(moved) = self.moving_piece(mv) else {
            return 0 >= threshold;
        };
        let mover = if mv.is_promotion() {
            moved.promote()
        } else {
            moved
        };
        let victim = self.captured_by(mv).map_or(0, piece_value);
        if victim < threshold {
            return false;
        }
        if victim - piece_value(mover) >= threshold {
            return true;
        }
        self.see(mv) >= threshold
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn see(sfen: &str, mv: &str) -> i32 {
        let pos = Position::from_sfen(sfen).unwrap();
        let mv = pos.parse_move(mv).unwrap();
        pos.see(mv)
    }

    #[test]
    fn an_undefended_piece_is_won_whole() {
        // Black's rook on 2h takes the undefended gold on 2c.
        assert_eq!(
            see("4k4/9/7g1/9/9/9/9/7R1/4K4 b - 1", "2h2c"),
            piece_value(Piece::Gold)
        );
    }

    #[test]
    fn a_defended_piece_taken_by_a_dearer_one_loses() {
        // The rook takes a pawn on 2d that a pawn on 2c defends: pawn for rook.
        assert_eq!(
            see("4k4/9/7p1/7p1/9/9/9/7R1/4K4 b - 1", "2h2d"),
            piece_value(Piece::Pawn) - piece_value(Piece::Rook)
        );
    }

    #[test]
    fn an_x_ray_behind_the_capturer_joins_in() {
        // Black's lances on 2g and 2h take the pawn on 2d twice, White's
        // lance on 2a once: Black wins a pawn and a lance for a lance.
        let v = see("4k2l1/9/9/7p1/9/9/7L1/7L1/4K4 b - 1", "2g2d");
        assert_eq!(v, piece_value(Piece::Pawn));
    }

    #[test]
    fn the_king_does_not_take_into_cover() {
        // White's king on 5c takes nothing back on 5d while the lance on 5i covers it.
        let v = see("9/9/4k4/4p4/4S4/9/9/9/4L3K b - 1", "5e5d");
        assert_eq!(v, piece_value(Piece::Pawn));
    }

    #[test]
    fn a_quiet_move_onto_a_covered_square_loses_the_piece() {
        // The silver steps to 5d, where White's pawn on 5c takes it.
        let v = see("4k4/9/4p4/9/4S4/9/9/9/8K b - 1", "5e5d");
        assert_eq!(v, -piece_value(Piece::Silver));
    }
}
