//! Move generation and order for the two modes ([`MoveOrder`]).
//!
//! - **Engine**: hash move, captures by MVV-LVA, two killers per ply,
//!   promotions, then the rest (one sort over every move); in the selective
//!   search the quiet moves by their history (`selective.rs`).
//! - **Labelling**: captures by MVV-LVA (victim first, cheaper attacker,
//!   promotion), then the other moves in generation order: the captures
//!   raise alpha first, so more of the other moves are settled without
//!   being played (`tree.rs`).
//!
//! The order decides only which of several equal lines a search returns and
//! how many nodes it visits, never a value: alpha-beta returns the minimax
//! value whatever the order.

use haitaka::PieceMoves;

use crate::eval::Evaluator;
use crate::shogi::{piece_value, Move, Piece, Position};

use super::{MoveOrder, Searcher};

const HASH_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 20;
const KILLER: i32 = 1 << 19;
/// Below the killers, above every quiet move: captures that lose their
/// exchange (selective search).
const LOSING_CAPTURE: i32 = 1 << 17;
/// Above any history value: quiet promotions first among the quiet moves.
const PROMOTION: i32 = 2 * super::selective::HISTORY_MAX;

impl<'a, E: Evaluator + ?Sized> Searcher<'a, E> {
    /// The engine order's key of `mv` (higher first).
    pub(super) fn order_score(
        &self,
        pos: &Position,
        mv: Move,
        hash_move: Option<Move>,
        ply: usize,
    ) -> i32 {
        if Some(mv) == hash_move {
            return HASH_MOVE;
        }
        if let Some(victim) = pos.captured_by(mv) {
            let attacker = pos.moving_piece(mv).map_or(0, piece_value);
            let key = piece_value(victim) * 16 - attacker / 16;
            // The selective search puts captures that lose their exchange
            // after the killers.
            if self.mode.selective && super::selective::losing_capture(pos, mv) {
                return LOSING_CAPTURE + key;
            }
            return CAPTURE + key;
        }
        let killers = &self.killers[ply];
        if killers[0] == Some(mv) {
            KILLER + 2
        } else if killers[1] == Some(mv) {
            KILLER + 1
        } else {
            PROMOTION * i32::from(mv.is_promotion()) + self.history.get(pos, mv)
        }
    }

    /// Sorts `moves` by the engine order.
    pub(super) fn sort_engine(
        &self,
        pos: &Position,
        hash_move: Option<Move>,
        ply: usize,
        moves: &mut [(Move, i32)],
    ) {
        for m in moves.iter_mut() {
            m.1 = self.order_score(pos, m.0, hash_move, ply);
        }
        moves.sort_unstable_by_key(|&(_, s)| -s);
    }

    /// Every legal move of `pos` into `moves` in the mode's order.
    pub(super) fn generate_all(
        &mut self,
        pos: &Position,
        hash_move: Option<Move>,
        ply: usize,
        moves: &mut Vec<(Move, i32)>,
    ) {
        moves.clear();
        match self.mode.order {
            MoveOrder::Engine => {
                pos.for_each_legal_move(|mv| moves.push((mv, 0)));
                self.sort_engine(pos, hash_move, ply, moves);
            }
            MoveOrder::Labelling => self.generate_labelling(pos, true, moves),
        }
    }

    /// The captures of `pos` into `moves`: only the pieces that attack an
    /// enemy piece are generated (no drops); in the engine order they are
    /// left unsorted (the quiescence sorts them), in the labelling order sorted.
    pub(super) fn generate_captures(&mut self, pos: &Position, moves: &mut Vec<(Move, i32)>) {
        moves.clear();
        match self.mode.order {
            MoveOrder::Engine => {
                let theirs = pos.board().colors(!pos.side_to_move());
                // The captures come in the full generator's order.
                pos.for_each_capture_set(|pm| {
                    if let PieceMoves::BoardMoves {
                        color,
                        piece,
                        from,
                        to,
                        prom_status,
                    } = pm
                    {
                        let captures = PieceMoves::BoardMoves {
                            color,
                            piece,
                            from,
                            to: to & theirs,
                            prom_status,
                        };
                        for mv in captures {
                            moves.push((mv, 0));
                        }
                    }
                });
            }
            MoveOrder::Labelling => self.generate_labelling(pos, false, moves),
        }
    }

    /// The labelling order: captures sorted most valuable victim first, least
    /// valuable attacker first (MVV-LVA); with `all`, then the other moves in
    /// generation order.
    fn generate_labelling(&mut self, pos: &Position, all: bool, moves: &mut Vec<(Move, i32)>) {
        let captures = &mut self.captures;
        let quiet = &mut self.quiet;
        captures.clear();
        quiet.clear();
        let board = pos.board();
        let theirs = board.colors(!pos.side_to_move());
        let handle = |moves: PieceMoves| match moves {
            PieceMoves::BoardMoves {
                color,
                piece,
                from,
                to,
                prom_status,
            } => {
                let hits = to & theirs;
                if !hits.is_empty() {
                    let attacker = piece_value(piece) >> 6;
                    let set = PieceMoves::BoardMoves {
                        color,
                        piece,
                        from,
                        to: hits,
                        prom_status,
                    };
                    for mv in set {
                        let victim = board.piece_on(mv.to()).unwrap_or(Piece::Pawn);
                        let key = (piece_value(victim) << 8) - attacker + mv.is_promotion() as i32;
                        captures.push((key, mv));
                    }
                }
                let rest = to & !theirs;
                if all && !rest.is_empty() {
                    quiet.extend(PieceMoves::BoardMoves {
                        color,
                        piece,
                        from,
                        to: rest,
                        prom_status,
                    });
                }
            }
            drops @ PieceMoves::Drops { .. } => {
                if all {
                    quiet.extend(drops);
                }
            }
        };
        // The quiescence generates only the pieces that can capture (no drops).
        if all {
            pos.for_each_move_set(handle);
        } else {
            pos.for_each_capture_set(handle);
        }
        captures.sort_unstable_by_key(|&(key, _)| std::cmp::Reverse(key));
        moves.extend(captures.iter().map(|&(_, mv)| (mv, 0)));
        moves.extend(quiet.iter().map(|&mv| (mv, 0)));
    }
}
