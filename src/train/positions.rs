//! Learning on positions (the Texel / elmo objective): each position carries a
//! search score and, when its game ended, the result; the evaluation of the
//! end of its quiescence line should predict both.
//!
//! For a position P with side to move S, teacher score `s` (centipawns, S's
//! view) and result `r` (1 S won, ½ draw, 0 S lost; absent when unknown):
//!
//! - the **leaf** L is the end of P's quiescence line (captures searched with
//!   stand-pat, as the engine's quiescence does), so the features describe the
//!   position the score describes, not one with a capture pending;
//! - the model's value of P for S is `v = σ_L · w · x(L)`, where `x(L)` is the
//!   feature row of L from the view of the side that just moved into L (how
//!   [`crate::eval::Linear`] reads a model) and `σ_L` is −1 when S is to move in
//!   L and +1 otherwise;
//! - the prediction is `p = σ(v / K)` and the target `t = λ·r + (1 − λ)·σ(s / K)`
//!   (`t = σ(s / K)` when the result is unknown);
//! - the objective is `J(w) = mean CE(p, t) + ½ μ ‖w − w₀‖²` over the weights that
//!   are learned. `w₀` is the prior (by default the material evaluator's piece
//!   values on the `material` part and 0 elsewhere); with `anchor_material` the
//!   `material` part stays at `w₀` and only the positional weights move, as
//!   Bonanza keeps its piece values anchored.
//!
//! Weights are kept in centipawns while learning and written in model units
//! (centipawns / 10000), so the model plays in [`crate::eval::Linear`] like any
//! other. Leaves and rows are built once, in parallel, and held in memory
//! (compressed sparse rows; [`super::positions_stream`] streams them in
//! chunks instead, with the same steps); the epochs then run over shuffled mini-batches
//! with Adam, one gradient buffer per thread, in a fixed summation order, so a
//! run is reproducible for a given seed and thread count.
//!
//! | parameter | default | meaning |
//! |---|---|---|
//! | `epochs` | 30 | passes over the positions |
//! | `batch` | 4096 | positions per Adam step |
//! | `rate` | 1.0 | Adam step size, centipawns |
//! | `lambda` | 0.33 | weight of the game result in the target |
//! | `eval_k` | 600 | centipawns per unit of the logistic (the 600 of `σ(v/600)`) |
//! | `mu` | 1e-6 | ½μ‖w − w₀‖², per position |
//! | `anchor_material` | true | the `material` part stays at the prior |
//! | `seed` | 1 | mini-batch order |

use std::time::Instant;

use rayon::prelude::*;

use super::progress::{Epoch as ProgressEpoch, Event, Observer};
use super::step::{self, Optimizer, Stepper};
use super::TrainError;
use crate::eval::Evaluator;
use crate::features::{BaseSet, FeatureSet, Features, MaterialSet, RowBuilder};
use crate::model::Model;
use crate::rng::SplitMix64;
use crate::search::{Control, DepthRange, Limits, Searcher, TranspositionTable};
use crate::shogi::Position;

pub use super::prior::{material_prior, model_prior, named_prior};
pub use samples::{
    result_for, samples_from_games, samples_from_position_files, split_position_paths, Sample,
};

pub mod rows;
mod samples;

/// Leaf rows in compressed sparse form, with their signs and targets.
#[derive(Clone, Debug, Default)]
pub struct Leaves {
    pub(super) start: Vec<usize>,
    pub(super) index: Vec<u32>,
    pub(super) value: Vec<f32>,
    pub(super) sign: Vec<f32>,
    pub(super) score: Vec<f32>,
    pub(super) result: Vec<f32>,
}

/// "No result": stored as a negative number so the row needs no option tag.
pub(super) const NO_RESULT: f32 = -1.0;

impl Leaves {
    /// Number of positions.
    pub fn len(&self) -> usize {
        self.sign.len()
    }

    /// True when there is no position.
    pub fn is_empty(&self) -> bool {
        self.sign.is_empty()
    }

    /// Stored feature values.
    pub fn nonzeros(&self) -> usize {
        self.value.len()
    }

    /// Positions with a known result.
    pub fn with_result(&self) -> usize {
        self.result.iter().filter(|&&r| r >= 0.0).count()
    }

