//! Recipe files: TOML parsed with serde; unknown keys are errors naming the key and the file.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::label::{LabelError, LabelOptions};

/// A whole recipe. Every table but `[inputs]` may be left out for its defaults.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Recipe {
    /// A line saying what the recipe is for.
    #[serde(default)]
    pub description: String,
    /// Where the game records are.
    pub inputs: Inputs,
    /// Which games are held out for evaluation.
    #[serde(default)]
    pub split: Split,
    /// The feature set.
    #[serde(default)]
    pub features: FeaturesTable,
    /// How siblings are labelled.
    #[serde(default)]
    pub labels: Labels,
    /// How the model is trained.
    #[serde(default)]
    pub solver: SolverTable,
    /// How many extract → fit → evaluate rounds; round 1 labels with material,
    /// later rounds relabel with the previous round's model.
    #[serde(default = "one")]
    pub rounds: u32,
    /// What is measured after each round.
    #[serde(default)]
    pub evaluate: Evaluate,
    /// Which learner fits each round's model.
    #[serde(default)]
    pub learner: Learner,
    /// A match against the material engine after each round.
    #[serde(default, rename = "match")]
    pub arena: Arena,
}

/// `[learner]`: `svr` (extract labelled siblings, then the `[solver]`) or
/// `positions` (the Texel / elmo learner on the games' positions, scored by a
/// search: `docs/positions-learner.md`).
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Learner {
    /// `svr` or `positions`.
    #[serde(default = "default_method")]
    pub method: String,
    /// Positions: plies of full-width search below each scored position (the
    /// position after a game move, a sibling), then its quiescence.
    #[serde(default = "two")]
    pub teacher_depth: u32,
    /// Positions: weight of the game result in the target (0..1).
    #[serde(default = "default_result_weight")]
    pub result_weight: f64,
    /// Positions: centipawns per unit of the logistic.
    #[serde(default = "default_eval_k")]
    pub eval_k: f64,
    /// Positions: ½μ‖w − prior‖² per position.
    #[serde(default = "default_mu")]
    pub mu: f64,
    /// Step size. Positions: Adam step in centipawns (default 1); ranking:
    /// the optimizer's step in model units (default: the optimizer's,
    /// `docs/ranking.md`); streaming: its step (default 0.002).
    #[serde(default)]
    pub rate: Option<f64>,
    /// Positions: passes over the positions.
    #[serde(default = "default_epochs")]
    pub epochs: usize,
    /// Positions: positions per step.
    #[serde(default = "default_batch")]
    pub batch: usize,
    /// Positions and ranking: positions before this ply are not used.
    #[serde(default = "default_skip_plies")]
    pub skip_plies: usize,
    /// Positions and ranking: `material` (the piece values), or `previous`
    /// (the previous round's model; material in round 1); ranking also takes
    /// `zero` (no prior: λ‖w‖²).
    #[serde(default = "default_prior")]
    pub prior: String,
    /// Positions and ranking: keep the `material` part at the prior.
    #[serde(default = "yes")]
    pub anchor_material: bool,
    /// Positions: `material` teaches every round, or `previous` (the previous round's model; material in round 1).
    #[serde(default = "default_prior")]
    pub teacher: String,
    /// Selfplay: positions generated per round (by the teacher: material in
    /// round 1 or with `teacher = "material"`, else the previous round's model).
    #[serde(default = "default_generate_positions")]
    pub generate_positions: u64,
    /// Selfplay: search depth of every generated move (the score's depth).
    #[serde(default = "three")]
    pub generate_depth: u32,
    /// Selfplay: more opening lines for generation (`startpos moves ...`),
    /// relative to the recipe's folder, beside the bundled
    /// `fixtures/floodgate-30.sfen`; test openings in it are refused.
    #[serde(default)]
    pub generate_openings: Option<PathBuf>,
    /// Ranking: which position of each sibling is compared: `sibling` (the
    /// raw sibling), `material` (the end of its quiescence line searched with
    /// material, `--leaf`) or `current` (searched with the weights being
    /// learned, `--research`).
    #[serde(default = "default_leaf")]
    pub leaf: String,
    /// Ranking: step rule, `adagrad`, `adam` or `sign`.
    #[serde(default = "default_optimizer")]
    pub optimizer: String,
    /// Ranking: the sigmoid's window in model units (0.02 = 200 centipawns).
    #[serde(default = "default_window")]
    pub window: f64,
    /// Ranking: λ of λ‖w − w0‖².
    #[serde(default = "one_f64")]
    pub lambda: f64,
    /// Ranking and streaming: games per step.
    #[serde(default = "default_batch_games")]
    pub batch_games: usize,
}

