//! The `relation` parts of an [`EngineModel`] updated with the move.
//!
//! A `relation` term is an ordered pair (A, B) of board pieces with B's
//! square in A's effect, weighed by its attack code ([`attack_code`]). The
//! code reads the coverage of B's square and, for a contact check, of A's:
//! whether *any* piece of a colour covers it. So a term changes only when
//!
//! 1. A is one of the move's *changed pieces*: the moved piece, the captured
//!    one, the dropped one, or a slider whose line runs through a square
//!    whose occupancy the move changed (its effect grows or shrinks);
//! 2. B stands on the move's from or to square, or on a square whose
//!    coverage by a colour flipped between none and some;
//! 3. B is a king and A stands next to it on a square whose coverage flipped.
//!
//! The update subtracts every term of the parent in those three groups and
//! adds every term of the child in them, each counted once (group 2 skips
//! changed attackers, group 3 both). Coverage is kept as counts per square
//! and colour, updated from the changed pieces' effects, and the pieces as
//! a mailbox, so neither position's effects are computed in full (computing
//! every piece's effect is a fifth of a full `relation` evaluation,
//! `docs/speed.md`). Weights are fixed point, so the updated sums equal a
//! full evaluation's bit for bit (`tests.rs` checks it at every node of real
//! searches).
//!
//! Written by hand: no crate keeps a shogi position's coverage, and the
//! terms are this project's own features.

use haitaka::{
    get_bishop_moves, get_lance_moves, get_rook_moves, gold_attacks, king_attacks, knight_attacks,
    pawn_attacks, silver_attacks,
};

use super::{Accumulator, EngineModel, VIEWS};
use crate::features::{attack_code, Coverage, Relation, ATTACK_CODES, RELATION_STATES};
use crate::shogi::{piece_effect, BitBoard, Color, Effects, Move, Piece, Position, Square};

/// What the update reads of a position besides its bitboards: the piece on
/// each square and how many pieces of each colour cover it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Board {
    /// `1 + colour × 14 + piece` (haitaka's numbering) per square, 0 when empty.
    mailbox: [u8; 81],
    /// Coverage counts by `colour as usize`, then square.
    counts: [[u8; 81]; 2],
}

impl Default for Board {
    fn default() -> Self {
        Self {
            mailbox: [0; 81],
            counts: [[0; 81]; 2],
        }
    }
}

impl Coverage for Board {
    #[inline(always)]
    fn is_covered(&self, color: Color, square: Square) -> bool {
        self.counts[color as usize][square as usize] > 0
    }
}

impl Board {
    /// The mailbox and counts of `pos`, from scratch.
    pub fn new(pos: &Position) -> Self {
        let effects = Effects::new(pos);
        let mut board = Self {
            mailbox: [0; 81],
            counts: effects.counts(),
        };
        for p in effects.pieces() {
            board.put(p.square, Some((p.color, p.piece)));
        }
        board
    }

    #[inline(always)]
    fn at(&self, square: Square) -> Option<(Color, Piece)> {
        match self.mailbox[square as usize] {
            0 => None,
            v => {
                let v = usize::from(v - 1);
                Some((Color::ALL[v / 14], Piece::ALL[v % 14]))
            }
        }
    }

    #[inline(always)]
    fn put(&mut self, square: Square, piece: Option<(Color, Piece)>) {
        self.mailbox[square as usize] = piece.map_or(0, |(c, p)| 1 + c as u8 * 14 + p as u8);
    }

    /// Adds `sign` to the counts of every square of `effect` for `color`.
    #[inline(always)]
    fn count(&mut self, color: Color, effect: BitBoard, sign: i8) {
        let counts = &mut self.counts[color as usize];
        for square in effect {
            let c = &mut counts[square as usize];
            *c = c.wrapping_add_signed(sign);
        }
    }
}

