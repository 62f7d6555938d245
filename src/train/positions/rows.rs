//! Position rows: the positions learner's [`Leaves`] as labelled libsvm rows,
//! one row per position, for any linear regression (`fit DIR`, liblinear,
//! scikit-learn, Spark). `kifulearn positions FILES --rows DIR` writes them.
//!
//! Row `i` is `y  σ_L·x(L)`: the features of the end of the position's
//! quiescence line seen from the side that moved into it, times the sign
//! that turns their value into the side to move's (so `w · row` is the
//! learner's `v`), and `y` the learner's target in model units
//! (centipawns / [`LABEL_SCALE`]):
//!
//! - `score`: `K·logit(t)`, the score the target stands for; with no result
//!   in the mix (λ = 0 or the result unknown) exactly the teacher's score;
//! - `sigmoid`: `4K·(t − ½)`, the target itself rescaled so that its slope at
//!   0 is 1: equal to the score near 0, squashed towards ±2K beyond.
//!
//! `t = λ·r + (1 − λ)·σ(s / K)` is the learner's (`Target`).

use std::fs;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use super::{Leaves, PositionsParams, Sample, Target};
use crate::eval::{Material, EVAL_LIMIT};
use crate::extract::{lock::OutputLock, remove_if_present, rows_path, temp_path};
use crate::features::{FeatureSet, Features};
use crate::libsvm::dataset::{DatasetInfo, TargetInfo, DATASET_TOML, FORMAT, ROWS_DIR};
use crate::libsvm::write_row_qid;
use crate::model::LABEL_SCALE;

/// What a position row's label is (see the module).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowTarget {
    /// The score the target stands for, `K·logit(t)`.
    #[default]
    Score,
    /// The σ-squashed target, `4K·(t − ½)`.
    Sigmoid,
}

impl RowTarget {
    /// The name `--target` takes and `dataset.toml` records.
    pub fn name(self) -> &'static str {
        match self {
            RowTarget::Score => "score",
            RowTarget::Sigmoid => "sigmoid",
        }
    }
}

/// The labels of position rows: the learner's target (λ, K) as `target` says.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RowLabels {
    /// Raw score or σ-squashed.
    pub target: RowTarget,
    /// λ, the weight of the game result.
    pub lambda: f64,
    /// K of σ(s / K), centipawns.
    pub eval_k: f64,
}

impl RowLabels {
    /// The labels of the learner's target under `params` (its λ and K).
    pub fn of(target: RowTarget, params: &PositionsParams) -> Self {
        Self {
            target,
            lambda: params.lambda,
            eval_k: params.eval_k,
        }
    }

    /// Row `i`'s label, model units.
    pub fn label(&self, leaves: &Leaves, i: usize) -> f64 {
        let k = self.eval_k;
        let score_only = self.lambda == 0.0 || leaves.result[i] < 0.0;
        let t = Target {
            lambda: self.lambda,
            k,
        }
        .of(leaves, i);
        let limit = f64::from(EVAL_LIMIT);
        let cp = match self.target {
            RowTarget::Score if score_only => f64::from(leaves.score[i]),
            RowTarget::Score => (k * (t / (1.0 - t)).ln()).clamp(-limit, limit),
            RowTarget::Sigmoid => 4.0 * k * (t - 0.5),
        };
        cp / f64::from(LABEL_SCALE)
    }
}

impl Leaves {
    /// Row `i` as the linear model reads it: `σ_L·x(L)`, 1-based indices,
    /// into `out` (cleared first).
    pub fn signed_row(&self, i: usize, out: &mut Vec<(u32, f32)>) {
        out.clear();
        let sign = self.sign[i];
        let (idx, val) = self.row(i);
        out.extend(idx.iter().zip(val).map(|(&j, &v)| (j + 1, sign * v)));
    }
}

/// Writes every row of `leaves` to `out` as libsvm lines labelled by
/// `labels`, with `qid:N` when `qid` gives row `i`'s N. Returns the rows and
/// nonzeros written.
pub fn write_rows<W: Write>(
    out: &mut W,
    leaves: &Leaves,
    labels: &RowLabels,
    qid: Option<&[u64]>,
) -> io::Result<(u64, u64)> {
    let mut row = Vec::new();
    let mut nonzeros = 0;
    for i in 0..leaves.len() {
        leaves.signed_row(i, &mut row);
        nonzeros += row.len() as u64;
        write_row_qid(out, labels.label(leaves, i), qid.map(|q| q[i]), &row)?;
    }
    Ok((leaves.len() as u64, nonzeros))
}

