//! Newton's method with line search on the primal, after liblinear ≥ 2.4's
//! `newton.cpp` (Galli & Lin, "A study on truncated Newton methods for linear
//! classification", 2021), minimising any [`Objective`].
//!
//! Two choices differ from liblinear's, both measured on the synthetic rows
//! of `gen_synthetic.py` (integer values 1–10, far more columns than rows),
//! where liblinear 2.3's TRON and 2.50's Newton both stall 28–36% above the
//! optimum at their default tolerance:
//!
//! * the Newton system is solved to a relative residual of
//!   [`NewtonParams::eps_cg`] = 0.01 (liblinear: a quadratic-model rule with
//!   0.5, which stops after 2 CG steps here and leaves a direction barely
//!   better than the gradient on a Hessian whose eigenvalues span 1 to
//!   `1 + 2C‖xᵢ‖²` ≈ 8000);
//! * the step length is the exact minimiser along the direction (the
//!   objective is piecewise quadratic in the step, see
//!   [`Objective::line_search`]), not halving from 1: an accurate Newton step
//!   pushes many rows across the tube edge, where the curvature jumps from 0
//!   to 2C, so the best step is often 0.1–0.5.

use std::time::Instant;

use super::objective::Objective;
use super::Progress;

/// Stopping and CG parameters of [`newton`].
#[derive(Debug, Clone, Copy)]
pub struct NewtonParams {
    /// Stop when `‖∇f(w)‖ ≤ eps ‖∇f(0)‖` (liblinear's rule for SVR; 0: off).
    pub eps: f64,
    /// Stop when `‖∇f(w)‖² / 2 ≤ gap · f(w)` (0: off). For an objective with
    /// `½‖w‖²` in it (1-strongly convex), `f(w) − f* ≤ ‖∇f(w)‖² / 2`, so this
    /// certifies `f(w) ≤ f* / (1 − gap)` whatever the data's scale, where the
    /// relative-gradient rule does not: on `gen_synthetic.py` rows
    /// `eps = 1e-4` stops 1.2% above the optimum.
    pub gap: f64,
    /// CG stops when `‖r‖_{M⁻¹} ≤ eps_cg ‖∇f(w)‖_{M⁻¹}`.
    pub eps_cg: f64,
    /// Maximum number of Newton steps.
    pub max_iter: usize,
}

impl Default for NewtonParams {
    fn default() -> Self {
        NewtonParams {
            eps: 0.0,
            gap: DEFAULT_GAP,
            eps_cg: 0.01,
            max_iter: 1000,
        }
    }
}

/// The default stopping rule's certified relative objective gap (0.05%).
pub const DEFAULT_GAP: f64 = 5e-4;

/// Outcome of [`newton`].
#[derive(Debug, Clone, Copy)]
pub struct NewtonResult {
    /// Newton steps taken.
    pub iterations: usize,
    /// Conjugate-gradient steps (Hessian-vector products) over all Newton steps.
    pub cg_iterations: usize,
    /// `f(w)` at the returned `w`.
    pub objective: f64,
    /// `‖∇f(w)‖`.
    pub gradient_norm: f64,
    /// Stopped because `max_iter` steps were taken, not on a stopping rule
    /// (nor on a step that no longer decreases `f`).
    pub reached_max_iter: bool,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
}

/// Weight of the Hessian diagonal in the preconditioner `M = (1 − a) I + a diag(H)` (liblinear's).
const ALPHA_PCG: f64 = 0.01;

/// Most CG steps in one Newton step: a cap against rounding keeping the
/// residual above the tolerance forever (in exact arithmetic CG ends within
/// `n` steps); the partial direction is still a descent direction.
const MAX_CG_ITERATIONS: usize = 1000;

