//! Comparison (ranking) training, as in Bonanza: the game's move should be
//! valued above every other legal move.
//!
//! For each position P of a game (within the ply range asked for), with the
//! game's move g and the sibling positions s_m (P after each legal move m):
//!
//! `J(w) = Σ_P Σ_{m≠g} T(e(s_m) − e(s_g)) + λ‖w‖²`, `T(x) = 1 / (1 + exp(−x / window))`
//!
//! where `e(s) = w · features(s, view = P's side to move)`, exactly
//! [`crate::features::dot`]: the model's value for the side that moved into
//! `s`, in model units, which is how [`crate::eval::Linear`] plays a model
//! (10000 centipawns per unit). The gradient is
//! `Σ T′(d_m) (x_m − x_g) + 2λw`, accumulated by the feature traversal itself
//! through [`GradientSink`], so learning and evaluating share one definition
//! of every feature.
//!
//! Games are read straight from records, shuffled each epoch (seeded), and
//! taken in mini-batches; each batch's positions are ranked in parallel with
//! one gradient buffer per thread, then one optimizer step is taken. The
//! regularizer's gradient is shared out over the batches of an epoch in
//! proportion to their positions, so an epoch's batch gradients add up to ∇J.
//!
//! | parameter | default | range | meaning |
//! |---|---|---|---|
//! | `epochs` | 10 | ≥ 1 | passes over the games |
//! | `batch_games` | 8 | ≥ 1 | games per optimizer step |
//! | `optimizer` | AdaGrad | AdaGrad, Adam, Sign | step rule ([`Optimizer`]) |
//! | `rate` | optimizer's: AdaGrad 0.002, Adam 0.0005, Sign 0.0002 | finite, > 0 | step size, model units (×10000 = centipawns) |
//! | `window` | 0.02 (200 centipawns) | finite, > 0 | width of the sigmoid T |
//! | `lambda` | 1.0 | finite, ≥ 0 | λ of `λ‖w‖²` (J sums over positions, so λ is per data set, not per position) |
//! | `seed` | 1 | any | game order of each epoch |
//! | `skip_opening` | 0 | any | positions before this ply are not used |
//! | `max_plies` | none | ≥ 1 | positions at this ply and later are not used |
//!
//! With several threads the order in which games are summed into the per-thread
//! buffers is fixed (a batch is cut into one contiguous run of games per
//! buffer), so a run is reproducible for a given seed and thread count.

use std::time::Instant;

use linfa::ParamGuard;
use rayon::prelude::*;

use super::progress::{Epoch as ProgressEpoch, Event, Observer};
use super::step::{self, Stepper};
use super::TrainError;
use crate::eval::hit_probability;
use crate::extract::in_ply_range;
use crate::features::{dot, FeatureSet, GradientSink};
use crate::model::{Model, ModelMeta};
use crate::record::Game;
use crate::rng::SplitMix64;
use crate::shogi::{Move, Position};

pub use super::step::Optimizer;

impl Optimizer {
    /// The ranking learner's step size when none is given, in model units.
    pub fn default_rate(self) -> f64 {
        match self {
            Optimizer::AdaGrad => 0.002,
            Optimizer::Adam => 0.0005,
            Optimizer::Sign => 0.0002,
        }
    }
}

/// Checked hyper-parameters (see the module table).
#[derive(Clone, Debug, PartialEq)]
pub struct RankingValidParams {
    epochs: usize,
    batch_games: usize,
    optimizer: Optimizer,
    rate: Option<f64>,
    window: f64,
    lambda: f64,
    seed: u64,
    skip_opening: usize,
    max_plies: Option<usize>,
    prior: Option<Vec<f32>>,
    frozen: Option<std::ops::Range<usize>>,
    leaf: Leaf,
}

/// Which position of each sibling is compared (a recipe's `[learner] leaf`:
/// the lowercase name).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Leaf {
    /// The raw sibling (the position right after the move).
    #[default]
    Sibling,
    /// The end of the sibling's quiescence line under the material evaluator
    /// (the same leaf for every weight vector).
    Material,
    /// The end of the sibling's quiescence line searched with the weights being
    /// learned, re-searched at every step (Bonanza: the principal variation of
    /// each move is found with the current evaluation, and the gradient goes to
    /// the features of its leaf).
    Current,
}

