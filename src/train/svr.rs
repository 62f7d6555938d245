//! Training the L2-regularized L2-loss ε-SVR of liblinear `-s 11`/`-s 12`:
//!
//! `min_w f(w) = ½‖w‖² + C Σᵢ max(0, |yᵢ − w·xᵢ| − p)²`
//!
//! behind linfa's API: [`SvrParams`] (builder) → [`ParamGuard::check`] →
//! [`SvrValidParams`] → [`Fit`] on a [`SparseDataset`] → [`SvrModel`], which
//! implements [`PredictInplace`].
//!
//! | parameter | default | range | meaning |
//! |---|---|---|---|
//! | `c` | 1 | finite, > 0 | loss weight C |
//! | `p` | 0.1 | finite, ≥ 0 | tube width (liblinear's `-p`, epsilon) |
//! | `tolerance` | solver's: primal certified gap, dual 0.1 (liblinear's) | finite, > 0 | primal: stop at ‖∇f(w)‖ ≤ tol ‖∇f(0)‖ (unset: at ‖∇f(w)‖²/2 ≤ 5e-4 f(w), the objective within 0.05% of the optimum); dual: projected-gradient sum ≤ tol × first epoch's |
//! | `max_iterations` | 1000 | ≥ 1 | Newton steps (primal) or epochs (dual) |
//! | `bias` | -1 (none) | finite | constant feature appended to every row (`-B`), its weight regularised |
//! | `solver` | `Primal` | `Primal`, `Dual`, `Dense` | Newton with line search ([`newton`](super::newton)), dual CD, or linfa-linear on a dense copy |
//!
//! The `Dense` solver minimises the same objective with `p = 0` (squared
//! error) through `linfa_linear::TweedieRegressor` (power 0, identity link,
//! `alpha = 1/(2nC)`, the bias as an ordinary column); it ignores `p` and is
//! meant for small feature sets (at most [`DENSE_MAX_FEATURES`] columns).

use std::sync::Arc;

use linfa::dataset::Records;
use linfa::prelude::*;
use linfa::ParamGuard;
use ndarray::{Array1, Array2};
use sprs::CsMatI;

use super::objective::{primal_value, L2SvrObjective, Rows, RowsOf, RowsTask};
use super::progress::{Event, Observer, Quiet};
use super::TrainError;
use crate::libsvm::{ColumnMap, CompactCsr, UsedColumns, Value};
use crate::model::Model;

/// Largest column count the dense solver accepts.
pub const DENSE_MAX_FEATURES: usize = 4096;

/// A sparse design matrix (rows × features) as linfa records.
#[derive(Debug, Clone)]
pub struct SparseDataset(pub CsMatI<f32, u32>);

impl Records for SparseDataset {
    type Elem = f32;
    fn nsamples(&self) -> usize {
        self.0.rows()
    }
    fn nfeatures(&self) -> usize {
        self.0.cols()
    }
}

/// A sparse design matrix in compact form (`u8` or `f32` values, see
/// [`crate::libsvm::compact`]) as linfa records: what `fit` reads, at 5 bytes
/// a nonzero when the values are small integers. Fits exactly as
/// [`SparseDataset`] does on the same numbers.
#[derive(Debug, Clone)]
pub struct CompactDataset(pub CompactCsr);

impl Records for CompactDataset {
    type Elem = f32;
    fn nsamples(&self) -> usize {
        self.0.rows()
    }
    fn nfeatures(&self) -> usize {
        self.0.cols()
    }
}

/// Which optimizer minimises the objective (`fit svr --solver`, a recipe's
/// `[solver] name`: the lowercase variant name).
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum, serde::Deserialize, serde::Serialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Solver {
    /// Dual coordinate descent with the duality-gap stop, handing over to
    /// Newton's method on the primal (from the dual's weights) when it stalls
    /// ([`super::dual::DualParams::handoff`]): `fit`'s default (docs/svr.md).
    Auto,
    /// Newton with line search on the primal (liblinear `-s 11`'s objective;
    /// [`newton`](super::newton::newton)).
    Primal,
    /// Dual coordinate descent with shrinking (liblinear `-s 12`).
    Dual,
    /// linfa-linear on a dense copy (small feature sets; squared loss, `p` ignored).
    Dense,
}

