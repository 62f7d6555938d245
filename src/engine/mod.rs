//! The playing side of kifulearn: search, the USI protocol, and move agreement.
//!
//! - [`search`] is [`crate::search`], the one searcher (engine and labelling modes),
//!   re-exported here where the engine's callers have always found it.
//! - [`usi`] speaks the USI protocol only, and runs the search on its own thread.
//! - [`evaluators`] wraps an evaluator with a scale or with noise (as Mecha-Joshi did).
//! - [`declaration`] decides the entering-king declaration (入玉宣言, 27-point rule):
//!   a rule of the game, so it lives in [`crate::shogi::declaration`] (the arena's
//!   referee uses it too), re-exported here.
//! - [`agreement`] ranks the legal moves of game positions and measures how often the
//!   move played is among the evaluator's top moves.

pub mod agreement;
pub use crate::shogi::declaration;
pub mod evaluators;
pub use crate::search;
pub mod usi;
