//! The smooth objective seen by the Newton solver, and the L2-loss SVR one.
//!
//! Follows liblinear's `function` interface (`fun`, `grad`, `Hv`,
//! `get_diagH`), so [`super::newton::newton`] never knows which loss it minimises.

use rayon::prelude::*;

use crate::libsvm::{CompactCsr, Value, Values};

/// A twice-differentiable (or generalized-Hessian) objective over `w ∈ R^n`.
///
/// Calls come in liblinear's order: `value(w)` then `gradient(w)` at the same
/// `w`, then any number of `hessian_vec`/`diag_precond` at that `w`; an
/// implementation may cache what `value` computed.
pub trait Objective {
    /// Number of variables `n`.
    fn dimension(&self) -> usize;
    /// `f(w)`.
    fn value(&mut self, w: &[f64]) -> f64;
    /// `∇f(w)` into `g` (after `value(w)`).
    fn gradient(&mut self, w: &[f64], g: &mut [f64]);
    /// `∇²f(w) s` into `hs` (generalized Hessian for piecewise-quadratic losses).
    fn hessian_vec(&mut self, s: &[f64], hs: &mut [f64]);
    /// The diagonal of `∇²f(w)` into `m`, for the preconditioner.
    fn diag_precond(&mut self, m: &mut [f64]);
    /// A step length `α > 0` along the descent direction `s` from `w`, where
    /// `f = f(w)` and `g = ∇f(w)`, with `f(w + αs)`; `None` if no step of
    /// sufficient decrease was found. On `Some`, the cache is left at
    /// `w + αs` (as `value(w + αs)` would); on `None`, at `w`.
    ///
    /// This default halves from 1 until Armijo's condition
    /// `f(w + αs) ≤ f + 0.01 α gᵀs` holds (liblinear's, at most 20 tries).
    fn line_search(&mut self, w: &[f64], s: &[f64], f: f64, g: &[f64]) -> Option<(f64, f64)> {
        let gs: f64 = g.iter().zip(s).map(|(a, b)| a * b).sum();
        let mut w_new = vec![0.0; w.len()];
        let mut alpha = 1.0;
        for _ in 0..20 {
            for ((n, &w), &s) in w_new.iter_mut().zip(w).zip(s) {
                *n = w + alpha * s;
            }
            let f_new = self.value(&w_new);
            if f_new - f <= ARMIJO * alpha * gs {
                return Some((alpha, f_new));
            }
            alpha *= 0.5;
        }
        self.value(w);
        None
    }
}

/// Sufficient-decrease constant of the line searches (liblinear's η = 0.01).
const ARMIJO: f64 = 0.01;

/// Rows per chunk of [`chunked_sum`]: chunk boundaries depend only on the
/// number of terms, so a sum is the same bits whatever the number of threads.
pub const SUM_CHUNK: usize = 4096;

/// `Σ_{i<n} f(i)` in parallel and deterministic: fixed chunks of
/// [`SUM_CHUNK`] terms summed in order, then the chunk sums in order.
pub fn chunked_sum(n: usize, f: impl Fn(usize) -> f64 + Sync) -> f64 {
    let (a, _) = chunked_sum2(n, |i| (f(i), 0.0));
    a
}

/// Two sums at once, as [`chunked_sum`].
pub fn chunked_sum2(n: usize, f: impl Fn(usize) -> (f64, f64) + Sync) -> (f64, f64) {
    let parts: Vec<(f64, f64)> = (0..n.div_ceil(SUM_CHUNK))
        .into_par_iter()
        .map(|c| {
            let (mut a, mut b) = (0.0, 0.0);
            for i in c * SUM_CHUNK..((c + 1) * SUM_CHUNK).min(n) {
                let (x, y) = f(i);
                a += x;
                b += y;
            }
            (a, b)
        })
        .collect();
    parts
        .iter()
        .fold((0.0, 0.0), |(a, b), &(x, y)| (a + x, b + y))
}

/// `a · b`, deterministic ([`chunked_sum`]).
pub fn par_dot(a: &[f64], b: &[f64]) -> f64 {
    chunked_sum(a.len().min(b.len()), |i| a[i] * b[i])
}