impl Solver {
    /// liblinear's `solver_type` name for the model file.
    pub fn liblinear_name(self) -> &'static str {
        match self {
            Solver::Primal | Solver::Dense => "L2R_L2LOSS_SVR",
            Solver::Dual | Solver::Auto => "L2R_L2LOSS_SVR_DUAL",
        }
    }
}

/// One iteration's report, given to the observer as
/// [`Event::Iteration`].
#[derive(Debug, Clone, Copy)]
pub struct Progress {
    /// `"primal"` or `"dual"`.
    pub solver: &'static str,
    /// 1-based iteration (Newton step or epoch).
    pub iteration: usize,
    /// Primal: f(w). Dual: minus the dual objective (a lower bound on the primal optimum).
    pub objective: f64,
    /// Primal: ‖∇f(w)‖. Dual: the epoch's summed projected-gradient violation.
    pub gradient_norm: f64,
    /// Seconds since the solver started.
    pub seconds: f64,
    /// Dual with the gap stop: the relative duality gap `(f(w) + D(β)) / f(w)`
    /// after the epoch.
    pub gap: Option<f64>,
}

/// The observer the SVR's parameters hold (linfa's `Fit` takes no other
/// argument): shared, so the parameters stay `Clone`.
pub type SharedObserver = Arc<dyn Observer + Send>;

/// Checked hyper-parameters (see the module table).
#[derive(Clone)]
pub struct SvrValidParams {
    c: f64,
    p: f64,
    tolerance: Option<f64>,
    max_iterations: usize,
    bias: f64,
    solver: Solver,
    observer: Option<SharedObserver>,
}

impl std::fmt::Debug for SvrValidParams {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SvrValidParams")
            .field("c", &self.c)
            .field("p", &self.p)
            .field("tolerance", &self.tolerance())
            .field("max_iterations", &self.max_iterations)
            .field("bias", &self.bias)
            .field("solver", &self.solver)
            .finish()
    }
}

