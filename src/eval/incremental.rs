//! [`EngineModel`]: the engine's reading of a linear model, in integers, with
//! the sums of its piece-local parts kept beside the position and updated
//! from each move (Bonanza's 差分計算, as apery_rust's `kppt.rs` does it).
//!
//! # Why integers
//!
//! An update adds and subtracts a few weights where a full evaluation adds
//! every feature's; in floating point the two sums round differently, so an
//! updated value would drift from the full one. Every feature value is a
//! small integer (counts, 1, attack codes 1..10), so with weights held in
//! fixed point ([`FRACTION_BITS`] bits below the centipawn) every sum is
//! exact in any order: the updated value equals a full evaluation bit for
//! bit (`tests.rs` checks it at every node of real searches).
//!
//! # What is updated, what is summed
//!
//! - `material` and `kp` are sums over pieces (a board count is one term per
//!   piece; a held piece one term per count): a move changes the terms of the
//!   moved, captured, dropped and promoted pieces only, a few weight reads
//!   per view ([`MaterialSet::board_index`], [`MaterialSet::hand_index`],
//!   [`Kp::piece`]: the same definitions the full traversal uses). A king
//!   move changes every `kp` term of that king, so its child is summed anew.
//! - `pp` is a sum over pairs of board pieces: a move changes the pairs of
//!   the moved and captured pieces, read from one row per piece of a square
//!   table of its weights (two entries per pair, so that one piece's pairs lie
//!   together in memory, as Bonanza's and apery_rust's KPP tables do).
//! - `relation` and `relation-typed` are summed in full at every node: a
//!   pair's attack code reads the coverage of both squares, which a move
//!   changes far from the pieces it touches (`docs/speed.md`, "Incremental
//!   evaluation").
//!
//! The learners, labellers and `generate` read models through the `f32`
//! [`Linear`], so rows and labels do not depend on this module; the engine,
//! matches and recipes' matches play through it ([`super::load_engine_evaluator`]).
//! Its values are [`Linear`]'s but for the rounding of the weights: within
//! one centipawn.

use super::{Evaluator, Linear, EVAL_LIMIT};
use crate::features::{
    board_pieces, BaseSet, FeatureIndex, FeatureSet, FeatureSink, Features, Kp, MaterialSet,
    PieceState, Pp, Relation, RELATION_STATES,
};
use crate::shogi::{BitBoard, Color, Move, Piece, Position, Square};

/// Bits of a fixed-point weight below the centipawn: a weight is held as
/// `round(w × scale × 2^16)`.
pub const FRACTION_BITS: u32 = 16;

/// Both views, in the order of `Color as usize` (haitaka's White is 0).
const VIEWS: [Color; 2] = [Color::White, Color::Black];

/// The sums an incremental evaluator keeps for one position: of its updated
/// parts, in fixed point, from each view (indexed by the view's colour).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Accumulator {
    sums: [i64; 2],
}

impl Accumulator {
    /// The sum from `view`'s side.
    #[inline(always)]
    pub fn sum(&self, view: Color) -> i64 {
        self.sums[view as usize]
    }
}

/// A linear model as the engine plays it: fixed-point weights per raw index
/// (mirror tying resolved once), `material` and `kp` updated with the move,
/// the other parts summed at every evaluation. See the module docs.
#[derive(Clone, Debug)]
pub struct EngineModel {
    features: Features,
    /// Fixed-point weight of raw index `i + 1` at `i` (every part's own
    /// range, untied: a tied model's weight is copied to both mirror images).
    weights: Vec<i32>,
    /// `bias × scale` in fixed point.
    bias: i64,
    /// Offsets of the parts updated with the move.
    material: Option<u32>,
    kp: Option<u32>,
    pp: Option<u32>,
    /// `pp`'s fixed-point weights as a square table over piece states:
    /// `pairs[a × 2268 + b]` and `pairs[b × 2268 + a]` both hold pair {a, b}'s
    /// (empty without a `pp` part).
    pairs: Vec<i32>,
    /// Parts summed at every evaluation.
    full: Vec<(BaseSet, u32)>,
}

/// `Σ weight × value` in fixed point over raw indices.
struct FixedSink<'a> {
    weights: &'a [i32],
    sum: i64,
}

impl FeatureSink for FixedSink<'_> {
    #[inline(always)]
    fn feature(&mut self, index: FeatureIndex, value: f32) {
        // Feature values are small integers (see the module docs).
        self.sum += i64::from(self.weights[index.get() as usize - 1]) * value as i64;
    }
}

