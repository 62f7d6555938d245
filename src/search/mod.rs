//! The one search: alpha-beta over any [`Evaluator`], for the engine and for
//! the labeller (issue 12, item 2).
//!
//! One [`Searcher`] walks the tree for everyone; its [`Mode`] says which of
//! the engine's parts are on.
//!
//! - **Engine** ([`Searcher::new`], [`Mode::ENGINE`]): iterative deepening
//!   ([`Searcher::search`]) or a fixed depth ([`Searcher::value`],
//!   [`Searcher::line`]); a transposition table; principal variation search
//!   (null windows below the first move); killer moves; repetition; every
//!   evasion searched by a side in check in the first [`EVASION_PLIES`]
//!   quiescence plies. The USI engine, matches, self-play, agreement
//!   (`evaluate --depth`) and the learners' quiescence leaves use it.
//! - **Labelling** ([`Searcher::labelling`], [`Mode::labelling`]): no table,
//!   the full window at every node, plain alpha-beta, no repetition (a
//!   sibling's search is a few plies and captures, which cannot repeat), a
//!   side in check in the quiescence stands pat unless mated, the labelling
//!   move order and its exact shortcut for material (replies and captures
//!   that cannot raise alpha settled without playing them, `docs/speed.md`). The value is the exact minimax
//!   value of the tree searched and [`Searcher::line`] its principal
//!   variation. `extract` and recipes label with it. The capped labeller
//!   adds a quiescence table ([`Mode::quiescence_table`]: values only, no
//!   lines) and closes the window below ([`Searcher::value_above`]).
//!
//! Both share the tree walk (`tree.rs`), the mate scores ([`MATE`]), the
//! principal-variation table, the node count and one meaning of depth:
//! plies of all legal moves searched below the position handed in, then the
//! quiescence; depth 0 is the quiescence alone. Handed a sibling (the
//! position after a candidate move), depth is "plies searched below the
//! sibling" (`docs/search.md`).
//!
//! # What the engine mode implements
//!
//! - Iterative deepening; at each depth a negamax alpha-beta search, fail-soft,
//!   with principal variation search (null-window re-searches) below the first move.
//! - Capture-only quiescence search at the leaves (stand pat on the evaluator);
//!   when the side to move is in check there, all evasions are searched so that
//!   mates at the horizon are seen.
//! - A transposition table keyed by [`Position::hash`] (board, hands, side to move),
//!   sized in megabytes, depth-preferred replacement, mate scores stored relative to
//!   the node (`table.rs`).
//! - Move ordering: hash move, captures by MVV-LVA (most valuable victim, least
//!   valuable attacker), two killer moves per ply, then the rest; at the root the
//!   best move of the previous iteration first (`order.rs`).
//! - Mate scores: a side with no legal move has lost ([`MATE`] − ply). A pawn-drop
//!   mate is illegal; [`Position::for_each_legal_move`] leaves them out.
//! - Repetition (千日手, `repetition.rs`): every position of the game and of the
//!   search path is kept with its hash and whether the side to move is in check.
//!   A position that repeats one with the same side to move (four-fold in a real
//!   game; the first repetition already in the search, as is usual, because the
//!   cycle can simply be played again) is a draw (score 0), unless one side gave
//!   check on every one of its moves in the cycle (連続王手の千日手): that side loses.
//! - Limits: depth, nodes, a soft time (no new iteration starts after it) and a hard
//!   time (the search aborts), and a shared stop flag ([`Control`]); [`clock`]
//!   turns a move time or a game clock into the two times. An aborted iteration
//!   keeps its best move once its first move is searched. Progress is reported
//!   through a callback with a [`SearchInfo`] after every completed iteration,
//!   and once more after an aborted one, so the last report covers the whole
//!   search; this module never parses or prints.
//!
//! # The playing engine's selective search
//!
//! [`Mode::PLAY`] ([`Searcher::player`]; the USI engine and matches) is the
//! engine mode with [`Mode::selective`] on: mate-distance pruning, null-move
//! pruning, a history heuristic, late-move reductions and pruning,
//! futility and reverse futility, static exchange evaluation
//! ([`Position::see`]) in the quiescence and the capture order, check
//! extensions, and a table whose entries from earlier searches give way
//! (`selective.rs`; each step's SPRT at equal time is in `docs/search.md`).
//! The other modes stay exact: the labeller, self-play generation and the
//! learners search the full-width tree, so rows and labels do not depend on
//! any of it.
//!
//! # What is not implemented
//!
//! Mate search past one move (tsume), counter-move and continuation histories, singular
//! extensions, internal iterative reductions, a table in the quiescence, and
//! multi-threaded search. The continuation history, the reduction and the
//! quiescence table were tried behind a switch and played at equal time;
//! none was shown to gain (`docs/search.md`, "Tried on 2026-11-28").

