//! Dual coordinate descent for the L2-loss ε-SVR (liblinear `-s 12`,
//! `solve_l2r_l1l2_svr`; Algorithm 4 of Ho & Lin 2012), with a random
//! permutation per epoch and shrinking.
//!
//! Dual: `min_β ½βᵀ(Q + λI)β − Σ yᵢβᵢ + p Σ|βᵢ|`, `Q = XXᵀ`, `λ = 1/(2C)`,
//! and `w = Σ βᵢ xᵢ` is kept up to date so each coordinate costs one sparse
//! dot product and one sparse update. The coordinate updates are sequential
//! by nature (so the weights do not depend on the number of threads); the
//! per-row norms, the objectives and the duality gap run on the rayon pool,
//! with sums in fixed chunks ([`chunked_sum`]).
//!
//! Two stopping rules: liblinear's (the epoch's summed projected-gradient
//! violation against the first epoch's, [`DualParams::eps`]) and the duality
//! gap ([`DualParams::gap`]): since `f(w) ≥ f* ≥ −D(β)` for the primal `f` and
//! the dual `D`, `f(w) + D(β) ≤ gap · f(w)` certifies `f(w) ≤ f*/(1 − gap)`
//! whatever the data's scale.

use std::time::Instant;

use rayon::prelude::*;

use super::objective::{chunked_sum, prefetch, primal_value, Rows};
use super::Progress;
use crate::libsvm::Value;
use crate::rng::SplitMix64;

/// Outcome of [`dual_cd`].
#[derive(Debug, Clone, Copy)]
pub struct DualResult {
    /// Epochs (passes over the active rows).
    pub iterations: usize,
    /// Final dual objective value (liblinear's printed `Objective value`).
    pub dual_objective: f64,
    /// Stopped because `max_iter` epochs were run, not because the tolerance
    /// was met (liblinear's "reaching max number of iterations").
    pub reached_max_iter: bool,
    /// Stopped because the duality gap stalled ([`DualParams::handoff`]):
    /// `w` is a start for the primal solver, not an answer.
    pub handed_off: bool,
}

/// Problem and stopping parameters of [`dual_cd`].
#[derive(Debug, Clone, Copy)]
pub struct DualParams {
    /// C.
    pub c: f64,
    /// Tube width p.
    pub p: f64,
    /// Relative projected-gradient tolerance (liblinear's rule; 0: off).
    pub eps: f64,
    /// Stop when the duality gap `f(w) + D(β)` is at most `gap · f(w)` (0: off).
    /// Checked after every epoch at the cost of one pass of products `X w`.
    pub gap: f64,
    /// With `gap`: stop early, [`DualResult::handed_off`], when an epoch
    /// (from the third) shrinks the projected-gradient sum by less than a
    /// quarter (it halves every epoch where the dual does well), or when the
    /// relative gap is still over 1% after [`HANDOFF_EPOCHS`] epochs. Coordinate
    /// descent is slow on strongly correlated rows (the siblings of one
    /// position share most features): there Newton's method finishes faster.
    pub handoff: bool,
    /// Maximum epochs.
    pub max_iter: usize,
}

/// The gap is checked once the epoch's projected-gradient sum is at most
/// this fraction of the first epoch's (before, it is near 1 on every data
/// set tried: the primal value lags the dual's).
pub const GAP_CHECK: f64 = 0.01;

/// Epochs after which [`DualParams::handoff`] gives up on a gap still over 1%.
pub const HANDOFF_EPOCHS: usize = 30;

