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
//! `t = λ·r + (1 − λ)·σ(s / K)` is the learner's ([`Target`]).

use std::io::{self, Write};

use super::{Leaves, PositionsParams, Sample, Target};
use crate::eval::EVAL_LIMIT;
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