/// The squares of every piece whose effect holds `target` on a board with
/// occupancy `occupied`. Each kind's effect is symmetric under a change of
/// colour (a piece of colour c on a covers t iff the same kind of the other
/// colour on t covers a), so one look-up per kind finds them.
#[inline(always)]
fn attackers(board: &haitaka::Board, target: Square, occupied: BitBoard) -> BitBoard {
    let pieces = |piece| board.pieces(piece);
    let ring = king_attacks(Color::Black, target);
    let mut found = (get_rook_moves(Color::Black, target, occupied)
        & (pieces(Piece::Rook) | pieces(Piece::PRook)))
        | (get_bishop_moves(Color::Black, target, occupied)
            & (pieces(Piece::Bishop) | pieces(Piece::PBishop)))
        | (ring & (pieces(Piece::King) | pieces(Piece::PRook) | pieces(Piece::PBishop)));
    let golds = pieces(Piece::Gold)
        | pieces(Piece::Tokin)
        | pieces(Piece::PLance)
        | pieces(Piece::PKnight)
        | pieces(Piece::PSilver);
    for color in Color::ALL {
        let other = !color;
        found |= board.colors(color)
            & ((pawn_attacks(other, target) & pieces(Piece::Pawn))
                | (get_lance_moves(other, target, occupied) & pieces(Piece::Lance))
                | (knight_attacks(other, target) & pieces(Piece::Knight))
                | (silver_attacks(other, target) & pieces(Piece::Silver))
                | (gold_attacks(other, target) & golds));
    }
    found
}

/// The sliders of `board` whose effect holds one of `squares`.
#[inline(always)]
fn sliders_onto(board: &haitaka::Board, squares: BitBoard, occupied: BitBoard) -> BitBoard {
    let orthogonal = board.pieces(Piece::Rook) | board.pieces(Piece::PRook);
    let diagonal = board.pieces(Piece::Bishop) | board.pieces(Piece::PBishop);
    let lances = board.pieces(Piece::Lance);
    let mut found = BitBoard::EMPTY;
    for square in squares {
        found |= get_rook_moves(Color::Black, square, occupied) & orthogonal;
        found |= get_bishop_moves(Color::Black, square, occupied) & diagonal;
        for color in Color::ALL {
            found |= get_lance_moves(!color, square, occupied) & lances & board.colors(color);
        }
    }
    found
}

/// A piece the move changes, where it stands before and after (`None`
/// where it is not on the board), and its effect there.
#[derive(Clone, Copy)]
struct Changed {
    color: Color,
    before: Option<(Piece, Square, BitBoard)>,
    after: Option<(Piece, Square, BitBoard)>,
}

/// One side of the update: a position, its kept board and the squares of
/// its changed pieces.
struct Side<'a> {
    pos: &'a Position,
    board: &'a Board,
    changed: BitBoard,
    sign: i64,
}

impl EngineModel {
    /// Adds `sign ×` the relation term of A on B to both views' sums.
    #[inline(always)]
    fn relation_term(
        &self,
        sums: &mut [i64; 2],
        a: (Color, Piece, Square),
        b: (Color, Piece, Square),
        code: u8,
        sign: i64,
    ) {
        for view in VIEWS {
            let pair = Relation::state(view, a.0, a.1, a.2).0 * RELATION_STATES
                + Relation::state(view, b.0, b.1, b.2).0;
            let mut sum = 0;
            for &(typed, offset) in &self.relations {
                sum += if typed {
                    self.weights[(offset + pair * ATTACK_CODES + u32::from(code)) as usize - 1]
                        as i64
                } else {
                    self.weights[(offset + pair) as usize] as i64 * i64::from(code)
                };
            }
            sums[view as usize] += sign * sum;
        }
    }

    /// The terms of `side` in the three groups of the module docs: of the
    /// changed pieces (`pieces`, as they stand on that side), on the squares
    /// `targets`, and on the kings next to `flipped`.
    #[inline(always)]
    fn relation_side(
        &self,
        sums: &mut [i64; 2],
        side: &Side,
        pieces: impl Iterator<Item = (Color, Piece, Square, BitBoard)>,
        targets: BitBoard,
        flipped: BitBoard,
    ) {
        let board = side.pos.board();
        let occupied = board.occupied();
        let at = |square: Square| side.board.at(square).expect("an occupied square");
        for (color, piece, square, effect) in pieces {
            for b in effect & occupied {
                let (bc, bp) = at(b);
                let code = attack_code(side.board, color, piece, square, bc, bp, b);
                self.relation_term(sums, (color, piece, square), (bc, bp, b), code, side.sign);
            }
        }
        let targets = targets & occupied;
        for b in targets {
            let (bc, bp) = at(b);
            for a in attackers(board, b, occupied) & !side.changed {
                let (ac, ap) = at(a);
                let code = attack_code(side.board, ac, ap, a, bc, bp, b);
                self.relation_term(sums, (ac, ap, a), (bc, bp, b), code, side.sign);
            }
        }
        for color in Color::ALL {
            let Some(k) = board.colored_pieces(color, Piece::King).next_square() else {
                continue;
            };
            if targets.has(k) {
                continue;
            }
            let near = king_attacks(color, k) & flipped & board.colors(!color) & !side.changed;
            for a in near {
                let (ac, ap) = at(a);
                if piece_effect(ac, ap, a, occupied).has(k) {
                    let code = attack_code(side.board, ac, ap, a, color, Piece::King, k);
                    self.relation_term(sums, (ac, ap, a), (color, Piece::King, k), code, side.sign);
                }
            }
        }
    }