/// Minimises `f` from `w` (updated in place); calls `progress` once per Newton step.
pub fn newton<F: Objective>(
    f: &mut F,
    w: &mut [f64],
    params: NewtonParams,
    progress: &mut dyn FnMut(&Progress),
) -> NewtonResult {
    let n = f.dimension();
    let start = Instant::now();
    let mut g = vec![0.0; n];
    let mut s = vec![0.0; n];
    let mut m = vec![0.0; n];
    let mut cg = CgWork::new(n);

    // ‖∇f(0)‖ for the relative stopping rule.
    let zero = vec![0.0; n];
    f.value(&zero);
    f.gradient(&zero, &mut g);
    let gnorm0 = dot(&g, &g).sqrt();
    drop(zero);

    let mut fw = f.value(w);
    f.gradient(w, &mut g);
    let mut gnorm = dot(&g, &g).sqrt();
    let mut iterations = 0;
    let mut cg_total = 0;
    let done = |fw: f64, gnorm: f64| {
        gnorm <= params.eps * gnorm0 || 0.5 * gnorm * gnorm <= params.gap * fw
    };
    let mut stalled = false;
    while iterations < params.max_iter && !done(fw, gnorm) {
        f.diag_precond(&mut m);
        m.iter_mut()
            .for_each(|v| *v = (1.0 - ALPHA_PCG) + ALPHA_PCG * *v);
        cg_total += pcg(f, params.eps_cg, &g, &m, &mut s, &mut cg);
        let Some((step, fnew)) = f.line_search(w, &s, fw, &g) else {
            stalled = true;
            break;
        };
        axpy(step, &s, w);
        let actred = fw - fnew;
        fw = fnew;
        // The line search left the cached products at the new w.
        f.gradient(w, &mut g);
        gnorm = dot(&g, &g).sqrt();
        iterations += 1;
        progress(&Progress {
            solver: "primal",
            iteration: iterations,
            objective: fw,
            gradient_norm: gnorm,
            seconds: start.elapsed().as_secs_f64(),
            gap: None,
        });
        if fw < -1.0e32 || actred.abs() <= 1.0e-12 * fw.abs() {
            stalled = true;
            break;
        }
    }
    NewtonResult {
        iterations,
        cg_iterations: cg_total,
        objective: fw,
        gradient_norm: gnorm,
        reached_max_iter: !stalled && !done(fw, gnorm),
    }
}

struct CgWork {
    r: Vec<f64>,
    d: Vec<f64>,
    hd: Vec<f64>,
    z: Vec<f64>,
}

impl CgWork {
    fn new(n: usize) -> Self {
        CgWork {
            r: vec![0.0; n],
            d: vec![0.0; n],
            hd: vec![0.0; n],
            z: vec![0.0; n],
        }
    }
}

/// Preconditioned CG on `H s = −g`; returns the number of CG steps.
fn pcg<F: Objective>(
    f: &mut F,
    eps_cg: f64,
    g: &[f64],
    m: &[f64],
    s: &mut [f64],
    work: &mut CgWork,
) -> usize {
    let CgWork { r, d, hd, z } = work;
    for i in 0..g.len() {
        s[i] = 0.0;
        r[i] = -g[i];
        z[i] = r[i] / m[i];
        d[i] = z[i];
    }
    let mut z_t_r = dot(z, r);
    let cgtol = eps_cg * z_t_r.sqrt();
    let mut cg_iter = 0;
    while cg_iter < MAX_CG_ITERATIONS && z_t_r.sqrt() > cgtol {
        cg_iter += 1;
        f.hessian_vec(d, hd);
        let d_hd = dot(d, hd);
        if !(d_hd > 1e-16 && d_hd.is_finite()) {
            break;
        }
        let alpha = z_t_r / d_hd;
        axpy(alpha, d, s);
        axpy(-alpha, hd, r);
        for i in 0..r.len() {
            z[i] = r[i] / m[i];
        }
        let znew = dot(z, r);
        let beta = znew / z_t_r;
        d.iter_mut()
            .zip(z.iter())
            .for_each(|(d, z)| *d = beta * *d + z);
        z_t_r = znew;
    }
    cg_iter
}
