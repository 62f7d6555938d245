//! The playing engine's selective search ([`super::Mode::selective`]):
//! what it prunes, reduces and extends, step by step as each was measured
//! (`docs/search.md`). Nothing here runs in the labelling or the exact
//! engine mode, so rows, labels and self-play are untouched by it.
//!
//! - **Mate-distance pruning**: a node `ply` plies from the root can neither
//!   mate faster than `MATE − ply − 1` nor be mated sooner than
//!   `−(MATE − ply)`, so the window is narrowed to that and a node whose
//!   window closes returns at once.
//! - **Null-move pruning**: at a node that is not on the principal
//!   variation, not in check, and whose static value is already at or above
//!   beta, the side to move passes and the opponent searches `R` plies
//!   shallower (`R = 3 + depth / 4`); if even then the value stays at or
//!   above beta the node is cut. Shogi has next to no zugzwang (a side can
//!   nearly always drop or shuffle a piece), so there is no verification
//!   search. No second null move is tried below the first, and repetitions
//!   are not looked for across a null move (the cycle would not be a real
//!   one).
//! - **History and late moves**: quiet moves are ordered by a history
//!   table ([`History`]) after the killers, kept from one move of a game to
//!   the next (step 9; `Searcher::with_memory`); late quiet moves are searched
//!   shallower ([`reduction`], re-searched at full depth when they beat
//!   alpha) and, near the leaves off the principal variation, not at all
//!   past a count ([`late_move_limit`]).
//! - **Check extensions**: a move that gives check is searched one ply
//!   deeper when its exchange does not lose (a piece dropped or moved
//!   where it is taken for nothing gets no extra ply), within twice the
//!   iteration's depth from the root (step 7 of `docs/search.md`; before
//!   it every position in check was searched a ply deeper).
//! - **Static exchange in the main search**: near the leaves, once a move
//!   has been searched, a move whose exchange loses more than
//!   [`see_margin`] is not searched (a piece dropped where it is taken for
//!   nothing is a quiet move that no count or margin above catches).
//! - **Futility**: off the principal variation and out of check, at depth
//!   ≤ [`REVERSE_FUTILITY_DEPTH`], a node whose static value is
//!   [`REVERSE_FUTILITY_MARGIN`] a ply above beta returns it, and at depth
//!   ≤ [`FUTILITY_DEPTH`] a quiet move that gives no check is skipped when
//!   the static value is [`futility_margin`] below alpha.
//! - **Static exchange in the quiescence**: a capture whose exchange loses
//!   ([`Position::see`]), or whose victim cannot lift the stand-pat to
//!   alpha with [`DELTA_MARGIN`] to spare, is not searched
//!   ([`futile_capture`]) unless it gives check (a sacrifice that mates);
//!   in the main search, losing captures are ordered after the killers.
//! - **Mate in one at the horizon**: in the first [`MATE_ONE_QPLIES`]
//!   plies of the quiescence, a side out of check whose static value stays
//!   below beta asks [`Position::mate_in_one`] before it searches captures:
//!   the quiescence plays captures only, so without it a drop that mates
//!   is stood pat in front of.

use crate::eval::Evaluator;
use crate::shogi::{piece_value, Move, Piece, Position};

use super::repetition::PathEntry;
use super::tune::tuned;
use super::{Searcher, MATE_BOUND};

/// Where the selective search is in the tree.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct State {
    /// Below a null move: no other is tried.
    pub(super) below_null: bool,
    /// Index in the path of the first position after the last null move:
    /// repetitions are looked for from there on.
    pub(super) repetition_floor: usize,
}

/// The quiescence plies (from its first, 0) that look for a mate in one.
pub(super) const MATE_ONE_QPLIES: u32 = 1;

/// Null-move pruning starts at this depth.
pub(super) const NULL_MOVE_DEPTH: i32 = 2;

/// The null move's reduction: `NULL_MOVE_REDUCTION + depth /
/// NULL_MOVE_REDUCTION_DIVISOR` plies.
pub(super) const NULL_MOVE_REDUCTION: i32 = 3;
/// See [`NULL_MOVE_REDUCTION`].
pub(super) const NULL_MOVE_REDUCTION_DIVISOR: i32 = 4;

/// The null move is tried at a static value at most this far below beta
/// (0: at or above beta). 100 was tried with a learned model on both sides:
/// half the tree to depth 9, GSPRT H0 at 100 ms (`docs/search.md`, "Tried
/// on step 10").
pub(super) const NULL_MOVE_MARGIN: i32 = 0;