    /// Updates `acc` (a copy of the parent's sums and board) from `pos` to
    /// `child`, the position after `mv`: the kept board, and the relation
    /// parts' terms that the move changes.
    pub(super) fn relation_update(
        &self,
        pos: &Position,
        mv: Move,
        child: &Position,
        parent: &Accumulator,
        acc: &mut Accumulator,
    ) {
        let before = &parent.board;
        let (occ_before, occ_after) = (pos.board().occupied(), child.board().occupied());
        let mut changed = [Changed {
            color: Color::Black,
            before: None,
            after: None,
        }; 12];
        let mut n = 0;
        let us = pos.side_to_move();
        // Squares whose occupancy the move changes, and the move's squares.
        let (opened, moved) = match mv {
            Move::BoardMove {
                from,
                to,
                promotion,
            } => {
                let (_, piece) = before.at(from).expect("a board move moves a piece");
                let now = if promotion { piece.promote() } else { piece };
                changed[n] = Changed {
                    color: us,
                    before: Some((piece, from, piece_effect(us, piece, from, occ_before))),
                    after: Some((now, to, piece_effect(us, now, to, occ_after))),
                };
                n += 1;
                acc.board.put(from, None);
                acc.board.put(to, Some((us, now)));
                let mut opened = from.bitboard();
                if let Some((them, victim)) = before.at(to) {
                    changed[n] = Changed {
                        color: them,
                        before: Some((victim, to, piece_effect(them, victim, to, occ_before))),
                        after: None,
                    };
                    n += 1;
                } else {
                    opened |= to.bitboard();
                }
                (opened, from.bitboard() | to.bitboard())
            }
            Move::Drop { piece, to } => {
                changed[n] = Changed {
                    color: us,
                    before: None,
                    after: Some((piece, to, piece_effect(us, piece, to, occ_after))),
                };
                n += 1;
                acc.board.put(to, Some((us, piece)));
                (to.bitboard(), to.bitboard())
            }
        };
        let sliders = sliders_onto(pos.board(), opened, occ_before) & !moved;
        for square in sliders {
            let (color, piece) = before.at(square).expect("a slider stands there");
            changed[n] = Changed {
                color,
                before: Some((
                    piece,
                    square,
                    piece_effect(color, piece, square, occ_before),
                )),
                after: Some((piece, square, piece_effect(color, piece, square, occ_after))),
            };
            n += 1;
        }
        let changed = &changed[..n];
        // Coverage counts, and the squares whose coverage flips.
        let mut touched = BitBoard::EMPTY;
        for c in changed {
            if let Some((_, _, effect)) = c.before {
                acc.board.count(c.color, effect, -1);
                touched |= effect;
            }
            if let Some((_, _, effect)) = c.after {
                acc.board.count(c.color, effect, 1);
                touched |= effect;
            }
        }
        let mut flipped = BitBoard::EMPTY;
        for square in touched {
            if Color::ALL.iter().any(|&color| {
                before.is_covered(color, square) != acc.board.is_covered(color, square)
            }) {
                flipped |= square.bitboard();
            }
        }
        let squares = |place: fn(&Changed) -> Option<(Piece, Square, BitBoard)>| {
            changed
                .iter()
                .filter_map(place)
                .fold(BitBoard::EMPTY, |bb, (_, s, _)| bb | s.bitboard())
        };
        let mut sums = acc.relation;
        let targets = flipped | moved;
        let side = Side {
            pos,
            board: before,
            changed: squares(|c| c.before),
            sign: -1,
        };
        let pieces = changed
            .iter()
            .filter_map(|c| c.before.map(|(p, s, e)| (c.color, p, s, e)));
        self.relation_side(&mut sums, &side, pieces, targets, flipped);
        let board = acc.board;
        let side = Side {
            pos: child,
            board: &board,
            changed: squares(|c| c.after),
            sign: 1,
        };
        let pieces = changed
            .iter()
            .filter_map(|c| c.after.map(|(p, s, e)| (c.color, p, s, e)));
        self.relation_side(&mut sums, &side, pieces, targets, flipped);
        acc.relation = sums;
    }
}
