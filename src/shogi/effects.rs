//! Effects (効き): which squares each piece attacks or defends, and how many
//! pieces of each colour cover each square.
//!
//! A piece's effect is every square it could move to if that square held an
//! enemy piece: step pieces cover their step squares, sliders run until and
//! including the first occupied square (friend or foe). Pins are ignored: a
//! pinned piece still has its effects, as the foundation issue specifies
//! (a pinned defender still counts when judging an exchange on its squares).

use haitaka::{
    get_bishop_moves, get_lance_moves, get_rook_moves, gold_attacks, king_attacks, knight_attacks,
    pawn_attacks, silver_attacks, BitBoard, Color, Piece, Square,
};

use super::Position;

/// The squares covered by `piece` of `color` standing on `square`, given the board occupancy.
#[inline(always)]
pub fn piece_effect(color: Color, piece: Piece, square: Square, occupied: BitBoard) -> BitBoard {
    match piece {
        Piece::Pawn => pawn_attacks(color, square),
        Piece::Lance => get_lance_moves(color, square, occupied),
        Piece::Knight => knight_attacks(color, square),
        Piece::Silver => silver_attacks(color, square),
        Piece::Gold | Piece::Tokin | Piece::PLance | Piece::PKnight | Piece::PSilver => {
            gold_attacks(color, square)
        }
        Piece::Bishop => get_bishop_moves(color, square, occupied),
        Piece::Rook => get_rook_moves(color, square, occupied),
        Piece::King => king_attacks(color, square),
        Piece::PBishop => get_bishop_moves(color, square, occupied) | king_attacks(color, square),
        Piece::PRook => get_rook_moves(color, square, occupied) | king_attacks(color, square),
    }
}

/// One piece on the board with its effect.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PieceEffect {
    /// Where the piece stands.
    pub square: Square,
    /// Its owner.
    pub color: Color,
    /// Its kind (promoted kinds are distinct).
    pub piece: Piece,
    /// The squares it covers.
    pub effect: BitBoard,
}

/// Effects of every piece on a board and coverage per square, computed once
/// per position without allocating (at most 40 pieces stand on a board).
///
/// The entries past the pieces are left unwritten (`MaybeUninit`): filling
/// all 40 (1.3 KB) for every position cost 6–8% of a `relation` model's
/// evaluation (`docs/speed.md`).
#[derive(Clone)]
pub struct Effects {
    pieces: [std::mem::MaybeUninit<PieceEffect>; 40],
    len: usize,
    covered: [BitBoard; 2],
}

impl Effects {
    /// Computes the effects of every piece of `pos`.
    ///
    /// The pieces come Black's first, then White's, kind by kind in
    /// `Piece::ALL` order, squares ascending. Each kind is its own call of
    /// `add_kind`, so the kind is a constant there and `piece_effect`'s match
    /// is resolved at compile time: no indirect jump per piece, whose
    /// target the CPU mispredicts about five times a position (cachegrind's
    /// branch simulation, `docs/speed.md`).
    #[inline(always)]
    pub fn new(pos: &Position) -> Self {
        let board = pos.board();
        let occupied = board.occupied();
        let mut effects = Self {
            pieces: [std::mem::MaybeUninit::uninit(); 40],
            len: 0,
            covered: [BitBoard::EMPTY; 2],
        };
        for color in [Color::Black, Color::White] {
            let own = board.colors(color);
            let mut add =
                |piece: Piece| effects.add_kind(color, piece, board.pieces(piece) & own, occupied);
            add(Piece::Pawn);
            add(Piece::Lance);
            add(Piece::Knight);
            add(Piece::Silver);
            add(Piece::Bishop);
            add(Piece::Rook);
            add(Piece::Gold);
            add(Piece::King);
            add(Piece::Tokin);
            add(Piece::PLance);
            add(Piece::PKnight);
            add(Piece::PSilver);
            add(Piece::PBishop);
            add(Piece::PRook);
        }
        effects
    }

    /// Adds the pieces of one kind and colour standing on `squares`.
    #[inline(always)]
    fn add_kind(&mut self, color: Color, piece: Piece, squares: BitBoard, occupied: BitBoard) {
        for square in squares {
            let effect = piece_effect(color, piece, square, occupied);
            self.covered[color as usize] |= effect;
            if self.len < self.pieces.len() {
                self.pieces[self.len] = std::mem::MaybeUninit::new(PieceEffect {
                    square,
                    color,
                    piece,
                    effect,
                });
                self.len += 1;
            }
        }
    }

    /// Every piece on the board with its effect (Black's first, then White's).
    ///
    /// The order is part of the evaluation: a model's `f32` sum follows it.
    #[inline(always)]
    pub fn pieces(&self) -> &[PieceEffect] {
        // SAFETY: `add_kind` writes entries 0..len in order before raising
        // `len`, and `MaybeUninit<T>` has the layout of `T`.
        unsafe { std::slice::from_raw_parts(self.pieces.as_ptr().cast::<PieceEffect>(), self.len) }
    }

    /// Is `square` covered by at least one piece of `color`?
    #[inline(always)]
    pub fn is_covered(&self, color: Color, square: Square) -> bool {
        self.covered[color as usize].has(square)
    }

    /// How many pieces of `color` cover `square`.
    pub fn count(&self, color: Color, square: Square) -> u32 {
        self.pieces()
            .iter()
            .filter(|p| p.color == color && p.effect.has(square))
            .count() as u32
    }