impl SvrValidParams {
    /// C.
    pub fn c(&self) -> f64 {
        self.c
    }
    /// p (epsilon).
    pub fn p(&self) -> f64 {
        self.p
    }
    /// The stopping tolerance in effect (the solver's default when unset).
    ///
    /// For the primal solver the default is a different rule, not a value
    /// of the relative-gradient one: stop when `‖∇f(w)‖²/2 ≤ 5e-4 f(w)`,
    /// which certifies the objective within 0.05% of the optimum; this
    /// returns that 5e-4.
    ///
    /// The dual solver's default is the same certified gap, checked as the
    /// duality gap `f(w) + D(β) ≤ 5e-4 f(w)` ([`super::dual::DualParams::gap`]);
    /// a tolerance set explicitly is liblinear's projected-gradient rule.
    pub fn tolerance(&self) -> f64 {
        self.tolerance.unwrap_or(match self.solver {
            Solver::Dual | Solver::Primal | Solver::Auto => super::newton::DEFAULT_GAP,
            Solver::Dense => 1e-4,
        })
    }
    /// Maximum iterations.
    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }
    /// Bias feature value (< 0: none).
    pub fn bias(&self) -> f64 {
        self.bias
    }
    /// The solver.
    pub fn solver(&self) -> Solver {
        self.solver
    }

    /// [`Fit::fit`] on rows this call owns: the sparse solvers' used columns
    /// are numbered in place ([`CompactCsr::drop_unused_columns`]) instead of
    /// in a copy of the indices, and the rows are freed before returning. The
    /// same model, with the memory of one copy of the rows (`fit` on 495,884
    /// extracted rows: 146 MB peak, was 226).
    pub fn fit_owned(&self, mut x: CompactCsr, y: Array1<f64>) -> Result<SvrModel, TrainError> {
        let columns = if self.solver == Solver::Dense {
            None
        } else {
            x.drop_unused_columns()
        };
        let mut fitted = self.fit(&DatasetBase::new(CompactDataset(x), y))?;
        if let Some(columns) = columns {
            fitted.model.w = columns.widen(&fitted.model.w);
        }
        Ok(fitted)
    }

    /// [`Self::fit_owned`] around a prior `w0` (model units): minimizes
    /// ½‖w − w0‖² + C·Σ loss, by shifting the labels by `w0·x`, fitting the
    /// correction and adding `w0` back (`train::prior::shift_labels`). `None`
    /// is the prior 0, a plain fit. The one path of `fit svr --prior` and of a
    /// recipe's SVR on generated positions (`pipeline::learn`).
    pub fn fit_around(
        &self,
        x: CompactCsr,
        mut y: Array1<f64>,
        w0: Option<&[f64]>,
    ) -> Result<SvrModel, TrainError> {
        if let Some(w0) = w0 {
            let y = y.as_slice_mut().expect("labels are contiguous");
            super::prior::shift_labels(&x, y, w0);
        }
        let mut fitted = self.fit_owned(x, y)?;
        if let Some(w0) = w0 {
            super::prior::add_prior(&mut fitted.model.w, w0);
        }
        Ok(fitted)
    }
}

/// The SVR's options as `kifulearn fit svr` takes them (flags) and as a
/// recipe's `[solver]` table does (keys): one struct, so each default is
/// written once ([`SvrOptions::default`]: [`SvrParams`]'s, with the `auto`
/// solver). The recipe's keys `name` and `max_iterations` are the flags
/// `--solver` and `--max-iter`. A recipe without `tolerance` stops its dual
/// and dense solvers at `pipeline::recipe::DEFAULT_TOLERANCE`.
#[derive(Clone, Debug, PartialEq, clap::Args, serde::Deserialize, serde::Serialize)]
#[serde(deny_unknown_fields, default)]
pub struct SvrOptions {
    /// Optimizer: auto (dual coordinate descent, handing over to Newton on the
    /// primal when its projected gradient stops halving), dual, primal
    /// (Newton), or dense (linfa-linear on a dense copy); docs/svr.md.
    #[arg(long, value_enum, hide_possible_values = true, default_value_t = SvrOptions::default().solver)]
    #[serde(rename = "name")]
    pub solver: Solver,
    /// Cost C.
    #[arg(short = 'c', allow_negative_numbers = true, default_value_t = SvrOptions::default().c)]
    pub c: f64,
    /// Tube width p (epsilon of the loss).
    #[arg(short = 'p', allow_negative_numbers = true, default_value_t = SvrOptions::default().p)]
    pub p: f64,
    /// Stopping tolerance, liblinear's rules: primal |g| <= e |g(0)|, dual the
    /// projected-gradient sum <= e x the first epoch's. Unset, both stop on a
    /// certified gap, the objective within 0.05% of the optimum (primal
    /// |g|^2/2 <= 0.0005 f, dual the duality gap <= 0.0005 f; docs/svr.md)
    /// [default: the 0.05% rule].
    #[arg(short = 'e', allow_negative_numbers = true)]
    pub tolerance: Option<f64>,
    /// Bias feature value (negative: no bias).
    #[arg(short = 'B', allow_negative_numbers = true, default_value_t = SvrOptions::default().bias)]
    pub bias: f64,
    /// Maximum iterations (Newton steps or epochs).
    #[arg(long = "max-iter", value_name = "MAX_ITER", default_value_t = SvrOptions::default().max_iterations)]
    pub max_iterations: usize,
}