impl<'a, E: Evaluator + ?Sized> Searcher<'a, E> {
    /// Null-move pruning at a node of `depth` with the null window
    /// (`beta − 1`, `beta`) and static value `static_eval`: the value that
    /// cuts the node, or `None` to search it.
    pub(super) fn null_move_cut(
        &mut self,
        pos: &Position,
        depth: i32,
        beta: i32,
        ply: usize,
        static_eval: i32,
    ) -> Option<i32> {
        if depth < tuned!(NULL_MOVE_DEPTH)
            || self.selective.below_null
            || static_eval < beta - tuned!(NULL_MOVE_MARGIN)
            || beta.abs() >= MATE_BOUND
        {
            return None;
        }
        let child = pos.null_move()?;
        if self.incremental {
            self.sums[ply + 1] = self.sums[ply];
        }
        let saved = self.selective;
        self.selective.below_null = true;
        self.selective.repetition_floor = self.path.len();
        if self.mode.repetition {
            self.path.push(PathEntry::of(&child));
        }
        let r = tuned!(NULL_MOVE_REDUCTION) + depth / tuned!(NULL_MOVE_REDUCTION_DIVISOR);
        let value = -self.negamax(&child, depth - 1 - r, -beta, -beta + 1, ply + 1);
        if self.mode.repetition {
            self.path.pop();
        }
        self.selective = saved;
        // A mate found below a pass is not proven: the cut returns beta.
        (value >= beta && !self.aborted).then_some(if value >= MATE_BOUND { beta } else { value })
    }

    /// The check extension of `mv`, played from `pos` at `ply` into
    /// `child`: one ply when it gives a check whose exchange does not lose
    /// ([`Position::see`] ≥ 0) within twice the iteration's depth from the
    /// root, else none (and none outside the selective search).
    pub(super) fn check_extension(
        &self,
        pos: &Position,
        mv: Move,
        child: &Position,
        ply: usize,
    ) -> i32 {
        i32::from(
            self.mode.selective
                && (ply as i32) < 2 * self.iteration_depth
                && child.in_check()
                && pos.see_ge(mv, 0),
        )
    }
}

/// Entries of the history table: side × (board move, drop) × piece × square.
const HISTORY_LEN: usize = 2 * 2 * Piece::NUM * 81;
/// A history value stays within ±this (the update's decay keeps it there).
pub(super) const HISTORY_MAX: i32 = 16_384;

/// The history heuristic: for each side, piece (as it stands after the
/// move, dropped pieces apart) and destination, how often such a quiet move
/// cut a node, less how often it was tried before another one did, each
/// weighted by depth² and decayed towards zero as it nears [`HISTORY_MAX`]
/// (Stockfish's "gravity"). Quiet moves are ordered by it after the killers.
/// Empty, and zero everywhere, outside the selective search, so the exact
/// engine orders its moves as it always did.
#[derive(Clone, Debug, Default)]
pub struct History(Vec<i32>);

impl History {
    /// A table of zeros.
    pub(super) fn zeroed() -> Self {
        Self(vec![0; HISTORY_LEN])
    }

    fn index(pos: &Position, mv: Move) -> usize {
        let side = pos.side_to_move() as usize;
        let kind = usize::from(!mv.is_board_move());
        let piece = pos.piece_after(mv).unwrap_or(Piece::Pawn);
        let to = mv.to();
        ((side * 2 + kind) * Piece::NUM + piece as usize) * 81 + to as usize
    }

    /// No table: outside the selective search, or taken.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The value of `mv` in `pos`.
    #[inline]
    pub(super) fn get(&self, pos: &Position, mv: Move) -> i32 {
        if self.0.is_empty() {
            0
        } else {
            self.0[Self::index(pos, mv)]
        }
    }

    /// Moves the value of `mv` by `bonus` (negative: a malus), decayed.
    pub(super) fn update(&mut self, pos: &Position, mv: Move, bonus: i32) {
        if let Some(h) = self.0.get_mut(Self::index(pos, mv)) {
            *h += bonus - *h * bonus.abs() / HISTORY_MAX;
        }
    }
}

/// The history bonus of a cut at `depth`.
pub(super) fn history_bonus(depth: i32) -> i32 {
    (depth * depth).min(400)
}