impl Leaf {
    /// The name on the command line and in `MODEL.meta.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Leaf::Sibling => "sibling",
            Leaf::Material => "material",
            Leaf::Current => "current",
        }
    }
}

impl RankingValidParams {
    /// The sidecar of a model of `features` learned with these parameters,
    /// written by `fit ranking` and by recipes; each caller adds what it
    /// knows besides (the seed, the leaf, the prior, the last epoch's figures).
    pub fn meta(&self, features: &str) -> ModelMeta {
        ModelMeta {
            method: Some("ranking".into()),
            optimizer: Some(self.optimizer().name().into()),
            rate: Some(self.rate()),
            window: Some(self.window()),
            lambda: Some(self.lambda()),
            epochs: Some(self.epochs() as u64),
            batch_games: Some(self.batch_games() as u64),
            skip_opening: Some(self.skip_opening() as u64),
            ..ModelMeta::new(features)
        }
    }

    /// Passes over the games.
    pub fn epochs(&self) -> usize {
        self.epochs
    }
    /// Games per optimizer step.
    pub fn batch_games(&self) -> usize {
        self.batch_games
    }
    /// The step rule.
    pub fn optimizer(&self) -> Optimizer {
        self.optimizer
    }
    /// The step size in effect (the optimizer's default when unset).
    pub fn rate(&self) -> f64 {
        self.rate.unwrap_or(self.optimizer.default_rate())
    }
    /// The sigmoid's window, model units.
    pub fn window(&self) -> f64 {
        self.window
    }
    /// λ.
    pub fn lambda(&self) -> f64 {
        self.lambda
    }
    /// The shuffling seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Positions before this ply are not used.
    pub fn skip_opening(&self) -> usize {
        self.skip_opening
    }
    /// Positions at this ply and later are not used.
    pub fn max_plies(&self) -> Option<usize> {
        self.max_plies
    }
    /// True when siblings are compared at their quiescence leaves.
    pub fn leaf(&self) -> bool {
        self.leaf != Leaf::Sibling
    }
    /// Which position of each sibling is compared.
    pub fn leaf_kind(&self) -> Leaf {
        self.leaf
    }
    /// True when a prior is set.
    pub fn has_prior(&self) -> bool {
        self.prior.is_some()
    }
}

/// Unchecked hyper-parameters: a builder; [`ParamGuard::check`] validates.
#[derive(Clone, Debug, PartialEq)]
pub struct RankingParams(RankingValidParams);

impl Default for RankingParams {
    fn default() -> Self {
        RankingParams(RankingValidParams {
            epochs: 10,
            batch_games: 8,
            optimizer: Optimizer::AdaGrad,
            rate: None,
            window: 0.02,
            lambda: 1.0,
            seed: 1,
            skip_opening: 0,
            max_plies: None,
            prior: None,
            frozen: None,
            leaf: Leaf::default(),
        })
    }
}

