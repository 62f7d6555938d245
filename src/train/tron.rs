//! Trust-region Newton with preconditioned conjugate gradient (TRON), after
//! liblinear's `tron.cpp` (Lin & Moré 1999; Hsia, Chiang & Lin 2018 for the
//! preconditioner), minimising any [`Objective`].

use std::time::Instant;

use super::objective::Objective;
use super::Progress;

/// Stopping and CG parameters of [`tron`].
#[derive(Debug, Clone, Copy)]
pub struct TronParams {
    /// Stop when `‖∇f(w)‖ ≤ eps ‖∇f(0)‖`.
    pub eps: f64,
    /// CG stops when `‖r‖_{M⁻¹} ≤ eps_cg ‖g‖_{M⁻¹}` (liblinear: 0.1).
    pub eps_cg: f64,
    /// Maximum number of accepted Newton steps (liblinear: 1000).
    pub max_iter: usize,
}

/// Outcome of [`tron`].
#[derive(Debug, Clone, Copy)]
pub struct TronResult {
    /// Newton iterations taken.
    pub iterations: usize,
    /// `f(w)` at the returned `w`.
    pub objective: f64,
    /// `‖∇f(w)‖`.
    pub gradient_norm: f64,
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn u_m_v(u: &[f64], m: &[f64], v: &[f64]) -> f64 {
    u.iter().zip(m).zip(v).map(|((a, b), c)| a * b * c).sum()
}

fn axpy(a: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(y, x)| *y += a * x);
}

/// Minimises `f` from `w` (updated in place); calls `progress` once per iteration.
pub fn tron<F: Objective>(
    f: &mut F,
    w: &mut [f64],
    params: TronParams,
    progress: &mut dyn FnMut(&Progress),
) -> TronResult {
    let (eta0, eta1, eta2) = (1e-4, 0.25, 0.75);
    let (sigma1, sigma2, sigma3): (f64, f64, f64) = (0.25, 0.5, 4.0);
    const ALPHA_PCG: f64 = 0.01;
    let n = f.dimension();
    let start = Instant::now();
    let mut g = vec![0.0; n];
    let mut s = vec![0.0; n];
    let mut r = vec![0.0; n];
    let mut m = vec![0.0; n];
    let mut w_new = vec![0.0; n];
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
    let mut iter = 1;
    let mut delta = 0.0;
    let search = gnorm > params.eps * gnorm0;
    while iter <= params.max_iter && search {
        f.diag_precond(&mut m);
        m.iter_mut()
            .for_each(|v| *v = (1.0 - ALPHA_PCG) + ALPHA_PCG * *v);
        if iter == 1 {
            delta = u_m_v(&g, &m, &g).sqrt();
        }
        let (cg_iter, reach_boundary) =
            trpcg(f, params.eps_cg, delta, &g, &m, &mut s, &mut r, &mut cg);
        w_new.copy_from_slice(w);
        axpy(1.0, &s, &mut w_new);
        let gs = dot(&g, &s);
        let prered = -0.5 * (gs - dot(&s, &r));
        let fnew = f.value(&w_new);
        let actred = fw - fnew;
        let s_m_norm = u_m_v(&s, &m, &s).sqrt();
        if iter == 1 {
            delta = delta.min(s_m_norm);
        }
        let alpha = if fnew - fw - gs <= 0.0 {
            sigma3
        } else {
            sigma1.max(-0.5 * (gs / (fnew - fw - gs)))
        };
        delta = if actred < eta0 * prered {
            (alpha * s_m_norm).min(sigma2 * delta)
        } else if actred < eta1 * prered {
            (sigma1 * delta).max((alpha * s_m_norm).min(sigma2 * delta))
        } else if actred < eta2 * prered {
            (sigma1 * delta).max((alpha * s_m_norm).min(sigma3 * delta))
        } else if reach_boundary {
            sigma3 * delta
        } else {
            delta.max((alpha * s_m_norm).min(sigma3 * delta))
        };
        let _ = cg_iter;
        if actred > eta0 * prered {
            iter += 1;
            w.copy_from_slice(&w_new);
            fw = fnew;
            // `value(w_new)` above left the cache at the new w.
            f.gradient(w, &mut g);
            gnorm = dot(&g, &g).sqrt();
            progress(&Progress {
                solver: "primal",
                iteration: iter - 1,
                objective: fw,
                gradient_norm: gnorm,
                seconds: start.elapsed().as_secs_f64(),
            });
            if gnorm <= params.eps * gnorm0 {
                break;
            }
        }
        // A rejected step needs no recomputation: the Hessian products only
        // use the active set, which `gradient` fixed at the current w.
        if fw < -1.0e32 || prered <= 0.0 {
            break;
        }
        if actred.abs() <= 1.0e-12 * fw.abs() && prered.abs() <= 1.0e-12 * fw.abs() {
            break;
        }
    }
    TronResult {
        iterations: iter - 1,
        objective: fw,
        gradient_norm: gnorm,
    }
}

