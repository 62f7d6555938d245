//! The two 256-bit Huffman codings of a position: YaneuraOu's packed SFEN
//! (`PackedSfen`, in PackedSfenValue) and Apery's `HuffmanCodedPos` (in HCPE).
//!
//! Both write, bit by bit from the lowest bit of byte 0: the side to move (1
//! bit, 1 = White), Black's then White's king square (7 bits each, square
//! numbers of [`super::numbering`]), every other square from 1a to 9i
//! (file-major) as a board code, then the pieces in hand (Black's, then
//! White's; pawns, lances, knights, silvers, golds, bishops, rooks), then the
//! pieces in neither (the piece box, for handicaps) in the same kind order.
//! Every non-king piece costs one bit less in hand or in the box than on the
//! board, where its square would otherwise cost the one bit of an empty
//! square, so every position takes exactly 256 bits.
//!
//! The codings differ only in their tables, copied from cshogi's
//! `src/position.cpp` (`HuffmanCodedPos::…CodeTable`, `PackedSfen::…CodeTable`,
//! written there as `Binary<…>` literals and here as `0b…`; the code is the
//! bit sequence read from the lowest bit). YaneuraOu's
//! `source/extra/sfen_packer.cpp` builds the same packed-SFEN codes from a
//! kind code plus a promotion and a colour bit; a gold in the box is coded as
//! a promoted White silver in hand by both.

use super::numbering::{square_from_number, square_number, DROP_KINDS};
use crate::shogi::{Color, Piece, Position, Square, KIND_ORDER};

/// One Huffman code: `len` bits, the first in the lowest bit of `bits`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Code {
    bits: u8,
    len: u8,
}

const fn c(bits: u8, len: u8) -> Code {
    Code { bits, len }
}

/// Board kinds in the tables' order: YaneuraOu's piece types 1..=7, then the
/// promoted ones (cshogi's `Piece` order without kings).
const BOARD_KINDS: [Piece; 13] = {
    let mut kinds = [Piece::Pawn; 13];
    let mut i = 0;
    while i < 7 {
        kinds[i] = DROP_KINDS[i];
        if i < 6 {
            kinds[7 + i] = DROP_KINDS[i].promote(); // gold, the 7th, does not promote
        }
        i += 1;
    }
    kinds
};

/// Hand kinds in the tables' and the stream's order (cshogi's `HandPiece`):
/// P L N S G B R, the first seven of [`KIND_ORDER`].
const HAND_KINDS: [Piece; 7] = {
    let mut kinds = [Piece::Pawn; 7];
    let mut i = 0;
    while i < 7 {
        kinds[i] = KIND_ORDER[i];
        i += 1;
    }
    kinds
};

/// How many of each [`HAND_KINDS`] a full set holds.
const SET_COUNTS: [u8; 7] = [18, 4, 4, 4, 4, 2, 2];

/// One of the two codings: its three tables and the decoding tables built from them.
pub(super) struct Coding {
    /// Board codes of [`BOARD_KINDS`], Black's then White's.
    board: [[Code; 13]; 2],
    /// Hand codes of [`HAND_KINDS`], Black's then White's.
    hand: [[Code; 7]; 2],
    /// Piece-box codes of [`HAND_KINDS`].
    piece_box: [Code; 7],
    /// Board code `(len, bits)` → 0 none, 1 empty, 2 + colour × 13 + kind.
    board_lookup: [[u8; 256]; 9],
    /// Hand code `(len, bits)` → 0 none, 1 + colour × 7 + kind in hand, 15 + kind in the box.
    hand_lookup: [[u8; 256]; 9],
}

const EMPTY: Code = c(0b0, 1);

impl Coding {
    const fn new(board: [[Code; 13]; 2], hand: [[Code; 7]; 2], piece_box: [Code; 7]) -> Self {
        let mut board_lookup = [[0u8; 256]; 9];
        let mut hand_lookup = [[0u8; 256]; 9];
        board_lookup[EMPTY.len as usize][EMPTY.bits as usize] = 1;
        let mut color = 0;
        while color < 2 {
            let mut k = 0;
            while k < 13 {
                let code = board[color][k];
                board_lookup[code.len as usize][code.bits as usize] = 2 + (color * 13 + k) as u8;
                k += 1;
            }
            let mut k = 0;
            while k < 7 {
                let code = hand[color][k];
                hand_lookup[code.len as usize][code.bits as usize] = 1 + (color * 7 + k) as u8;
                k += 1;
            }
            color += 1;
        }
        let mut k = 0;
        while k < 7 {
            let code = piece_box[k];
            hand_lookup[code.len as usize][code.bits as usize] = 15 + k as u8;
            k += 1;
        }
        Self {
            board,
            hand,
            piece_box,
            board_lookup,
            hand_lookup,
        }
    }
}