impl RankingParams {
    /// The defaults of the module table.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the number of epochs.
    pub fn epochs(mut self, n: usize) -> Self {
        self.0.epochs = n;
        self
    }
    /// Sets the games per optimizer step.
    pub fn batch_games(mut self, n: usize) -> Self {
        self.0.batch_games = n;
        self
    }
    /// Chooses the step rule.
    pub fn optimizer(mut self, o: Optimizer) -> Self {
        self.0.optimizer = o;
        self
    }
    /// Sets the step size (model units).
    pub fn rate(mut self, r: f64) -> Self {
        self.0.rate = Some(r);
        self
    }
    /// Sets the sigmoid's window (model units: 0.01 = 100 centipawns).
    pub fn window(mut self, w: f64) -> Self {
        self.0.window = w;
        self
    }
    /// Sets λ.
    pub fn lambda(mut self, l: f64) -> Self {
        self.0.lambda = l;
        self
    }
    /// Sets the shuffling seed.
    pub fn seed(mut self, s: u64) -> Self {
        self.0.seed = s;
        self
    }
    /// Skips the positions before this ply.
    pub fn skip_opening(mut self, n: usize) -> Self {
        self.0.skip_opening = n;
        self
    }
    /// Uses no position at this ply or later.
    pub fn max_plies(mut self, n: Option<usize>) -> Self {
        self.0.max_plies = n;
        self
    }
    /// Starts from `w0` (model units, one weight per index) and regularizes
    /// `λ‖w − w0‖²` instead of `λ‖w‖²`, so the fit stays near a known evaluation.
    pub fn prior(mut self, w0: Vec<f32>) -> Self {
        self.0.prior = Some(w0);
        self
    }
    /// [`RankingParams::prior`] from a prior's name (`material`, `zero` or a
    /// model file: [`crate::train::prior::named_prior`]), with the
    /// `material` part of `features` kept at it when `anchor_material`
    /// ([`RankingParams::frozen`]). One reading of a ranking prior for `fit`
    /// and for recipes.
    pub fn named_prior(
        self,
        features: &crate::features::Features,
        name: &str,
        anchor_material: bool,
    ) -> Result<Self, String> {
        use crate::features::BaseSet;
        let w0: Vec<f32> = crate::train::prior::named_prior(features, name)
            .map_err(|e| e.to_string())?
            .into_iter()
            .map(|w| w / crate::model::LABEL_SCALE as f32)
            .collect();
        let mut p = self.prior(w0);
        if anchor_material {
            let offset = features.offset_of(BaseSet::Material).ok_or_else(|| {
                format!("anchoring the piece values needs a material part in the features (got {features})")
            })? as usize;
            p = p.frozen(offset..offset + crate::features::MaterialSet.dimension() as usize);
        }
        Ok(p)
    }
    /// Keeps the weights of these (0-based) indices at their start (the anchored
    /// piece values of the `material` part).
    pub fn frozen(mut self, range: std::ops::Range<usize>) -> Self {
        self.0.frozen = Some(range);
        self
    }
    /// Compares the ends of each sibling's quiescence line (material captures
    /// searched with stand-pat), as Bonanza compares PV leaves, instead of the
    /// raw siblings.
    pub fn leaf(mut self, yes: bool) -> Self {
        self.0.leaf = if yes { Leaf::Material } else { Leaf::Sibling };
        self
    }
    /// Chooses which position of each sibling is compared ([`Leaf`]).
    pub fn leaf_kind(mut self, leaf: Leaf) -> Self {
        self.0.leaf = leaf;
        self
    }
}

impl RankingParams {
    /// The first parameter out of its range, if any: the ranges of the
    /// module table, checked by [`ParamGuard::check`] and named by a
    /// recipe's `[learner]` key.
    pub fn out_of_range(&self) -> Option<super::ParamError> {
        use super::ParamError as E;
        let p = &self.0;
        if p.epochs == 0 {
            return Some(E::new("epochs", 0, "at least 1"));
        }
        if p.batch_games == 0 {
            return Some(E::new("batch_games", 0, "at least 1"));
        }
        if let Some(r) = p.rate.filter(|r| !(r.is_finite() && *r > 0.0)) {
            return Some(E::new("rate", r, "positive and finite"));
        }
        if !(p.window.is_finite() && p.window > 0.0) {
            return Some(E::new("window", p.window, "positive and finite"));
        }
        if !(p.lambda.is_finite() && p.lambda >= 0.0) {
            return Some(E::new("lambda", p.lambda, "non-negative and finite"));
        }
        if p.max_plies == Some(0) {
            return Some(E::new("max_plies", 0, "at least 1"));
        }
        None
    }
}

impl ParamGuard for RankingParams {
    type Checked = RankingValidParams;
    type Error = TrainError;

    fn check_ref(&self) -> Result<&RankingValidParams, TrainError> {
        let p = &self.0;
        if let Some(e) = self.out_of_range() {
            return Err(e.into());
        }
        if let (Some(w0), Some(r)) = (&p.prior, &p.frozen) {
            if r.end > w0.len() {
                return Err(TrainError::InvalidParam(format!(
                    "frozen range {r:?} beyond the prior's {} weights",
                    w0.len()
                )));
            }
        }
        Ok(p)
    }