/// Solves from `w = 0` (written into `w`); stops when the summed projected
/// gradient violation of an epoch falls to `eps` times that of the first
/// epoch, on the full (unshrunk) set, as liblinear does, or when the duality
/// gap falls to `gap` (either rule may be off).
pub fn dual_cd<V: Value>(
    rows: &Rows<V>,
    y: &[f64],
    params: DualParams,
    w: &mut [f64],
    progress: &mut dyn FnMut(&Progress),
) -> DualResult {
    let DualParams {
        c,
        p,
        eps,
        gap,
        handoff,
        max_iter,
    } = params;
    let mut last_gnorm1 = f64::INFINITY;
    let mut handed_off = false;
    let start = Instant::now();
    let l = rows.len();
    let lambda = 0.5 / c;
    let mut beta = vec![0.0f64; l];
    let qd: Vec<f64> = (0..l)
        .into_par_iter()
        .with_min_len(1024)
        .map(|i| rows.norm_sq(i) + lambda)
        .collect();
    let mut index: Vec<u32> = (0..l as u32).collect();
    w.iter_mut().for_each(|v| *v = 0.0);
    let mut rng = SplitMix64(1);
    let mut active = l;
    let mut gmax_old = f64::INFINITY;
    let mut gnorm1_init = -1.0;
    let mut iter = 0;
    let mut converged = false;
    while iter < max_iter {
        let mut gmax_new = 0.0f64;
        let mut gnorm1_new = 0.0;
        for i in 0..active {
            let j = i + rng.below(active - i);
            index.swap(i, j);
        }
        let mut s = 0;
        while s < active {
            // The rows come in random order, so their weights are cache
            // misses: fetch the row after next's entries and the next row's
            // weights while this one is computed (hints only: a row moved by
            // shrinking just makes one hint useless).
            if s + 2 < active {
                rows.prefetch_row(index[s + 2] as usize);
            }
            if s + 1 < active {
                let next = index[s + 1] as usize;
                rows.prefetch_weights(next, w);
                prefetch(beta.as_ptr().wrapping_add(next));
                prefetch(qd.as_ptr().wrapping_add(next));
                prefetch(y.as_ptr().wrapping_add(next));
            }
            let i = index[s] as usize;
            let h = qd[i];
            let g = rows.dot(i, w) - y[i] + lambda * beta[i];
            let (gp, gn) = (g + p, g - p);
            let b = beta[i];
            let violation = if b == 0.0 {
                if gp < 0.0 {
                    -gp
                } else if gn > 0.0 {
                    gn
                } else if gp > gmax_old && gn < -gmax_old {
                    active -= 1;
                    index.swap(s, active);
                    continue;
                } else {
                    0.0
                }
            } else if b > 0.0 {
                gp.abs()
            } else {
                gn.abs()
            };
            gmax_new = gmax_new.max(violation);
            gnorm1_new += violation;
            let d = if gp < h * b {
                -gp / h
            } else if gn > h * b {
                -gn / h
            } else {
                -b
            };
            s += 1;
            if d.abs() < 1.0e-12 {
                continue;
            }
            beta[i] = b + d;
            rows.axpy(i, d, w);
        }
        if iter == 0 {
            gnorm1_init = gnorm1_new;
        }
        iter += 1;
        let dual = dual_value(w, &beta, y, lambda, p);
        // The gap is near 1 until the projected gradient has fallen a
        // hundredfold (the primal value lags): skip its pass over the rows until then.
        let check = gnorm1_new <= GAP_CHECK * gnorm1_init || iter + 1 >= HANDOFF_EPOCHS;
        let relative = (gap > 0.0 && check).then(|| {
            let primal = primal_value(rows, y, c, p, w);
            (primal + dual) / primal
        });
        progress(&Progress {
            solver: "dual",
            iteration: iter,
            objective: -dual,
            gradient_norm: gnorm1_new,
            seconds: start.elapsed().as_secs_f64(),
            gap: relative,
        });
        if relative.is_some_and(|r| r <= gap) {
            converged = true;
            break;
        }
        if handoff && gap > 0.0 {
            let stalled = iter >= 3 && gnorm1_new > 0.75 * last_gnorm1;
            let slow = iter >= HANDOFF_EPOCHS && relative.is_some_and(|r| r > 0.01);
            if stalled || slow {
                handed_off = true;
                break;
            }
        }
        last_gnorm1 = gnorm1_new;
        if gnorm1_new <= eps * gnorm1_init {
            if active == l {
                converged = true;
                break;
            }
            active = l;
            gmax_old = f64::INFINITY;
            continue;
        }
        gmax_old = gmax_new;
    }
    DualResult {
        iterations: iter,
        dual_objective: dual_value(w, &beta, y, lambda, p),
        reached_max_iter: !converged && !handed_off,
        handed_off,
    }
}

/// liblinear's printed dual objective: `½‖w‖² + Σ (p|βᵢ| − yᵢβᵢ + ½λβᵢ²)`.
fn dual_value(w: &[f64], beta: &[f64], y: &[f64], lambda: f64, p: f64) -> f64 {
    let ww = chunked_sum(w.len(), |j| w[j] * w[j]);
    let rest = chunked_sum(beta.len(), |i| {
        let b = beta[i];
        p * b.abs() - y[i] * b + 0.5 * lambda * b * b
    });
    0.5 * ww + rest
}
