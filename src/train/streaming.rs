//! A streaming batched learner in the manner of Buro's Logistello: it reads
//! libsvm files (one game each, as `extract` writes them) one chunk of rows at
//! a time and never holds the corpus, so memory is O(dimension) plus one chunk.
//!
//! For every row `(y, x)` of a batch, with `p = w·x` under the weights fixed
//! for the batch, and every feature `j` nonzero in `x`:
//!
//! `n_j += 1`, `s_j += (y − p)·x_j`
//!
//! After every `batch_games` files (and after the last file of an epoch),
//! each feature with `n_j ≥ min_frequency` moves by the mean residual times
//! its value, then is clamped:
//!
//! `w_j ← clamp(w_j + rate · s_j / n_j, −bound, bound)`
//!
//! With a prior `w0` ([`StreamingValidParams::fit_with_prior`], `fit
//! streaming --prior`) the learner fits the correction `v = w − w0` to the
//! residual labels `y − w0·x` ([`residual_label`], the SVR's prior), so
//! the bound and the updates apply to `v` alone, and the model is `w0 + v`
//! ([`add_prior`]).
//!
//! and the accumulators of every touched feature (updated or not) are reset.
//! A list of touched indices makes a batch cost O(nonzeros + touched), not
//! O(dimension). Because `w` is fixed within a batch, reading a file in
//! chunks gives the same result as reading it whole.
//!
//! | parameter | default | range | meaning |
//! |---|---|---|---|
//! | `rate` | 0.005 | finite, > 0 | step on the mean of residual × value |
//! | `min_frequency` | 2 | ≥ 1 | rows of a batch a feature must occur in to be updated |
//! | `bound` | 0.1 | finite, > 0 | largest absolute weight |
//! | `batch_games` | 4 | ≥ 1 | files (games) per update |
//! | `epochs` | 1 | ≥ 1 | passes over the files |
//! | `seed` | none | any `u64` | none: files in sorted order; a seed: a new shuffle each epoch |
//!
//! Memory: `w` (`f32`), `n` (`u32`) and `s` (`f32`) per feature, 12 bytes ×
//! dimension (`relation`: 2268² ≈ 5.1M features → 62 MB), the touched list,
//! and three chunks of [`CHUNK_ROWS`] parsed rows (one being learned from,
//! one being parsed on a second thread, one spare) — independent of the
//! number or size of the files. See `docs/streaming.md`.

use std::path::PathBuf;
use std::sync::mpsc;
use std::time::Instant;

use linfa::ParamGuard;

use super::prior::{add_prior, residual_label};
use super::progress::{Epoch as ProgressEpoch, Event, Observer};
use super::TrainError;
use crate::libsvm::{ReadError, RowBuffer, RowReader};
use crate::model::Model;
use crate::model::{f32_as_written, ModelMeta};
use crate::rng::SplitMix64;

/// Rows parsed at a time from a file (bounds the memory a large file costs).
pub const CHUNK_ROWS: usize = 8192;

/// Checked hyper-parameters of the streaming learner (see the module table).
#[derive(Debug, Clone, PartialEq)]
pub struct StreamingValidParams {
    rate: f32,
    min_frequency: u32,
    bound: f32,
    batch_games: usize,
    epochs: usize,
    seed: Option<u64>,
}

impl StreamingValidParams {
    /// Trains from `files` (sorted here, so the order does not depend on how
    /// they were listed), allocating `dimension` features up front and growing
    /// if a larger index is read; `observer` sees each file and epoch. The
    /// next chunk is parsed on a second thread while the learner works
    /// through the current one.
    pub fn fit(
        &self,
        files: &[PathBuf],
        dimension: usize,
        observer: &dyn Observer,
    ) -> Result<StreamingFit, ReadError> {
        train_streaming(self, files, dimension, None, observer)
    }

