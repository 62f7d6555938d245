//! Alpha-beta search over any [`Evaluator`].
//!
//! # What is implemented
//!
//! - Iterative deepening; at each depth a negamax alpha-beta search, fail-soft,
//!   with principal variation search (null-window re-searches) below the first move.
//! - Capture-only quiescence search at the leaves (stand pat on the evaluator);
//!   when the side to move is in check there, all evasions are searched so that
//!   mates at the horizon are seen.
//! - A transposition table keyed by [`Position::hash`] (board, hands, side to move),
//!   sized in megabytes, depth-preferred replacement, mate scores stored relative to
//!   the node.
//! - Move ordering: hash move, captures by MVV-LVA (most valuable victim, least
//!   valuable attacker), two killer moves per ply, then the rest; at the root the
//!   best move of the previous iteration first.
//! - Mate scores: a side with no legal move has lost ([`MATE`] − ply). A pawn-drop
//!   mate is illegal; [`Position::for_each_legal_move`] leaves them out.
//! - Repetition (千日手): every position of the game and of the search path is
//!   kept with its hash and whether the side to move is in check. A position that
//!   repeats one with the same side to move (four-fold in a real game; the first
//!   repetition already in the search, as is usual, because the cycle can simply be
//!   played again) is a draw (score 0), unless one side gave check on every one of
//!   its moves in the cycle (連続王手の千日手): that side loses.
//! - Limits: depth, nodes, a soft time (no new iteration starts after it) and a hard
//!   time (the search aborts), and a shared stop flag ([`Control`]). Progress is
//!   reported through a callback with a [`SearchInfo`]; this module never parses or
//!   prints.
//!
//! # What is not implemented
//!
//! Null-move pruning, late-move reductions, futility pruning, check extensions,
//! a history heuristic, static exchange evaluation, aspiration windows, mate
//! search (tsume) and multi-threaded search. The 16-ply self-play and the
//! conformance script only need correctness; strength comes from the evaluator.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use haitaka::PieceMoves;

use crate::eval::Evaluator;
use crate::shogi::{piece_value, Move, Position};

/// Score of a side that mates now; a mate in `n` plies is `MATE − n`.
pub const MATE: i32 = 32_000;
/// Scores at or beyond this magnitude are mate scores.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
/// Deepest ply the search reaches (main search plus quiescence).
pub const MAX_PLY: usize = 128;

/// Quiescence plies in which a side in check searches all its evasions.
pub const EVASION_PLIES: u32 = 2;

/// A search score, as USI reports it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Score {
    /// Centipawns for the side to move at the root.
    Cp(i32),
    /// Mate in this many plies; negative when the side to move is mated.
    Mate(i32),
}

impl Score {
    /// Converts an internal score (centipawns, or `±(MATE − plies)`).
    pub fn from_internal(v: i32) -> Self {
        if v >= MATE_BOUND {
            Score::Mate(MATE - v)
        } else if v <= -MATE_BOUND {
            Score::Mate(-(MATE + v))
        } else {
            Score::Cp(v)
        }
    }
}

/// One progress report: sent after every completed iteration.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchInfo {
    /// Depth of the completed iteration.
    pub depth: u32,
    /// Deepest ply reached, quiescence included.
    pub seldepth: u32,
    /// Score for the side to move at the root.
    pub score: Score,
    /// Nodes searched so far (main and quiescence).
    pub nodes: u64,
    /// Time since the search started.
    pub time: Duration,
    /// The principal variation, from the root.
    pub pv: Vec<Move>,
}

/// What a search was asked to respect. `None` means no limit of that kind.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Limits {
    /// Maximum depth of the iterative deepening.
    pub depth: Option<u32>,
    /// Maximum number of nodes.
    pub nodes: Option<u64>,
    /// No new iteration starts after this time.
    pub soft_time: Option<Duration>,
    /// The search aborts at this time (measured from [`Control::time_origin_ms`]).
    pub hard_time: Option<Duration>,
}

/// Shared between the searching thread and whoever controls it (the USI loop).
#[derive(Debug, Default)]
pub struct Control {
    /// Set to stop the search as soon as possible.
    pub stop: AtomicBool,
    /// While set, time limits are not applied (pondering, `go infinite`).
    pub untimed: AtomicBool,
    /// Milliseconds after the search start from which time limits count (set on `ponderhit`).
    pub time_origin_ms: AtomicU64,
}