impl Default for SvrOptions {
    fn default() -> Self {
        let p = &SvrParams::default().0;
        SvrOptions {
            solver: Solver::Auto,
            c: p.c,
            p: p.p,
            tolerance: p.tolerance,
            bias: p.bias,
            max_iterations: p.max_iterations,
        }
    }
}

/// An SVR parameter out of its range: the one check behind `fit svr`'s
/// flags ([`ParamGuard::check`]) and a recipe's `[solver]` table
/// ([`SvrOptions::out_of_range`]).
#[derive(Clone, Copy, Debug, PartialEq, thiserror::Error)]
pub enum SvrParamError {
    /// Cost C.
    #[error("C must be positive and finite, got {0}")]
    C(f64),
    /// Tube width p.
    #[error("p must be non-negative and finite, got {0}")]
    P(f64),
    /// Stopping tolerance.
    #[error("tolerance must be positive and finite, got {0}")]
    Tolerance(f64),
    /// Iteration cap of 0.
    #[error("max_iterations must be at least 1, got 0")]
    MaxIterations,
    /// Bias feature value.
    #[error("bias must be finite, got {0}")]
    Bias(f64),
}

impl SvrParamError {
    /// The [`SvrOptions`] key (a recipe's `[solver]` key) that is out of range.
    pub fn key(&self) -> &'static str {
        match self {
            Self::C(_) => "c",
            Self::P(_) => "p",
            Self::Tolerance(_) => "tolerance",
            Self::MaxIterations => "max_iterations",
            Self::Bias(_) => "bias",
        }
    }

    /// The value found, as the recipe shows it.
    pub fn value(&self) -> String {
        match self {
            Self::C(x) | Self::P(x) | Self::Tolerance(x) | Self::Bias(x) => x.to_string(),
            Self::MaxIterations => "0".into(),
        }
    }

    /// What is allowed, in a recipe's words.
    pub fn expected(&self) -> &'static str {
        match self {
            Self::C(_) => "a positive cost",
            Self::P(_) => "p ≥ 0",
            Self::Tolerance(_) => "a positive tolerance",
            Self::MaxIterations => "at least 1 iteration",
            Self::Bias(_) => "a finite bias",
        }
    }
}

impl SvrOptions {
    /// The first option out of its range, if any (the check of [`ParamGuard::check`]).
    pub fn out_of_range(&self) -> Option<SvrParamError> {
        self.params().0.out_of_range()
    }

    /// The unchecked parameters these options set (no observer).
    pub fn params(&self) -> SvrParams {
        let p = SvrParams::new()
            .c(self.c)
            .p(self.p)
            .bias(self.bias)
            .solver(self.solver)
            .max_iterations(self.max_iterations);
        match self.tolerance {
            Some(t) => p.tolerance(t),
            None => p,
        }
    }
}

/// Unchecked hyper-parameters: a builder; [`ParamGuard::check`] validates.
#[derive(Debug, Clone)]
pub struct SvrParams(SvrValidParams);

impl Default for SvrParams {
    fn default() -> Self {
        SvrParams(SvrValidParams {
            c: 1.0,
            p: 0.1,
            tolerance: None,
            max_iterations: 1000,
            bias: -1.0,
            solver: Solver::Primal,
            observer: None,
        })
    }
}