/// Rows of a CSR matrix with an optional constant bias feature appended as
/// the last variable (liblinear's `-B`: regularised like any other weight).
/// Values are `u8` or `f32` ([`Value`]); every product is taken in `f64`.
pub struct Rows<'a, V: Value> {
    indptr: &'a [u32],
    indices: &'a [u32],
    values: &'a [V],
    cols: usize,
    bias: Option<f64>,
}

/// A prefetch hint for the cache line holding `p` (x86-64; nothing elsewhere).
/// Prefetching never faults, whatever the address.
#[inline(always)]
pub fn prefetch<T>(p: *const T) {
    #[cfg(target_arch = "x86_64")]
    #[allow(unused_unsafe)]
    // SAFETY: a prefetch is a hint; it reads nothing and cannot fault.
    unsafe {
        core::arch::x86_64::_mm_prefetch::<{ core::arch::x86_64::_MM_HINT_T0 }>(p as *const i8);
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

impl<V: Value> Clone for Rows<'_, V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V: Value> Copy for Rows<'_, V> {}

/// A view of a [`CompactCsr`] whatever its value type: the solvers are
/// generic over [`Value`] and [`RowsOf::with`] picks the instance.
pub enum RowsOf<'a> {
    /// `u8` values.
    U8(Rows<'a, u8>),
    /// `f32` values.
    F32(Rows<'a, f32>),
}

/// A computation over rows of any value type (what [`RowsOf::with`] runs).
pub trait RowsTask {
    /// The result.
    type Out;
    /// Runs on the rows.
    fn run<V: Value>(self, rows: Rows<'_, V>) -> Self::Out;
}

impl<'a> RowsOf<'a> {
    /// Views `x`; `bias` < 0 means no bias feature.
    pub fn new(x: &'a CompactCsr, bias: f64) -> RowsOf<'a> {
        let bias = (bias >= 0.0).then_some(bias);
        let (indptr, indices, cols) = (x.indptr(), x.indices(), x.cols());
        match x.values() {
            Values::U8(values) => RowsOf::U8(Rows {
                indptr,
                indices,
                values,
                cols,
                bias,
            }),
            Values::F32(values) => RowsOf::F32(Rows {
                indptr,
                indices,
                values,
                cols,
                bias,
            }),
        }
    }

    /// Runs `task` on the rows with their value type.
    pub fn with<T: RowsTask>(self, task: T) -> T::Out {
        match self {
            RowsOf::U8(r) => task.run(r),
            RowsOf::F32(r) => task.run(r),
        }
    }
}

impl<'a> Rows<'a, f32> {
    /// Views an `f32` CSR matrix given by its parts; `bias` < 0 means no bias feature.
    pub fn from_parts(
        indptr: &'a [u32],
        indices: &'a [u32],
        values: &'a [f32],
        cols: usize,
        bias: f64,
    ) -> Rows<'a, f32> {
        Rows {
            indptr,
            indices,
            values,
            cols,
            bias: (bias >= 0.0).then_some(bias),
        }
    }
}

impl<'a, V: Value> Rows<'a, V> {
    /// The same rows with other column indices (`indices`, one per nonzero,
    /// ascending within each row) and `cols` columns: the view of a column
    /// renumbering.
    pub fn renumbered<'b>(&self, indices: &'b [u32], cols: usize) -> Rows<'b, V>
    where
        'a: 'b,
    {
        assert_eq!(indices.len(), self.indices.len());
        Rows {
            indptr: self.indptr,
            indices,
            values: self.values,
            cols,
            bias: self.bias,
        }
    }

    /// Column indices of every nonzero, row after row.
    pub fn indices(&self) -> &'a [u32] {
        self.indices
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.indptr.len() - 1
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Number of columns (without the bias).
    pub fn cols(&self) -> usize {
        self.cols
    }

    /// The bias feature's value, if any.
    pub fn bias(&self) -> Option<f64> {
        self.bias
    }

    /// Number of weights: columns, plus one for the bias.
    pub fn dimension(&self) -> usize {
        self.cols + usize::from(self.bias.is_some())
    }

    /// Row `i` as (columns, values).
    #[inline]
    pub fn row(&self, i: usize) -> (&'a [u32], &'a [V]) {
        let (a, b) = (self.indptr[i] as usize, self.indptr[i + 1] as usize);
        (&self.indices[a..b], &self.values[a..b])
    }

    /// `w · x_i` (with the bias feature).
    #[inline]
    pub fn dot(&self, i: usize, w: &[f64]) -> f64 {
        let (idx, val) = self.row(i);
        let mut s = 0.0;
        for (&j, &v) in idx.iter().zip(val) {
            s += w[j as usize] * v.to_f64();
        }
        if let Some(b) = self.bias {
            s += w[self.cols] * b;
        }
        s
    }

    /// `y += a x_i`.
    #[inline]
    pub fn axpy(&self, i: usize, a: f64, y: &mut [f64]) {
        let (idx, val) = self.row(i);
        for (&j, &v) in idx.iter().zip(val) {
            y[j as usize] += a * v.to_f64();
        }
        if let Some(b) = self.bias {
            y[self.cols] += a * b;
        }
    }

    /// Asks the cache for row `i`'s first indices and values (a hint: no
    /// effect on any result).
    #[inline(always)]
    pub fn prefetch_row(&self, i: usize) {
        let a = self.indptr[i] as usize;
        prefetch(self.indices.as_ptr().wrapping_add(a));
        prefetch(self.values.as_ptr().wrapping_add(a));
    }

    /// Asks the cache for the weights `w[j]` of row `i`'s columns (a hint).
    #[inline(always)]
    pub fn prefetch_weights(&self, i: usize, w: &[f64]) {
        let (idx, _) = self.row(i);
        for &j in idx {
            prefetch(w.as_ptr().wrapping_add(j as usize));
        }
    }

    /// `‖x_i‖²` (with the bias feature).
    pub fn norm_sq(&self, i: usize) -> f64 {
        let (_, val) = self.row(i);
        val.iter().map(|&v| v.to_f64() * v.to_f64()).sum::<f64>() + self.bias.map_or(0.0, |b| b * b)
    }

    /// `z_i = w · x_i` for all rows, in parallel.
    pub fn products(&self, w: &[f64], z: &mut [f64]) {
        z.par_iter_mut()
            .enumerate()
            .with_min_len(1024)
            .for_each(|(i, zi)| *zi = self.dot(i, w));
    }
}

/// `Σ max(0, |rᵢ| − p)²` over the residuals `r(i)`, `i < n`: the loss part of
/// the primal objective, in parallel and deterministic ([`chunked_sum`]). The
/// one definition of the tube loss, for the objective, its evaluation at a
/// point ([`primal_value`], [`L2SvrObjective`]) and along a Newton direction.
fn tube_loss(n: usize, p: f64, residual: impl Fn(usize) -> f64 + Sync) -> f64 {
    chunked_sum(n, |i| {
        let d = residual(i).abs() - p;
        if d > 0.0 {
            d * d
        } else {
            0.0
        }
    })
}

/// `½‖w‖² + C·loss`: the primal objective assembled from its loss.
fn regularized(w: &[f64], c: f64, loss: f64) -> f64 {
    0.5 * w.iter().map(|v| v * v).sum::<f64>() + c * loss
}

/// The exact primal objective `½‖w‖² + C Σ max(0, |y_i − w·x_i| − p)²`, in
/// parallel and deterministic ([`chunked_sum`]).
pub fn primal_value<V: Value>(rows: &Rows<V>, y: &[f64], c: f64, p: f64, w: &[f64]) -> f64 {
    let loss = tube_loss(rows.len(), p, |i| rows.dot(i, w) - y[i]);
    regularized(w, c, loss)
}

/// liblinear's `l2r_l2_svr_fun`: the L2-loss ε-SVR primal, with the heavy
/// products `Xv` and `X_Iᵀv` spread over rows on the rayon pool.
///
/// Deterministic given the pool's size: `X_Iᵀv` splits the active rows into
/// one fixed slice per thread, each summed into its own accumulator, and the
/// accumulators are added in order; scalar sums use [`chunked_sum`], whose
/// chunks do not depend on the pool at all.
pub struct L2SvrObjective<'a, V: Value> {
    rows: Rows<'a, V>,
    y: &'a [f64],
    c: f64,
    p: f64,
    /// `w · x_i` after `value`, then per-row coefficients after `gradient`.
    z: Vec<f64>,
    /// Rows with a nonzero loss at the current `w` (liblinear's index set I).
    active: Vec<u32>,
    coef: Vec<f64>,
    /// `s · x_i` for the line-search direction `s`.
    t: Vec<f64>,
    /// One accumulator per extra worker for `X_Iᵀv` (worker 0 writes the output).
    scratch: Vec<Vec<f64>>,
}

impl<'a, V: Value> L2SvrObjective<'a, V> {
    /// The objective for data `rows`, labels `y`, cost `c` and tube width `p`.
    pub fn new(rows: Rows<'a, V>, y: &'a [f64], c: f64, p: f64) -> Self {
        let l = rows.len();
        let workers = rayon::current_num_threads().max(1);
        let scratch = (1..workers).map(|_| vec![0.0; rows.dimension()]).collect();
        L2SvrObjective {
            rows,
            y,
            c,
            p,
            z: vec![0.0; l],
            active: Vec::with_capacity(l),
            coef: Vec::with_capacity(l),
            t: Vec::new(),
            scratch,
        }
    }

    /// `out = Σ_{k ∈ I} v_k x_{I_k}` computed in parallel over slices of I.
    fn sub_xtv(&mut self, v: &[f64], out: &mut [f64]) {
        let parts = self.scratch.len() + 1;
        let chunk = self.active.len().div_ceil(parts).max(1);
        let rows = &self.rows;
        let active = &self.active;
        let work = |k: usize, acc: &mut [f64]| {
            acc.iter_mut().for_each(|a| *a = 0.0);
            let lo = (k * chunk).min(active.len());
            let hi = ((k + 1) * chunk).min(active.len());
            for t in lo..hi {
                rows.axpy(active[t] as usize, v[t], acc);
            }
        };
        let (first, rest) = (out, &mut self.scratch);
        rayon::join(
            || work(0, first),
            || {
                rest.par_iter_mut()
                    .enumerate()
                    .for_each(|(k, acc)| work(k + 1, acc))
            },
        );
        let out = first;
        for acc in rest.iter() {
            out.par_iter_mut()
                .zip(acc.par_iter())
                .with_min_len(4096)
                .for_each(|(o, a)| *o += a);
        }
    }
}

impl<V: Value> Objective for L2SvrObjective<'_, V> {
    fn dimension(&self) -> usize {
        self.rows.dimension()
    }

    fn value(&mut self, w: &[f64]) -> f64 {
        self.rows.products(w, &mut self.z);
        let (y, p, z) = (self.y, self.p, &self.z);
        let loss = tube_loss(z.len(), p, |i| z[i] - y[i]);
        regularized(w, self.c, loss)
    }

    fn gradient(&mut self, w: &[f64], g: &mut [f64]) {
        self.active.clear();
        self.coef.clear();
        for (i, (&z, &y)) in self.z.iter().zip(self.y).enumerate() {
            let d = z - y;
            if d < -self.p {
                self.active.push(i as u32);
                self.coef.push(self.c * (d + self.p));
            } else if d > self.p {
                self.active.push(i as u32);
                self.coef.push(self.c * (d - self.p));
            }
        }
        let coef = std::mem::take(&mut self.coef);
        self.sub_xtv(&coef, g);
        self.coef = coef;
        g.par_iter_mut()
            .zip(w.par_iter())
            .with_min_len(4096)
            .for_each(|(g, &w)| *g = w + 2.0 * *g);
    }

    fn hessian_vec(&mut self, s: &[f64], hs: &mut [f64]) {
        let rows = &self.rows;
        let c = self.c;
        let mut xs = std::mem::take(&mut self.coef);
        xs.par_iter_mut()
            .zip(self.active.par_iter())
            .with_min_len(1024)
            .for_each(|(v, &i)| *v = c * rows.dot(i as usize, s));
        self.sub_xtv(&xs, hs);
        // The coefficient buffer is free once `gradient` has used it.
        self.coef = xs;
        hs.par_iter_mut()
            .zip(s.par_iter())
            .with_min_len(4096)
            .for_each(|(h, &s)| *h = s + 2.0 * *h);
    }

    /// The exact minimiser of `φ(α) = f(w + αs)`, a convex piecewise
    /// quadratic whose pieces change where a row crosses a tube edge: one
    /// product `t = Xs`, then safeguarded Newton steps on `φ′(α) = 0`, each
    /// O(rows) with `z = Xw` cached (liblinear 2.4 caches the same products
    /// for its halving search). Starts at α = 1 and keeps a bracket, so it
    /// ends in a few steps; falls back to halving if Armijo's condition fails.
    fn line_search(&mut self, w: &[f64], s: &[f64], f: f64, g: &[f64]) -> Option<(f64, f64)> {
        let (wts, sts, wtw, gts) = (par_dot(w, s), par_dot(s, s), par_dot(w, w), par_dot(g, s));
        if !(gts < 0.0 && gts.is_finite()) {
            return None;
        }
        self.t.resize(self.rows.len(), 0.0);
        self.rows.products(s, &mut self.t);
        let (z, t, y, c, p) = (&self.z, &self.t, self.y, self.c, self.p);
        // (φ′(α), φ″(α)) with the generalized second derivative.
        let slope = |a: f64| -> (f64, f64) {
            let (d1, d2) = chunked_sum2(z.len(), |i| {
                let d = z[i] + a * t[i] - y[i];
                let e = if d > p {
                    d - p
                } else if d < -p {
                    d + p
                } else {
                    return (0.0, 0.0);
                };
                (e * t[i], t[i] * t[i])
            });
            (wts + a * sts + 2.0 * c * d1, sts + 2.0 * c * d2)
        };
        let value = |a: f64| -> f64 {
            let loss = tube_loss(z.len(), p, |i| z[i] + a * t[i] - y[i]);
            0.5 * (wtw + 2.0 * a * wts + a * a * sts) + c * loss
        };
        let (mut lo, mut hi) = (0.0f64, f64::INFINITY);
        let mut a = 1.0f64;
        for _ in 0..60 {
            let (d1, d2) = slope(a);
            if d1.abs() <= 1e-9 * gts.abs() {
                break;
            }
            if d1 > 0.0 {
                hi = a;
            } else {
                lo = a;
            }
            let mut next = a - d1 / d2;
            if !(next > lo && next < hi) {
                next = if hi.is_finite() {
                    0.5 * (lo + hi)
                } else {
                    2.0 * a
                };
            }
            if (next - a).abs() <= 1e-12 * a {
                a = next;
                break;
            }
            a = next;
        }
        let mut f_new = value(a);
        let mut tries = 0;
        // Written so that a NaN value also halves.
        loop {
            if f_new - f <= ARMIJO * a * gts {
                break;
            }
            tries += 1;
            if tries > 20 {
                return None;
            }
            a *= 0.5;
            f_new = value(a);
        }
        let t = &self.t;
        self.z
            .par_iter_mut()
            .zip(t.par_iter())
            .with_min_len(4096)
            .for_each(|(z, &t)| *z += a * t);
        Some((a, f_new))
    }

    fn diag_precond(&mut self, m: &mut [f64]) {
        m.iter_mut().for_each(|v| *v = 1.0);
        for &i in &self.active {
            let i = i as usize;
            let (idx, val) = self.rows.row(i);
            for (&j, &v) in idx.iter().zip(val) {
                m[j as usize] += 2.0 * self.c * v.to_f64() * v.to_f64();
            }
            if let Some(b) = self.rows.bias {
                m[self.rows.cols] += 2.0 * self.c * b * b;
            }
        }
    }
}