impl Control {
    /// A control with no stop requested and time limits counting from the start.
    pub fn new() -> Self {
        Self::default()
    }
}

/// The outcome of a search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The move to play; `None` when the side to move has no legal move.
    pub best: Option<Move>,
    /// The expected reply (second move of the principal variation).
    pub ponder: Option<Move>,
    /// Score of the last completed iteration.
    pub score: Score,
    /// Depth of the last completed iteration (0 if none completed).
    pub depth: u32,
    /// Nodes searched.
    pub nodes: u64,
}

/// A position of the game or search path, as repetition detection needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathEntry {
    /// [`Position::hash`] of the position.
    pub hash: u64,
    /// Is the side to move in check there (was the move leading to it a check)?
    pub in_check: bool,
}

impl PathEntry {
    /// The entry for `pos`.
    pub fn of(pos: &Position) -> Self {
        Self {
            hash: pos.hash(),
            in_check: pos.in_check(),
        }
    }
}

/// The repetition entries of every position of a game: its start and after each move.
pub fn game_path(start: &Position, moves: &[Move]) -> Vec<PathEntry> {
    let mut pos = start.clone();
    let mut path = vec![PathEntry::of(&pos)];
    for &mv in moves {
        pos.play_unchecked(mv);
        path.push(PathEntry::of(&pos));
    }
    path
}

/// How a repetition ends, for the side to move in the repeated position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// Ordinary sennichite.
    Draw,
    /// The opponent checked on every move of the cycle: the side to move wins.
    Win,
    /// The side to move checked on every move of the cycle: it loses.
    Loss,
}

/// Looks for an earlier occurrence of the last position of `path` (same side to
/// move, so an even distance) and classifies the cycle. `None` if it is new.
pub fn find_repetition(path: &[PathEntry]) -> Option<Repetition> {
    let n = path.len();
    let last = *path.last()?;
    let mut j = n.checked_sub(5)?;
    loop {
        if path[j].hash == last.hash {
            let cycle = &path[j + 1..n];
            // cycle[k] is the position after the (k+1)-th move of the cycle. The side
            // to move at `last` made the moves leading to even k, its opponent those
            // leading to odd k; `in_check` there says the move gave check.
            let opponent_checked = cycle.iter().skip(1).step_by(2).all(|e| e.in_check);
            let we_checked = cycle.iter().step_by(2).all(|e| e.in_check);
            return Some(match (opponent_checked, we_checked) {
                (true, false) => Repetition::Win,
                (false, true) => Repetition::Loss,
                _ => Repetition::Draw,
            });
        }
        if j < 2 {
            return None;
        }
        j -= 2;
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
struct Entry {
    key: u64,
    mv: Option<Move>,
    score: i32,
    depth: i16,
    bound: Bound,
}

/// Transposition table: one entry per slot, depth-preferred replacement.
#[derive(Debug)]
pub struct TranspositionTable {
    entries: Vec<Option<Entry>>,
    mask: usize,
}

impl TranspositionTable {
    /// A table of at most `megabytes` MB (at least one slot), a power of two slots.
    pub fn new(megabytes: usize) -> Self {
        let slot = std::mem::size_of::<Option<Entry>>();
        let wanted = (megabytes.max(1) * 1024 * 1024 / slot).max(1);
        let slots = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        Self {
            entries: vec![None; slots],
            mask: slots - 1,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a table has at least one slot.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every entry (a new game).
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
    }

    fn probe(&self, key: u64) -> Option<Entry> {
        self.entries[key as usize & self.mask].filter(|e| e.key == key)
    }

    fn store(&mut self, key: u64, entry: Entry) {
        let slot = &mut self.entries[key as usize & self.mask];
        match slot {
            Some(old) if old.key != key && old.depth > entry.depth => {}
            _ => *slot = Some(entry),
        }
    }
}

fn score_to_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v + ply as i32
    } else if v <= -MATE_BOUND {
        v - ply as i32
    } else {
        v
    }
}

fn score_from_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v - ply as i32
    } else if v <= -MATE_BOUND {
        v + ply as i32
    } else {
        v
    }
}

const HASH_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 20;
const KILLER: i32 = 1 << 19;

