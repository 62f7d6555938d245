//! What each step of a round measured (`DIR/round-N/figures.toml`), and the
//! one way the pipeline writes a file (through `NAME.tmp` and a rename).

use std::fs;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::run::{io_at, other, PipelineError};

/// What each step of a round measured: kept in `round-N/figures.toml` so that a
/// resumed run can still write `rounds.csv`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// The extraction step.
    pub extract: Option<ExtractFigures>,
    /// The fitting step.
    pub fit: Option<FitFigures>,
    /// The evaluation step.
    pub evaluate: Option<EvaluateFigures>,
    /// The match against material, when the recipe asks for one.
    #[serde(default)]
    pub arena: Option<MatchFigures>,
    /// The same games on the clock (`[match] movetime`).
    #[serde(default)]
    pub timed: Option<MatchFigures>,
    /// Fingerprint of the recipe that made the round
    /// ([`recipe_fingerprint`](super::run::recipe_fingerprint)): a rerun with
    /// another recipe redoes the round instead of reusing it.
    #[serde(default)]
    pub recipe: String,
}

/// Figures of a round's match against the material engine (the model is A).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MatchFigures {
    /// Search depth of both engines.
    pub depth: u32,
    /// Games won by the model.
    pub wins: u32,
    /// Games lost by the model.
    pub losses: u32,
    /// Draws.
    pub draws: u32,
    /// Elo difference (model − material) and its 95% interval.
    pub elo: f64,
    /// Lower end of the 95% interval.
    pub elo_low: f64,
    /// Upper end of the 95% interval.
    pub elo_high: f64,
    /// Wall time.
    pub seconds: f64,
    /// Milliseconds a move of a match on the clock; `None` at fixed depth.
    #[serde(default)]
    pub movetime_ms: Option<u64>,
    /// The model's nodes/s over material's in this match.
    #[serde(default)]
    pub nps_ratio: Option<f64>,
}

impl MatchFigures {
    /// The model's score: (wins + draws / 2) / games.
    pub fn score(&self) -> f64 {
        let n = (self.wins + self.losses + self.draws).max(1) as f64;
        (f64::from(self.wins) + f64::from(self.draws) / 2.0) / n
    }
}

/// Figures of a round's extraction.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ExtractFigures {
    /// `material` or the model that labelled (relative to the output folder).
    pub labeller: String,
    /// Training games.
    pub train_games: usize,
    /// Held-out games.
    pub heldout_games: usize,
    /// Rows written.
    pub rows: u64,
    /// Feature entries written.
    pub nonzeros: u64,
    /// Wall time of the run that extracted the last game.
    pub seconds: f64,
}

/// Figures of a round's fit.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct FitFigures {
    /// Final primal objective.
    pub objective: f64,
    /// Solver iterations.
    pub iterations: usize,
    /// Wall time, reading the data included.
    pub seconds: f64,
}

/// Figures of a round's evaluation.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct EvaluateFigures {
    /// Wall time.
    pub seconds: f64,
}

impl Figures {
    pub(crate) fn path(round_dir: &Path) -> PathBuf {
        round_dir.join("figures.toml")
    }

    /// Reads a round's figures; a missing or unreadable file gives empty figures.
    pub fn load(round_dir: &Path) -> Self {
        fs::read_to_string(Self::path(round_dir))
            .ok()
            .and_then(|t| toml::from_str(&t).ok())
            .unwrap_or_default()
    }

    pub(crate) fn save(&self, round_dir: &Path) -> Result<(), PipelineError> {
        let text = toml::to_string(self).map_err(other)?;
        write_atomic(&Self::path(round_dir), text.as_bytes())
    }
}

/// [`crate::files::write_atomic`] (through `PATH.tmp` and a rename), its
/// error naming the path.
pub(crate) fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PipelineError> {
    crate::files::write_atomic(path, bytes).map_err(io_at(path))
}