struct CgWork {
    d: Vec<f64>,
    hd: Vec<f64>,
    z: Vec<f64>,
}

impl CgWork {
    fn new(n: usize) -> Self {
        CgWork {
            d: vec![0.0; n],
            hd: vec![0.0; n],
            z: vec![0.0; n],
        }
    }
}

/// Most conjugate-gradient steps in one Newton iteration.
///
/// liblinear 2.3's `trpcg` loops until the residual is small, which in exact
/// arithmetic takes at most `n` steps; on relabelled relation rows (round 2 of
/// the quick start, 5M columns) rounding kept the residual above the tolerance
/// and one Newton step ran for minutes. The partial step is still a descent
/// direction inside the trust region, so stopping early only costs a Newton
/// iteration. Well-conditioned problems (all the tests, liblinear's own trace
/// on `small.svm`) stop long before this.
const MAX_CG_ITERATIONS: usize = 250;

/// Preconditioned CG on the trust-region subproblem; returns (iterations, hit the boundary).
#[allow(clippy::too_many_arguments)]
fn trpcg<F: Objective>(
    f: &mut F,
    eps_cg: f64,
    delta: f64,
    g: &[f64],
    m: &[f64],
    s: &mut [f64],
    r: &mut [f64],
    work: &mut CgWork,
) -> (usize, bool) {
    let CgWork { d, hd, z } = work;
    for i in 0..g.len() {
        s[i] = 0.0;
        r[i] = -g[i];
        z[i] = r[i] / m[i];
        d[i] = z[i];
    }
    let mut z_t_r = dot(z, r);
    let cgtol = eps_cg * z_t_r.sqrt();
    let mut cg_iter = 0;
    loop {
        if z_t_r.sqrt() <= cgtol || cg_iter >= MAX_CG_ITERATIONS {
            return (cg_iter, false);
        }
        cg_iter += 1;
        f.hessian_vec(d, hd);
        let d_hd = dot(d, hd);
        if !(d_hd > 0.0 && d_hd.is_finite()) {
            return (cg_iter, false);
        }
        let mut alpha = z_t_r / d_hd;
        axpy(alpha, d, s);
        let s_m_norm = u_m_v(s, m, s).sqrt();
        if s_m_norm > delta {
            axpy(-alpha, d, s);
            let std = u_m_v(s, m, d);
            let sts = u_m_v(s, m, s);
            let dtd = u_m_v(d, m, d);
            let dsq = delta * delta;
            let rad = (std * std + dtd * (dsq - sts)).sqrt();
            alpha = if std >= 0.0 {
                (dsq - sts) / (std + rad)
            } else {
                (rad - std) / dtd
            };
            axpy(alpha, d, s);
            axpy(-alpha, hd, r);
            return (cg_iter, true);
        }
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
}