    /// Coverage counts indexed by `color as usize` (haitaka numbers White 0, Black 1) and square index.
    pub fn counts(&self) -> [[u8; 81]; 2] {
        let mut counts = [[0u8; 81]; 2];
        for p in self.pieces() {
            for sq in p.effect {
                counts[p.color as usize][sq as usize] += 1;
            }
        }
        counts
    }
}

impl std::fmt::Debug for Effects {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Effects")
            .field("pieces", &self.pieces())
            .field("covered", &self.covered)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sq(s: &str) -> Square {
        s.parse().unwrap()
    }

    fn squares(bb: BitBoard) -> Vec<String> {
        let mut v: Vec<String> = bb.into_iter().map(|s| s.to_string()).collect();
        v.sort();
        v
    }

    #[test]
    fn pieces_come_by_colour_then_kind_then_square_with_their_effects() {
        // The order is what a model's f32 sum follows, so it is part of the
        // evaluation: Black's pieces first, kinds in `Piece::ALL` order,
        // squares ascending, each with `piece_effect`, on every position of
        // the bundled tournament games and their children.
        let positions = crate::testdata::tournament_positions(true);
        assert_eq!(Piece::ALL.len(), 14);
        for pos in &positions {
            let board = pos.board();
            let occupied = board.occupied();
            let mut expected = Vec::new();
            let mut covered = [BitBoard::EMPTY; 2];
            for color in [Color::Black, Color::White] {
                for piece in Piece::ALL {
                    for square in board.pieces(piece) & board.colors(color) {
                        let effect = piece_effect(color, piece, square, occupied);
                        covered[color as usize] |= effect;
                        expected.push(PieceEffect {
                            square,
                            color,
                            piece,
                            effect,
                        });
                    }
                }
            }
            let e = Effects::new(pos);
            assert_eq!(e.pieces(), &expected[..], "{}", pos.to_sfen());
            for sq in Square::ALL {
                for color in [Color::Black, Color::White] {
                    assert_eq!(e.is_covered(color, sq), covered[color as usize].has(sq));
                }
            }
        }
        assert!(positions.len() > 30_000);
    }

    #[test]
    fn start_position_effects() {
        let pos = Position::startpos();
        let e = Effects::new(&pos);
        assert_eq!(e.pieces().len(), 40);
        // Black's rook on 2h: along rank h up to the bishop on 8h, 2g (own pawn), 2i (own knight).
        let rook = e.pieces().iter().find(|p| p.square == sq("2h")).unwrap();
        assert_eq!(rook.piece, Piece::Rook);
        assert_eq!(
            squares(rook.effect),
            ["1h", "2g", "2i", "3h", "4h", "5h", "6h", "7h", "8h"]
        );
        // Black's bishop on 8h: 7g (own pawn) and 9g (own pawn), 7i, 9i (own pieces).
        let bishop = e.pieces().iter().find(|p| p.square == sq("8h")).unwrap();
        assert_eq!(squares(bishop.effect), ["7g", "7i", "9g", "9i"]);
        // The lance on 9i covers 9h (empty) and stops at its own pawn on 9g.
        let lance = e.pieces().iter().find(|p| p.square == sq("9i")).unwrap();
        assert_eq!(squares(lance.effect), ["9g", "9h"]);
        // 5h is covered by the golds on 4i and 6i, the king on 5i and the rook on 2h.
        assert_eq!(e.count(Color::Black, sq("5h")), 4);
        assert_eq!(e.count(Color::White, sq("5h")), 0);
        // Each side's pawns cover the 4th/6th-rank squares in front of them.
        for f in 1..=9 {
            assert!(e.is_covered(Color::Black, sq(&format!("{f}f"))));
            assert!(e.is_covered(Color::White, sq(&format!("{f}d"))));
        }
        let counts = e.counts();
        for s in Square::ALL {
            for color in [Color::Black, Color::White] {
                assert_eq!(counts[color as usize][s as usize] as u32, e.count(color, s));
            }
        }
    }

    #[test]
    fn pinned_piece_keeps_its_effect() {
        // Black silver on 5h pinned by the white rook on 5a against the king on 5i.
        let pos = Position::from_sfen("4r4/4k4/9/9/9/9/9/4S4/4K4 b - 1").unwrap();
        let e = Effects::new(&pos);
        let silver = e
            .pieces()
            .iter()
            .find(|p| p.piece == Piece::Silver)
            .unwrap();
        assert_eq!(squares(silver.effect), ["4g", "4i", "5g", "6g", "6i"]);
        let rook = e.pieces().iter().find(|p| p.piece == Piece::Rook).unwrap();
        // The rook's file effect stops at (and includes) the white king on 5b.
        assert!(rook.effect.has(sq("5b")));
        assert!(!rook.effect.has(sq("5c")));
    }

    #[test]
    fn promoted_sliders_add_king_steps() {
        let pos = Position::from_sfen("4k4/9/9/9/4+B4/9/9/9/4K4 b - 1").unwrap();
        let e = Effects::new(&pos);
        let horse = e
            .pieces()
            .iter()
            .find(|p| p.piece == Piece::PBishop)
            .unwrap();
        for s in ["5d", "5f", "4e", "6e", "4d", "6f", "1a", "9i", "9a", "1i"] {
            assert!(horse.effect.has(sq(s)), "{s}");
        }
        assert_eq!(horse.effect.len(), 16 + 4);
    }
}