impl Default for Learner {
    fn default() -> Self {
        toml::from_str("").expect("every key has a default")
    }
}

/// `[match]`: after each round, the model plays the material engine.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Arena {
    /// Games (0: no match); openings are played in pairs, colours swapped.
    #[serde(default)]
    pub games: usize,
    /// Search depth of both engines.
    #[serde(default = "two")]
    pub depth: u32,
    /// Opening lines (`startpos moves ...`), relative to the recipe's folder;
    /// empty: the bundled test openings `fixtures/openings/match.sfen`.
    #[serde(default)]
    pub openings: Option<PathBuf>,
}

impl Default for Arena {
    fn default() -> Self {
        toml::from_str("").expect("every key has a default")
    }
}

/// `[inputs]`: game-record files or folders, relative to the recipe file's folder.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Inputs {
    /// Files or folders (searched recursively).
    pub paths: Vec<PathBuf>,
    /// Read at most this many games (0: all).
    #[serde(default)]
    pub max_games: usize,
}

/// `[split]`: a deterministic held-out part, chosen by game.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Split {
    /// Fraction of games held out (0 ≤ f < 1).
    #[serde(default = "default_held_out")]
    pub held_out: f64,
    /// Changes which games are held out.
    #[serde(default)]
    pub seed: u64,
}

/// `[features]`.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct FeaturesTable {
    /// Feature-set name, sets joined by commas (`relation`, `relation,material`).
    #[serde(default = "default_features")]
    pub set: String,
}

/// `[labels]`: the Mecha-Joshi label rule's options.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Labels {
    /// How far the game move stands above every other sibling, in centipawns.
    #[serde(default = "default_margin")]
    pub margin: i32,
    /// Labels are values divided by this.
    #[serde(default = "default_scale")]
    pub scale: f64,
    /// Capture-only quiescence after the depth-1 replies.
    #[serde(default = "yes")]
    pub quiescence: bool,
    /// Plies searched below each sibling (1: the opponent's replies; 0: the
    /// sibling's quiescence only), as `extract --depth`.
    #[serde(default = "one")]
    pub depth: u32,
    /// Skip this many plies at the start of each game.
    #[serde(default)]
    pub skip_opening: u32,
    /// Use at most this many plies of each game (0: all).
    #[serde(default)]
    pub max_plies: u32,
    /// Where each row's features are taken: `sibling` (the position after the
    /// move, Mecha-Joshi) or `leaf` (the end of its labelling search's line),
    /// as `extract --rows-at`.
    #[serde(default = "default_rows_at")]
    pub rows_at: String,
}

impl Labels {
    /// The label rule's options these keys set (checked by [`LabelOptions::check`]).
    pub fn options(&self) -> LabelOptions {
        LabelOptions {
            margin: self.margin,
            scale: self.scale,
            quiescence: self.quiescence,
            depth: self.depth,
        }
    }
}

/// `[solver]`: L2-regularized L2-loss SVR (liblinear `-s 11` / `-s 12`) or dense.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct SolverTable {
    /// `auto` (the dual, handing over to Newton when it stalls: `fit`'s
    /// default), `primal` (Newton with line search), `dual` (coordinate
    /// descent) or `dense` (linfa-linear).
    #[serde(default = "default_solver")]
    pub name: String,
    /// Cost C.
    #[serde(default = "default_c")]
    pub c: f64,
    /// Insensitive-zone width p (epsilon).
    #[serde(default = "default_p")]
    pub p: f64,
    /// Stopping tolerance. Unset: the primal solver's own rule (the
    /// objective within 0.05% of the optimum, docs/svr.md), 0.001 for the
    /// others.
    #[serde(default)]
    pub tolerance: Option<f64>,
    /// Bias feature value (negative: no bias), as liblinear's `-B`.
    #[serde(default = "default_bias")]
    pub bias: f64,
    /// Most solver iterations (Newton steps or coordinate-descent epochs); the
    /// solver stops there even if the tolerance is not reached.
    #[serde(default = "default_max_iterations")]
    pub max_iterations: usize,
}