    fn check(self) -> Result<RankingValidParams, TrainError> {
        self.check_ref()?;
        Ok(self.0)
    }
}

/// `T(x) = 1 / (1 + exp(−x / window))`.
pub fn sigmoid(x: f64, window: f64) -> f64 {
    1.0 / (1.0 + (-x / window).exp())
}

/// Loss and top-1 agreement summed over positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Positions counted.
    pub positions: u64,
    /// `Σ_P Σ_{m≠g} T(e(s_m) − e(s_g))`.
    pub loss: f64,
    /// Summed top-1 hit probabilities (ties shared fairly, as in [`hit_probability`]).
    pub top1: f64,
}

impl Tally {
    fn merge(mut self, other: Tally) -> Tally {
        self.positions += other.positions;
        self.loss += other.loss;
        self.top1 += other.top1;
        self
    }

    /// Loss per position (0 when none was counted).
    pub fn loss_per_position(&self) -> f64 {
        self.loss / self.positions.max(1) as f64
    }

    /// Fraction of positions where the game's move is valued highest.
    pub fn top1_rate(&self) -> f64 {
        self.top1 / self.positions.max(1) as f64
    }
}

/// Ranks the legal moves of positions with a weight vector, reusing its buffers.
#[derive(Debug)]
pub struct Ranker<'a, F: FeatureSet> {
    features: &'a F,
    window: f64,
    skip_opening: usize,
    max_plies: Option<usize>,
    leaf: Leaf,
    table: Option<crate::search::TranspositionTable>,
    siblings: crate::shogi::Siblings,
    children: Vec<Position>,
    /// Per child: the view its features are taken from and the sign that turns
    /// that reading into the value for the side that chose the move.
    views: Vec<(crate::shogi::Color, f32)>,
    values: Vec<f32>,
}

impl<'a, F: FeatureSet + Sync> Ranker<'a, F> {
    /// A ranker over `features` with the sigmoid window and ply range of `params`.
    pub fn new(features: &'a F, params: &RankingValidParams) -> Self {
        Self {
            features,
            window: params.window,
            skip_opening: params.skip_opening,
            max_plies: params.max_plies,
            leaf: params.leaf,
            table: (params.leaf != Leaf::Sibling)
                .then(|| crate::search::TranspositionTable::new(1)),
            siblings: crate::shogi::Siblings::new(),
            children: Vec::new(),
            views: Vec::new(),
            values: Vec::new(),
        }
    }

    /// The loss `Σ_{m≠g} T(e(s_m) − e(s_g))` and top-1 hit of one position; with
    /// `gradient`, adds the loss's gradient into it. `None` when `game_move` is
    /// not legal in `pos`.
    pub fn position(
        &mut self,
        weights: &[f32],
        pos: &Position,
        game_move: Move,
        gradient: Option<&mut [f32]>,
    ) -> Option<Tally> {
        let view = pos.side_to_move();
        self.siblings.expand(pos);
        let g = self.siblings.index_of(game_move)?;
        self.children.clear();
        self.views.clear();
        self.values.clear();
        for (_, mut child) in self.siblings.iter(pos) {
            if let Some(table) = self.table.as_mut() {
                child = match self.leaf {
                    Leaf::Sibling => child,
                    Leaf::Material => crate::train::positions::Leaves::leaf_of(
                        &crate::eval::Material,
                        table,
                        &child,
                    ),
                    Leaf::Current => {
                        let current = crate::eval::LinearView {
                            features: self.features,
                            weights,
                        };
                        crate::train::positions::Leaves::leaf_of(&current, table, &child)
                    }
                };
            }
            // The value for `view` of a position where it just moved is the model's
            // reading from `view`; where `view` is to move, minus the reading from
            // the other side (how `eval::Linear` plays a model).
            let mover = !child.side_to_move();
            let sign = if mover == view { 1.0 } else { -1.0 };
            self.values
                .push(sign * dot(self.features, weights, &child, mover));
            self.views.push((mover, sign));
            self.children.push(child);
        }
        let eg = self.values[g];
        let better = self.values.iter().filter(|&&v| v > eg).count();
        let tied = self.values.iter().filter(|&&v| v == eg).count();
        let mut loss = 0.0;
        let mut slope_sum = 0.0;
        let mut gradient = gradient;
        for (i, (&v, child)) in self.values.iter().zip(&self.children).enumerate() {
            if i == g {
                continue;
            }
            let t = sigmoid(f64::from(v) - f64::from(eg), self.window);
            loss += t;
            let slope = t * (1.0 - t) / self.window;
            if let (Some(grad), true) = (gradient.as_deref_mut(), slope > 0.0) {
                slope_sum += slope;
                let (mover, sign) = self.views[i];
                let mut sink = GradientSink::new(grad, sign * slope as f32);
                self.features.visit(child, mover, &mut sink);
            }
        }
        if let (Some(grad), true) = (gradient, slope_sum > 0.0) {
            let (mover, sign) = self.views[g];
            let mut sink = GradientSink::new(grad, -sign * slope_sum as f32);
            self.features.visit(&self.children[g], mover, &mut sink);
        }
        Some(Tally {
            positions: 1,
            loss,
            top1: hit_probability(better, tied, 1),
        })
    }

