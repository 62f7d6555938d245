//! Legal captures by victim, the most valuable first, generated one value
//! class at a time ([`CaptureStages`]).
//!
//! In the capped labeller's quiescence (`search/tree.rs`) about half of the
//! nodes that generate captures are cut by their first one, nearly always a
//! capture of the most valuable victim (`docs/speed.md`). `haitaka` generates a piece's whole legal set (every square it can reach,
//! the king's safety on each) and [`Position::for_each_capture_set`] masks
//! the captures out of them, for every piece that attacks anything, before
//! the first capture is tried. Here the attacked enemy pieces are found
//! first (one attack map), then for one value class at a time the pieces
//! that attack those victims, the legality of each capture (pins, checks,
//! the king's safety on the victim's square only) and its promotions.
//! `haitaka` has no capture generator of its own, hence this one; the tests
//! hold it to `haitaka`'s legal moves on real games.

use haitaka::{
    bishop_pseudo_attacks, get_bishop_moves, get_lance_moves, get_rook_moves, gold_attacks,
    king_attacks, knight_attacks, lance_pseudo_attacks, line_ray, pawn_attacks,
    rook_pseudo_attacks, silver_attacks, BitBoard, Color, Move, Piece, Square,
};

use super::{piece_effect, piece_value, Position, SLIDERS};

/// The victims' value classes, the most valuable first (as [`piece_value`]
/// ranks them; the gold-valued pieces are one class).
const CLASSES: [&[Piece]; 9] = [
    &[Piece::PRook],
    &[Piece::Rook],
    &[Piece::PBishop],
    &[Piece::Bishop],
    &[
        Piece::Gold,
        Piece::Tokin,
        Piece::PLance,
        Piece::PKnight,
        Piece::PSilver,
    ],
    &[Piece::Silver],
    &[Piece::Knight],
    &[Piece::Lance],
    &[Piece::Pawn],
];

/// The legal captures of a position, one victim value class at a time: see
/// [`Position::capture_stages`].
#[derive(Clone, Debug)]
pub struct CaptureStages {
    /// Enemy pieces some piece of the side to move attacks (pins and checks
    /// not yet considered).
    attacked: BitBoard,
    /// The next class of [`CLASSES`] to generate.
    class: usize,
    /// Checks, pins and the king, read once for every class.
    legality: Legality,
}

impl Position {
    /// The legal captures of this position in stages: each call of
    /// [`CaptureStages::next_class`] gives those of the next value class of
    /// victims that has any, the most valuable class first; within a class
    /// the cheaper attacker first and a promotion before the same move
    /// unpromoted. Every legal capture comes exactly once over all the
    /// stages (the set [`Position::for_each_capture_set`] gives, in another
    /// order among equal victims).
    pub fn capture_stages(&self) -> CaptureStages {
        CaptureStages {
            attacked: self.board().colors(!self.side_to_move()) & self.attack_map(),
            class: 0,
            legality: Legality::of(self),
        }
    }

    /// Every square a piece of the side to move attacks (its effects, pins
    /// and checks not considered).
    fn attack_map(&self) -> BitBoard {
        let board = self.board();
        let us = self.side_to_move();
        let own = board.colors(us);
        let occupied = board.occupied();
        // Step pieces, all of a kind at once: `v` is (files west, ranks south)
        // from Black's side; White's steps point the other way along the file.
        let forward = if us == Color::Black { 1 } else { -1 };
        let step = |set: BitBoard, west: i32, south: i32| {
            set.shift_along_file(south * forward).shift_along_rank(west)
        };
        let of = |piece: Piece| board.pieces(piece) & own;
        let golds = (board.pieces(Piece::Gold)
            | board.pieces(Piece::Tokin)
            | board.pieces(Piece::PLance)
            | board.pieces(Piece::PKnight)
            | board.pieces(Piece::PSilver))
            & own;
        let king_like = of(Piece::King) | of(Piece::PBishop) | of(Piece::PRook);
        // Pieces stepping north (every kind but the knight and the lance's
        // slide), diagonally forward, sideways, back and diagonally back.
        let north = of(Piece::Pawn) | of(Piece::Silver) | golds | king_like;
        let forward_diagonal = of(Piece::Silver) | golds | king_like;
        let sideways = golds | king_like;
        let back_diagonal = of(Piece::Silver) | king_like;
        let knights = of(Piece::Knight);
        let mut map = step(north, 0, -1)
            | step(forward_diagonal, -1, -1)
            | step(forward_diagonal, 1, -1)
            | step(sideways, -1, 0)
            | step(sideways, 1, 0)
            | step(sideways, 0, 1)
            | step(back_diagonal, -1, 1)
            | step(back_diagonal, 1, 1)
            | step(knights, -1, -2)
            | step(knights, 1, -2);
        for piece in SLIDERS {
            for square in board.pieces(piece) & own {
                map |= piece_effect(us, piece, square, occupied);
            }
        }
        map
    }