/// A searcher: holds the evaluator, the table and the per-search state.
pub struct Searcher<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    tt: &'a mut TranspositionTable,
    control: &'a Control,
    limits: Limits,
    start: Instant,
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    path: Vec<PathEntry>,
    killers: Vec<[Option<Move>; 2]>,
    pv: Vec<Vec<Move>>,
    move_buffers: Vec<Vec<(Move, i32)>>,
}

impl<'a, E: Evaluator + ?Sized> Searcher<'a, E> {
    /// A searcher over `eval` with `tt`, stopped by `control` and `limits`.
    pub fn new(
        eval: &'a E,
        tt: &'a mut TranspositionTable,
        control: &'a Control,
        limits: Limits,
    ) -> Self {
        Self {
            eval,
            tt,
            control,
            limits,
            start: Instant::now(),
            nodes: 0,
            seldepth: 0,
            aborted: false,
            path: Vec::new(),
            killers: vec![[None; 2]; MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 1],
            move_buffers: (0..=MAX_PLY).map(|_| Vec::with_capacity(128)).collect(),
        }
    }

    /// Nodes searched so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Iterative deepening from `pos`. `history` holds the repetition entries of the
    /// game's positions *before* `pos` (see [`game_path`]); `report` is called after
    /// each completed iteration.
    pub fn search(
        &mut self,
        pos: &Position,
        history: &[PathEntry],
        mut report: impl FnMut(&SearchInfo),
    ) -> SearchResult {
        self.start = Instant::now();
        self.path.clear();
        self.path.extend_from_slice(history);
        self.path.push(PathEntry::of(pos));
        let root_len = self.path.len();
        let mut root_moves: Vec<(Move, i32)> = Vec::new();
        pos.for_each_legal_move(|mv| root_moves.push((mv, self.order_score(pos, mv, None, 0))));
        root_moves.sort_by_key(|&(_, s)| -s);
        let mut result = SearchResult {
            best: root_moves.first().map(|&(mv, _)| mv),
            ponder: None,
            score: Score::Mate(0),
            depth: 0,
            nodes: 0,
        };
        if root_moves.is_empty() {
            return result;
        }
        let max_depth = self.limits.depth.unwrap_or(MAX_PLY as u32 - 1).max(1);
        for depth in 1..=max_depth.min(MAX_PLY as u32 / 2) {
            let mut alpha = -INFINITY;
            let mut best_score = -INFINITY;
            let mut best_index = 0;
            for (i, &(mv, _)) in root_moves.iter().enumerate() {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                self.path.truncate(root_len);
                self.path.push(PathEntry::of(&child));
                let d = depth as i32 - 1;
                let mut score;
                if i == 0 {
                    score = -self.negamax(&child, d, -INFINITY, -alpha, 1);
                } else {
                    score = -self.negamax(&child, d, -alpha - 1, -alpha, 1);
                    if score > alpha && !self.aborted {
                        score = -self.negamax(&child, d, -INFINITY, -alpha, 1);
                    }
                }
                if self.aborted {
                    break;
                }
                if score > best_score {
                    best_score = score;
                    best_index = i;
                    let mut line = vec![mv];
                    line.extend_from_slice(&self.pv[1]);
                    self.pv[0] = line;
                }
                alpha = alpha.max(score);
            }
            self.path.truncate(root_len);
            // A partly searched iteration is still used if it found a better move than
            // the previous iteration's best, which was searched first.
            if self.aborted && best_score == -INFINITY {
                break;
            }
            let best = root_moves.remove(best_index);
            root_moves.insert(0, best);
            result.best = Some(best.0);
            result.ponder = self.pv[0].get(1).copied();
            result.score = Score::from_internal(best_score);
            if self.aborted {
                break;
            }
            result.depth = depth;
            report(&SearchInfo {
                depth,
                seldepth: self.seldepth as u32,
                score: result.score,
                nodes: self.nodes,
                time: self.start.elapsed(),
                pv: self.pv[0].clone(),
            });
            if best_score.abs() >= MATE_BOUND && (MATE - best_score.abs()) as u32 <= depth {
                break; // a mate found within full width cannot be improved on
            }
            if let Some(soft) = self.limits.soft_time {
                if !self.control.untimed.load(Ordering::Relaxed) && self.timed_elapsed() >= soft {
                    break;
                }
            }
            if self.should_stop_now() {
                break;
            }
        }
        result.nodes = self.nodes;
        result
    }