pub mod clock;
mod depths;
mod eval_cache;
mod memory;
mod order;
mod repetition;
mod selective;
mod table;
mod tree;
pub mod tune;

pub use depths::DepthRange;
use eval_cache::EvalCache;
pub use memory::SearchMemory;
pub use repetition::{find_repetition, game_path, PathEntry, Repetition};
use selective::History;
pub use table::{QuiescenceTable, TranspositionTable};

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::eval::{Accumulator, Evaluator};
use crate::shogi::{Move, Position};

/// Score of a side that mates now; a mate in `n` plies is `MATE − n`.
///
/// The one mate constant, for the engine and the labeller alike. The
/// engine's 32000 was kept (the labeller's flat 30000 went): USI reports
/// `mate n` from it, the table stores mate scores relative to the node, and
/// labels clamp every value to ±10000 anyway, so a labelled mate reads
/// ±10000 with either constant (`docs/search.md`).
pub const MATE: i32 = 32_000;
/// Scores at or beyond this magnitude are mate scores.
pub const MATE_BOUND: i32 = MATE - 1_000;
const INFINITY: i32 = MATE + 1;
/// Deepest ply the search reaches (main search plus quiescence).
pub const MAX_PLY: usize = 128;
/// Deepest depth the search iterates to: half of [`MAX_PLY`], the ply where
/// the main search gives way to quiescence. A deeper limit searches to this.
pub const MAX_DEPTH: u32 = MAX_PLY as u32 / 2;

/// Quiescence plies in which a side in check searches all its evasions (engine mode).
pub const EVASION_PLIES: u32 = 2;

/// The stop flag, the node limit and the clock are checked when the node count is
/// a multiple of `CHECK_MASK + 1`: every 1024 nodes, so a node limit stops at
/// the first multiple of 1024 at or past it (deterministic, and free in the node
/// loop). The fuzz build (`cfg(fuzzing)`, set by cargo-fuzz) checks every node,
/// so the `usi_engine` target's `NodesLimit 1` ends each search at once and its
/// executions go to the state machine it is there to test (`docs/fuzzing.md`).
const CHECK_MASK: u64 = if cfg!(fuzzing) { 0 } else { 1023 };

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

/// One progress report: sent after every completed iteration, and after an
/// aborted one (its nodes and time, the line it played to, and the depth of
/// the last completed iteration, at least 1).
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

