//! Recipes and the relabel-and-retrain loop.
//!
//! A recipe (TOML in `pipelines/`) names the inputs, a held-out split by
//! game, the feature set, label options, solver options, the number of rounds
//! and what to evaluate.

pub mod figures;
pub mod learn;
pub mod recipe;
pub mod reports;
pub mod run;
pub mod split;
mod steps;
pub mod weights;

pub use recipe::{Recipe, RecipeError};