    /// Appends the row of `leaf` for `sample`: its features as a libsvm row
    /// has them ([`RowBuilder`]: sorted, duplicates summed, no zeros; stored
    /// 0-based), so the rows learned from are the rows [`rows`] writes.
    fn push_row<F: FeatureSet>(
        &mut self,
        features: &F,
        builder: &mut RowBuilder,
        sample: &Sample,
        leaf: &Position,
    ) {
        if self.start.is_empty() {
            self.start.push(0);
        }
        let mover = !leaf.side_to_move();
        for &(j, v) in builder.build(features, leaf, mover) {
            self.index.push(j - 1);
            self.value.push(v);
        }
        self.start.push(self.index.len());
        let same = leaf.side_to_move() == sample.position.side_to_move();
        self.sign.push(if same { -1.0 } else { 1.0 });
        self.score.push(sample.score as f32);
        self.result.push(sample.result.unwrap_or(NO_RESULT));
    }

    fn append(&mut self, mut other: Leaves) {
        if other.is_empty() {
            return;
        }
        if self.start.is_empty() {
            self.start.push(0);
        }
        let base = self.index.len();
        self.start
            .extend(other.start.iter().skip(1).map(|&s| s + base));
        self.index.append(&mut other.index);
        self.value.append(&mut other.value);
        self.sign.append(&mut other.sign);
        self.score.append(&mut other.score);
        self.result.append(&mut other.result);
    }

    #[inline]
    pub(super) fn row(&self, i: usize) -> (&[u32], &[f32]) {
        let (a, b) = (self.start[i], self.start[i + 1]);
        (&self.index[a..b], &self.value[a..b])
    }

    /// The end of `pos`'s quiescence line under `eval` (the position itself when
    /// it stands pat): the leaf that rows are taken at.
    pub fn leaf_of<E: Evaluator>(
        eval: &E,
        table: &mut TranspositionTable,
        pos: &Position,
    ) -> Position {
        let control = Control::new();
        let mut searcher = Searcher::new(eval, table, &control, Limits::default());
        let (_, line) = searcher.line(pos, &[], 0);
        let mut leaf = pos.clone();
        for &mv in line {
            leaf.play_unchecked(mv);
        }
        leaf
    }

    /// Builds the leaf rows of `samples` in parallel (quiescence under `eval`), in order.
    pub fn build<F: FeatureSet + Sync, E: Evaluator>(
        features: &F,
        eval: &E,
        samples: &[Sample],
    ) -> Leaves {
        let parts: Vec<Leaves> = samples
            .par_chunks(1024)
            .map(|chunk| {
                let mut table = TranspositionTable::new(1);
                let mut out = Leaves::default();
                let mut builder = RowBuilder::new();
                for s in chunk {
                    let leaf = Self::leaf_of(eval, &mut table, &s.position);
                    out.push_row(features, &mut builder, s, &leaf);
                }
                out
            })
            .collect();
        // Sized once: growing by doubling would hold up to twice the rows.
        let rows: usize = parts.iter().map(Leaves::len).sum();
        let nonzeros: usize = parts.iter().map(Leaves::nonzeros).sum();
        let mut all = Leaves {
            start: Vec::with_capacity(rows + 1),
            index: Vec::with_capacity(nonzeros),
            value: Vec::with_capacity(nonzeros),
            sign: Vec::with_capacity(rows),
            score: Vec::with_capacity(rows),
            result: Vec::with_capacity(rows),
        };
        for p in parts {
            all.append(p);
        }
        all
    }
}