/// YaneuraOu's packed SFEN (`PackedSfen` in cshogi's `position.cpp`).
pub(super) static PACKED_SFEN: Coding = Coding::new(
    [
        [
            c(0b1, 4),
            c(0b11, 6),
            c(0b1011, 6),
            c(0b111, 6),
            c(0b11111, 8),
            c(0b111111, 8),
            c(0b1111, 6),
            c(0b101, 4),
            c(0b10011, 6),
            c(0b11011, 6),
            c(0b10111, 6),
            c(0b1011111, 8),
            c(0b1111111, 8),
        ],
        [
            c(0b1001, 4),
            c(0b100011, 6),
            c(0b101011, 6),
            c(0b100111, 6),
            c(0b10011111, 8),
            c(0b10111111, 8),
            c(0b101111, 6),
            c(0b1101, 4),
            c(0b110011, 6),
            c(0b111011, 6),
            c(0b110111, 6),
            c(0b11011111, 8),
            c(0b11111111, 8),
        ],
    ],
    [
        [
            c(0b0, 3),
            c(0b1, 5),
            c(0b101, 5),
            c(0b11, 5),
            c(0b111, 5),
            c(0b1111, 7),
            c(0b11111, 7),
        ],
        [
            c(0b100, 3),
            c(0b10001, 5),
            c(0b10101, 5),
            c(0b10011, 5),
            c(0b10111, 5),
            c(0b1001111, 7),
            c(0b1011111, 7),
        ],
    ],
    [
        c(0b10, 3),
        c(0b1001, 5),
        c(0b1101, 5),
        c(0b1011, 5),
        c(0b11011, 5),
        c(0b101111, 7),
        c(0b111111, 7),
    ],
);

/// Apery's `HuffmanCodedPos` (cshogi's `position.cpp`), the `hcp` of HCPE.
pub(super) static HUFFMAN_CODED_POS: Coding = Coding::new(
    [
        [
            c(0b1, 4),
            c(0b11, 6),
            c(0b111, 6),
            c(0b1011, 6),
            c(0b11111, 8),
            c(0b111111, 8),
            c(0b1111, 6),
            c(0b1001, 4),
            c(0b100011, 6),
            c(0b100111, 6),
            c(0b101011, 6),
            c(0b10011111, 8),
            c(0b10111111, 8),
        ],
        [
            c(0b101, 4),
            c(0b10011, 6),
            c(0b10111, 6),
            c(0b11011, 6),
            c(0b1011111, 8),
            c(0b1111111, 8),
            c(0b101111, 6),
            c(0b1101, 4),
            c(0b110011, 6),
            c(0b110111, 6),
            c(0b111011, 6),
            c(0b11011111, 8),
            c(0b11111111, 8),
        ],
    ],
    [
        [
            c(0b0, 3),
            c(0b1, 5),
            c(0b11, 5),
            c(0b101, 5),
            c(0b111, 5),
            c(0b11111, 7),
            c(0b111111, 7),
        ],
        [
            c(0b100, 3),
            c(0b10001, 5),
            c(0b10011, 5),
            c(0b10101, 5),
            c(0b10111, 5),
            c(0b1011111, 7),
            c(0b1111111, 7),
        ],
    ],
    [
        c(0b10, 3),
        c(0b1001, 5),
        c(0b1011, 5),
        c(0b1101, 5),
        c(0b11101, 5),
        c(0b1111, 7),
        c(0b101111, 7),
    ],
);

/// 256 bits written or read from the lowest bit of byte 0 (cshogi's `BitStream`).
struct Bits<'a> {
    data: &'a mut [u8; 32],
    cursor: usize,
}

impl Bits<'_> {
    fn put(&mut self, code: Code) {
        for i in 0..code.len {
            if code.bits >> i & 1 == 1 {
                self.data[self.cursor / 8] |= 1 << (self.cursor % 8);
            }
            self.cursor += 1;
        }
    }
}

