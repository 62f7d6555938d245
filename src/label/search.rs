//! The labelling search: a sibling's depth-1 value with a capture-only quiescence.
//!
//! Plain fail-soft alpha-beta: at the root of each sibling the window is
//! (−∞, ∞), so the value returned is the exact minimax value of the tree
//! searched (alpha-beta prunes only what cannot change it). The tree is: every
//! reply of the opponent (`depth` plies of all legal moves), then, when
//! quiescence is on, captures only with stand-pat for the side to move. A
//! side with no legal move is mated, so a mate delivered by a reply or a
//! capture is found; a side merely in check still stands pat and tries its
//! captures only. (Searching every evasion in the quiescence, drops included,
//! made real middle games ten times slower to label: capture-check-drop
//! chains explode.) With quiescence off, leaves are evaluated statically,
//! mates still recognised.

use haitaka::PieceMoves;

use crate::eval::Evaluator;
use crate::shogi::{piece_value, Move, Piece, Position};

/// Value of being checkmated (negated: of checkmating), beyond any evaluation.
pub const LABEL_MATE: i32 = 30_000;

const INFINITY: i32 = 32_000;

/// Deepest quiescence line followed; beyond it a node is evaluated statically.
/// Captures run out long before (each ply of the quiescence takes a piece),
/// so this only guards against surprises.
const MAX_PLY: usize = 96;

/// A reusable searcher: move buffers per ply are kept between calls, so a warm
/// searcher does not allocate.
#[derive(Debug)]
pub struct LabelSearcher<'e, E: Evaluator> {
    eval: &'e E,
    quiescence: bool,
    /// Moves to search, per ply, in search order.
    moves: Vec<Vec<Move>>,
    /// Scratch: captures with their ordering key.
    captures: Vec<(i32, Move)>,
    /// Scratch: the other moves.
    quiet: Vec<Move>,
    /// Per ply, how many of `moves[ply]` are captures (they come first).
    captures_at: Vec<usize>,
    /// Triangular principal-variation table: `pv[ply]` is the best line from `ply`.
    pv: Vec<Vec<Move>>,
    nodes: u64,
}

impl<'e, E: Evaluator> LabelSearcher<'e, E> {
    /// A searcher with evaluator `eval`, quiescence on or off.
    pub fn new(eval: &'e E, quiescence: bool) -> Self {
        Self {
            eval,
            quiescence,
            moves: Vec::new(),
            captures: Vec::new(),
            quiet: Vec::new(),
            captures_at: Vec::new(),
            pv: Vec::new(),
            nodes: 0,
        }
    }

    /// Positions visited so far (each evaluation or move expansion counts once).
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    /// Value of `pos` for its side to move: `depth` plies of all legal moves, then the leaves.
    /// Unclamped: mates are ±[`LABEL_MATE`].
    pub fn search(&mut self, pos: &Position, depth: u32) -> i32 {
        self.negamax(pos, depth, -INFINITY, INFINITY, 0)
    }

    /// The principal variation of the last [`LabelSearcher::search`]: the moves from
    /// its position to the one whose evaluation is the value (the "leaf" that
    /// `extract --rows-at leaf` takes features at). Empty when the position
    /// itself was evaluated.
    pub fn line(&self) -> &[Move] {
        self.pv.first().map_or(&[], Vec::as_slice)
    }

    fn clear_pv(&mut self, ply: usize) {
        if self.pv.len() <= ply + 1 {
            self.pv.resize_with(ply + 2, Vec::new);
        }
        self.pv[ply].clear();
    }

    fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    fn negamax(
        &mut self,
        pos: &Position,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: usize,
    ) -> i32 {
        self.clear_pv(ply);
        if depth == 0 {
            return self.leaf(pos, alpha, beta, ply);
        }
        self.nodes += 1;
        self.generate(pos, ply, true);
        // Above the leaves, with an evaluator that quiet moves leave unchanged
        // (material), a quiet reply that gives no check leads to a leaf whose
        // stand-pat is minus this node's own value `v`, and the leaf cuts on it
        // as soon as `v` ≤ alpha: its score would be exactly `v`. Once the best
        // score so far is at least `v` that cannot change best, alpha or the
        // line, so the move is settled without playing it.
        let settle = depth == 1 && self.eval.quiet_moves_keep_value();
        let mut own_value = None;
        let mut zone = None;
        let mut best = -INFINITY;
        let mut any = false;
        let mut i = 0;
        while let Some(mv) = self.next_move(ply, &mut i) {
            any = true;
            if settle && i > self.captures_at[ply] && !mv.is_promotion() {
                let v = *own_value.get_or_insert_with(|| self.eval.evaluate(pos));
                if v <= best
                    && !pos.gives_check_near(zone.get_or_insert_with(|| pos.check_zone()), mv)
                {
                    continue;
                }
            }
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            if score > best {
                best = score;
                if best > alpha {
                    self.update_pv(ply, mv);
                }
                if best >= beta {
                    return best;
                }
                alpha = alpha.max(best);
            }
        }
        if any {
            best
        } else {
            -LABEL_MATE
        }
    }

    fn leaf(&mut self, pos: &Position, alpha: i32, beta: i32, ply: usize) -> i32 {
        if self.quiescence {
            return self.qsearch(pos, alpha, beta, ply);
        }
        self.nodes += 1;
        if pos.in_check() && !pos.has_legal_move() {
            -LABEL_MATE
        } else {
            self.eval.evaluate(pos)
        }
    }

    fn qsearch(&mut self, pos: &Position, mut alpha: i32, beta: i32, ply: usize) -> i32 {
        self.clear_pv(ply);
        self.nodes += 1;
        if pos.in_check() && !pos.has_legal_move() {
            return -LABEL_MATE;
        }
        let mut best = self.eval.evaluate(pos);
        if best >= beta || ply >= MAX_PLY {
            return best;
        }
        alpha = alpha.max(best);
        self.generate(pos, ply, false);
        let mut i = 0;
        while let Some(mv) = self.next_move(ply, &mut i) {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let score = -self.qsearch(&child, -beta, -alpha, ply + 1);
            if score > best {
                best = score;
                if best > alpha {
                    self.update_pv(ply, mv);
                }
                if best >= beta {
                    return best;
                }
                alpha = alpha.max(best);
            }
        }
        best
    }

    /// Fills `moves[ply]`: captures sorted most valuable victim first, least
    /// valuable attacker first (MVV-LVA); with `all`, then the other moves.
    fn generate(&mut self, pos: &Position, ply: usize, all: bool) {
        if self.moves.len() <= ply {
            self.moves.resize_with(ply + 1, Vec::new);
            self.captures_at.resize(ply + 1, 0);
        }
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
        let moves = &mut self.moves[ply];
        moves.clear();
        moves.extend(captures.iter().map(|&(_, mv)| mv));
        moves.extend_from_slice(quiet);
        self.captures_at[ply] = captures.len();
    }

    #[inline(always)]
    fn next_move(&self, ply: usize, i: &mut usize) -> Option<Move> {
        let mv = self.moves[ply].get(*i).copied();
        *i += 1;
        mv
    }
}