/// `1 / (1 + e^−x)`.
#[inline(always)]
fn logistic(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

/// Plies the teacher searches below each position of a game record, then
/// its quiescence (`--teacher-depth`'s default, a recipe's `teacher_depth`).
pub const DEFAULT_TEACHER_DEPTH: u32 = 2;

/// The teacher depths `fit positions --teacher-depth`, `extract
/// --per-position --teacher-depth` and a recipe's `teacher_depth` take.
pub const TEACHER_DEPTHS: DepthRange = DepthRange::new(0, 6);

/// Positions before this ply of a game record are not used
/// (`--skip-plies`'s default, a recipe's `skip_plies`).
pub const DEFAULT_SKIP_PLIES: usize = 16;

/// Where the weights start and are pulled to when no prior is named: the
/// built-in piece values (`--prior`'s default, a recipe's `prior`).
pub const DEFAULT_PRIOR: &str = "material";

/// The evaluator whose search scores the positions when none is named
/// (`--evaluator`'s default, a recipe's `teacher`).
pub const DEFAULT_TEACHER: &str = "material";

/// Hyper-parameters (see the module table).
#[derive(Clone, Debug, PartialEq)]
pub struct PositionsParams {
    /// Passes over the positions.
    pub epochs: usize,
    /// Positions per Adam step.
    pub batch: usize,
    /// Adam step size, centipawns.
    pub rate: f64,
    /// The step size at the last step: the rate falls linearly from `rate` to
    /// this over the run (`None`: constant). Adam's steps do not shrink with the
    /// gradient, so a constant rate ends in an oscillation of about `rate` per
    /// weight; a decay lets a long run settle.
    pub final_rate: Option<f64>,
    /// Weight of the game result in the target.
    pub lambda: f64,
    /// Centipawns per unit of the logistic.
    pub eval_k: f64,
    /// ½μ‖w − w₀‖².
    pub mu: f64,
    /// Keep the `material` part at the prior.
    pub anchor_material: bool,
    /// Mini-batch order.
    pub seed: u64,
}

impl Default for PositionsParams {
    fn default() -> Self {
        Self {
            epochs: 30,
            batch: 4096,
            rate: 1.0,
            final_rate: None,
            lambda: 0.33,
            eval_k: 600.0,
            mu: 1e-6,
            anchor_material: true,
            seed: 1,
        }
    }
}

impl PositionsParams {
    /// Checks every parameter before any work.
    pub fn check(&self) -> Result<(), TrainError> {
        self.out_of_range().map_or(Ok(()), |e| Err(e.into()))
    }

    /// The first parameter out of its range, if any (the one range check:
    /// [`PositionsParams::check`], and a recipe's `[learner]` keys, where
    /// `lambda` is `result_weight`).
    pub fn out_of_range(&self) -> Option<super::ParamError> {
        use super::ParamError as E;
        if self.epochs == 0 {
            return Some(E::new("epochs", 0, "at least 1"));
        }
        if self.batch == 0 {
            return Some(E::new("batch", 0, "at least 1"));
        }
        if !(self.rate.is_finite() && self.rate > 0.0) {
            return Some(E::new("rate", self.rate, "positive and finite"));
        }
        if let Some(r) = self.final_rate.filter(|r| !(r.is_finite() && *r >= 0.0)) {
            return Some(E::new("final_rate", r, "non-negative and finite"));
        }
        if !(0.0..=1.0).contains(&self.lambda) {
            return Some(E::new("lambda", self.lambda, "in [0, 1]"));
        }
        if !(self.eval_k.is_finite() && self.eval_k > 0.0) {
            return Some(E::new("eval_k", self.eval_k, "positive and finite"));
        }
        if !(self.mu.is_finite() && self.mu >= 0.0) {
            return Some(E::new("mu", self.mu, "non-negative and finite"));
        }
        None
    }
}

/// The ±limit the teacher's score is clamped to before [`LeafLoss::score_mse`]
/// compares the value with it: the limit of generated position files
/// ([`crate::positions::DEFAULT_EVAL_LIMIT`]), so a mate or a lopsided
/// score (up to ±[`crate::eval::EVAL_LIMIT`] from a teacher on game records
/// or another tool's files) weighs as a generated file's does instead of
/// swamping the mean. A figure of the report only: the learner's target
/// does not read it.
pub const MSE_SCORE_LIMIT: f64 = crate::positions::DEFAULT_EVAL_LIMIT as f64;

/// Loss over a set of leaves.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LeafLoss {
    /// Positions.
    pub positions: usize,
    /// Mean cross-entropy against the targets.
    pub cross_entropy: f64,
    /// Mean cross-entropy against the teacher score alone (λ = 0).
    pub score_ce: f64,
    /// Mean squared error of `v` against the teacher score clamped to
    /// ±[`MSE_SCORE_LIMIT`], centipawns².
    pub score_mse: f64,
}

/// One epoch's figures.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch; 0 is the prior, before any step.
    pub epoch: usize,
    /// On the training leaves.
    pub train: LeafLoss,
    /// On the held-out leaves, when given.
    pub held_out: Option<LeafLoss>,
    /// Seconds the epoch took.
    pub seconds: f64,
}

/// The learner's outcome: the model and the per-epoch reports.
#[derive(Clone, Debug)]
pub struct PositionsFit {
    /// Weights in model units, with the feature set's name.
    pub model: Model,
    /// Epoch 0 (the prior) then one report per epoch.
    pub epochs: Vec<EpochReport>,
}

/// The learner's target `t = λ·r + (1 − λ)·σ(s / K)` of a leaf row.
struct Target {
    lambda: f64,
    k: f64,
}

impl Target {
    #[inline]
    fn of(&self, leaves: &Leaves, i: usize) -> f64 {
        let s = logistic(f64::from(leaves.score[i]) / self.k);
        let r = leaves.result[i];
        if r >= 0.0 {
            self.lambda * f64::from(r) + (1.0 - self.lambda) * s
        } else {
            s
        }
    }
}