struct BitReader<'a> {
    data: &'a [u8; 32],
    cursor: usize,
}

impl BitReader<'_> {
    fn bit(&mut self) -> Result<u8, String> {
        if self.cursor >= 256 {
            return Err("the codes run past bit 256".into());
        }
        let b = self.data[self.cursor / 8] >> (self.cursor % 8) & 1;
        self.cursor += 1;
        Ok(b)
    }

    fn number(&mut self, len: u8) -> Result<u8, String> {
        let mut n = 0;
        for i in 0..len {
            n |= self.bit()? << i;
        }
        Ok(n)
    }

    /// Reads bits until they form a code `lookup` knows; its entry, never 0.
    fn code(&mut self, lookup: &[[u8; 256]; 9], what: &str) -> Result<u8, String> {
        let start = self.cursor;
        let mut bits = 0u8;
        for len in 1..=8 {
            bits |= self.bit()? << (len - 1);
            let entry = lookup[len as usize][bits as usize];
            if entry != 0 {
                return Ok(entry);
            }
        }
        Err(format!("no {what} code at bit {start}"))
    }
}

fn color_index(color: Color) -> usize {
    match color {
        Color::Black => 0,
        Color::White => 1,
    }
}

/// Encodes `pos` (board, hands, side to move; not the move number) in `coding`.
pub(super) fn pack(coding: &Coding, pos: &Position) -> [u8; 32] {
    let mut data = [0u8; 32];
    let mut out = Bits {
        data: &mut data,
        cursor: 0,
    };
    out.put(c(color_index(pos.side_to_move()) as u8, 1));
    for color in [Color::Black, Color::White] {
        out.put(c(square_number(pos.king(color)), 7));
    }
    let mut in_box = SET_COUNTS;
    for n in 0..81 {
        let square = square_from_number(n).expect("n < 81");
        match pos.piece_on(square) {
            None => out.put(EMPTY),
            Some((_, Piece::King)) => {}
            Some((color, piece)) => {
                let k = BOARD_KINDS
                    .iter()
                    .position(|&p| p == piece)
                    .expect("not a king");
                out.put(coding.board[color_index(color)][k]);
                let h = hand_kind_index(piece.unpromote());
                in_box[h] -= 1;
            }
        }
    }
    for color in [Color::Black, Color::White] {
        for (h, &piece) in HAND_KINDS.iter().enumerate() {
            let n = pos.hand_count(color, piece);
            for _ in 0..n {
                out.put(coding.hand[color_index(color)][h]);
            }
            in_box[h] -= n;
        }
    }
    for (h, &n) in in_box.iter().enumerate() {
        for _ in 0..n {
            out.put(coding.piece_box[h]);
        }
    }
    debug_assert_eq!(out.cursor, 256, "{}", pos.to_sfen());
    data
}

fn hand_kind_index(piece: Piece) -> usize {
    HAND_KINDS
        .iter()
        .position(|&p| p == piece)
        .expect("a kind that can be in hand")
}

/// A decoded position, before the move generator has checked it.
pub(super) struct Unpacked {
    pub side: Color,
    /// Pieces by square index (see [`crate::shogi::square_index`]).
    pub squares: [Option<(Color, Piece)>; 81],
    /// Hand counts in [`crate::shogi::HAND_PIECES`] order, Black's then White's.
    pub hands: [[u8; 7]; 2],
}

