//! The learners, each in its own file, and the types they share
//! ([`TrainError`]).
//!
//! - [`svr`]: the L2-regularized L2-loss ε-SVR of liblinear `-s 11`/`-s 12`
//!   behind linfa's API, on labelled libsvm rows (solvers in [`newton`],
//!   [`dual`], and linfa-linear for `Dense`; the objective in [`objective`]).
//! - [`ranking`]: Bonanza's comparison training from game records, where the
//!   game's move should be valued above its siblings.
//! - [`streaming`]: Logistello's batched per-feature update over libsvm files
//!   read one game at a time.
//! - [`positions`]: Texel/elmo-style regression on scored positions.
//! - [`isotonic`]: hand-count monotonicity after any fit.
//! - [`prior`]: the weights a learner starts from and is pulled towards.
//! - [`progress`]: the one way every learner reports while it fits
//!   ([`Event`], [`Observer`]).
//! - [`step`]: the step rule (AdaGrad, Adam, sign) the ranking and positions
//!   learners share.
//!
//! The SVR's names are re-exported here (`train::SvrParams`, …), where
//! callers have always found them.

pub mod dual;
pub mod isotonic;
pub mod newton;
pub mod objective;
pub mod positions;
pub mod positions_stream;
pub mod prior;
pub mod progress;
pub mod ranking;
pub mod residual;
pub mod step;
pub mod streaming;
pub mod svr;

pub use progress::{Event, Observer, Quiet};
pub use streaming::{EpochStats, StreamingFit, StreamingParams, StreamingValidParams};
pub use svr::{
    predict_into, CompactDataset, Progress, SharedObserver, Solver, SparseDataset, SvrModel,
    SvrOptions, SvrParamError, SvrParams, SvrValidParams, DENSE_MAX_FEATURES,
};

/// A learner's hyper-parameter out of its range: the one range check of the
/// ranking, streaming and positions learners (each `check`), behind both
/// `fit NAME`'s flags and a recipe's `[learner]` table, which names the key
/// from [`ParamError::name`] (the field's name) instead of checking again.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{name} must be {allowed}, got {value}")]
pub struct ParamError {
    /// The parameter's field name (`epochs`, `rate`, …).
    pub name: &'static str,
    /// The value found, as its type displays it.
    pub value: String,
    /// What is allowed (`at least 1`, `positive and finite`, …).
    pub allowed: &'static str,
}

impl ParamError {
    /// `name` = `value` is out of range: `allowed` says what is not.
    pub fn new(name: &'static str, value: impl std::fmt::Display, allowed: &'static str) -> Self {
        ParamError {
            name,
            value: value.to_string(),
            allowed,
        }
    }
}

/// Errors of training: a rejected hyper-parameter or mismatched data.
#[derive(Debug, thiserror::Error)]
pub enum TrainError {
    /// A hyper-parameter out of range, named with its value.
    #[error("{0}")]
    InvalidParam(String),
    /// A hyper-parameter out of its range, by name ([`ParamError`]).
    #[error(transparent)]
    Param(#[from] ParamError),
    /// Data that does not fit the solver.
    #[error("{0}")]
    Data(String),
    /// An error from linfa or linfa-linear.
    #[error(transparent)]
    Linfa(#[from] linfa::Error),
}