    /// The value of `pos` for its side to move by a fixed-depth search (quiescence at
    /// the leaves), with `history` as in [`Searcher::search`]. Depth 0 is quiescence only.
    pub fn value(&mut self, pos: &Position, history: &[PathEntry], depth: u32) -> i32 {
        self.path.clear();
        self.path.extend_from_slice(history);
        self.path.push(PathEntry::of(pos));
        let depth = depth.min(MAX_PLY as u32 / 2) as i32;
        self.negamax(pos, depth, -INFINITY, INFINITY, 0)
    }

    /// [`Searcher::value`] and the principal variation that reaches it: the moves from
    /// `pos` to the position whose static evaluation the value is (after the
    /// full-width plies and the captures of the quiescence). With `depth` 0 this is
    /// the quiescence line, whose end is the "leaf" that learners put features on.
    ///
    /// Transposition-table hits below the root cut a line short (the table stores
    /// no lines), so for exact leaves at `depth` ≥ 1 search with a fresh table.
    pub fn line(&mut self, pos: &Position, history: &[PathEntry], depth: u32) -> (i32, &[Move]) {
        let v = self.value(pos, history, depth);
        (v, &self.pv[0])
    }

    fn timed_elapsed(&self) -> Duration {
        let origin = Duration::from_millis(self.control.time_origin_ms.load(Ordering::Relaxed));
        self.start.elapsed().saturating_sub(origin)
    }

    fn should_stop_now(&self) -> bool {
        if self.control.stop.load(Ordering::Relaxed) {
            return true;
        }
        if let Some(n) = self.limits.nodes {
            if self.nodes >= n {
                return true;
            }
        }
        if let Some(hard) = self.limits.hard_time {
            if !self.control.untimed.load(Ordering::Relaxed) && self.timed_elapsed() >= hard {
                return true;
            }
        }
        false
    }

    #[inline]
    fn count_node(&mut self, ply: usize) {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.nodes & 1023 == 0 && self.should_stop_now() {
            self.aborted = true;
        }
    }

