//! kifulearn: learn a shogi evaluation function from game records and play it over USI.
//!
//! Data flows one way through the modules (see `../shared/DESIGN.md`):
//!
//! ```text
//! record (kifu files → games) → shogi (positions, effects)
//!   → features (one traversal, many sinks) + label (depth-1 search, label rule)
//!   → libsvm (files) → train (SVR behind linfa's Fit) → model (files)
//!   → engine (evaluator, search, USI) ; pipeline runs recipes end to end
//! ```
//!
//! Nothing in `record` knows about features; nothing in `features` knows about files.

pub mod engine;
pub mod eval;
pub mod extract;
pub mod features;
pub mod label;
pub mod libsvm;
pub mod model;
pub mod pipeline;
pub mod record;
pub mod shogi;
pub mod train;