/// How a [`Searcher`] walks the tree: which of the engine's parts are on.
///
/// The transposition table is on when the searcher has one
/// ([`Searcher::new`]; [`Searcher::labelling`] has none).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Mode {
    /// Principal variation search: null windows below a node's first move,
    /// re-searched with the full window when they fail high. Off: every
    /// move is searched with the full window.
    pub null_window: bool,
    /// Repetitions of the game and of the search path are scored (draw, or
    /// a loss for the side that checked throughout).
    pub repetition: bool,
    /// Quiescence plies in which a side in check searches all its evasions;
    /// deeper, or with 0, it stands pat like any other side unless mated.
    pub evasion_plies: u32,
    /// Follow captures below the full-width plies. Off: those leaves are
    /// evaluated statically (a mate is still recognised).
    pub quiescence: bool,
    /// The move order (and with it the shortcuts that rely on it).
    pub order: MoveOrder,
    /// Keep quiescence values and bounds in a [`QuiescenceTable`] and reuse
    /// them, from search to search. Used only where a quiescence node's
    /// value depends on its position alone (no repetition, no evasion
    /// plies); lines get cut short where a stored value is reused, so a
    /// caller that wants lines leaves it off. The capped labeller's mode.
    pub quiescence_table: bool,
    /// The playing engine's selective search (`selective.rs`): null-move
    /// pruning, mate-distance pruning and the other steps that trade
    /// exactness for depth. Off, the value is the minimax value of the
    /// full-width tree, which the learners and self-play rely on.
    pub selective: bool,
}

/// The order moves are searched in (`order.rs`); it decides which of equal
/// lines is returned and how many nodes are visited, never a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MoveOrder {
    /// Hash move, captures by MVV-LVA, killers, promotions, the rest.
    Engine,
    /// Captures by MVV-LVA, then the other moves in generation order; at
    /// depth-1 nodes and in the quiescence, with an evaluator that knows a
    /// move's value unplayed ([`Evaluator::value_after`]: material), moves
    /// that give no check and cannot raise alpha are settled without being
    /// played.
    Labelling,
}

impl Mode {
    /// The engine's search.
    pub const ENGINE: Mode = Mode {
        null_window: true,
        repetition: true,
        evasion_plies: EVASION_PLIES,
        quiescence: true,
        order: MoveOrder::Engine,
        quiescence_table: false,
        selective: false,
    };

    /// The engine that plays (USI, matches): [`Mode::ENGINE`] with the
    /// selective search on (`docs/search.md` has each step's measured gain).
    pub const PLAY: Mode = Mode {
        selective: true,
        ..Mode::ENGINE
    };

    /// The labelling search: full window, no repetition, stand pat in check,
    /// the labelling order; capture quiescence at the leaves or none.
    pub const fn labelling(quiescence: bool) -> Mode {
        Mode {
            null_window: false,
            repetition: false,
            evasion_plies: 0,
            quiescence,
            order: MoveOrder::Labelling,
            quiescence_table: false,
            selective: false,
        }
    }

    /// Does this mode use a quiescence table? Only when asked and sound.
    fn uses_quiescence_table(self) -> bool {
        self.quiescence_table && self.quiescence && !self.repetition && self.evasion_plies == 0
    }

    /// Does the quiescence generate its captures one victim class at a time
    /// ([`crate::shogi::CaptureStages`]), so that a node cut by its first
    /// captures generates no others? In the labelling order without lines
    /// (the capped labeller's mode, as the table): the stages order equal
    /// victims differently, which changes which of equal lines is found
    /// first, never a value.
    fn staged_captures(self) -> bool {
        self.order == MoveOrder::Labelling && self.quiescence_table
    }
}

/// The control of a searcher that nobody stops (the labelling mode).
static UNCONTROLLED: Control = Control {
    stop: AtomicBool::new(false),
    untimed: AtomicBool::new(false),
    time_origin_ms: AtomicU64::new(0),
};