/// Decodes 256 bits of `coding`. Checks the codes and that the pieces on the
/// board, in hand and in the box are exactly one set; the caller checks the
/// position itself (kings, checks, dead pieces) through [`Position`].
pub(super) fn unpack(coding: &Coding, data: &[u8; 32]) -> Result<Unpacked, String> {
    let mut bits = BitReader { data, cursor: 0 };
    let side = if bits.bit()? == 0 {
        Color::Black
    } else {
        Color::White
    };
    let mut squares: [Option<(Color, Piece)>; 81] = [None; 81];
    let mut kings = [Square::A1; 2];
    for (i, color) in [Color::Black, Color::White].into_iter().enumerate() {
        let n = bits.number(7)?;
        let square = square_from_number(n)
            .ok_or_else(|| format!("{color:?} king on square number {n}, expected 0..81"))?;
        if squares[square as usize].is_some() {
            return Err(format!("both kings on square number {n}"));
        }
        squares[square as usize] = Some((color, Piece::King));
        kings[i] = square;
    }
    let mut count = [0u8; 7];
    for n in 0..81 {
        let square = square_from_number(n).expect("n < 81");
        if kings.contains(&square) {
            continue;
        }
        let entry = bits.code(&coding.board_lookup, "board")?;
        if entry >= 2 {
            let i = (entry - 2) as usize;
            let (color, piece) = (
                if i < 13 { Color::Black } else { Color::White },
                BOARD_KINDS[i % 13],
            );
            squares[square as usize] = Some((color, piece));
            count[hand_kind_index(piece.unpromote())] += 1;
        }
    }
    let mut hand_counts = [[0u8; 7]; 2];
    while bits.cursor < 256 {
        let entry = bits.code(&coding.hand_lookup, "hand or piece-box")?;
        let i = (entry - 1) as usize;
        if i < 14 {
            hand_counts[i / 7][i % 7] += 1;
        }
        count[i % 7] += 1;
    }
    for (h, (&n, &full)) in count.iter().zip(&SET_COUNTS).enumerate() {
        if n != full {
            return Err(format!(
                "{n} {:?} on the board, in hand and in the box, expected {full}",
                HAND_KINDS[h]
            ));
        }
    }
    let mut hands = [[0u8; 7]; 2];
    for color in 0..2 {
        for (h, &piece) in HAND_KINDS.iter().enumerate() {
            let at = crate::shogi::HAND_PIECES
                .iter()
                .position(|&p| p == piece)
                .expect("same kinds");
            hands[color][at] = hand_counts[color][h];
        }
    }
    Ok(Unpacked {
        side,
        squares,
        hands,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn all_codes(coding: &Coding) -> (Vec<Code>, Vec<Code>) {
        let mut board = vec![EMPTY];
        board.extend(coding.board.iter().flatten());
        let mut hand: Vec<Code> = coding.hand.iter().flatten().copied().collect();
        hand.extend(coding.piece_box);
        (board, hand)
    }

    fn is_prefix(a: Code, b: Code) -> bool {
        a.len <= b.len && (b.bits & ((1u16 << a.len) - 1) as u8) == a.bits
    }

    #[test]
    fn tables_are_prefix_free_and_cost_one_bit_less_off_the_board() {
        for coding in [&PACKED_SFEN, &HUFFMAN_CODED_POS] {
            let (board, hand) = all_codes(coding);
            for set in [&board, &hand] {
                for (i, &a) in set.iter().enumerate() {
                    assert!(a.len >= 1 && a.len <= 8 && (a.bits as u16) < 1 << a.len);
                    for (j, &b) in set.iter().enumerate() {
                        assert!(i == j || !is_prefix(a, b), "{a:?} is a prefix of {b:?}");
                    }
                }
            }
            for (h, &piece) in HAND_KINDS.iter().enumerate() {
                let k = BOARD_KINDS.iter().position(|&p| p == piece).unwrap();
                for color in 0..2 {
                    assert_eq!(coding.hand[color][h].len + 1, coding.board[color][k].len);
                    assert_eq!(coding.piece_box[h].len + 1, coding.board[color][k].len);
                }
            }
        }
    }

    #[test]
    fn packed_sfen_codes_are_yaneuraous_kind_promotion_colour() {
        // sfen_packer.cpp: kind code (huffman_table), then the promotion bit
        // (not for golds), then the colour bit.
        let kind = |p: Piece| match p {
            Piece::Pawn => c(0x01, 2),
            Piece::Lance => c(0x03, 4),
            Piece::Knight => c(0x0b, 4),
            Piece::Silver => c(0x07, 4),
            Piece::Bishop => c(0x1f, 6),
            Piece::Rook => c(0x3f, 6),
            _ => c(0x0f, 5), // gold
        };
        for (k, &piece) in BOARD_KINDS.iter().enumerate() {
            let base = kind(piece.unpromote());
            for color in 0..2u8 {
                let code = if piece == Piece::Gold {
                    c(base.bits | color << base.len, base.len + 1)
                } else {
                    let promoted = piece.is_promoted() as u8;
                    c(
                        base.bits | promoted << base.len | color << (base.len + 1),
                        base.len + 2,
                    )
                };
                assert_eq!(PACKED_SFEN.board[color as usize][k], code, "{piece:?}");
            }
        }
    }
}