/// `v` in fixed point, saturating (a weight beyond ±32767 centipawns
/// saturates the evaluation anyway).
fn fixed(v: f64) -> i64 {
    (v * f64::from(1u32 << FRACTION_BITS)).round() as i64
}

impl EngineModel {
    /// The engine's reading of `linear`: the same features, weights, bias
    /// and scale.
    pub fn new(linear: &Linear<Features>) -> Self {
        let features = linear.features.clone();
        let scale = f64::from(linear.scale);
        let weights: Vec<i32> = (1..=features.dimension())
            .map(|raw| {
                let tied = features.canonical(raw) as usize;
                let w = linear.weights.get(tied - 1).map_or(0.0, |&w| f64::from(w));
                fixed(w * scale).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32
            })
            .collect();
        let (mut material, mut kp, mut pp, mut full) = (None, None, None, Vec::new());
        for &(set, offset) in features.parts() {
            match set {
                BaseSet::Material => material = Some(offset),
                BaseSet::Kp => kp = Some(offset),
                BaseSet::Pp => pp = Some(offset),
                BaseSet::Relation | BaseSet::TypedRelation => full.push((set, offset)),
            }
        }
        let pairs = pp.map_or_else(Vec::new, |offset| {
            let n = RELATION_STATES as usize;
            let mut pairs = vec![0; n * n];
            for b in 1..RELATION_STATES {
                for a in 0..b {
                    let index = Pp::index(PieceState(a), PieceState(b));
                    let w = weights[(offset + index.get()) as usize - 1];
                    pairs[a as usize * n + b as usize] = w;
                    pairs[b as usize * n + a as usize] = w;
                }
            }
            pairs
        });
        Self {
            features,
            weights,
            bias: fixed(f64::from(linear.bias) * scale),
            material,
            kp,
            pp,
            pairs,
            full,
        }
    }

    /// The feature set it reads.
    pub fn features(&self) -> &Features {
        &self.features
    }

    #[inline(always)]
    fn weight(&self, offset: u32, index: FeatureIndex) -> i64 {
        i64::from(self.weights[(offset + index.get()) as usize - 1])
    }

    /// The sum of the updated parts of `pos` from `view`, from scratch.
    fn updated_sum(&self, pos: &Position, view: Color) -> i64 {
        let mut sink = FixedSink {
            weights: &self.weights,
            sum: 0,
        };
        for (set, offset) in [
            (BaseSet::Material, self.material),
            (BaseSet::Kp, self.kp),
            (BaseSet::Pp, self.pp),
        ] {
            if let Some(offset) = offset {
                set.visit_raw(pos, view, offset, &mut sink);
            }
        }
        sink.sum
    }

    /// The value of `pos` for its side to move given the updated parts' sum
    /// from the view of the side that just moved (`Linear`'s reading).
    #[inline]
    fn value(&self, pos: &Position, updated: i64) -> i32 {
        let view = !pos.side_to_move();
        let mut sink = FixedSink {
            weights: &self.weights,
            sum: updated + self.bias,
        };
        for &(set, offset) in &self.full {
            set.visit_raw(pos, view, offset, &mut sink);
        }
        let half = 1i64 << (FRACTION_BITS - 1);
        let centipawns = (-sink.sum + half) >> FRACTION_BITS;
        centipawns.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }

    /// Adds `sign ×` the terms of `color`'s `piece` on `square` to both views' sums.
    #[inline(always)]
    fn board_piece(
        &self,
        acc: &mut Accumulator,
        kings: &[[u32; 2]; 2],
        color: Color,
        piece: Piece,
        square: crate::shogi::Square,
        sign: i64,
    ) {
        for view in VIEWS {
            let mut sum = 0;
            if let Some(offset) = self.material {
                sum += self.weight(offset, MaterialSet::board_index(view, color, piece));
            }
            if let Some(offset) = self.kp {
                Kp::piece(view, kings[view as usize], color, piece, square, |i| {
                    sum += self.weight(offset, i)
                });
            }
            acc.sums[view as usize] += sign * sum;
        }
    }