/// A searcher: holds the evaluator, the table (engine mode) and the
/// per-search state; move buffers are kept between calls, so a warm searcher
/// does not allocate.
pub struct Searcher<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    tt: Option<&'a mut TranspositionTable>,
    control: &'a Control,
    limits: Limits,
    mode: Mode,
    start: Instant,
    nodes: u64,
    seldepth: usize,
    aborted: bool,
    path: Vec<PathEntry>,
    killers: Vec<[Option<Move>; 2]>,
    pv: Vec<Vec<Move>>,
    move_buffers: Vec<Vec<(Move, i32)>>,
    /// Labelling order's scratch: captures with their key, and the other moves.
    captures: Vec<(i32, Move)>,
    quiet: Vec<Move>,
    /// Values already computed, for a [`Evaluator::costly`] evaluator; made
    /// once this searcher has evaluated [`eval_cache::UNCACHED`] positions.
    eval_cache: Option<Box<EvalCache>>,
    /// Evaluations before the cache was made.
    uncached: u32,
    /// Quiescence values kept from search to search
    /// ([`Mode::quiescence_table`]); made when first needed.
    quiescence_table: Option<Box<QuiescenceTable>>,
    /// The evaluator keeps sums beside the position
    /// ([`Evaluator::incremental`]): `sums[ply]` are those of the position
    /// at `ply`, refreshed at the root and updated by [`Searcher::play`].
    incremental: bool,
    sums: Vec<Accumulator>,
    /// The selective search's state ([`Mode::selective`]).
    selective: selective::State,
    /// The history heuristic's table: empty unless the mode is selective.
    history: selective::History,
    /// Depth of the iteration being searched (of the fixed-depth search).
    iteration_depth: i32,
}

impl<E: Evaluator + ?Sized> std::fmt::Debug for Searcher<'_, E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Searcher")
            .field("mode", &self.mode)
            .field("table", &self.tt.is_some())
            .field("nodes", &self.nodes)
            .finish_non_exhaustive()
    }
}

impl<'a, E: Evaluator + ?Sized> Searcher<'a, E> {
    /// An engine searcher ([`Mode::ENGINE`]) over `eval` with `tt`, stopped by
    /// `control` and `limits`.
    pub fn new(
        eval: &'a E,
        tt: &'a mut TranspositionTable,
        control: &'a Control,
        limits: Limits,
    ) -> Self {
        Self::with_parts(eval, Some(tt), control, limits, Mode::ENGINE)
    }

    /// The playing engine's searcher ([`Mode::PLAY`]: the engine's search
    /// with its selective steps) over `eval` with `tt`: the USI engine and
    /// matches play with it.
    pub fn player(
        eval: &'a E,
        tt: &'a mut TranspositionTable,
        control: &'a Control,
        limits: Limits,
    ) -> Self {
        Self::with_parts(eval, Some(tt), control, limits, Mode::PLAY)
    }

    /// A labelling searcher ([`Mode::labelling`]): no table, no limits, the
    /// full window; [`Searcher::line`] gives a sibling's value and line.
    pub fn labelling(eval: &'a E, quiescence: bool) -> Self {
        Self::with_parts(
            eval,
            None,
            &UNCONTROLLED,
            Limits::default(),
            Mode::labelling(quiescence),
        )
    }

    /// This searcher with another mode (its table, control and limits kept).
    pub fn with_mode(mut self, mode: Mode) -> Self {
        self.set_mode(mode);
        self
    }

    /// Searches on in another mode (its table, control and limits kept).
    pub fn set_mode(&mut self, mode: Mode) {
        self.mode = mode;
        if mode.selective {
            self.history = selective::History::zeroed();
        }
        if mode.uses_quiescence_table() {
            self.quiescence_table
                .get_or_insert_with(|| Box::new(QuiescenceTable::new()));
        }
    }

    /// The quiescence table, when the mode uses one.
    #[inline]
    pub(super) fn quiescence_table(&mut self) -> Option<&mut QuiescenceTable> {
        if self.mode.uses_quiescence_table() {
            self.quiescence_table.as_deref_mut()
        } else {
            None
        }
    }

    /// The mode it searches in.
    pub fn mode(&self) -> Mode {
        self.mode
    }