    /// [`fit`](Self::fit) around a prior `w0` in model units (e.g.
    /// `train::prior::named_prior_model_units`): the learner fits the
    /// correction to `w0` on the labels `y − w0·x`; the bound limits the
    /// correction, and [`StreamingFit::into_model`] adds `w0` back. With
    /// `None`, [`fit`](Self::fit).
    pub fn fit_with_prior(
        &self,
        files: &[PathBuf],
        dimension: usize,
        prior: Option<&[f64]>,
        observer: &dyn Observer,
    ) -> Result<StreamingFit, ReadError> {
        train_streaming(self, files, dimension, prior, observer)
    }

    /// The sidecar of a model of `features` learned with these parameters,
    /// written by `fit streaming` and by recipes; each caller adds what it
    /// knows besides.
    pub fn meta(&self, features: &str) -> ModelMeta {
        ModelMeta {
            method: Some("streaming".into()),
            rate: Some(f32_as_written(self.rate())),
            min_frequency: Some(self.min_frequency()),
            bound: Some(f32_as_written(self.bound())),
            batch_games: Some(self.batch_games() as u64),
            epochs: Some(self.epochs() as u64),
            ..ModelMeta::new(features)
        }
    }

    /// The learning rate.
    pub fn rate(&self) -> f32 {
        self.rate
    }
    /// Rows of a batch a feature must occur in to be updated.
    pub fn min_frequency(&self) -> u32 {
        self.min_frequency
    }
    /// The largest absolute weight.
    pub fn bound(&self) -> f32 {
        self.bound
    }
    /// Files per update.
    pub fn batch_games(&self) -> usize {
        self.batch_games
    }
    /// Passes over the files.
    pub fn epochs(&self) -> usize {
        self.epochs
    }
    /// The shuffle seed (none: sorted order).
    pub fn seed(&self) -> Option<u64> {
        self.seed
    }
}

/// Unchecked hyper-parameters: a builder; [`ParamGuard::check`] validates.
#[derive(Debug, Clone, PartialEq)]
pub struct StreamingParams(StreamingValidParams);

impl Default for StreamingParams {
    fn default() -> Self {
        StreamingParams(StreamingValidParams {
            rate: 0.005,
            min_frequency: 2,
            bound: 0.1,
            batch_games: 4,
            epochs: 1,
            seed: None,
        })
    }
}

impl StreamingParams {
    /// The defaults of the module table.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets the learning rate.
    pub fn rate(mut self, rate: f32) -> Self {
        self.0.rate = rate;
        self
    }
    /// Sets the minimum occurrences in a batch for a feature to be updated.
    pub fn min_frequency(mut self, n: u32) -> Self {
        self.0.min_frequency = n;
        self
    }
    /// Sets the largest absolute weight.
    pub fn bound(mut self, bound: f32) -> Self {
        self.0.bound = bound;
        self
    }
    /// Sets the files per update.
    pub fn batch_games(mut self, k: usize) -> Self {
        self.0.batch_games = k;
        self
    }
    /// Sets the number of passes.
    pub fn epochs(mut self, n: usize) -> Self {
        self.0.epochs = n;
        self
    }
    /// Shuffles the files with this seed each epoch (none: sorted order).
    pub fn seed(mut self, seed: Option<u64>) -> Self {
        self.0.seed = seed;
        self
    }
}

impl StreamingParams {
    /// The first parameter out of its range, if any: the one range check,
    /// behind [`ParamGuard::check`] and a recipe's `[learner]` keys.
    pub fn out_of_range(&self) -> Option<super::ParamError> {
        use super::ParamError as E;
        let p = &self.0;
        if !(p.rate.is_finite() && p.rate > 0.0) {
            return Some(E::new("rate", p.rate, "positive and finite"));
        }
        if p.min_frequency == 0 {
            return Some(E::new("min_frequency", 0, "at least 1"));
        }
        if !(p.bound.is_finite() && p.bound > 0.0) {
            return Some(E::new("bound", p.bound, "positive and finite"));
        }
        if p.batch_games == 0 {
            return Some(E::new("batch_games", 0, "at least 1"));
        }
        if p.epochs == 0 {
            return Some(E::new("epochs", 0, "at least 1"));
        }
        None
    }
}

impl ParamGuard for StreamingParams {
    type Checked = StreamingValidParams;
    type Error = TrainError;