/// `[evaluate]`: held-out agreement after each round.
#[derive(Clone, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct Evaluate {
    /// Rank moves by a search of each sibling, this many plies below it, then
    /// its quiescence (0: the quiescence only); unset: each sibling's static
    /// evaluation (what `depth = 1` meant before the one meaning of depth).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Also evaluate the material baseline.
    #[serde(default = "yes")]
    pub baseline: bool,
}

fn one() -> u32 {
    1
}
fn two() -> u32 {
    2
}
fn three() -> u32 {
    3
}
fn default_generate_positions() -> u64 {
    100_000
}
fn default_method() -> String {
    "svr".into()
}
fn default_result_weight() -> f64 {
    0.33
}
fn default_eval_k() -> f64 {
    600.0
}
fn default_mu() -> f64 {
    1e-6
}
fn default_leaf() -> String {
    "sibling".into()
}
fn default_rows_at() -> String {
    "sibling".into()
}
fn default_optimizer() -> String {
    "adagrad".into()
}
fn default_window() -> f64 {
    0.02
}
fn one_f64() -> f64 {
    1.0
}
fn default_batch_games() -> usize {
    8
}
fn default_epochs() -> usize {
    10
}
fn default_batch() -> usize {
    4096
}
fn default_skip_plies() -> usize {
    16
}
fn default_prior() -> String {
    "material".into()
}
fn yes() -> bool {
    true
}
fn default_held_out() -> f64 {
    0.2
}
fn default_features() -> String {
    "relation".into()
}
fn default_margin() -> i32 {
    100
}
fn default_scale() -> f64 {
    10_000.0
}
fn default_solver() -> String {
    "auto".into()
}
fn default_c() -> f64 {
    1.0
}
fn default_p() -> f64 {
    0.1
}
/// Tolerance of the dual and dense solvers when a recipe sets none.
pub const DEFAULT_TOLERANCE: f64 = 0.001;
fn default_bias() -> f64 {
    -1.0
}
fn default_max_iterations() -> usize {
    1000
}

macro_rules! default_from_serde {
    ($($t:ty),*) => {$(
        impl Default for $t {
            fn default() -> Self {
                toml::from_str("").expect("every field has a default")
            }
        }
    )*};
}
default_from_serde!(Split, FeaturesTable, Labels, SolverTable, Evaluate);