    fn with_parts(
        eval: &'a E,
        tt: Option<&'a mut TranspositionTable>,
        control: &'a Control,
        limits: Limits,
        mode: Mode,
    ) -> Self {
        Self {
            eval,
            tt,
            control,
            limits,
            mode,
            start: Instant::now(),
            nodes: 0,
            seldepth: 0,
            aborted: false,
            path: Vec::new(),
            killers: vec![[None; 2]; MAX_PLY + 1],
            pv: vec![Vec::new(); MAX_PLY + 1],
            // Empty until a ply is reached ([`Searcher::move_buffer`]): the
            // learners and `evaluate --depth` make a searcher per position or
            // sibling and reach a few plies, and 129 buffers allocated up front
            // cost them more than the search.
            move_buffers: vec![Vec::new(); MAX_PLY + 1],
            captures: Vec::new(),
            quiet: Vec::new(),
            eval_cache: None,
            uncached: 0,
            quiescence_table: None,
            incremental: eval.incremental(),
            sums: if eval.incremental() {
                vec![Accumulator::default(); MAX_PLY + 1]
            } else {
                Vec::new()
            },
            selective: selective::State::default(),
            history: if mode.selective {
                selective::History::zeroed()
            } else {
                selective::History::default()
            },
            iteration_depth: 0,
        }
    }

    /// The position after `mv` (legal in `pos`, the position at `ply`), its
    /// sums updated into `ply + 1` when the evaluator keeps them.
    #[inline]
    pub(super) fn play(&mut self, pos: &Position, mv: Move, ply: usize) -> Position {
        let mut child = pos.clone();
        child.play_unchecked(mv);
        if self.incremental {
            self.sums[ply + 1] = self.eval.update(pos, mv, &child, &self.sums[ply]);
        }
        child
    }

    /// Sums `pos`, the position at ply 0, from scratch (when the evaluator keeps sums).
    fn refresh_root(&mut self, pos: &Position) {
        if self.incremental {
            self.eval.refresh(pos, &mut self.sums[0]);
        }
    }

    /// The move buffer of `ply`, taken (give it back when done), with room
    /// for a position's moves from its first use on.
    #[inline]
    pub(super) fn move_buffer(&mut self, ply: usize) -> Vec<(Move, i32)> {
        let mut moves = std::mem::take(&mut self.move_buffers[ply]);
        if moves.capacity() == 0 {
            moves.reserve(128);
        }
        moves
    }

    /// Nodes searched so far (each node expanded or evaluated counts once).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Iterative deepening from `pos` (the engine's entry: its root keeps the
    /// path for repetition and searches with null windows whatever the mode). `history` holds the repetition entries of the
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
        self.selective = selective::State::default();
        self.path.extend_from_slice(history);
        self.path.push(PathEntry::of(pos));
        self.refresh_root(pos);
        if self.mode.selective {
            if let Some(tt) = self.tt.as_deref_mut() {
                tt.new_search();
            }
        }
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
        for depth in 1..=max_depth.min(MAX_DEPTH) {
            self.iteration_depth = depth as i32;
            // No aspiration window: searching each iteration in the full
            // window gained over a ±60 window with a model on both sides (Elo
            // +63.6 [+14.5, +115.3]) and with material (+75.6 [+20.1, +135.3];
            // both GSPRT H1, docs/search.md, step 4).
            let (best_score, best_index) = self.root_iteration(pos, &root_moves, depth, root_len);
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
        // An aborted iteration's nodes and time are reported too: the last
        // report is the whole search (USI `go nodes N` reads N or more there).
        if self.aborted && !self.pv[0].is_empty() {
            report(&SearchInfo {
                depth: result.depth.max(1),
                seldepth: self.seldepth as u32,
                score: result.score,
                nodes: self.nodes,
                time: self.start.elapsed(),
                pv: self.pv[0].clone(),
            });
        }
        result
    }