    fn order_score(&self, pos: &Position, mv: Move, hash_move: Option<Move>, ply: usize) -> i32 {
        if Some(mv) == hash_move {
            return HASH_MOVE;
        }
        if let Some(victim) = pos.captured_by(mv) {
            let attacker = pos.moving_piece(mv).map_or(0, piece_value);
            return CAPTURE + piece_value(victim) * 16 - attacker / 16;
        }
        let killers = &self.killers[ply];
        if killers[0] == Some(mv) {
            KILLER + 2
        } else if killers[1] == Some(mv) {
            KILLER + 1
        } else {
            i32::from(mv.is_promotion())
        }
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv[ply].clear();
        if ply > 0 {
            if let Some(rep) = find_repetition(&self.path) {
                return match rep {
                    Repetition::Draw => 0,
                    Repetition::Win => MATE - ply as i32,
                    Repetition::Loss => -(MATE - ply as i32),
                };
            }
        }
        if depth <= 0 || ply >= MAX_PLY / 2 {
            return self.quiescence(pos, alpha, beta, ply, 0);
        }
        self.count_node(ply);
        if self.aborted {
            return 0;
        }
        let key = pos.hash();
        let mut hash_move = None;
        if let Some(e) = self.tt.probe(key) {
            hash_move = e.mv;
            if ply > 0 && e.depth as i32 >= depth {
                let v = score_from_tt(e.score, ply);
                let usable = match e.bound {
                    Bound::Exact => true,
                    Bound::Lower => v >= beta,
                    Bound::Upper => v <= alpha,
                };
                if usable {
                    return v;
                }
            }
        }
        let mut moves = std::mem::take(&mut self.move_buffers[ply]);
        moves.clear();
        pos.for_each_legal_move(|mv| moves.push((mv, 0)));
        if moves.is_empty() {
            self.move_buffers[ply] = moves;
            return -(MATE - ply as i32);
        }
        for m in moves.iter_mut() {
            m.1 = self.order_score(pos, m.0, hash_move, ply);
        }
        moves.sort_unstable_by_key(|&(_, s)| -s);
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        for (i, &(mv, _)) in moves.iter().enumerate() {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            self.path.push(PathEntry::of(&child));
            let mut score;
            if i == 0 {
                score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            } else {
                score = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                }
            }
            self.path.pop();
            if self.aborted {
                self.move_buffers[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                best_move = Some(mv);
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        if pos.captured_by(mv).is_none() && self.killers[ply][0] != Some(mv) {
                            self.killers[ply][1] = self.killers[ply][0];
                            self.killers[ply][0] = Some(mv);
                        }
                        break;
                    }
                }
            }
        }
        self.move_buffers[ply] = moves;
        let bound = if best >= beta {
            Bound::Lower
        } else if best > original_alpha {
            Bound::Exact
        } else {
            Bound::Upper
        };
        self.tt.store(
            key,
            Entry {
                key,
                mv: best_move,
                score: score_to_tt(best, ply),
                depth: depth as i16,
                bound,
            },
        );
        best
    }

    /// The principal variation at `ply` becomes `mv` followed by the child's.
    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// Capture search below the full-width plies; `qply` counts its plies.
    ///
    /// In check within the first [`EVASION_PLIES`] quiescence plies every
    /// evasion is searched, so a mate threatened by a capture is seen; deeper,
    /// a side in check that has a legal move stands pat like any other. (Without
    /// that bound, capture–check–drop chains exploded: a depth-3 search took
    /// over two minutes on one position of a refereed match.)
    fn quiescence(
        &mut self,
        pos: &Position,
        mut alpha: i32,
        beta: i32,
        ply: usize,
        qply: u32,
    ) -> i32 {
        self.pv[ply].clear();
        self.count_node(ply);
        if self.aborted {
            return 0;
        }
        let in_check = pos.in_check();
        let mut moves = std::mem::take(&mut self.move_buffers[ply]);
        moves.clear();
        let mut best;
        if in_check && qply >= EVASION_PLIES && !pos.has_legal_move() {
            self.move_buffers[ply] = moves;
            return -(MATE - ply as i32);
        }
        if in_check && qply < EVASION_PLIES {
            pos.for_each_legal_move(|mv| moves.push((mv, 0)));
            if moves.is_empty() {
                self.move_buffers[ply] = moves;
                return -(MATE - ply as i32);
            }
            best = -INFINITY;
        } else {
            best = self.eval.evaluate(pos);
            if best >= beta || ply >= MAX_PLY - 1 {
                self.move_buffers[ply] = moves;
                return best;
            }
            alpha = alpha.max(best);
            let theirs = pos.board().colors(!pos.side_to_move());
            // Only the pieces that attack an enemy piece are generated; the
            // captures come in the full generator's order.
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
        if ply >= MAX_PLY - 1 {
            self.move_buffers[ply] = moves;
            return self.eval.evaluate(pos);
        }
        for m in moves.iter_mut() {
            m.1 = self.order_score(pos, m.0, None, ply);
        }
        moves.sort_unstable_by_key(|&(_, s)| -s);
        for &(mv, _) in moves.iter() {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let score = -self.quiescence(&child, -beta, -alpha, ply + 1, qply + 1);
            if self.aborted {
                self.move_buffers[ply] = moves;
                return 0;
            }
            if score > best {
                best = score;
                if score > alpha {
                    alpha = score;
                    self.update_pv(ply, mv);
                    if score >= beta {
                        break;
                    }
                }
            }
        }
        self.move_buffers[ply] = moves;
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Material;

    fn run(sfen: &str, depth: u32) -> SearchResult {
        let pos = Position::from_sfen(sfen).unwrap();
        let mut tt = TranspositionTable::new(4);
        let control = Control::new();
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        Searcher::new(&Material, &mut tt, &control, limits).search(&pos, &[], |_| {})
    }

    #[test]
    fn checkmated_side_has_no_move_and_a_mate_in_one_is_found() {
        let mated = run("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1", 3);
        assert_eq!(mated.best, None);
        let mate = run("4k4/9/4P4/9/9/9/9/9/4K4 b G 1", 3);
        assert_eq!(mate.best.unwrap().to_string(), "G*5b");
        assert_eq!(mate.score, Score::Mate(1));
    }

    #[test]
    fn a_hanging_rook_is_taken() {
        // Black's rook on 2h takes the undefended rook on 2b, promoting.
        let r = run("4k4/7r1/9/9/9/9/9/7R1/4K4 b - 1", 2);
        assert_eq!(r.best.unwrap().to_string(), "2h2b+");
        assert!(matches!(r.score, Score::Cp(v) if v > 1000), "{:?}", r.score);
    }

    #[test]
    fn pawn_drop_mate_is_not_played_or_counted() {
        // P*1b would mate (uchifuzume) and is illegal; no other move mates in one.
        let r = run("8k/9/7GN/9/9/9/9/9/4K4 b P 1", 1);
        assert_ne!(r.best.unwrap().to_string(), "P*1b");
        assert!(!matches!(r.score, Score::Mate(1)), "{:?}", r.score);
    }

    #[test]
    fn repetition_is_a_draw_and_perpetual_check_loses_for_the_checker() {
        let mv = |s: &str| crate::shogi::parse_usi_move(s).unwrap();
        let start = Position::startpos();
        let shuffle: Vec<Move> = ["2h3h", "8b7b", "3h2h", "7b8b"]
            .iter()
            .map(|m| mv(m))
            .collect();
        let path = game_path(&start, &shuffle);
        assert_eq!(find_repetition(&path), Some(Repetition::Draw));
        assert_eq!(find_repetition(&path[..4]), None);

        // A king chased by a rook: Black gives check on every move, White only escapes.
        let pos = Position::from_sfen("9/3k5/9/9/9/9/9/9/R3K4 b - 1").unwrap();
        let chase: Vec<Move> = ["9i9b", "6b6c", "9b9c", "6c6b", "9c9b", "6b6c"]
            .iter()
            .map(|m| mv(m))
            .collect();
        let path = game_path(&pos, &chase);
        assert!(path[1].in_check && path[3].in_check && path[5].in_check);
        assert_eq!(find_repetition(&path[..5]), None);
        // After 9c9b White is to move in a repeated position and was checked throughout.
        assert_eq!(find_repetition(&path[..6]), Some(Repetition::Win));
        // After 6b6c Black is to move in a repeated position and gave every check.
        assert_eq!(find_repetition(&path), Some(Repetition::Loss));
    }

    #[test]
    fn pawn_drop_mate_let_through_by_the_generator_is_filtered() {
        // From a match game: White's P*7f would mate; haitaka generates it anyway.
        let sfen =
            "p3pp1p1/1+S1p2k1l/2+L5n/1p1g2g1p/P1s5s/6p1g/LPK2+p+p+b+n/7+rg/1+b1L3+pr w Nsn5p 230";
        let pos = Position::from_sfen(sfen).unwrap();
        let drop = crate::shogi::parse_usi_move("P*7f").unwrap();
        let mut ours = Vec::new();
        pos.for_each_legal_move(|mv| ours.push(mv));
        assert!(!ours.contains(&drop));
        assert_eq!(ours.len(), pos.count_legal_moves());
        for depth in 1..=3 {
            let r = run(sfen, depth);
            assert!(pos.is_legal(r.best.unwrap()), "depth {depth}: {:?}", r.best);
        }
    }

    #[test]
    fn stop_flag_still_gives_a_legal_move() {
        let pos = Position::startpos();
        let mut tt = TranspositionTable::new(1);
        let control = Control::new();
        control.stop.store(true, Ordering::Relaxed);
        let r = Searcher::new(&Material, &mut tt, &control, Limits::default()).search(
            &pos,
            &[],
            |_| {},
        );
        assert!(pos.is_legal(r.best.unwrap()));
    }

    #[test]
    fn node_limit_is_respected_within_a_check_interval() {
        let pos = Position::startpos();
        let mut tt = TranspositionTable::new(1);
        let control = Control::new();
        let limits = Limits {
            nodes: Some(5000),
            ..Limits::default()
        };
        let mut s = Searcher::new(&Material, &mut tt, &control, limits);
        let r = s.search(&pos, &[], |_| {});
        assert!(r.nodes < 5000 + 1024, "{}", r.nodes);
        assert!(r.depth >= 1);
    }

    #[test]
    fn table_size_follows_megabytes() {
        let one = TranspositionTable::new(1).len();
        let sixteen = TranspositionTable::new(16).len();
        assert_eq!(sixteen, one * 16);
        assert!(one * std::mem::size_of::<Option<Entry>>() <= 1024 * 1024);
    }
}