#[inline]
fn value(weights: &[f32], leaves: &Leaves, i: usize) -> f64 {
    let (idx, val) = leaves.row(i);
    let dot: f32 = idx
        .iter()
        .zip(val)
        .map(|(&j, &v)| weights[j as usize] * v)
        .sum();
    f64::from(leaves.sign[i]) * f64::from(dot)
}

fn cross_entropy(p: f64, t: f64) -> f64 {
    let p = p.clamp(1e-12, 1.0 - 1e-12);
    -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
}

/// The loss of `weights` (centipawns) over `leaves`.
pub fn loss(weights: &[f32], leaves: &Leaves, params: &PositionsParams) -> LeafLoss {
    let target = Target {
        lambda: params.lambda,
        k: params.eval_k,
    };
    let (ce, sce, mse) = (0..leaves.len())
        .into_par_iter()
        .map(|i| {
            let v = value(weights, leaves, i);
            let p = logistic(v / params.eval_k);
            let s = f64::from(leaves.score[i]);
            let ts = logistic(s / params.eval_k);
            let d = v - s.clamp(-MSE_SCORE_LIMIT, MSE_SCORE_LIMIT);
            (
                cross_entropy(p, target.of(leaves, i)),
                cross_entropy(p, ts),
                d * d,
            )
        })
        .reduce(|| (0.0, 0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2));
    let n = leaves.len().max(1) as f64;
    LeafLoss {
        positions: leaves.len(),
        cross_entropy: ce / n,
        score_ce: sce / n,
        score_mse: mse / n,
    }
}

/// The Adam steps over mini-batches of leaves: weights, the step rule's
/// state ([`Stepper`]) and one gradient buffer per thread. One descent for
/// the in-memory [`fit`] and the streaming learner
/// ([`super::positions_stream`]), so both take the same steps on the same
/// batches.
pub(crate) struct Descent<'a> {
    prior: &'a [f32],
    params: &'a PositionsParams,
    frozen: Vec<bool>,
    pub(crate) weights: Vec<f32>,
    buffers: Vec<Vec<f32>>,
    stepper: Stepper,
    total_steps: usize,
    target: Target,
}

/// The positions learner's side of a step: the sum starts at 0; frozen
/// coordinates do not move; `μ(w − w0)` is added; a coordinate with no
/// gradient and no momentum stays.
struct Pull<'a> {
    frozen: &'a [bool],
    prior: &'a [f32],
    mu: f32,
}

impl step::Pull for Pull<'_> {
    fn start(&self, _: usize, _: f32) -> f32 {
        0.0
    }

    fn finish(&self, j: usize, w: f32, g: f32, moment: f32) -> Option<f32> {
        if self.frozen[j] {
            return None;
        }
        let g = g + self.mu * (w - self.prior[j]);
        (g != 0.0 || moment != 0.0).then_some(g)
    }
}

impl<'a> Descent<'a> {
    /// Starts at `prior` (checked against `features`); `total_steps` paces
    /// `final_rate`'s decay.
    pub(crate) fn new(
        features: &Features,
        prior: &'a [f32],
        params: &'a PositionsParams,
        total_steps: usize,
    ) -> Result<Self, TrainError> {
        let n = features.dimension() as usize;
        if prior.len() != n {
            return Err(TrainError::Data(format!(
                "the prior has {} weights, the feature set {n}",
                prior.len()
            )));
        }
        let mut frozen = vec![false; n];
        if params.anchor_material {
            if let Some(offset) = features.offset_of(BaseSet::Material) {
                let o = offset as usize;
                frozen[o..o + MaterialSet.dimension() as usize].fill(true);
            }
        }
        let threads = rayon::current_num_threads().max(1);
        Ok(Self {
            prior,
            params,
            frozen,
            weights: prior.to_vec(),
            buffers: (0..threads).map(|_| vec![0.0; n]).collect(),
            // ε is tiny: per-position mean gradients of rare features are ~1e-9.
            stepper: Stepper::new(Optimizer::Adam, n, 1e-20),
            total_steps: total_steps.max(1),
            target: Target {
                lambda: params.lambda,
                k: params.eval_k,
            },
        })
    }

    fn rate_at(&self, step: usize) -> f32 {
        let params = self.params;
        match params.final_rate {
            None => params.rate as f32,
            Some(last) => {
                let f = step as f64 / self.total_steps.saturating_sub(1).max(1) as f64;
                (params.rate + (last - params.rate) * f.min(1.0)) as f32
            }
        }
    }

