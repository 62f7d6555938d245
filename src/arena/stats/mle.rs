//! Maximum-likelihood distributions under a constraint, the core of the GSPRT,
//! as fishtest's `server/fishtest/stats/LLRcalc.py` computes them.
//!
//! A result is a distribution `p̂` on ascending `values` (the scores of a game,
//! or of a game pair halved). Under H0 or H1 the distribution must have a
//! given expected score (logistic Elo) or t-value (normalized Elo); the GSPRT
//! compares the empirical distribution's likelihood under the two
//! maximum-likelihood distributions that satisfy each constraint. Both have
//! the form `p̂_i / (1 + x φ_i)` with `x` the root of the secular equation
//! `Σ p̂_i φ_i / (1 + x φ_i) = 0` (M. Van den Bergh, "Comments on Normalized
//! Elo", Proposition 1.1 and section 4.1).

/// A result's counts, zeros replaced by 10⁻³ (fishtest's `regularize`), as
/// the regularized total and the probabilities (fishtest's `results_to_pdf`).
pub(super) fn regularized<const N: usize>(counts: [u32; N]) -> (f64, [f64; N]) {
    let counts = counts.map(|c| if c == 0 { 1e-3 } else { f64::from(c) });
    let total: f64 = counts.iter().sum();
    (total, counts.map(|c| c / total))
}

/// Mean and variance of `p` on `values` (fishtest's `stats`).
pub(super) fn mean_variance<const N: usize>(values: &[f64; N], p: &[f64; N]) -> (f64, f64) {
    let mean: f64 = (0..N).map(|i| p[i] * values[i]).sum();
    let variance = (0..N).map(|i| p[i] * (values[i] - mean).powi(2)).sum();
    (mean, variance)
}

/// The root of `Σ p_i φ_i / (1 + x φ_i) = 0` (fishtest's `secular`); `None`
/// unless `φ` has both signs.
///
/// The sum falls strictly from +∞ to −∞ between the poles `−1/max φ` and
/// `−1/min φ`, so bisection finds its one root to the last bits without ever
/// evaluating a pole (fishtest uses Brent's method on the same bracket,
/// shrunk by 10⁻⁹).
fn secular<const N: usize>(phi: &[f64; N], p: &[f64; N]) -> Option<f64> {
    let max = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let min = phi.iter().copied().fold(f64::INFINITY, f64::min);
    if !(min < 0.0 && max > 0.0) {
        return None;
    }
    let f = |x: f64| -> f64 { (0..N).map(|i| p[i] * phi[i] / (1.0 + x * phi[i])).sum() };
    let (mut lo, mut hi) = (-1.0 / max, -1.0 / min);
    for _ in 0..2000 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi || hi - lo <= f64::EPSILON * mid.abs().max(1.0) {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

/// The distribution with mean `s` closest (maximum likelihood) to `p̂`:
/// `p̂_i / (1 + x (a_i − s))` (fishtest's `MLE_expected`). `None` unless `s`
/// lies strictly between the first and last value.
pub(super) fn mle_expected<const N: usize>(
    values: &[f64; N],
    p_hat: &[f64; N],
    s: f64,
) -> Option<[f64; N]> {
    let phi = values.map(|a| a - s);
    let x = secular(&phi, p_hat)?;
    Some(std::array::from_fn(|i| p_hat[i] / (1.0 + x * phi[i])))
}

/// Iterations [`mle_t_value`] allows before giving up. fishtest stops after
/// 10 and then fails its own check when the iteration has not converged
/// (slow cases far from H0 and H1 need up to about 200); where fishtest's 10
/// suffice, the two agree.
const T_VALUE_ITERATIONS: usize = 1000;

/// The distribution with t-value `(μ − reference) / σ = t` closest (maximum
/// likelihood) to `p̂` (fishtest's `MLE_t_value`): from the uniform
/// distribution, repeatedly `p_i = p̂_i / (1 + x φ_i)` with
/// `φ_i = a_i − reference − t σ (1 + ((a_i − μ)/σ)²) / 2` taken at the previous
/// `p`, until no probability moves by 10⁻⁹. `None` when a step has no root
/// (φ of one sign: the uniform start already fails for `|t| > 0.94` on game
/// pairs) or the iteration does not settle.
pub(super) fn mle_t_value<const N: usize>(
    values: &[f64; N],
    p_hat: &[f64; N],
    reference: f64,
    t: f64,
) -> Option<[f64; N]> {
    let mut p = [1.0 / N as f64; N];
    for _ in 0..T_VALUE_ITERATIONS {
        let (mu, variance) = mean_variance(values, &p);
        let sigma = variance.sqrt();
        let phi =
            values.map(|a| a - reference - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0);
        let x = secular(&phi, p_hat)?;
        let next: [f64; N] = std::array::from_fn(|i| p_hat[i] / (1.0 + x * phi[i]));
        let moved = (0..N).map(|i| (next[i] - p[i]).abs()).fold(0.0, f64::max);
        p = next;
        if moved < 1e-9 {
            return Some(p);
        }
    }
    None
}

/// `total · Σ p̂_i ln(p1_i / p0_i)`: the log-likelihood ratio of H1 against H0
/// for `total` results distributed as `p̂` (fishtest's `LLR` times N).
pub(super) fn llr<const N: usize>(
    total: f64,
    p_hat: &[f64; N],
    p0: &[f64; N],
    p1: &[f64; N],
) -> f64 {
    total
        * (0..N)
            .map(|i| p_hat[i] * (p1[i].ln() - p0[i].ln()))
            .sum::<f64>()
}
