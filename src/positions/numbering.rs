//! Square and piece-type numbers of YaneuraOu and cshogi (Apery), written once.
//!
//! Both number squares file-major from 1a (`SQ_11` = 0, `SQ_12` = 1, …,
//! `SQ_99` = 80: YaneuraOu's `types.h`, cshogi's `square.hpp`), which is also
//! haitaka's order ([`crate::shogi::square_index`]); both number the kinds
//! `PAWN` 1, `LANCE` 2, `KNIGHT` 3, `SILVER` 4, `BISHOP` 5, `ROOK` 6, `GOLD` 7
//! (the order drops and the Huffman tables use). The conversions below still
//! go through names, not casts, so that a change on either side shows up in
//! the tests of this file.

use crate::shogi::{File, Piece, Rank, Square};

/// Number of squares; YaneuraOu writes `SQ_NB` (81) for a missing king.
pub(super) const SQUARE_COUNT: u8 = 81;

/// The YaneuraOu/cshogi number (0..81) of `square`.
pub(super) fn square_number(square: Square) -> u8 {
    let file = square.file() as u8; // haitaka: File::One = 0
    let rank = square.rank() as u8; // haitaka: Rank::A = 0
    file * 9 + rank
}

/// The square numbered `n` by YaneuraOu/cshogi, if `n` < 81.
pub(super) fn square_from_number(n: u8) -> Option<Square> {
    (n < SQUARE_COUNT)
        .then(|| Square::new(File::index((n / 9) as usize), Rank::index((n % 9) as usize)))
}

/// The kinds that can be dropped, in YaneuraOu/cshogi piece-type order (type = position + 1).
pub(super) const DROP_KINDS: [Piece; 7] = [
    Piece::Pawn,
    Piece::Lance,
    Piece::Knight,
    Piece::Silver,
    Piece::Bishop,
    Piece::Rook,
    Piece::Gold,
];

/// YaneuraOu/cshogi piece type (1..=7) of a kind that can be dropped.
pub(super) fn drop_type(piece: Piece) -> Option<u16> {
    DROP_KINDS
        .iter()
        .position(|&p| p == piece)
        .map(|i| i as u16 + 1)
}

/// The kind with YaneuraOu/cshogi piece type `t` (1..=7).
pub(super) fn drop_kind(t: u16) -> Option<Piece> {
    (1..=7).contains(&t).then(|| DROP_KINDS[t as usize - 1])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn squares_are_numbered_file_major_from_1a() {
        // SQ_11 = 0, SQ_19 = 8, SQ_21 = 9, SQ_77 = 60, SQ_99 = 80 (types.h, square.hpp).
        for (usi, n) in [
            ("1a", 0),
            ("1i", 8),
            ("2a", 9),
            ("7g", 60),
            ("7f", 59),
            ("9i", 80),
        ] {
            let sq: Square = usi.parse().unwrap();
            assert_eq!(square_number(sq), n, "{usi}");
            assert_eq!(square_from_number(n), Some(sq));
        }
        for sq in Square::ALL {
            assert_eq!(square_from_number(square_number(sq)), Some(sq));
        }
        assert_eq!(square_from_number(81), None);
        assert_eq!(square_from_number(127), None);
    }

    #[test]
    fn drop_types_follow_yaneuraou_order() {
        // types.h: PAWN 1, LANCE 2, KNIGHT 3, SILVER 4, BISHOP 5, ROOK 6, GOLD 7.
        assert_eq!(drop_type(Piece::Pawn), Some(1));
        assert_eq!(drop_type(Piece::Bishop), Some(5));
        assert_eq!(drop_type(Piece::Gold), Some(7));
        assert_eq!(drop_type(Piece::King), None);
        assert_eq!(drop_type(Piece::Tokin), None);
        for t in 1..=7 {
            assert_eq!(drop_type(drop_kind(t).unwrap()), Some(t));
        }
        assert_eq!(drop_kind(0), None);
        assert_eq!(drop_kind(8), None);
    }
}