/// The game of each sample of a position file, numbered from `first`: a
/// new game starts where the ply does not rise. `generate` writes whole
/// games in order, each with rising plies, so a game is never split; two
/// games fall into one number only when the second's first position kept
/// comes at a later ply than the first's last. Returns the numbers and the
/// next free one.
pub fn games_by_ply(samples: &[Sample], first: u64) -> (Vec<u64>, u64) {
    let mut game = first;
    let mut last_ply = None;
    let mut out = Vec::with_capacity(samples.len());
    for s in samples {
        let ply = s.position.move_number();
        match last_ply {
            Some(p) if ply > p => {}
            Some(_) => game += 1,
            None => {}
        }
        last_ply = Some(ply);
        out.push(game);
    }
    let next = if samples.is_empty() { first } else { game + 1 };
    (out, next)
}

/// A dataset folder of position rows being written: `rows/NAME.svm` per
/// part (a position file, a game), then `dataset.toml` by
/// [`PositionRows::finish`]. The folder is locked while it is written, and
/// `dataset.toml` is absent until the end (a folder with one holds a
/// finished run).
pub struct PositionRows {
    dir: PathBuf,
    features: Features,
    labels: RowLabels,
    qid: bool,
    names: Vec<String>,
    rows: u64,
    nonzeros: u64,
    next_game: u64,
    _lock: OutputLock,
}

impl PositionRows {
    /// Starts writing `dir` (`what` names the command in the lock).
    pub fn create(
        dir: &Path,
        features: Features,
        labels: RowLabels,
        qid: bool,
        what: &str,
    ) -> io::Result<Self> {
        fs::create_dir_all(dir.join(ROWS_DIR))?;
        let lock = OutputLock::acquire(dir, what)?;
        remove_if_present(&dir.join(DATASET_TOML))?;
        Ok(Self {
            dir: dir.to_path_buf(),
            features,
            labels,
            qid,
            names: Vec::new(),
            rows: 0,
            nonzeros: 0,
            next_game: 1,
            _lock: lock,
        })
    }

    /// Writes `rows/NAME.svm`: the rows of `samples` at their quiescence
    /// leaves ([`Leaves::build`], as the learner builds them), in order, with
    /// a game number per run of rising plies ([`games_by_ply`]).
    pub fn write(&mut self, name: &str, samples: &[Sample]) -> io::Result<()> {
        let leaves = Leaves::build(&self.features, &Material, samples);
        let (games, next) = games_by_ply(samples, self.next_game);
        self.next_game = next;
        let path = rows_path(&self.dir, name);
        let tmp = temp_path(&path);
        let mut out = BufWriter::new(fs::File::create(&tmp)?);
        let qid = self.qid.then_some(&games[..]);
        let (rows, nonzeros) = write_rows(&mut out, &leaves, &self.labels, qid)?;
        out.into_inner().map_err(|e| e.into_error())?;
        fs::rename(&tmp, &path)?;
        self.rows += rows;
        self.nonzeros += nonzeros;
        self.names.push(name.to_string());
        Ok(())
    }

    /// Writes one part per position file of `files` ([`Self::write`]), named
    /// by the files' stems as `extract` names its parts (made unique when two
    /// folders hold the same names); returns the records that did not decode.
    pub fn write_files(&mut self, files: &[PathBuf]) -> Result<u64, Box<dyn std::error::Error>> {
        let mut bad = 0;
        for (file, name) in files.iter().zip(crate::extract::file_stems(files)) {
            let (samples, skipped) =
                super::samples_from_position_files(std::slice::from_ref(file))?;
            bad += skipped;
            self.write(&name, &samples)?;
        }
        Ok(bad)
    }

    /// Removes row files this run did not write and writes `dataset.toml`:
    /// `teacher` (and `teacher_depth`) say where the scores came from,
    /// `skip_opening` the first ply labelled.
    pub fn finish(
        self,
        teacher: &str,
        teacher_depth: Option<u32>,
        skip_opening: usize,
    ) -> io::Result<DatasetInfo> {
        for entry in fs::read_dir(self.dir.join(ROWS_DIR))? {
            let path = entry?.path();
            let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
            let ours = stem.is_some_and(|s| self.names.contains(&s));
            if path.extension().is_some_and(|e| e == "svm") && !ours {
                fs::remove_file(&path)?;
            }
        }
        let info = DatasetInfo {
            format: FORMAT.into(),
            dimension: u64::from(self.features.dimension()),
            features: self.features.name(),
            rows: self.rows,
            nonzeros: self.nonzeros,
            games: self.next_game - 1,
            failed: 0,
            qid: self.qid,
            rows_at: "position".into(),
            skip_opening: skip_opening as u64,
            max_plies: None,
            shard: "0/1".into(),
            program: format!("kifulearn {}", env!("CARGO_PKG_VERSION")),
            label: None,
            target: Some(TargetInfo {
                target: self.labels.target.name().into(),
                result_weight: self.labels.lambda,
                eval_k: self.labels.eval_k,
                scale: f64::from(LABEL_SCALE),
                teacher: teacher.into(),
                teacher_depth,
            }),
            prior: None,
            prior_hash: None,
        };
        info.write(&self.dir)?;
        Ok(info)
    }
}
