//! Positions, moves and effects (効き): a thin layer over the `haitaka` move generator.
//!
//! `haitaka` gives us bitboards, SFEN parsing and legal move generation checked
//! against known perft counts. This module adds what game records, features and
//! the engine need on top: USI move parsing with legality checks (including the
//! pawn-drop-mate rule, which `haitaka::Board::is_legal` does not check),
//! effects per piece and coverage per square, and the perspective
//! normalization of `DESIGN.md` (view = White rotates the board 180° and swaps
//! colours).

mod captures;
pub mod declaration;
mod effects;
mod mate;
mod perft;
mod position;
mod see;
mod siblings;

pub use captures::CaptureStages;
pub use effects::{piece_effect, Effects, PieceEffect};
pub use perft::{perft, perft_haitaka};
pub use position::{
    parse_usi_move, sfen_from_parts, CheckZone, Position, PositionError, HAND_PIECES,
};
pub use siblings::{sibling, Siblings};

pub use haitaka::{BitBoard, Board, Color, File, Move, Piece, Rank, Square};

/// Index 0..81 of a square: `(file − 1) × 9 + (rank − 1)`, rank 1 = `a`.
#[inline(always)]
pub fn square_index(square: Square) -> usize {
    square as usize
}

/// Board value of a piece in centipawn-like units, as the Mecha-Joshi `relation`
/// attack codes and the material labeller use them.
///
/// P 90, L 315, N 405, S 495, G 540, B 855, R 990, +P/+L/+N/+S 540, +B 945,
/// +R 1395, K 15000.
#[inline(always)]
pub const fn piece_value(piece: Piece) -> i32 {
    match piece {
        Piece::Pawn => 90,
        Piece::Lance => 315,
        Piece::Knight => 405,
        Piece::Silver => 495,
        Piece::Gold => 540,
        Piece::Bishop => 855,
        Piece::Rook => 990,
        Piece::Tokin | Piece::PLance | Piece::PKnight | Piece::PSilver => 540,
        Piece::PBishop => 945,
        Piece::PRook => 1395,
        Piece::King => 15000,
    }
}

/// The kinds whose effect depends on the other pieces: lance, bishop, rook
/// and their promoted forms (the horse and dragon also step like a king).
pub const SLIDERS: [Piece; 5] = [
    Piece::Lance,
    Piece::Bishop,
    Piece::Rook,
    Piece::PBishop,
    Piece::PRook,
];

/// The kind order used by feature indices and documentation:
/// P, L, N, S, G, B, R, K, +P, +L, +N, +S, +B, +R.
///
/// (haitaka's own `Piece` order puts B and R before G, so never use `piece as usize`
/// where this order is meant.)
pub const KIND_ORDER: [Piece; 14] = [
    Piece::Pawn,
    Piece::Lance,
    Piece::Knight,
    Piece::Silver,
    Piece::Gold,
    Piece::Bishop,
    Piece::Rook,
    Piece::King,
    Piece::Tokin,
    Piece::PLance,
    Piece::PKnight,
    Piece::PSilver,
    Piece::PBishop,
    Piece::PRook,
];

/// Position of `piece` in [`KIND_ORDER`].
#[inline(always)]
pub const fn kind_index(piece: Piece) -> usize {
    match piece {
        Piece::Pawn => 0,
        Piece::Lance => 1,
        Piece::Knight => 2,
        Piece::Silver => 3,
        Piece::Gold => 4,
        Piece::Bishop => 5,
        Piece::Rook => 6,
        Piece::King => 7,
        Piece::Tokin => 8,
        Piece::PLance => 9,
        Piece::PKnight => 10,
        Piece::PSilver => 11,
        Piece::PBishop => 12,
        Piece::PRook => 13,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn square_index_is_file_major_from_1a() {
        assert_eq!(square_index("1a".parse().unwrap()), 0);
        assert_eq!(square_index("1i".parse().unwrap()), 8);
        assert_eq!(square_index("2a".parse().unwrap()), 9);
        assert_eq!(square_index("9i".parse().unwrap()), 80);
        assert_eq!(square_index("5e".parse().unwrap()), 40);
    }

    #[test]
    fn white_view_rotates_180() {
        for sq in Square::ALL {
            // The perspective rule of DESIGN.md, as features use it: `relative_to`.
            let r = sq.relative_to(Color::White);
            assert_eq!(square_index(r), 80 - square_index(sq));
            assert_eq!(sq.relative_to(Color::Black), sq);
        }
    }

    #[test]
    fn kind_order_round_trips() {
        for (i, p) in KIND_ORDER.iter().enumerate() {
            assert_eq!(kind_index(*p), i);
        }
    }
}