    /// One iteration at the root: every root move searched to `depth` in the
    /// full window, principal variation search below the first. The best
    /// value and its move's index; `pv[0]` holds its line.
    fn root_iteration(
        &mut self,
        pos: &Position,
        root_moves: &[(Move, i32)],
        depth: u32,
        root_len: usize,
    ) -> (i32, usize) {
        let mut alpha = -INFINITY;
        let mut best_score = -INFINITY;
        let mut best_index = 0;
        for (i, &(mv, _)) in root_moves.iter().enumerate() {
            let child = self.play(pos, mv, 0);
            self.path.truncate(root_len);
            self.path.push(PathEntry::of(&child));
            let d = depth as i32 - 1 + self.check_extension(pos, mv, &child, 0);
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
        (best_score, best_index)
    }

    /// The value of `pos` for its side to move by a fixed-depth search: `depth`
    /// plies of all legal moves below `pos`, then the quiescence at the leaves
    /// (depth 0 is the quiescence only); `history` as in [`Searcher::search`]
    /// (ignored without [`Mode::repetition`]). Unclamped: mates are ±([`MATE`] − ply).
    pub fn value(&mut self, pos: &Position, history: &[PathEntry], depth: u32) -> i32 {
        self.value_from(pos, history, depth, -INFINITY)
    }

    /// [`Searcher::value`] with the window (`alpha`, ∞).
    fn value_from(&mut self, pos: &Position, history: &[PathEntry], depth: u32, alpha: i32) -> i32 {
        self.path.clear();
        self.selective = selective::State::default();
        if self.mode.repetition {
            self.path.extend_from_slice(history);
            self.path.push(PathEntry::of(pos));
        }
        let depth = depth.min(MAX_DEPTH) as i32;
        self.iteration_depth = depth;
        self.refresh_root(pos);
        self.negamax(pos, depth, alpha, INFINITY, 0)
    }

    /// [`Searcher::value`] and the principal variation that reaches it: the moves from
    /// `pos` to the position whose static evaluation the value is (after the
    /// full-width plies and the captures of the quiescence). With `depth` 0 this is
    /// the quiescence line, whose end is the "leaf" that learners put features on.
    ///
    /// Transposition-table hits below the root cut a line short (the table stores
    /// no lines), so for exact leaves at `depth` ≥ 1 search with a fresh table,
    /// or in the labelling mode, which has none. The line is empty when `pos`
    /// itself was evaluated.
    pub fn line(&mut self, pos: &Position, history: &[PathEntry], depth: u32) -> (i32, &[Move]) {
        let v = self.value(pos, history, depth);
        (v, &self.pv[0])
    }

    /// [`Searcher::value`] (no history) with the window (`alpha`, ∞): a
    /// value above `alpha` is the exact value; otherwise the value is at most
    /// `alpha` (fail-soft: an upper bound at or below `alpha`). The labeller's
    /// capped siblings (`label`): their values matter only down to the game
    /// move's.
    pub fn value_above(&mut self, pos: &Position, depth: u32, alpha: i32) -> i32 {
        self.value_from(pos, &[], depth, alpha)
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

    /// The static value of `pos`, the position at `ply`: from its sums when
    /// the evaluator keeps them, through the evaluation cache when the
    /// evaluator is costly.
    #[inline]
    fn evaluate(&mut self, pos: &Position, ply: usize) -> i32 {
        let (eval, incremental) = (self.eval, self.incremental);
        let sums = self.sums.get(ply);
        let compute = || match sums {
            Some(sums) if incremental => eval.evaluate_from(pos, sums),
            _ => eval.evaluate(pos),
        };
        if let Some(cache) = self.eval_cache.as_deref_mut() {
            return cache.value(pos, compute);
        }
        if eval.costly() {
            self.uncached += 1;
            if self.uncached >= eval_cache::UNCACHED {
                self.eval_cache = Some(Box::new(EvalCache::new()));
            }
        }
        compute()
    }

    #[inline]
    fn count_node(&mut self, ply: usize) {
        self.nodes += 1;
        self.seldepth = self.seldepth.max(ply);
        if self.nodes & CHECK_MASK == 0 && self.should_stop_now() {
            self.aborted = true;
        }
    }
}

#[cfg(test)]
mod tests;