    fn check_ref(&self) -> Result<&StreamingValidParams, TrainError> {
        self.out_of_range().map_or(Ok(&self.0), |e| Err(e.into()))
    }

    fn check(self) -> Result<StreamingValidParams, TrainError> {
        self.check_ref()?;
        Ok(self.0)
    }
}

/// What one pass over the files did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct EpochStats {
    /// 1-based epoch.
    pub epoch: usize,
    /// Rows read.
    pub rows: u64,
    /// Mean of `(y − w·x)²` over the rows, each predicted with the weights
    /// in force when it was read (before its batch's update).
    pub mse: f64,
    /// Batches (updates) made.
    pub batches: u64,
    /// Weight updates made, summed over the batches (a feature updated in
    /// two batches counts twice).
    pub features_updated: u64,
    /// Seconds the epoch took.
    pub seconds: f64,
}

/// The learned weights and the per-epoch statistics.
#[derive(Debug, Clone)]
pub struct StreamingFit {
    /// Weight of feature index `j + 1` at `weights[j]` (with a prior, the
    /// correction to it); the length is the larger of the dimension given
    /// and the largest index read.
    pub weights: Vec<f32>,
    /// The prior the weights correct, in model units (none: zero).
    pub prior: Option<Vec<f64>>,
    /// One entry per epoch.
    pub epochs: Vec<EpochStats>,
}

impl StreamingFit {
    /// Predicts one row as [`Model::predict_row`] does (in `f64`, row order),
    /// so the saved model predicts exactly these numbers.
    pub fn predict_row(&self, indices: &[u32], values: &[f32]) -> f64 {
        let Some(w0) = &self.prior else {
            return predict(&self.weights, indices, values);
        };
        // The model's weight, as `into_model` makes it: f64(w) + w0.
        let mut sum = 0.0;
        for (&j, &v) in indices.iter().zip(values) {
            let j = j as usize;
            if j < self.weights.len().max(w0.len()) {
                let w = self.weights.get(j).map_or(0.0, |&w| f64::from(w));
                sum += (w + w0.get(j).copied().unwrap_or(0.0)) * f64::from(v);
            }
        }
        sum
    }

    /// The weights as a model file without bias. `solver_type` is liblinear's
    /// `L2R_L2LOSS_SVR` because liblinear reads only regression from it; the
    /// sidecar says how the weights were learned. A prior is added back.
    pub fn into_model(self, features: &str) -> Model {
        let mut w: Vec<f64> = self.weights.into_iter().map(f64::from).collect();
        if let Some(w0) = &self.prior {
            add_prior(&mut w, w0);
        }
        Model {
            solver_type: "L2R_L2LOSS_SVR".into(),
            w,
            bias: -1.0,
            bias_weight: 0.0,
            features: features.to_string(),
        }
    }
}

fn predict(w: &[f32], indices: &[u32], values: &[f32]) -> f64 {
    let mut sum = 0.0;
    for (&j, &v) in indices.iter().zip(values) {
        if let Some(&wj) = w.get(j as usize) {
            sum += f64::from(wj) * f64::from(v);
        }
    }
    sum
}

/// Weights and the batch accumulators, 12 bytes per feature.
struct Learner {
    w: Vec<f32>,
    count: Vec<u32>,
    sum: Vec<f32>,
    /// Features with `count > 0` in the current batch.
    touched: Vec<u32>,
}

impl Learner {
    fn new(dimension: usize) -> Self {
        Learner {
            w: vec![0.0; dimension],
            count: vec![0; dimension],
            sum: vec![0.0; dimension],
            touched: Vec::new(),
        }
    }

    fn grow(&mut self, dimension: usize) {
        if dimension > self.w.len() {
            self.w.resize(dimension, 0.0);
            self.count.resize(dimension, 0);
            self.sum.resize(dimension, 0.0);
        }
    }

    /// Accumulates one row; returns its squared residual.
    fn accumulate(&mut self, y: f64, indices: &[u32], values: &[f32]) -> f64 {
        let residual = y - predict(&self.w, indices, values);
        let r = residual as f32;
        for (&j, &v) in indices.iter().zip(values) {
            let j = j as usize;
            if self.count[j] == 0 {
                self.touched.push(j as u32);
            }
            self.count[j] += 1;
            self.sum[j] += r * v;
        }
        residual * residual
    }