impl SvrParams {
    /// liblinear's defaults: C = 1, p = 0.1, no bias, primal solver.
    pub fn new() -> Self {
        Self::default()
    }
    /// Sets C.
    pub fn c(mut self, c: f64) -> Self {
        self.0.c = c;
        self
    }
    /// Sets p (epsilon, the tube width).
    pub fn p(mut self, p: f64) -> Self {
        self.0.p = p;
        self
    }
    /// Sets the stopping tolerance.
    pub fn tolerance(mut self, tol: f64) -> Self {
        self.0.tolerance = Some(tol);
        self
    }
    /// Sets the iteration limit.
    pub fn max_iterations(mut self, n: usize) -> Self {
        self.0.max_iterations = n;
        self
    }
    /// Sets the bias feature value (negative: none).
    pub fn bias(mut self, b: f64) -> Self {
        self.0.bias = b;
        self
    }
    /// Chooses the solver.
    pub fn solver(mut self, s: Solver) -> Self {
        self.0.solver = s;
        self
    }
    /// Reports each solver iteration to `observer` ([`Event::Iteration`]).
    pub fn observer(mut self, observer: SharedObserver) -> Self {
        self.0.observer = Some(observer);
        self
    }
}

impl SvrValidParams {
    /// The first parameter out of its range, if any.
    fn out_of_range(&self) -> Option<SvrParamError> {
        if !(self.c.is_finite() && self.c > 0.0) {
            return Some(SvrParamError::C(self.c));
        }
        if !(self.p.is_finite() && self.p >= 0.0) {
            return Some(SvrParamError::P(self.p));
        }
        if let Some(t) = self.tolerance.filter(|t| !(t.is_finite() && *t > 0.0)) {
            return Some(SvrParamError::Tolerance(t));
        }
        if self.max_iterations == 0 {
            return Some(SvrParamError::MaxIterations);
        }
        if !self.bias.is_finite() {
            return Some(SvrParamError::Bias(self.bias));
        }
        None
    }
}

impl ParamGuard for SvrParams {
    type Checked = SvrValidParams;
    type Error = TrainError;

    fn check_ref(&self) -> Result<&SvrValidParams, TrainError> {
        self.0.out_of_range().map_or(Ok(&self.0), |e| {
            Err(TrainError::InvalidParam(e.to_string()))
        })
    }

    fn check(self) -> Result<SvrValidParams, TrainError> {
        self.check_ref()?;
        Ok(self.0)
    }
}

/// A fitted SVR: the model plus how it was reached.
#[derive(Debug, Clone)]
pub struct SvrModel {
    /// The weights, ready to save.
    pub model: Model,
    /// Iterations taken (Newton steps or epochs; 0 for the dense solver).
    pub iterations: usize,
    /// The exact primal objective at the returned weights.
    pub objective: f64,
    /// The solver stopped on its iteration cap, not on its tolerance (primal
    /// and dual; see [`SvrModel::iteration_cap_warning`]).
    pub reached_max_iter: bool,
}

impl SvrModel {
    /// liblinear's "WARNING: reaching max number of iterations", in our words,
    /// when the solver stopped on its cap: the weights are short of the
    /// optimum the tolerance asks for. `None` when it stopped on its tolerance.
    pub fn iteration_cap_warning(&self) -> Option<String> {
        if !self.reached_max_iter {
            return None;
        }
        let (solver, unit) = match self.model.solver_type.as_str() {
            "L2R_L2LOSS_SVR_DUAL" => ("dual", "epochs"),
            _ => ("primal", "Newton steps"),
        };
        Some(format!(
            "reaching max number of iterations: the {solver} solver stopped after {} {unit} \
             (its cap) before its tolerance, so the weights are not at the optimum; \
             raise the cap (--max-iter, recipe max_iterations) or the tolerance (-e)",
            self.iterations
        ))
    }
}

/// Checks that `x` has one row per label; the labels as a slice.
fn labels_of(rows: usize, y: &Array1<f64>) -> Result<&[f64], TrainError> {
    let y = y
        .as_slice()
        .ok_or_else(|| TrainError::Data("targets must be contiguous".into()))?;
    if rows != y.len() {
        return Err(TrainError::Data(format!(
            "{rows} rows but {} labels",
            y.len()
        )));
    }
    Ok(y)
}

impl Fit<SparseDataset, Array1<f64>, TrainError> for SvrValidParams {
    type Object = SvrModel;