    /// [`Ranker::position`] over the game's positions in the ply range.
    pub fn game(
        &mut self,
        weights: &[f32],
        game: &Game,
        mut gradient: Option<&mut [f32]>,
    ) -> Tally {
        let mut score = Tally::default();
        for (ply, (pos, mv)) in game.positions().enumerate() {
            let Some(mv) = mv else { break };
            if self.max_plies.is_some_and(|m| ply >= m) {
                break;
            }
            if !in_ply_range(ply, self.skip_opening, self.max_plies) {
                continue;
            }
            if let Some(s) = self.position(weights, &pos, mv, gradient.as_deref_mut()) {
                score = score.merge(s);
            }
        }
        score
    }
}

/// `λ‖w − w0‖²` (`w0` = 0 without a prior), summed in `f64`.
pub fn regularizer(weights: &[f32], prior: Option<&[f32]>, lambda: f64) -> f64 {
    lambda
        * weights
            .par_iter()
            .enumerate()
            .map(|(j, &w)| {
                let d = f64::from(w) - prior.map_or(0.0, |p| f64::from(p[j]));
                d * d
            })
            .sum::<f64>()
}

/// Loss and top-1 of `weights` on `games` (games in parallel; no gradient).
pub fn score<F: FeatureSet + Sync>(
    features: &F,
    params: &RankingValidParams,
    weights: &[f32],
    games: &[Game],
) -> Tally {
    games
        .par_iter()
        .map_init(
            || Ranker::new(features, params),
            |r, g| r.game(weights, g, None),
        )
        .reduce(Tally::default, Tally::merge)
}

/// One epoch's report.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EpochReport {
    /// 1-based epoch.
    pub epoch: usize,
    /// The training positions, each scored with the weights before its batch's
    /// step (a running figure, as Bonanza reports; no extra pass).
    pub train: Tally,
    /// `λ‖w‖²` at the end of the epoch.
    pub regularizer: f64,
    /// Held-out games scored with the weights at the end of the epoch, if any were given.
    pub held_out: Option<Tally>,
    /// Seconds for the epoch (training and held-out scoring).
    pub seconds: f64,
}

impl EpochReport {
    /// `J` per training position: `(Σ loss + λ‖w‖²) / positions`.
    pub fn objective_per_position(&self) -> f64 {
        (self.train.loss + self.regularizer) / self.train.positions.max(1) as f64
    }
}

/// The observer that ignores everything (`train::progress::Quiet`), where
/// callers of this learner have found it.
pub use super::progress::Quiet;

/// A trained ranking model and how it got there.
#[derive(Clone, Debug)]
pub struct RankingFit {
    /// The weights (no bias: a constant cancels out of every comparison).
    pub model: Model,
    /// One report per epoch.
    pub epochs: Vec<EpochReport>,
}