    /// Applies the batch update and resets the touched accumulators; returns
    /// the number of weights updated.
    fn update(&mut self, p: &StreamingValidParams) -> u64 {
        let mut updated = 0;
        for &j in &self.touched {
            let j = j as usize;
            let n = self.count[j];
            if n >= p.min_frequency {
                let w = self.w[j] + p.rate * self.sum[j] / n as f32;
                self.w[j] = w.clamp(-p.bound, p.bound);
                updated += 1;
            }
            self.count[j] = 0;
            self.sum[j] = 0.0;
        }
        self.touched.clear();
        updated
    }
}

/// A parsed chunk handed from the reading thread to the learner.
struct Chunk {
    rows: RowBuffer,
    /// The chunk ends its file.
    last_of_file: bool,
}

/// [`StreamingValidParams::fit`].
fn train_streaming(
    params: &StreamingValidParams,
    files: &[PathBuf],
    dimension: usize,
    prior: Option<&[f64]>,
    observer: &dyn Observer,
) -> Result<StreamingFit, ReadError> {
    if files.is_empty() {
        return Err(ReadError::NoFiles("the file list".into()));
    }
    let mut order = files.to_vec();
    order.sort();
    let mut rng = params.seed.map(SplitMix64);
    let mut learner = Learner::new(dimension);
    let mut epochs = Vec::with_capacity(params.epochs);
    for epoch in 1..=params.epochs {
        if let Some(rng) = rng.as_mut() {
            rng.shuffle(&mut order);
        }
        let start = Instant::now();
        let mut stats = EpochStats {
            epoch,
            rows: 0,
            mse: 0.0,
            batches: 0,
            features_updated: 0,
            seconds: 0.0,
        };
        let mut squared = 0.0;
        let mut in_batch = 0;
        let mut done = 0;
        for_each_chunk(&order, |chunk| {
            learner.grow(chunk.rows.max_index() as usize);
            for (y, indices, values) in chunk.rows.iter() {
                let y = match prior {
                    None => y,
                    Some(w0) => {
                        residual_label(y, w0, indices, values.iter().map(|&v| f64::from(v)))
                    }
                };
                squared += learner.accumulate(y, indices, values);
            }
            stats.rows += chunk.rows.len() as u64;
            if chunk.last_of_file {
                done += 1;
                in_batch += 1;
                if in_batch == params.batch_games || done == order.len() {
                    stats.features_updated += learner.update(params);
                    stats.batches += 1;
                    in_batch = 0;
                }
                observer.event(&Event::File { epoch, done });
            }
        })?;
        stats.mse = squared / stats.rows.max(1) as f64;
        stats.seconds = start.elapsed().as_secs_f64();
        observer.event(&Event::Epoch(ProgressEpoch::Streaming(&stats)));
        epochs.push(stats);
    }
    Ok(StreamingFit {
        weights: learner.w,
        prior: prior.map(<[f64]>::to_vec),
        epochs,
    })
}

/// Calls `learn` on every chunk of every file in order, parsing on a second
/// thread. Three buffers circulate (the reader holds the current chunk and
/// the one after it, to know which is last; the learner holds one), so
/// memory stays at three chunks whatever the files.
fn for_each_chunk(files: &[PathBuf], mut learn: impl FnMut(&Chunk)) -> Result<(), ReadError> {
    let (full_tx, full_rx) = mpsc::sync_channel::<Result<Chunk, ReadError>>(0);
    let (empty_tx, empty_rx) = mpsc::channel::<RowBuffer>();
    for _ in 0..3 {
        let _ = empty_tx.send(RowBuffer::new());
    }
    std::thread::scope(|scope| {
        scope.spawn(move || {
            if let Err(e) = read_chunks(files, &empty_rx, &full_tx) {
                let _ = full_tx.send(Err(e));
            }
        });
        // Moved in so that they drop (unblocking the reader) before the scope joins it.
        let (full_rx, empty_tx) = (full_rx, empty_tx);
        for chunk in full_rx {
            let chunk = chunk?;
            learn(&chunk);
            let _ = empty_tx.send(chunk.rows);
        }
        Ok(())
    })
}