    fn fit(
        &self,
        dataset: &DatasetBase<SparseDataset, Array1<f64>>,
    ) -> Result<SvrModel, TrainError> {
        let x = &dataset.records.0;
        let y = labels_of(x.rows(), &dataset.targets)?;
        let x = if x.is_csr() {
            std::borrow::Cow::Borrowed(x)
        } else {
            std::borrow::Cow::Owned(x.to_csr())
        };
        let indptr = x.indptr();
        let rows = Rows::from_parts(
            indptr.raw_storage(),
            x.indices(),
            x.data(),
            x.cols(),
            self.bias,
        );
        FitTask { params: self, y }.run(rows)
    }
}

impl Fit<CompactDataset, Array1<f64>, TrainError> for SvrValidParams {
    type Object = SvrModel;

    fn fit(
        &self,
        dataset: &DatasetBase<CompactDataset, Array1<f64>>,
    ) -> Result<SvrModel, TrainError> {
        let x = &dataset.records.0;
        let y = labels_of(x.rows(), &dataset.targets)?;
        RowsOf::new(x, self.bias).with(FitTask { params: self, y })
    }
}

/// The fit on rows of either value type.
struct FitTask<'a> {
    params: &'a SvrValidParams,
    y: &'a [f64],
}

impl RowsTask for FitTask<'_> {
    type Out = Result<SvrModel, TrainError>;

    fn run<V: Value>(self, rows: Rows<'_, V>) -> Result<SvrModel, TrainError> {
        // A column no row uses has weight 0 at the optimum (its gradient is
        // the weight itself), so the solvers can work on the used columns
        // only: on extracted rows (a few thousand of 4 million columns
        // used) the primal's vectors shrink a thousandfold. Renumbering keeps
        // each row's order, so every sum over a row is unchanged.
        let sparse = self.params.solver != Solver::Dense;
        if let Some(used) = UsedColumns::of(rows.indices(), rows.cols()).filter(|_| sparse) {
            let indices: Vec<u32> = rows.indices().iter().map(|&j| used.rank(j)).collect();
            let columns = used.columns();
            let small = rows.renumbered(&indices, columns.len());
            let mut fitted = self.run_on(small)?;
            fitted.model.w = ColumnMap::from_columns(columns, rows.cols()).widen(&fitted.model.w);
            return Ok(fitted);
        }
        self.run_on(rows)
    }
}

impl FitTask<'_> {
    fn run_on<V: Value>(self, rows: Rows<'_, V>) -> Result<SvrModel, TrainError> {
        let FitTask { params, y } = self;
        let n = rows.dimension();
        let mut w = vec![0.0; n];
        let observer: &dyn Observer = match &params.observer {
            Some(o) => o.as_ref(),
            None => &Quiet,
        };
        let report = |p: &Progress| observer.event(&Event::Iteration(p));
        let primal = |w: &mut Vec<f64>, max_iter: usize| {
            let mut f = L2SvrObjective::new(rows, y, params.c, params.p);
            let mut newton = super::newton::NewtonParams {
                max_iter,
                ..Default::default()
            };
            if let Some(eps) = params.tolerance {
                newton.eps = eps;
                newton.gap = 0.0;
            }
            super::newton::newton(&mut f, w, newton, &mut |p| report(p))
        };
        let dual = |w: &mut Vec<f64>, handoff: bool| {
            let (eps, gap) = match params.tolerance {
                Some(eps) => (eps, 0.0),
                None => (0.0, super::newton::DEFAULT_GAP),
            };
            super::dual::dual_cd(
                &rows,
                y,
                super::dual::DualParams {
                    c: params.c,
                    p: params.p,
                    eps,
                    gap,
                    handoff: handoff && gap > 0.0,
                    max_iter: params.max_iterations,
                },
                w,
                &mut |p| report(p),
            )
        };
        let mut solver = params.solver;
        let (iterations, reached_max_iter) = match params.solver {
            Solver::Primal => {
                let r = primal(&mut w, params.max_iterations);
                (r.iterations, r.reached_max_iter)
            }
            Solver::Dual => {
                let r = dual(&mut w, false);
                (r.iterations, r.reached_max_iter)
            }
            Solver::Auto => {
                let r = dual(&mut w, true);
                if r.handed_off {
                    solver = Solver::Primal;
                    let left = params.max_iterations.saturating_sub(r.iterations).max(1);
                    let n = primal(&mut w, left);
                    (r.iterations + n.iterations, n.reached_max_iter)
                } else {
                    (r.iterations, r.reached_max_iter)
                }
            }
            Solver::Dense => {
                w = fit_dense(
                    &rows,
                    y,
                    params.c,
                    params.tolerance(),
                    params.max_iterations,
                )?;
                (0, false)
            }
        };
        let objective = primal_value(&rows, y, params.c, params.p, &w);
        let bias_weight = if params.bias >= 0.0 {
            w.pop().unwrap_or(0.0)
        } else {
            0.0
        };
        Ok(SvrModel {
            model: Model {
                solver_type: solver.liblinear_name().into(),
                w,
                bias: params.bias,
                bias_weight,
                features: String::new(),
            },
            iterations,
            objective,
            reached_max_iter,
        })
    }
}