    /// Calls `f` with each kind of the side to move's pieces that attack
    /// `square` (pins and checks not considered) and where they stand, the
    /// cheapest kind first: each kind's effect read backwards from the
    /// square. The gold-valued kinds come as one ([`Piece::Gold`]), as they
    /// move, promote and count alike.
    #[inline]
    fn for_each_attacker_kind(&self, square: Square, mut f: impl FnMut(Piece, BitBoard)) {
        let board = self.board();
        let us = self.side_to_move();
        let them = !us;
        let occupied = board.occupied();
        let own = board.colors(us);
        let mut kind = |piece: Piece, set: BitBoard| {
            if !set.is_empty() {
                f(piece, set);
            }
        };
        let of = |piece: Piece| own & board.pieces(piece);
        kind(Piece::Pawn, of(Piece::Pawn) & pawn_attacks(them, square));
        let lances = of(Piece::Lance) & lance_pseudo_attacks(them, square);
        if !lances.is_empty() {
            kind(
                Piece::Lance,
                lances & get_lance_moves(them, square, occupied),
            );
        }
        kind(
            Piece::Knight,
            of(Piece::Knight) & knight_attacks(them, square),
        );
        kind(
            Piece::Silver,
            of(Piece::Silver) & silver_attacks(them, square),
        );
        let golds = of(Piece::Gold)
            | of(Piece::Tokin)
            | of(Piece::PLance)
            | of(Piece::PKnight)
            | of(Piece::PSilver);
        kind(Piece::Gold, golds & gold_attacks(them, square));
        let diagonal = (of(Piece::Bishop) | of(Piece::PBishop)) & bishop_pseudo_attacks(square);
        let diagonal = if diagonal.is_empty() {
            diagonal
        } else {
            diagonal & get_bishop_moves(them, square, occupied)
        };
        let straight = (of(Piece::Rook) | of(Piece::PRook)) & rook_pseudo_attacks(square);
        let straight = if straight.is_empty() {
            straight
        } else {
            straight & get_rook_moves(them, square, occupied)
        };
        let near = king_attacks(them, square);
        kind(Piece::Bishop, diagonal & board.pieces(Piece::Bishop));
        kind(Piece::PBishop, (diagonal | near) & of(Piece::PBishop));
        kind(Piece::Rook, straight & board.pieces(Piece::Rook));
        kind(Piece::PRook, (straight | near) & of(Piece::PRook));
        kind(Piece::King, near & of(Piece::King));
    }
}

impl CaptureStages {
    /// Appends to `out` the legal captures of the next value class of
    /// victims that has any (see [`Position::capture_stages`]), each with
    /// its order in the class (the attacker's value, a promotion first);
    /// false when no capture is left. `pos` is the position the stages were
    /// made from.
    pub fn next_class(&mut self, pos: &Position, out: &mut Vec<(Move, i32)>) -> bool {
        let board = pos.board();
        while self.class < CLASSES.len() && !self.attacked.is_empty() {
            let mut victims = BitBoard::EMPTY;
            for &piece in CLASSES[self.class] {
                victims |= board.pieces(piece);
            }
            self.class += 1;
            victims &= self.attacked;
            if victims.is_empty() {
                continue;
            }
            self.attacked &= !victims;
            let start = out.len();
            for to in victims {
                self.legality.add_captures_of(pos, to, out);
            }
            if out.len() > start {
                out[start..].sort_by_key(|&(_, order)| order);
                return true;
            }
        }
        false
    }
}

/// What decides which attacks of a position are legal captures.
#[derive(Clone, Debug)]
struct Legality {
    us: Color,
    checkers: BitBoard,
    pinned: BitBoard,
    own_king: Option<Square>,
}

impl Legality {
    fn of(pos: &Position) -> Self {
        let board = pos.board();
        let us = pos.side_to_move();
        Legality {
            us,
            checkers: board.checkers(),
            pinned: board.pinned(),
            own_king: board.colored_pieces(us, Piece::King).next_square(),
        }
    }