/// The reading thread: sends each file's chunks, the last one marked (an
/// empty file sends one empty chunk). Returns early, without error, when the
/// learner has stopped listening.
fn read_chunks(
    files: &[PathBuf],
    pool: &mpsc::Receiver<RowBuffer>,
    out: &mpsc::SyncSender<Result<Chunk, ReadError>>,
) -> Result<(), ReadError> {
    let mut spare: Option<RowBuffer> = None;
    for path in files {
        let mut reader = RowReader::open(path)?;
        let Some(mut rows) = spare.take().or_else(|| pool.recv().ok()) else {
            return Ok(());
        };
        reader.next_chunk(&mut rows, CHUNK_ROWS)?;
        loop {
            let Some(mut next) = pool.recv().ok() else {
                return Ok(());
            };
            let more = rows.len() == CHUNK_ROWS && reader.next_chunk(&mut next, CHUNK_ROWS)?;
            let last_of_file = !more;
            if out.send(Ok(Chunk { rows, last_of_file })).is_err() {
                return Ok(());
            }
            if last_of_file {
                spare = Some(next);
                break;
            }
            rows = next;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::train::Quiet;

    /// One game of rows, written to a fresh scratch file.
    fn game(name: &str, rows: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("kifulearn-streaming-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("a.svm");
        std::fs::write(&path, rows).unwrap();
        path
    }

    #[test]
    fn with_a_prior_and_no_update_the_model_is_the_prior() {
        let file = game("no-update", "0.7 1:1 2:1\n0.6 1:1\n-0.3 3:2\n");
        let w0 = [0.5, 0.2, -0.125, 0.0];
        // No feature occurs often enough to be updated.
        let params = StreamingParams::new()
            .min_frequency(u32::MAX)
            .check()
            .unwrap();
        let fit = params
            .fit_with_prior(std::slice::from_ref(&file), 4, Some(&w0), &Quiet)
            .unwrap();
        assert!(fit.weights.iter().all(|&w| w == 0.0));
        assert_eq!(fit.predict_row(&[0, 1], &[1.0, 1.0]), 0.7);
        // Every row is predicted by the prior: residuals 0, 0.1, −0.05.
        assert!((fit.epochs[0].mse - 0.0125 / 3.0).abs() < 1e-12);
        let model = fit.into_model("material");
        assert_eq!(model.w, w0);
    }

    #[test]
    fn with_a_prior_the_correction_is_learned_and_bounded_alone() {
        // w0·x = 0.7 and 0.5: residuals 0 and 0.1, on feature 1 both times,
        // feature 2 once. One batch, rate 1, min_frequency 1:
        // v1 = (0·1 + 0.1·1)/2 = 0.05, v2 = 0/1 = 0.
        let file = game("correction", "0.7 1:1 2:1\n0.6 1:1\n");
        let w0 = [0.5, 0.2];
        // The bound (0.06) is below w0₁ (0.5): it limits the correction only.
        let params = StreamingParams::new()
            .rate(1.0)
            .min_frequency(1)
            .bound(0.06)
            .check()
            .unwrap();
        let fit = params
            .fit_with_prior(std::slice::from_ref(&file), 0, Some(&w0), &Quiet)
            .unwrap();
        assert!((f64::from(fit.weights[0]) - 0.05).abs() < 1e-7);
        assert_eq!(fit.weights[1], 0.0);
        let predicted = fit.predict_row(&[0], &[1.0]);
        let model = fit.into_model("material");
        assert!((model.w[0] - 0.55).abs() < 1e-7, "{:?}", model.w);
        assert_eq!(model.w[1], 0.2);
        assert_eq!(model.predict_row(&[0], &[1.0]), predicted);
        // Without the prior the same rows teach the whole value, clamped.
        let fit = params.fit(std::slice::from_ref(&file), 0, &Quiet).unwrap();
        assert_eq!(fit.weights[0], 0.06);
    }
}