    /// Adds to both views' sums the change of the `pp` sum when the board
    /// pieces on `removed` (one or two squares of `pos`) leave and `added`
    /// (`color`'s piece on a square) comes: the removed pieces' pairs with
    /// the pieces that stay, and with each other, go; the added piece's pairs
    /// with the pieces that stay come.
    #[inline(always)]
    fn pp_move(
        &self,
        acc: &mut Accumulator,
        pos: &Position,
        removed: &[Square],
        added: Option<(Color, Piece, Square)>,
    ) {
        let n = RELATION_STATES as usize;
        let board = pos.board();
        let gone = removed
            .iter()
            .fold(BitBoard::EMPTY, |bb, s| bb | s.bitboard());
        for view in VIEWS {
            let state = |square: Square| {
                let piece = board
                    .piece_on(square)
                    .expect("a removed square holds a piece");
                let color = board
                    .color_on(square)
                    .expect("a removed square holds a piece");
                Relation::state(view, color, piece, square).0 as usize
            };
            let mut rows = [0usize; 2];
            for (row, &square) in rows.iter_mut().zip(removed) {
                *row = state(square) * n;
            }
            let rows = &rows[..removed.len()];
            let add = added.map(|(c, p, s)| Relation::state(view, c, p, s).0 as usize * n);
            let mut delta = 0i64;
            board_pieces(pos, |color, piece, square| {
                if gone.has(square) {
                    return;
                }
                let o = Relation::state(view, color, piece, square).0 as usize;
                if let Some(add) = add {
                    delta += i64::from(self.pairs[add + o]);
                }
                for &row in rows {
                    delta -= i64::from(self.pairs[row + o]);
                }
            });
            if let [a, b] = rows {
                delta -= i64::from(self.pairs[a + b / n]);
            }
            acc.sums[view as usize] += delta;
        }
    }

    /// Adds `sign ×` the term of `color`'s `nth` held `piece` to both views' sums.
    #[inline(always)]
    fn hand_piece(&self, acc: &mut Accumulator, color: Color, piece: Piece, nth: u32, sign: i64) {
        let Some(offset) = self.material else { return };
        for view in VIEWS {
            if let Some(i) = MaterialSet::hand_index(view, color, piece, nth) {
                acc.sums[view as usize] += sign * self.weight(offset, i);
            }
        }
    }
}

impl Evaluator for EngineModel {
    fn evaluate(&self, pos: &Position) -> i32 {
        self.value(pos, self.updated_sum(pos, !pos.side_to_move()))
    }

    /// With a `relation` part, an evaluation is a full traversal; without,
    /// a few additions (the search's evaluation cache would cost more).
    fn costly(&self) -> bool {
        !self.full.is_empty()
    }

    /// True with a `material`, `kp` or `pp` part: their sums are kept.
    fn incremental(&self) -> bool {
        self.material.is_some() || self.kp.is_some() || self.pp.is_some()
    }

    fn refresh(&self, pos: &Position, acc: &mut Accumulator) {
        for view in VIEWS {
            acc.sums[view as usize] = self.updated_sum(pos, view);
        }
    }

    fn update(
        &self,
        pos: &Position,
        mv: Move,
        child: &Position,
        parent: &Accumulator,
    ) -> Accumulator {
        let mut acc = *parent;
        let us = pos.side_to_move();
        let kings = VIEWS.map(|view| Kp::kings(pos, view));
        match mv {
            Move::BoardMove {
                from,
                to,
                promotion,
            } => {
                let Some(piece) = pos.board().piece_on(from) else {
                    debug_assert!(false, "{mv} moves no piece");
                    return acc;
                };
                if piece == Piece::King && self.kp.is_some() {
                    // Every `kp` term of this king changes: sum the child anew.
                    self.refresh(child, &mut acc);
                    return acc;
                }
                let moved = if promotion { piece.promote() } else { piece };
                if self.pp.is_some() {
                    let captures = pos.piece_on(to).is_some();
                    let removed = [from, to];
                    let removed = &removed[..1 + usize::from(captures)];
                    self.pp_move(&mut acc, pos, removed, Some((us, moved, to)));
                }
                self.board_piece(&mut acc, &kings, us, piece, from, -1);
                self.board_piece(&mut acc, &kings, us, moved, to, 1);
                if let Some((them, victim)) = pos.piece_on(to) {
                    self.board_piece(&mut acc, &kings, them, victim, to, -1);
                    let held = victim.unpromote();
                    let nth = u32::from(pos.hand_count(us, held));
                    self.hand_piece(&mut acc, us, held, nth, 1);
                }
            }
            Move::Drop { piece, to } => {
                let nth = u32::from(pos.hand_count(us, piece)).saturating_sub(1);
                self.hand_piece(&mut acc, us, piece, nth, -1);
                self.board_piece(&mut acc, &kings, us, piece, to, 1);
                if self.pp.is_some() {
                    self.pp_move(&mut acc, pos, &[], Some((us, piece, to)));
                }
            }
        }
        acc
    }

    #[inline]
    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        self.value(pos, acc.sum(!pos.side_to_move()))
    }
}

#[cfg(test)]
mod tests;