impl RankingValidParams {
    /// Trains on `games` (and scores `held_out` after every epoch) over
    /// `features`, on the current rayon pool: one gradient buffer per thread.
    pub fn fit<F: FeatureSet + Sync>(
        &self,
        features: &F,
        games: &[Game],
        held_out: &[Game],
        observer: &dyn Observer,
    ) -> Result<RankingFit, TrainError> {
        let total_positions: u64 = games.iter().map(|g| self.positions_of(g)).sum();
        if total_positions == 0 {
            return Err(TrainError::Data(
                "no training position: no game has a move in the ply range".into(),
            ));
        }
        let n = features.dimension() as usize;
        let threads = rayon::current_num_threads().max(1);
        let mut weights = match &self.prior {
            Some(w0) if w0.len() == n => w0.clone(),
            Some(w0) => {
                return Err(TrainError::Data(format!(
                    "the prior has {} weights, the feature set {n}",
                    w0.len()
                )))
            }
            None => vec![0.0f32; n],
        };
        let mut step = Stepper::new(self.optimizer, n, 1e-8);
        let mut buffers: Vec<Vec<f32>> = (0..threads).map(|_| vec![0.0; n]).collect();
        let mut order: Vec<usize> = (0..games.len()).collect();
        let mut rng = SplitMix64(self.seed);
        let mut reports = Vec::with_capacity(self.epochs);
        for epoch in 1..=self.epochs {
            let start = Instant::now();
            rng.shuffle(&mut order);
            observer.event(&Event::EpochStart {
                epoch,
                games: games.len(),
            });
            let mut train = Tally::default();
            for batch in order.chunks(self.batch_games) {
                let per_buffer = batch.len().div_ceil(threads);
                let w = &weights;
                let batch_score = buffers
                    .par_iter_mut()
                    .zip(batch.par_chunks(per_buffer))
                    .map(|(buffer, chunk)| {
                        let mut ranker = Ranker::new(features, self);
                        let mut s = Tally::default();
                        for &i in chunk {
                            s = s.merge(ranker.game(w, &games[i], Some(buffer)));
                            observer.event(&Event::Game);
                        }
                        s
                    })
                    .reduce(Tally::default, Tally::merge);
                let share = batch_score.positions as f64 / total_positions as f64;
                let pull = Pull {
                    reg: (2.0 * self.lambda * share) as f32,
                    prior: self.prior.as_deref(),
                    frozen: self.frozen.clone().unwrap_or(0..0),
                };
                step.apply(&mut weights, &mut buffers, self.rate() as f32, &pull);
                train = train.merge(batch_score);
            }
            let held = (!held_out.is_empty()).then(|| score(features, self, &weights, held_out));
            let report = EpochReport {
                epoch,
                train,
                regularizer: regularizer(&weights, self.prior.as_deref(), self.lambda),
                held_out: held,
                seconds: start.elapsed().as_secs_f64(),
            };
            observer.event(&Event::Epoch(ProgressEpoch::Ranking(&report)));
            reports.push(report);
        }
        Ok(RankingFit {
            model: Model {
                solver_type: "L2R_L2LOSS_SVR".into(),
                w: weights.iter().map(|&w| f64::from(w)).collect(),
                bias: -1.0,
                bias_weight: 0.0,
                features: features.name(),
            },
            epochs: reports,
        })
    }

    /// Positions of `game` that are trained on.
    fn positions_of(&self, game: &Game) -> u64 {
        (0..game.moves.len())
            .filter(|&ply| in_ply_range(ply, self.skip_opening, self.max_plies))
            .count() as u64
    }
}

/// The ranking learner's side of a step: the batch's share `reg` of the
/// regularizer's gradient `2λ(w − w0)` (w0 the prior, or 0) is where each
/// coordinate's sum starts; coordinates in `frozen`, and those whose
/// gradient is 0, do not move.
struct Pull<'a> {
    reg: f32,
    prior: Option<&'a [f32]>,
    frozen: std::ops::Range<usize>,
}

impl step::Pull for Pull<'_> {
    fn start(&self, j: usize, w: f32) -> f32 {
        let w0 = self.prior.map_or(0.0, |p| p[j]);
        self.reg * (w - w0)
    }

    fn finish(&self, j: usize, _: f32, g: f32, _: f32) -> Option<f32> {
        (g != 0.0 && !self.frozen.contains(&j)).then_some(g)
    }
}

#[cfg(test)]
mod tests;