/// A recipe that could not be read: the file and what is wrong (with the key and line).
#[derive(Debug, thiserror::Error)]
pub enum RecipeError {
    /// The file could not be read.
    #[error("{}: {source}", path.display())]
    Io {
        /// The recipe file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The TOML is malformed, has an unknown key or a value of the wrong type.
    #[error("{}: {message}", path.display())]
    Parse {
        /// The recipe file.
        path: PathBuf,
        /// toml's message, which names the key and shows the line.
        message: String,
    },
    /// A value is out of its range.
    #[error("{}: {}{key} = {value}: {expected}", path.display(), line_prefix(*line))]
    Value {
        /// The recipe file.
        path: PathBuf,
        /// The key's line (1-based), when the recipe sets it (a default has none).
        line: Option<usize>,
        /// The key, as `table.key`.
        key: &'static str,
        /// The value found.
        value: String,
        /// What is allowed.
        expected: &'static str,
    },
}

impl Recipe {
    /// Reads and checks a recipe; input paths become relative to the recipe's folder.
    pub fn load(path: &Path) -> Result<Self, RecipeError> {
        let text = std::fs::read_to_string(path).map_err(|source| RecipeError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mut recipe = Self::parse(&text, path)?;
        let base = path.parent().unwrap_or(Path::new(""));
        for p in &mut recipe.inputs.paths {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        }
        if let Some(p) = &mut recipe.learner.generate_openings {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        }
        if let Some(p) = &mut recipe.arena.openings {
            if p.is_relative() {
                *p = base.join(&*p);
            }
        }
        Ok(recipe)
    }

    /// Parses and checks recipe text; `path` is used in messages only.
    pub fn parse(text: &str, path: &Path) -> Result<Self, RecipeError> {
        let recipe: Recipe = toml::from_str(text).map_err(|e| RecipeError::Parse {
            path: path.to_path_buf(),
            message: e.to_string().trim_end().to_string(),
        })?;
        recipe.check(path, text)?;
        Ok(recipe)
    }

    fn check(&self, path: &Path, text: &str) -> Result<(), RecipeError> {
        let bad = |key, value: String, expected| RecipeError::Value {
            path: path.to_path_buf(),
            line: key_line(text, key),
            key,
            value,
            expected,
        };
        if self.inputs.paths.is_empty() {
            return Err(bad(
                "inputs.paths",
                "[]".into(),
                "at least one file or folder",
            ));
        }
        if !(0.0..1.0).contains(&self.split.held_out) {
            return Err(bad(
                "split.held_out",
                self.split.held_out.to_string(),
                "a fraction in [0, 1)",
            ));
        }
        if let Err(e) = self.labels.options().check() {
            let (key, value) = match e {
                LabelError::Margin(m) => ("labels.margin", m.to_string()),
                LabelError::Scale(x) => ("labels.scale", x.to_string()),
                LabelError::Depth(d) => ("labels.depth", d.to_string()),
                LabelError::GameMove { .. } => unreachable!("options only"),
            };
            return Err(bad(key, value, e.expected().unwrap_or_default()));
        }
        if !["auto", "primal", "dual", "dense"].contains(&self.solver.name.as_str()) {
            return Err(bad(
                "solver.name",
                self.solver.name.clone(),
                "auto, primal, dual or dense",
            ));
        }
        if !(self.solver.c.is_finite() && self.solver.c > 0.0) {
            return Err(bad(
                "solver.c",
                self.solver.c.to_string(),
                "a positive cost",
            ));
        }
        if !(self.solver.p.is_finite() && self.solver.p >= 0.0) {
            return Err(bad("solver.p", self.solver.p.to_string(), "p ≥ 0"));
        }
        if let Some(t) = self.solver.tolerance {
            if !(t.is_finite() && t > 0.0) {
                return Err(bad(
                    "solver.tolerance",
                    t.to_string(),
                    "a positive tolerance",
                ));
            }
        }
        if self.solver.max_iterations == 0 {
            return Err(bad(
                "solver.max_iterations",
                "0".into(),
                "at least 1 iteration",
            ));
        }
        if self.rounds == 0 {
            return Err(bad("rounds", "0".into(), "at least 1 round"));
        }
        let l = &self.learner;
        if !["svr", "streaming", "ranking", "positions", "selfplay"].contains(&l.method.as_str()) {
            return Err(bad(
                "learner.method",
                l.method.clone(),
                "svr, streaming, ranking, positions or selfplay",
            ));
        }
        if !["sibling", "leaf"].contains(&self.labels.rows_at.as_str()) {
            return Err(bad(
                "labels.rows_at",
                self.labels.rows_at.clone(),
                "sibling or leaf",
            ));
        }
        if !["sibling", "material", "current"].contains(&l.leaf.as_str()) {
            return Err(bad(
                "learner.leaf",
                l.leaf.clone(),
                "sibling, material or current",
            ));
        }
        if !["adagrad", "adam", "sign"].contains(&l.optimizer.as_str()) {
            return Err(bad(
                "learner.optimizer",
                l.optimizer.clone(),
                "adagrad, adam or sign",
            ));
        }
        if let Some(r) = l.rate {
            if !(r.is_finite() && r > 0.0) {
                return Err(bad("learner.rate", r.to_string(), "a positive step"));
            }
        }
        if !(l.window.is_finite() && l.window > 0.0) {
            return Err(bad(
                "learner.window",
                l.window.to_string(),
                "a positive window",
            ));
        }
        if !(l.lambda.is_finite() && l.lambda >= 0.0) {
            return Err(bad("learner.lambda", l.lambda.to_string(), "λ ≥ 0"));
        }
        if l.batch_games == 0 {
            return Err(bad("learner.batch_games", "0".into(), "at least 1 game"));
        }
        if l.method == "selfplay" && !(1..=6).contains(&l.generate_depth) {
            return Err(bad(
                "learner.generate_depth",
                l.generate_depth.to_string(),
                "a depth from 1 to 6",
            ));
        }
        for (key, value) in [("learner.prior", &l.prior), ("learner.teacher", &l.teacher)] {
            let zero = l.method == "ranking" && key == "learner.prior" && value == "zero";
            if !zero && !["material", "previous"].contains(&value.as_str()) {
                return Err(bad(
                    key,
                    value.clone(),
                    if key == "learner.prior" && l.method == "ranking" {
                        "material, previous or zero"
                    } else {
                        "material or previous"
                    },
                ));
            }
        }
        if l.method == "ranking" && l.prior == "zero" && l.anchor_material {
            return Err(bad(
                "learner.anchor_material",
                "true".into(),
                "false with prior = \"zero\" (no values to anchor to)",
            ));
        }
        if l.teacher_depth > 6 {
            return Err(bad(
                "learner.teacher_depth",
                l.teacher_depth.to_string(),
                "a depth from 0 to 6",
            ));
        }
        let params = super::learn::params(self);
        if let Err(e) = params.check() {
            return Err(bad("learner", e.to_string(), "valid [learner] parameters"));
        }
        if self.arena.games > 0 && !(1..=6).contains(&self.arena.depth) {
            return Err(bad(
                "match.depth",
                self.arena.depth.to_string(),
                "a depth from 1 to 6",
            ));
        }
        if let Some(d) = self.evaluate.depth.filter(|&d| d > 5) {
            return Err(bad(
                "evaluate.depth",
                d.to_string(),
                "a depth from 0 to 5 plies below the sibling",
            ));
        }
        Ok(())
    }
}

/// `line N: `, or nothing when the line is not known.
fn line_prefix(line: Option<usize>) -> String {
    line.map(|n| format!("line {n}: ")).unwrap_or_default()
}

/// The 1-based line where `key` (`table.key`, or a top-level `key`) is set
/// in recipe `text`, if it is set there.
fn key_line(text: &str, key: &str) -> Option<usize> {
    let (table, name) = key.rsplit_once('.').unwrap_or(("", key));
    let mut current = String::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(header) = line.strip_prefix('[') {
            current = header.trim_end_matches(']').trim().to_string();
        } else if current == table {
            let Some((k, _)) = line.split_once('=') else {
                continue;
            };
            if k.trim() == name {
                return Some(i + 1);
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn minimal_recipe_takes_defaults() {
        let r = Recipe::parse("[inputs]\npaths = [\"games\"]\n", Path::new("r.toml")).unwrap();
        assert_eq!(r.rounds, 1);
        assert_eq!(r.features.set, "relation");
        assert_eq!(r.labels.margin, 100);
        assert_eq!(r.solver.name, "auto");
        assert_eq!(r.split.held_out, 0.2);
    }

    #[test]
    fn unknown_key_names_key_and_file() {
        let err = Recipe::parse(
            "[inputs]\npaths = [\"g\"]\n[labels]\nmargn = 100\n",
            Path::new("pipelines/x.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.starts_with("pipelines/x.toml: "), "{err}");
        assert!(err.contains("unknown field `margn`"), "{err}");
        assert!(err.contains("line 4"), "{err}");
    }

    #[test]
    fn out_of_range_values_are_named() {
        let err = Recipe::parse(
            "rounds = 2\n[inputs]\npaths = [\"g\"]\n[solver]\nc = -1\n",
            Path::new("r.toml"),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(err, "r.toml: line 5: solver.c = -1: a positive cost");
    }

    /// One meaning of depth (`docs/search.md`): plies below the sibling, 0
    /// the quiescence; `[evaluate] depth` unset is the static ranking.
    #[test]
    fn depths_count_plies_below_the_sibling() {
        let parse = |extra: &str| {
            Recipe::parse(
                &format!("[inputs]\npaths = [\"g\"]\n{extra}"),
                Path::new("r.toml"),
            )
        };
        let r = parse("").unwrap();
        assert_eq!((r.labels.depth, r.evaluate.depth), (1, None));
        let r = parse("[labels]\ndepth = 0\n[evaluate]\ndepth = 0\n").unwrap();
        assert_eq!((r.labels.depth, r.evaluate.depth), (0, Some(0)));
        assert_eq!(
            parse("[evaluate]\ndepth = 5\n").unwrap().evaluate.depth,
            Some(5)
        );
        let err = parse("[evaluate]\ndepth = 6\n").unwrap_err().to_string();
        assert_eq!(
            err,
            "r.toml: line 4: evaluate.depth = 6: a depth from 0 to 5 plies below the sibling"
        );
    }

    /// The label options' one range check (`LabelOptions::check`), reported
    /// with the recipe's file, line and key before any work starts.
    #[test]
    fn label_options_out_of_range_name_file_line_and_key() {
        for (labels, want) in [
            (
                "margin = 0",
                "r.toml: line 4: labels.margin = 0: a margin from 1 to 10000 centipawns",
            ),
            (
                "margin = 10001",
                "r.toml: line 4: labels.margin = 10001: a margin from 1 to 10000 centipawns",
            ),
            (
                "depth = 5",
                "r.toml: line 4: labels.depth = 5: a depth from 0 to 4 plies",
            ),
            (
                "scale = 0.0",
                "r.toml: line 4: labels.scale = 0: a positive finite scale",
            ),
        ] {
            let text = format!("[inputs]\npaths = [\"g\"]\n[labels]\n{labels}\n");
            let err = Recipe::parse(&text, Path::new("r.toml"))
                .unwrap_err()
                .to_string();
            assert_eq!(err, want);
        }
        // A value the recipe does not set has no line.
        let err = Recipe::parse("[inputs]\npaths = []\n", Path::new("r.toml"))
            .unwrap_err()
            .to_string();
        assert_eq!(
            err,
            "r.toml: line 2: inputs.paths = []: at least one file or folder"
        );
        let err = Recipe::parse(
            "[inputs]\npaths = [\"g\"]\n[learner]\nmethod = \"x\"\n",
            Path::new("r.toml"),
        )
        .unwrap_err()
        .to_string();
        assert_eq!(
            err,
            "r.toml: line 4: learner.method = x: svr, streaming, ranking, positions or selfplay"
        );
        // The keys of the other learners are checked the same way.
        for (table, key, value, expected) in [
            ("labels", "rows_at", "\"middle\"", "sibling or leaf"),
            (
                "learner",
                "leaf",
                "\"root\"",
                "sibling, material or current",
            ),
            ("learner", "optimizer", "\"sgd\"", "adagrad, adam or sign"),
            ("learner", "rate", "0.0", "a positive step"),
            ("learner", "window", "-1.0", "a positive window"),
            ("learner", "batch_games", "0", "at least 1 game"),
        ] {
            let text = format!("[inputs]\npaths = [\"g\"]\n[{table}]\n{key} = {value}\n");
            let err = Recipe::parse(&text, Path::new("r.toml"))
                .unwrap_err()
                .to_string();
            assert!(
                err.starts_with(&format!("r.toml: line 4: {table}.{key} = "))
                    && err.ends_with(expected),
                "{err}"
            );
        }
        let err = Recipe::parse(
            "[inputs]\npaths = [\"g\"]\n[learner]\nmethod = \"ranking\"\nprior = \"zero\"\n",
            Path::new("r.toml"),
        )
        .unwrap_err()
        .to_string();
        assert!(err.contains("learner.anchor_material"), "{err}");
    }
}
