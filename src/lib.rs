//! kifulearn: learn a shogi evaluation function from game records and play it over USI.
//!
//! Data flows one way through the modules (see `docs/design.md`):
//!
//! ```text
//! record (kifu files → games) → shogi (positions, effects)
//!   → features (one traversal, many sinks) + label (depth-1 search, label rule)
//!   → libsvm (files) → train (SVR behind linfa's Fit) → model (files)
//!   → engine (evaluator, search, USI) ; pipeline runs recipes end to end
//! ```
//!
//! Nothing in `record` knows about features; nothing in `features` knows about files.
//!
//! # Example: the `relation` row of a sibling position
//!
//! ```
//! use kifulearn::features::{Features, RowBuilder};
//! use kifulearn::shogi::{Color, Position};
//!
//! let mut pos = Position::startpos();
//! pos.play_usi("7g7f").unwrap(); // Black moves: the sibling row is seen from Black
//! let set: Features = "relation".parse().unwrap();
//! let mut rows = RowBuilder::new();
//! let row = rows.build(&set, &pos, Color::Black);
//! assert!(!row.is_empty());
//! assert!(row.windows(2).all(|w| w[0].0 < w[1].0)); // libsvm order: strictly ascending
//! assert!(row.iter().all(|&(_, code)| (1.0..=10.0).contains(&code))); // attack codes
//! ```

pub mod arena;
pub mod engine;
pub mod eval;
pub mod extract;
pub mod features;
pub mod files;
pub mod generate;
pub mod label;
pub mod libsvm;
pub mod model;
pub mod pipeline;
pub mod positions;
pub mod record;
pub(crate) mod rng;
pub mod search;
pub mod shogi;
pub mod teacher;
#[cfg(test)]
pub(crate) mod testdata;
pub mod train;
pub mod usi_client;