/// Late-move reductions: the plies taken off the search of the `index`-th
/// move (from 0) of a node of `depth`, when it is quiet, gives no check,
/// is no killer and the side to move is not in check. Grows with the
/// logarithms of both (`ln d · ln i /` [`REDUCTION_DIVISOR`]), one ply less
/// on the principal variation and [`REDUCTION_OFF_PV`] more off it, and
/// leaves at least one ply. Step 10 of `docs/search.md` (before it
/// `ln d · ln i / 2`, and nothing added off the principal variation): GSPRT
/// H1 with a learned model on both sides, rejected with material, which it
/// leaves level.
pub(super) fn reduction(depth: i32, index: usize, pv: bool) -> i32 {
    if depth < 3 || index < 3 {
        return 0;
    }
    let r = ((depth as f32).ln() * (index as f32).ln() / tuned!(REDUCTION_DIVISOR: f32)) as i32
        + if pv { -1 } else { tuned!(REDUCTION_OFF_PV) };
    r.clamp(0, depth - 2)
}

/// See [`reduction`].
pub(super) const REDUCTION_DIVISOR: f32 = 1.5;
/// See [`reduction`].
pub(super) const REDUCTION_OFF_PV: i32 = 1;

/// Late-move pruning works at this depth and below.
pub(super) const LATE_MOVE_DEPTH: i32 = 6;

/// Late-move pruning: at a node of `depth` ≤ [`LATE_MOVE_DEPTH`] off the
/// principal variation and not in check, quiet moves that give no check are
/// not searched once this many quiet moves have been (Stockfish's
/// `3 + depth²` for an improving node; step 5 of `docs/search.md`, before
/// it `6 + 3·depth²` to depth 3).
pub(super) fn late_move_limit(depth: i32) -> usize {
    (3 + depth * depth) as usize
}

/// Static-exchange pruning in the main search works at this depth and below.
pub(super) const SEE_PRUNING_DEPTH: i32 = 6;

/// Static-exchange pruning: a move at a node of `depth` is not searched
/// when its exchange ([`Position::see`]) loses more than this: `30·depth²`
/// for a quiet move (a drop or a move to a square where the piece is
/// taken), `200·depth` for a capture or a promotion (Stockfish's shape).
pub(super) fn see_margin(depth: i32, quiet: bool) -> i32 {
    if quiet {
        30 * depth * depth
    } else {
        200 * depth
    }
}

/// Futility pruning works at this depth and below.
pub(super) const FUTILITY_DEPTH: i32 = 3;
/// Reverse futility works at this depth and below.
pub(super) const REVERSE_FUTILITY_DEPTH: i32 = 3;
/// Reverse futility: a static value this much a ply above beta cuts.
pub(super) const REVERSE_FUTILITY_MARGIN: i32 = 120;
/// Futility's margin: [`futility_margin`].
pub(super) const FUTILITY_MARGIN: i32 = 100;
/// Futility's margin a ply: [`futility_margin`].
pub(super) const FUTILITY_MARGIN_PER_PLY: i32 = 120;
/// Delta pruning: a capture is searched only if its victim, plus this,
/// may lift the stand-pat to alpha.
pub(super) const DELTA_MARGIN: i32 = 200;

/// Futility: how far below alpha a static value at `depth` must be for a
/// quiet move that gives no check to be skipped: [`FUTILITY_MARGIN`] +
/// [`FUTILITY_MARGIN_PER_PLY`] · `depth`.
pub(super) fn futility_margin(depth: i32) -> i32 {
    tuned!(FUTILITY_MARGIN) + tuned!(FUTILITY_MARGIN_PER_PLY) * depth
}

/// Is the capture `mv` not worth a quiescence search from a stand-pat of
/// `stand_pat` with `alpha`? When it loses the exchange, or (not promoting)
/// its victim cannot bring the stand-pat within [`DELTA_MARGIN`] of alpha.
pub(super) fn futile_capture(pos: &Position, mv: Move, stand_pat: i32, alpha: i32) -> bool {
    let victim = pos.captured_by(mv).map_or(0, piece_value);
    (!mv.is_promotion() && stand_pat + victim + tuned!(DELTA_MARGIN) <= alpha)
        || losing_capture(pos, mv)
}

/// Does the capture `mv` lose its exchange? Only a dearer piece taking a
/// cheaper one can; the others are not evaluated.
pub(super) fn losing_capture(pos: &Position, mv: Move) -> bool {
    let victim = pos.captured_by(mv).map_or(0, piece_value);
    let attacker = pos.moving_piece(mv).map_or(0, piece_value);
    attacker > victim && !pos.see_ge(mv, 0)
}