/// `½‖w‖² + C Σ (y − w·x)²` through linfa-linear's GLM (Normal, identity link):
/// its objective `1/(2n) Σ r² + α/2 ‖w‖²` has the same minimiser when `α = 1/(2nC)`.
fn fit_dense<V: Value>(
    x: &Rows<V>,
    y: &[f64],
    c: f64,
    tol: f64,
    max_iter: usize,
) -> Result<Vec<f64>, TrainError> {
    let cols = x.dimension();
    if x.cols() > DENSE_MAX_FEATURES {
        return Err(TrainError::Data(format!(
            "the dense solver takes at most {DENSE_MAX_FEATURES} features, the data has {}",
            x.cols()
        )));
    }
    let mut a = Array2::<f64>::zeros((x.len(), cols));
    for i in 0..x.len() {
        let (idx, val) = x.row(i);
        for (&j, &v) in idx.iter().zip(val) {
            a[[i, j as usize]] = v.to_f64();
        }
        if let Some(b) = x.bias() {
            a[[i, cols - 1]] = b;
        }
    }
    let n = y.len().max(1) as f64;
    let data = Dataset::new(a, Array1::from(y.to_vec()));
    let fitted = linfa_linear::TweedieRegressor::params()
        .power(0.0)
        .link(linfa_linear::Link::Identity)
        .alpha(1.0 / (2.0 * n * c))
        .fit_intercept(false)
        .tol(tol)
        .max_iter(max_iter)
        .fit(&data)
        .map_err(|e| TrainError::Data(format!("linfa-linear: {e}")))?;
    Ok(fitted.coef.to_vec())
}

impl PredictInplace<SparseDataset, Array1<f64>> for SvrModel {
    fn predict_inplace(&self, x: &SparseDataset, y: &mut Array1<f64>) {
        predict_into(&self.model, &x.0, y);
    }

    fn default_target(&self, x: &SparseDataset) -> Array1<f64> {
        Array1::zeros(x.0.rows())
    }
}

/// liblinear-predict's rule for every row of `x`, in parallel over rows.
pub fn predict_into(model: &Model, x: &CsMatI<f32, u32>, out: &mut Array1<f64>) {
    use rayon::prelude::*;
    let indptr = x.indptr().into_raw_storage();
    let (idx, val) = (x.indices(), x.data());
    if let Some(out) = out.as_slice_mut() {
        out.par_iter_mut().enumerate().for_each(|(i, o)| {
            let (a, b) = (indptr[i] as usize, indptr[i + 1] as usize);
            *o = model.predict_row(&idx[a..b], &val[a..b]);
        });
    }
}