    /// Pushes the legal captures of the enemy piece on `to`, each with its
    /// order in the class ([`capture_order`]).
    fn add_captures_of(&self, pos: &Position, to: Square, out: &mut Vec<(Move, i32)>) {
        let us = self.us;
        let checkers = self.checkers;
        pos.for_each_attacker_kind(to, |piece, froms| {
            let mut froms = froms;
            if piece == Piece::King {
                if !pos.king_safe_on(to) {
                    return;
                }
            } else {
                // In check, only the checker may be taken; never in double check.
                if !checkers.is_empty() && (checkers.len() > 1 || !checkers.has(to)) {
                    return;
                }
                // A pinned piece stays on its line (the checker is never on it).
                for from in froms & self.pinned {
                    match self.own_king {
                        Some(king) if line_ray(king, from).has(to) => {}
                        _ => froms ^= from.bitboard(),
                    }
                }
            }
            let order = capture_order(piece, false);
            let must = piece.must_promote(us, to);
            let into = piece.can_promote(us, to);
            for from in froms {
                if must {
                    out.push((board_move(from, to, true), order - 1));
                } else {
                    if into || piece.can_promote(us, from) {
                        out.push((board_move(from, to, true), order - 1));
                    }
                    out.push((board_move(from, to, false), order));
                }
            }
        });
    }
}

/// The order within a class: the attacker's value, then a promotion first.
fn capture_order(attacker: Piece, promotion: bool) -> i32 {
    2 * piece_value(attacker) - i32::from(promotion)
}

fn board_move(from: Square, to: Square, promotion: bool) -> Move {
    Move::BoardMove {
        from,
        to,
        promotion,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_stages_give_every_legal_capture_once_most_valuable_victim_first() {
        let mut positions = crate::testdata::floodgate_positions(300);
        positions.extend(crate::testdata::tournament_positions(true));
        // A knight checks; the silver that attacks it is pinned on the king's
        // file, so it may not take (no real game above has one).
        let pinned = Position::from_sfen("4r3k/9/9/9/9/9/5n3/4S4/4K4 b - 1").unwrap();
        assert!(pinned.in_check() && !pinned.board().pinned().is_empty());
        positions.push(pinned);
        let (mut total, mut staged_away, mut in_check) = (0, 0, 0);
        for pos in &positions {
            let theirs = pos.board().colors(!pos.side_to_move());
            let mut legal = Vec::new();
            pos.for_each_legal_move(|mv| {
                if theirs.has(mv.to()) {
                    legal.push(mv);
                }
            });
            let mut stages = pos.capture_stages();
            let mut staged = Vec::new();
            let mut classes = Vec::new();
            while stages.next_class(pos, &mut staged) {
                classes.push(staged.len());
            }
            for &(mv, order) in &staged {
                let attacker = pos.moving_piece(mv).unwrap();
                assert_eq!(order, capture_order(attacker, mv.is_promotion()));
            }
            let staged: Vec<Move> = staged.into_iter().map(|(mv, _)| mv).collect();
            // The most valuable victims first, the cheaper attacker first
            // within a class, a promotion before the same move unpromoted.
            let victim = |mv: Move| piece_value(pos.board().piece_on(mv.to()).unwrap());
            for pair in staged.windows(2) {
                assert!(victim(pair[0]) >= victim(pair[1]), "{}", pos.to_sfen());
            }
            let mut start = 0;
            for &end in &classes {
                assert!(end > start, "an empty stage in {}", pos.to_sfen());
                let class = &staged[start..end];
                let order =
                    |mv: Move| capture_order(pos.moving_piece(mv).unwrap(), mv.is_promotion());
                for pair in class.windows(2) {
                    assert!(order(pair[0]) <= order(pair[1]), "{}", pos.to_sfen());
                }
                start = end;
            }
            let mut a = legal.clone();
            let mut b = staged.clone();
            a.sort_by_key(|m| format!("{m}"));
            b.sort_by_key(|m| format!("{m}"));
            assert_eq!(a, b, "{}", pos.to_sfen());
            total += legal.len();
            staged_away += classes.len().saturating_sub(1);
            in_check += usize::from(pos.in_check() && !legal.is_empty());
        }
        assert!(total > 100_000, "{total} captures");
        assert!(staged_away > 10_000, "{staged_away} later stages");
        assert!(
            in_check > 500,
            "{in_check} positions in check with a capture"
        );
    }
}