    /// One Adam step on the rows `batch` of `train`. Returns the batch's
    /// summed losses before the step (cross-entropy, score cross-entropy,
    /// squared score error), summed per thread in a fixed order.
    pub(crate) fn step(&mut self, train: &Leaves, batch: &[usize]) -> (f64, f64, f64) {
        let params = self.params;
        let threads = self.buffers.len();
        let per = batch.len().div_ceil(threads);
        let scale = 1.0 / (batch.len() as f64 * params.eval_k);
        let w = &self.weights;
        let target = &self.target;
        let sums: Vec<(f64, f64, f64)> = self
            .buffers
            .par_iter_mut()
            .zip(batch.par_chunks(per))
            .map(|(buffer, chunk)| {
                let mut sums = (0.0, 0.0, 0.0);
                for &i in chunk {
                    let v = value(w, train, i);
                    let p = logistic(v / params.eval_k);
                    let t = target.of(train, i);
                    let g = ((p - t) * scale) as f32 * train.sign[i];
                    let (idx, val) = train.row(i);
                    for (&j, &x) in idx.iter().zip(val) {
                        buffer[j as usize] += g * x;
                    }
                    let s = f64::from(train.score[i]);
                    let d = v - s.clamp(-MSE_SCORE_LIMIT, MSE_SCORE_LIMIT);
                    sums.0 += cross_entropy(p, t);
                    sums.1 += cross_entropy(p, logistic(s / params.eval_k));
                    sums.2 += d * d;
                }
                sums
            })
            .collect();
        let rate = self.rate_at(self.stepper.steps());
        let pull = Pull {
            frozen: &self.frozen,
            prior: self.prior,
            mu: params.mu as f32,
        };
        self.stepper
            .apply(&mut self.weights, &mut self.buffers, rate, &pull);
        sums.into_iter()
            .fold((0.0, 0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1, a.2 + b.2))
    }

    /// The weights as a model over `features` (centipawns → model units).
    pub(crate) fn model(&self, features: &Features) -> Model {
        Model {
            solver_type: "L2R_L2LOSS_SVR".into(),
            w: self
                .weights
                .iter()
                .map(|&w| f64::from(w) / f64::from(crate::model::LABEL_SCALE))
                .collect(),
            bias: -1.0,
            bias_weight: 0.0,
            features: features.to_string(),
        }
    }
}

impl PositionsParams {
    /// Learns weights over `features` from `train` leaves, starting at and
    /// pulled towards `prior` (centipawns, one per index); `observer` sees
    /// each epoch (epoch 0 first: the prior). Streamed from files:
    /// [`PositionsParams::fit_stream`].
    pub fn fit(
        &self,
        features: &Features,
        train: &Leaves,
        held_out: Option<&Leaves>,
        prior: &[f32],
        observer: &dyn Observer,
    ) -> Result<PositionsFit, TrainError> {
        fit(features, train, held_out, prior, self, observer)
    }
}

/// [`PositionsParams::fit`].
fn fit(
    features: &Features,
    train: &Leaves,
    held_out: Option<&Leaves>,
    prior: &[f32],
    params: &PositionsParams,
    observer: &dyn Observer,
) -> Result<PositionsFit, TrainError> {
    params.check()?;
    if train.is_empty() {
        return Err(TrainError::Data("no training position".into()));
    }
    let total_steps = params.epochs * train.len().div_ceil(params.batch);
    let mut stepper = Descent::new(features, prior, params, total_steps)?;
    let mut order: Vec<usize> = (0..train.len()).collect();
    let mut rng = SplitMix64(params.seed);
    let mut reports = Vec::with_capacity(params.epochs + 1);
    let first = EpochReport {
        epoch: 0,
        train: loss(&stepper.weights, train, params),
        held_out: held_out.map(|h| loss(&stepper.weights, h, params)),
        seconds: 0.0,
    };
    observer.event(&Event::Epoch(ProgressEpoch::Positions(&first)));
    reports.push(first);
    for epoch in 1..=params.epochs {
        let t0 = Instant::now();
        rng.shuffle(&mut order);
        for batch in order.chunks(params.batch) {
            stepper.step(train, batch);
        }
        let r = EpochReport {
            epoch,
            train: loss(&stepper.weights, train, params),
            held_out: held_out.map(|h| loss(&stepper.weights, h, params)),
            seconds: t0.elapsed().as_secs_f64(),
        };
        observer.event(&Event::Epoch(ProgressEpoch::Positions(&r)));
        reports.push(r);
    }
    Ok(PositionsFit {
        model: stepper.model(features),
        epochs: reports,
    })
}

#[cfg(test)]
mod tests;
