//! The tree walk of both modes: negamax alpha-beta (fail-soft) and the
//! quiescence below it. What the mode switches is named where it acts.

use crate::eval::Evaluator;
use crate::shogi::{CheckZone, Move, Position};

use super::repetition::{find_repetition, PathEntry, Repetition};
use super::selective::{
    FUTILITY_DEPTH, LATE_MOVE_DEPTH, REVERSE_FUTILITY_DEPTH, REVERSE_FUTILITY_MARGIN,
    SEE_PRUNING_DEPTH,
};
use super::table::{score_from_tt, score_to_tt, Bound, Entry};
use super::tune::tuned;
use super::{selective, MoveOrder, Searcher, INFINITY, MATE, MATE_BOUND, MAX_PLY};

impl<'a, E: Evaluator + ?Sized> Searcher<'a, E> {
    pub(super) fn negamax(
        &mut self,
        pos: &Position,
        depth: i32,
        mut alpha: i32,
        mut beta: i32,
        ply: usize,
    ) -> i32 {
        self.pv[ply].clear();
        if self.mode.repetition && ply > 0 {
            if let Some(rep) = find_repetition(&self.path[self.selective.repetition_floor..]) {
                return match rep {
                    Repetition::Draw => 0,
                    Repetition::Win => MATE - ply as i32,
                    Repetition::Loss => -(MATE - ply as i32),
                };
            }
        }
        let selective = self.mode.selective;
        // Mate-distance pruning (`selective.rs`).
        if selective && ply > 0 {
            alpha = alpha.max(-(MATE - ply as i32));
            beta = beta.min(MATE - ply as i32 - 1);
            if alpha >= beta {
                return alpha;
            }
        }
        let in_check = selective && pos.in_check();
        if depth <= 0 || ply >= MAX_PLY / 2 {
            return self.quiescence(pos, alpha, beta, ply, 0);
        }
        self.count_node(ply);
        if self.aborted {
            return 0;
        }
        // Engine mode: the table's move first, and its cut below the root.
        let key = if self.tt.is_some() { pos.hash() } else { 0 };
        let mut hash_move = None;
        if let Some(e) = self.tt.as_deref().and_then(|tt| tt.probe(key)) {
            hash_move = e.mv;
            if ply > 0 && e.depth as i32 >= depth {
                let v = score_from_tt(e.score, ply);
                if e.bound.decides(v, alpha, beta) {
                    return v;
                }
            }
        }
        // The selective search's cuts before any move (`selective.rs`).
        let pv_node = beta - alpha > 1;
        let mut static_eval = None;
        if selective && !pv_node && !in_check {
            let eval = self.evaluate(pos, ply);
            static_eval = Some(eval);
            if depth <= tuned!(REVERSE_FUTILITY_DEPTH)
                && eval - tuned!(REVERSE_FUTILITY_MARGIN) * depth >= beta
                && eval < MATE_BOUND
            {
                return eval;
            }
            if let Some(v) = self.null_move_cut(pos, depth, beta, ply, eval) {
                return v;
            }
            if self.aborted {
                return 0;
            }
        }
        let mut moves = self.move_buffer(ply);
        self.generate_all(pos, hash_move, ply, &mut moves);
        if moves.is_empty() {
            self.move_buffers[ply] = moves;
            return -(MATE - ply as i32);
        }
        // Labelling order, above the leaves: a move that gives no check leads
        // to a leaf that stands pat or does better for its side, so the move
        // is worth at most its value after (`Evaluator::value_after`; material:
        // the balance plus its gain). When that is at most alpha the move
        // cannot raise alpha or enter the line: it is settled without playing
        // it, its value after kept in the fail-soft best (`docs/speed.md`).
        let settle = self.mode.order == MoveOrder::Labelling && depth == 1;
        let mut zone = None;
        let original_alpha = alpha;
        let mut best = -INFINITY;
        let mut best_move = None;
        let mut quiets_searched = 0;
        for (i, &(mv, _)) in moves.iter().enumerate() {
            if settle {
                if let Some(after) = self.settled(pos, mv, alpha, &mut zone) {
                    best = best.max(after);
                    continue;
                }
            }
            // Selective: a quiet move is neither a capture nor a promotion.
            let quiet = selective && !mv.is_promotion() && pos.captured_by(mv).is_none();
            if quiet
                && !pv_node
                && !in_check
                && i > 0
                && depth <= tuned!(LATE_MOVE_DEPTH)
                && quiets_searched >= selective::late_move_limit(depth)
                && !pos.gives_check_near(zone.get_or_insert_with(|| pos.check_zone()), mv)
            {
                continue;
            }
            // Futility: near the leaves, a quiet move that gives no check
            // cannot lift a static value this far below alpha.
            if quiet
                && i > 0
                && depth <= tuned!(FUTILITY_DEPTH)
                && static_eval.is_some_and(|e| e + selective::futility_margin(depth) <= alpha)
                && !pos.gives_check_near(zone.get_or_insert_with(|| pos.check_zone()), mv)
            {
                continue;
            }
            // Static exchange: near the leaves, a move that loses more than
            // a margin in its exchange (a piece dropped or moved where it is
            // taken for nothing) is not searched once a move has been,
            // unless it gives check (mates begin with such sacrifices).
            if selective
                && ply > 0
                && i > 0
                && !in_check
                && depth <= tuned!(SEE_PRUNING_DEPTH)
                && best > -MATE_BOUND
                && !pos.see_ge(mv, -selective::see_margin(depth, quiet))
                && !pos.gives_check_near(zone.get_or_insert_with(|| pos.check_zone()), mv)
            {
                continue;
            }
            let child = self.play(pos, mv, ply);
            if self.mode.repetition {
                self.path.push(PathEntry::of(&child));
            }
            let reduction = if quiet && !in_check && !child.in_check() && !self.is_killer(ply, mv) {
                selective::reduction(depth, i, pv_node)
            } else {
                0
            };
            quiets_searched += usize::from(quiet);
            // Check extension (`selective.rs`).
            let depth = depth + self.check_extension(pos, mv, &child, ply);
            let mut score;
            if i == 0 || !self.mode.null_window {
                score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
            } else {
                // Principal variation search: a null window first (reduced
                // for a late quiet move, then at full depth if it beats
                // alpha), the full window again only when the move may be
                // better.
                score = -self.negamax(&child, depth - 1 - reduction, -alpha - 1, -alpha, ply + 1);
                if reduction > 0 && score > alpha && !self.aborted {
                    score = -self.negamax(&child, depth - 1, -alpha - 1, -alpha, ply + 1);
                }
                if score > alpha && score < beta && !self.aborted {
                    score = -self.negamax(&child, depth - 1, -beta, -alpha, ply + 1);
                }
            }
            if self.mode.repetition {
                self.path.pop();
            }
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
                        if self.mode.order == MoveOrder::Engine {
                            self.remember_killer(pos, mv, ply);
                        }
                        if selective && pos.captured_by(mv).is_none() {
                            self.reward_history(pos, mv, &moves[..i], depth);
                        }
                        break;
                    }
                }
            }
        }
        self.move_buffers[ply] = moves;
        if let Some(tt) = self.tt.as_deref_mut() {
            let generation = tt.generation();
            tt.store(
                key,
                Entry {
                    key,
                    mv: best_move,
                    score: score_to_tt(best, ply),
                    depth: depth as i16,
                    bound: Bound::of(best, original_alpha, beta),
                    generation,
                },
            );
        }
        best
    }

    /// Can `mv` be settled unplayed? Only when it gives no check (a check
    /// may mate) and its value after ([`Evaluator::value_after`]) is at most
    /// `alpha`: its child, which stands pat or does better for its side, is
    /// then worth at most that value after to the mover, which is returned
    /// (an upper bound of the move's score). `zone` caches the position's
    /// check zone.
    #[inline]
    fn settled(
        &self,
        pos: &Position,
        mv: Move,
        alpha: i32,
        zone: &mut Option<CheckZone>,
    ) -> Option<i32> {
        match self.eval.value_after(pos, mv) {
            Some(after)
                if after <= alpha
                    && !pos.gives_check_near(zone.get_or_insert_with(|| pos.check_zone()), mv) =>
            {
                Some(after)
            }
            _ => None,
        }
    }

    fn is_killer(&self, ply: usize, mv: Move) -> bool {
        self.killers[ply].contains(&Some(mv))
    }

    /// A quiet `mv` cut the node: its history rises, and that of the quiet
    /// moves tried before it (`tried`) falls.
    fn reward_history(&mut self, pos: &Position, mv: Move, tried: &[(Move, i32)], depth: i32) {
        let bonus = selective::history_bonus(depth);
        self.history.update(pos, mv, bonus);
        for &(other, _) in tried {
            if pos.captured_by(other).is_none() {
                self.history.update(pos, other, -bonus);
            }
        }
    }

    fn remember_killer(&mut self, pos: &Position, mv: Move, ply: usize) {
        if pos.captured_by(mv).is_none() && self.killers[ply][0] != Some(mv) {
            self.killers[ply][1] = self.killers[ply][0];
            self.killers[ply][0] = Some(mv);
        }
    }

    /// The principal variation at `ply` becomes `mv` followed by the child's.
    pub(super) fn update_pv(&mut self, ply: usize, mv: Move) {
        let (head, tail) = self.pv.split_at_mut(ply + 1);
        head[ply].clear();
        head[ply].push(mv);
        head[ply].extend_from_slice(&tail[0]);
    }

    /// Capture search below the full-width plies; `qply` counts its plies.
    ///
    /// In check within the first [`super::Mode::evasion_plies`] quiescence
    /// plies (engine: 2, labelling: 0) every evasion is searched, so a mate
    /// threatened by a capture is seen; deeper, a side in check that has a
    /// legal move stands pat like any other. (Without that bound,
    /// capture–check–drop chains exploded: a depth-3 search took over two
    /// minutes on one position of a refereed match; searching evasions at
    /// all made real middle games ten times slower to label.) With
    /// quiescence off (labelling only) the node is evaluated statically, a
    /// mate still recognised.
    pub(super) fn quiescence(
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
        // The capped labeller's table: a value found before decides the node.
        let key = pos.hash();
        if let Some(v) = self
            .quiescence_table()
            .and_then(|t| t.probe(key, ply, alpha, beta))
        {
            return v;
        }
        let original_alpha = alpha;
        let in_check = pos.in_check();
        if !self.mode.quiescence {
            return if in_check && !pos.has_legal_move() {
                -(MATE - ply as i32)
            } else {
                self.evaluate(pos, ply)
            };
        }
        let evasions = self.mode.evasion_plies;
        let mut moves = self.move_buffer(ply);
        moves.clear();
        let mut best;
        // The capped labeller's captures, one victim class at a time.
        let mut stages = None;
        if in_check && qply >= evasions && !pos.has_legal_move() {
            self.move_buffers[ply] = moves;
            return -(MATE - ply as i32);
        }
        if in_check && qply < evasions {
            self.generate_all(pos, None, ply, &mut moves);
            if moves.is_empty() {
                self.move_buffers[ply] = moves;
                return -(MATE - ply as i32);
            }
            best = -INFINITY;
        } else {
            best = self.evaluate(pos, ply);
            if best >= beta || ply >= MAX_PLY - 1 {
                self.move_buffers[ply] = moves;
                return best;
            }
            // Selective, at the horizon: a mate in one (`selective.rs`).
            if self.mode.selective && qply < selective::MATE_ONE_QPLIES {
                if let Some(mv) = pos.mate_in_one() {
                    self.move_buffers[ply] = moves;
                    self.pv[ply].push(mv);
                    return MATE - (ply as i32 + 1);
                }
            }
            alpha = alpha.max(best);
            if self.mode.staged_captures() {
                stages = Some(pos.capture_stages());
            } else {
                self.generate_captures(pos, &mut moves);
            }
            if self.mode.order == MoveOrder::Engine {
                self.sort_engine(pos, None, ply, &mut moves);
            }
        }
        if ply >= MAX_PLY - 1 {
            self.move_buffers[ply] = moves;
            return self.evaluate(pos, ply);
        }
        // A capture's value after is above the stand-pat (material: by its
        // gain), so none is settled while alpha is still the stand-pat.
        let stand_pat = best;
        let settle = self.mode.order == MoveOrder::Labelling;
        let mut zone = None;
        'stages: loop {
            if let Some(stages) = stages.as_mut() {
                moves.clear();
                if !stages.next_class(pos, &mut moves) {
                    break;
                }
            }
            for &(mv, _) in moves.iter() {
                // Selective, outside the evasions: captures that lose the
                // exchange, or cannot lift the stand-pat near alpha, are
                // not searched unless they give check (`selective.rs`).
                if self.mode.selective
                    && stand_pat > -INFINITY
                    && selective::futile_capture(pos, mv, stand_pat, alpha)
                    && !pos.gives_check_near(zone.get_or_insert_with(|| pos.check_zone()), mv)
                {
                    continue;
                }
                if settle && alpha > stand_pat {
                    if let Some(after) = self.settled(pos, mv, alpha, &mut zone) {
                        best = best.max(after);
                        continue;
                    }
                }
                let child = self.play(pos, mv, ply);
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
                            break 'stages;
                        }
                    }
                }
            }
            if stages.is_none() {
                break;
            }
        }
        self.move_buffers[ply] = moves;
        if let Some(t) = self.quiescence_table() {
            t.store(key, ply, original_alpha, beta, best);
        }
        best
    }
}
