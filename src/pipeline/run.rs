//! Running a recipe: rounds of extract → fit → evaluate → report, resumable.
//!
//! Layout of the output folder `DIR`:
//!
//! ```text
//! DIR/rounds.csv                 one row per completed round (docs/reports.md)
//! DIR/round-N/extract/           a dataset folder: rows/, reports/, manifest, dataset.toml (extract::run)
//! DIR/round-N/model.txt          liblinear text model (+ model.txt.meta.toml)
//! DIR/round-N/agreement.csv      held-out agreement of the model (and material)
//! DIR/round-N/weights.csv        one row per non-zero weight
//! DIR/round-N/figures.toml       rows, objective, seconds… of each step
//! DIR/final.model, final.bin     the last round's model, text and binary
//! ```
//!
//! Every output is written under a temporary name and renamed, so existence
//! means complete, and a rerun skips each step whose output exists (extraction
//! resumes game by game). A step's figures are written before its output is
//! renamed, so a completed step always has its figures.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Instant;

use linfa::prelude::*;
use serde::{Deserialize, Serialize};

use super::recipe::Recipe;
use super::split::is_held_out;
use crate::engine::agreement::{games_agreement, Agreement};
use crate::eval::{load_linear, Material};
use crate::extract::{self, ExtractOptions, GameJob, GameReport, Labelling};
use crate::features::{FeatureSet, Features};
use crate::label::LabelOptions;
use crate::libsvm::read_paths;
use crate::model::{format_g17, meta_path, toml_string, Model};
use crate::record::{self, Game};
use crate::train::{Progress, Solver, SparseDataset, SvrParams};

/// Name of the model evaluator in a round's `agreement.csv`: the model's path relative to `DIR`.
fn model_name(round: u32) -> String {
    format!("round-{round}/model.txt")
}

/// Receives what a run does, for progress bars and summary lines. Every method does nothing by default.
pub trait Observer: Send + Sync {
    /// A summary line (one per step).
    fn line(&self, _text: &str) {}
    /// Extraction of `games` games of round `round` starts.
    fn extract_start(&self, _round: u32, _games: usize) {}
    /// One game extracted (or skipped as done when `resumed`).
    fn extract_game(&self, _report: &GameReport, _resumed: bool) {}
    /// Extraction ended.
    fn extract_end(&self) {}
    /// One solver iteration.
    fn fit_iteration(&self, _progress: &Progress) {}
    /// Something the user should know even when little is printed (a solver
    /// stopped on its iteration cap).
    fn warning(&self, _text: &str) {}
    /// Evaluation of `games` held-out games starts.
    fn evaluate_start(&self, _round: u32, _games: usize) {}
    /// Evaluation ended.
    fn evaluate_end(&self) {}
}

/// An observer that prints nothing.
pub struct Quiet;
impl Observer for Quiet {}

/// Why a run stopped.
#[derive(Debug, thiserror::Error)]
pub enum PipelineError {
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// Anything else: no games, a bad feature set, a solver error, a model that cannot be loaded.
    #[error("{0}")]
    Other(String),
}

pub(crate) fn io_at(path: &Path) -> impl FnOnce(io::Error) -> PipelineError + '_ {
    move |source| PipelineError::Io {
        path: path.to_path_buf(),
        source,
    }
}

pub(crate) fn other(e: impl std::fmt::Display) -> PipelineError {
    PipelineError::Other(e.to_string())
}

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
    /// Fingerprint of the recipe that made the round ([`recipe_fingerprint`]):
    /// a rerun with another recipe redoes the round instead of reusing it.
    #[serde(default)]
    pub recipe: String,
}

/// A fingerprint of everything in `recipe` that changes what a round writes
/// (its description aside): FNV-1a over the recipe serialized as TOML, in hex.
/// Written by hand rather than with `std`'s hasher, whose output may change
/// between Rust releases; it only has to tell recipes apart, not resist attack.
pub fn recipe_fingerprint(recipe: &Recipe) -> String {
    let mut r = recipe.clone();
    r.description.clear();
    let text = toml::to_string(&r).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
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
    fn path(round_dir: &Path) -> PathBuf {
        round_dir.join("figures.toml")
    }

    /// Reads a round's figures; a missing or unreadable file gives empty figures.
    pub fn load(round_dir: &Path) -> Self {
        fs::read_to_string(Self::path(round_dir))
            .ok()
            .and_then(|t| toml::from_str(&t).ok())
            .unwrap_or_default()
    }

    fn save(&self, round_dir: &Path) -> Result<(), PipelineError> {
        let text = toml::to_string(self).map_err(other)?;
        write_atomic(&Self::path(round_dir), text.as_bytes())
    }
}

/// Writes `bytes` to `path` through `path.tmp` and a rename.
fn write_atomic(path: &Path, bytes: &[u8]) -> Result<(), PipelineError> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    fs::write(&tmp, bytes).map_err(io_at(&tmp))?;
    fs::rename(&tmp, path).map_err(io_at(path))
}

/// The games of a recipe, split.
pub struct Games {
    /// Training games, as extraction jobs in input order.
    pub train: Vec<GameJob>,
    /// Held-out games.
    pub heldout: Vec<Game>,
    /// Games that could not be read: `path#index: message`.
    pub errors: Vec<String>,
}

/// Reads the recipe's inputs (at most `max_games` readable games, in file order) and splits them.
pub fn read_games(recipe: &Recipe) -> Result<Games, PipelineError> {
    let files = record::find_record_files(&recipe.inputs.paths).map_err(other)?;
    let stems = extract::file_stems(&files);
    let mut games = Games {
        train: Vec::new(),
        heldout: Vec::new(),
        errors: Vec::new(),
    };
    let max = match recipe.inputs.max_games {
        0 => usize::MAX,
        n => n,
    };
    let mut read = 0;
    'files: for (file, stem) in files.iter().zip(&stems) {
        for (index, game) in record::read_file(file).games.into_iter().enumerate() {
            if read == max {
                break 'files;
            }
            let source = format!("{}#{index}", file.display());
            match game {
                Err(e) => games.errors.push(format!("{source}: {e}")),
                Ok(game) => {
                    read += 1;
                    if is_held_out(&game.source, recipe.split.held_out, recipe.split.seed) {
                        games.heldout.push(game);
                    } else {
                        games.train.push(GameJob {
                            name: extract::game_name(stem, index),
                            source,
                            game: Ok(game),
                        });
                    }
                }
            }
        }
    }
    if games.train.is_empty() {
        return Err(PipelineError::Other(format!(
            "no training games in {} (read {read} games)",
            recipe
                .inputs
                .paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        )));
    }
    Ok(games)
}

/// What a finished run leaves: the final model files.
#[derive(Clone, Debug)]
pub struct RunResult {
    /// Rounds completed.
    pub rounds: u32,
    /// `DIR/final.model` (liblinear text, with its sidecar).
    pub final_model: PathBuf,
    /// `DIR/final.bin` (binary, for the engine).
    pub final_bin: PathBuf,
}

/// Runs every round of `recipe` into `out`, skipping steps an earlier run completed.
pub fn run(
    recipe: &Recipe,
    out: &Path,
    observer: Arc<dyn Observer>,
) -> Result<RunResult, PipelineError> {
    let features: Features = recipe.features.set.parse().map_err(other)?;
    let label = LabelOptions {
        margin: recipe.labels.margin,
        scale: recipe.labels.scale,
        quiescence: recipe.labels.quiescence,
        depth: recipe.labels.depth,
    }
    .check()
    .map_err(other)?;
    let options = ExtractOptions {
        label,
        skip_opening: recipe.labels.skip_opening as usize,
        max_plies: match recipe.labels.max_plies {
            0 => None,
            n => Some(n as usize),
        },
        rows_at: Default::default(),
        ..ExtractOptions::default()
    };
    fs::create_dir_all(out).map_err(io_at(out))?;
    let games = read_games(recipe)?;
    for e in &games.errors {
        observer.line(&format!("skipped: {e}"));
    }
    observer.line(&format!(
        "{} training games, {} held out (fraction {}, seed {})",
        games.train.len(),
        games.heldout.len(),
        recipe.split.held_out,
        recipe.split.seed
    ));
    let fingerprint = recipe_fingerprint(recipe);
    let mut redo_rest = false;
    for round in 1..=recipe.rounds {
        let dir = out.join(format!("round-{round}"));
        if dir.exists() {
            let old = Figures::load(&dir);
            let changed = old.recipe != fingerprint;
            if changed || redo_rest {
                observer.line(&format!(
                    "round {round}: {}; redoing it",
                    if changed {
                        "written by another recipe (or by an older kifulearn)"
                    } else {
                        "an earlier round was redone"
                    }
                ));
                fs::remove_dir_all(&dir).map_err(io_at(&dir))?;
                redo_rest = true;
            }
        }
        fs::create_dir_all(&dir).map_err(io_at(&dir))?;
        let mut figures = Figures::load(&dir);
        if figures.recipe != fingerprint {
            figures.recipe = fingerprint.clone();
            figures.save(&dir)?;
        }
        let model_path = dir.join("model.txt");

        if matches!(recipe.learner.method.as_str(), "positions" | "selfplay") {
            if model_path.exists() && figures.fit.is_some() {
                observer.line(&format!(
                    "round {round} positions: done earlier ({})",
                    model_path.display()
                ));
            } else {
                let train: Vec<Game> = games
                    .train
                    .iter()
                    .filter_map(|j| j.game.as_ref().ok().cloned())
                    .collect();
                let previous = (round > 1).then(|| out.join(model_name(round - 1)));
                let step = super::learn::positions_round(
                    recipe,
                    round,
                    &features,
                    &train,
                    &games.heldout,
                    previous.as_deref(),
                    &model_path,
                )?;
                observer.line(&format!(
                    "round {round} {}: {} positions scored by {} at depth {} in {:.1}s; fit {} epochs, cross-entropy {:.5}, {:.1}s -> {}",
                    recipe.learner.method,
                    step.extract.rows,
                    step.extract.labeller,
                    if recipe.learner.method == "selfplay" {
                        recipe.learner.generate_depth
                    } else {
                        recipe.learner.teacher_depth
                    },
                    step.extract.seconds,
                    step.fit.iterations,
                    step.fit.objective,
                    step.fit.seconds,
                    model_path.display()
                ));
                figures.extract = Some(step.extract);
                figures.fit = Some(step.fit);
                figures.save(&dir)?;
            }
        } else {
            // Extract (resumes per game; fast when every game is done).
            let extract_dir = dir.join("extract");
            let labeller = if round == 1 {
                "material".to_string()
            } else {
                model_name(round - 1)
            };
            let start = Instant::now();
            observer.extract_start(round, games.train.len());
            let on_game = |r: &GameReport, resumed: bool| observer.extract_game(r, resumed);
            let summary = if round == 1 {
                extract::run(
                    &games.train,
                    &extract_dir,
                    &features,
                    &Material,
                    &options,
                    on_game,
                )
            } else {
                let model = out.join(&labeller);
                let mut eval = load_linear(&model).map_err(other)?;
                eval.scale = recipe.labels.scale as f32;
                // Named as in the round's figures (relative to DIR), so the
                // dataset does not depend on where DIR is.
                let labelling = Labelling {
                    name: labeller.clone(),
                    ..Labelling::model(&model).map_err(io_at(&model))?
                };
                let options = ExtractOptions {
                    labeller: labelling,
                    ..options.clone()
                };
                extract::run(
                    &games.train,
                    &extract_dir,
                    &features,
                    &eval,
                    &options,
                    on_game,
                )
            }
            .map_err(io_at(&extract_dir))?;
            observer.extract_end();
            let failed: Vec<&GameReport> = summary.reports.iter().filter(|r| !r.is_ok()).collect();
            if let Some(r) = failed.first() {
                return Err(PipelineError::Other(format!(
                    "round {round}: {} game(s) failed to extract, first {}: {}",
                    failed.len(),
                    r.source,
                    r.status
                )));
            }
            let rows: u64 = summary.reports.iter().map(|r| r.rows).sum();
            let nonzeros: u64 = summary.reports.iter().map(|r| r.nonzeros).sum();
            let fresh = summary.resumed < summary.reports.len();
            let extract_figures = ExtractFigures {
                labeller: labeller.clone(),
                train_games: games.train.len(),
                heldout_games: games.heldout.len(),
                rows,
                nonzeros,
                seconds: match (&figures.extract, fresh) {
                    (Some(old), false) => old.seconds,
                    _ => start.elapsed().as_secs_f64(),
                },
            };
            if figures.extract.as_ref() != Some(&extract_figures) {
                figures.extract = Some(extract_figures.clone());
                figures.save(&dir)?;
            }
            observer.line(&format!(
            "round {round} extract: {} games ({} resumed), {rows} rows, {nonzeros} nonzeros, labeller {labeller}, {:.1}s",
            summary.reports.len(),
            summary.resumed,
            extract_figures.seconds
        ));

            // Fit.
            if model_path.exists() && figures.fit.is_some() {
                observer.line(&format!(
                    "round {round} fit: done earlier ({})",
                    model_path.display()
                ));
            } else {
                let svm: Vec<PathBuf> = summary
                    .reports
                    .iter()
                    .map(|r| extract::rows_path(&extract_dir, &r.game))
                    .collect();
                let fit = fit(
                    recipe,
                    &features,
                    &svm,
                    &model_path,
                    &dir,
                    &mut figures,
                    &observer,
                )?;
                observer.line(&format!(
                    "round {round} fit: objective {:.6e}, {} iterations, {:.1}s -> {}",
                    fit.objective,
                    fit.iterations,
                    fit.seconds,
                    model_path.display()
                ));
            }
        }

        // Evaluate on the held-out games.
        let agreement_path = dir.join("agreement.csv");
        if agreement_path.exists() && figures.evaluate.is_some() {
            observer.line(&format!("round {round} evaluate: done earlier"));
        } else {
            let start = Instant::now();
            observer.evaluate_start(round, games.heldout.len());
            let mut table: Vec<(String, Agreement)> = Vec::new();
            if !games.heldout.is_empty() {
                let mut eval = load_linear(&model_path).map_err(other)?;
                eval.scale = recipe.labels.scale as f32;
                let depth = recipe.evaluate.depth;
                table.push((
                    model_name(round),
                    games_agreement(&games.heldout, &eval, depth),
                ));
                if recipe.evaluate.baseline {
                    table.push((
                        "material".into(),
                        games_agreement(&games.heldout, &Material, depth),
                    ));
                }
            }
            observer.evaluate_end();
            figures.evaluate = Some(EvaluateFigures {
                seconds: start.elapsed().as_secs_f64(),
            });
            figures.save(&dir)?;
            write_agreement(&agreement_path, &table)?;
            let top1: Vec<String> = table
                .iter()
                .map(|(n, a)| format!("{n} top1 {:.4}", a.all.rates()[0]))
                .collect();
            observer.line(&format!(
                "round {round} evaluate: {} held-out positions, {}",
                table.first().map_or(0, |t| t.1.all.positions),
                if top1.is_empty() {
                    "no held-out games".to_string()
                } else {
                    top1.join(", ")
                }
            ));
        }

        // Match against material.
        if recipe.arena.games > 0 && figures.arena.is_none() {
            let m = play_material(recipe, &model_path, &dir)?;
            observer.line(&format!(
                "round {round} match vs material at depth {}: +{} -{} ={}, score {:.3}, Elo {:+.0} [{:+.0}, {:+.0}], {:.1}s",
                m.depth,
                m.wins,
                m.losses,
                m.draws,
                m.score(),
                m.elo,
                m.elo_low,
                m.elo_high,
                m.seconds
            ));
            figures.arena = Some(m);
            figures.save(&dir)?;
        }

        // Weights.
        let weights_path = dir.join("weights.csv");
        if !weights_path.exists() {
            let model = Model::load(&model_path).map_err(other)?;
            let n = write_weights(&weights_path, &model, &features)?;
            observer.line(&format!(
                "round {round} weights: {n} non-zero -> {}",
                weights_path.display()
            ));
        }
        write_rounds(out, round)?;
    }

    let last = out.join(model_name(recipe.rounds));
    let final_model = out.join("final.model");
    let final_bin = out.join("final.bin");
    let model = Model::load(&last).map_err(other)?;
    let meta = fs::read_to_string(meta_path(&last)).map_err(io_at(&meta_path(&last)))?;
    // Each with its sidecar (its own model_hash); the binary carries the meta too.
    model
        .save_with_meta_text(&final_model, false, &meta)
        .map_err(io_at(&final_model))?;
    model
        .save_with_meta_text(&final_bin, true, &meta)
        .map_err(io_at(&final_bin))?;
    observer.line(&format!(
        "final model: {} and {}",
        final_model.display(),
        final_bin.display()
    ));
    Ok(RunResult {
        rounds: recipe.rounds,
        final_model,
        final_bin,
    })
}

/// Plays the round's model against the material engine (`[match]`); CSA
/// records and `results.csv` go to `DIR/round-N/match/`.
fn play_material(recipe: &Recipe, model: &Path, dir: &Path) -> Result<MatchFigures, PipelineError> {
    use crate::arena::{default_openings, read_openings, run_match, MatchConfig};
    let start = Instant::now();
    let openings = match &recipe.arena.openings {
        None => default_openings(),
        Some(p) => {
            let text = fs::read_to_string(p).map_err(io_at(p))?;
            read_openings(&text, p).map_err(other)?
        }
    };
    let eval = load_linear(model).map_err(other)?;
    let cfg = MatchConfig {
        depth: Some(recipe.arena.depth),
        games: recipe.arena.games,
        ..MatchConfig::default()
    };
    let report = run_match(&eval, &Material, &openings, &cfg, |_| {});
    let match_dir = dir.join("match");
    let mut files = crate::arena::files::MatchFiles::create(&match_dir, "model", "material")
        .map_err(io_at(&match_dir))?;
    for g in &report.games {
        files.add(g).map_err(io_at(&match_dir))?;
    }
    files
        .finish(&report.summary_line("model", "material"))
        .map_err(io_at(&match_dir))?;
    let (low, high) = report.elo_interval95();
    Ok(MatchFigures {
        depth: recipe.arena.depth,
        wins: report.wins as u32,
        losses: report.losses as u32,
        draws: report.draws as u32,
        elo: report.elo(),
        elo_low: low,
        elo_high: high,
        seconds: start.elapsed().as_secs_f64(),
    })
}

/// Fits the round's model; writes the figures and the sidecar before the model,
/// so an existing model always has both.
fn fit(
    recipe: &Recipe,
    features: &Features,
    svm: &[PathBuf],
    model_path: &Path,
    dir: &Path,
    figures: &mut Figures,
    observer: &Arc<dyn Observer>,
) -> Result<FitFigures, PipelineError> {
    let s = &recipe.solver;
    let solver = match s.name.as_str() {
        "dual" => Solver::Dual,
        "dense" => Solver::Dense,
        _ => Solver::Primal,
    };
    let progress = observer.clone();
    let mut params = SvrParams::new().c(s.c).p(s.p);
    match (s.tolerance, solver) {
        (Some(t), _) => params = params.tolerance(t),
        (None, Solver::Primal) => {}
        (None, _) => params = params.tolerance(super::recipe::DEFAULT_TOLERANCE),
    }
    let params = params
        .bias(s.bias)
        .solver(solver)
        .max_iterations(s.max_iterations)
        .progress(Arc::new(move |p: &Progress| progress.fit_iteration(p)));
    let checked = linfa::ParamGuard::check(params).map_err(other)?;
    let checked_tolerance = checked.tolerance();
    let start = Instant::now();
    let data = read_paths(svm).map_err(other)?;
    let dataset = DatasetBase::new(SparseDataset(data.x), data.y);
    let fitted = checked.fit(&dataset).map_err(other)?;
    if let Some(w) = fitted.iteration_cap_warning() {
        observer.warning(&w);
    }
    let figures_fit = FitFigures {
        objective: fitted.objective,
        iterations: fitted.iterations,
        seconds: start.elapsed().as_secs_f64(),
    };
    let mut model = fitted.model;
    model.features = features.name();
    figures.fit = Some(figures_fit.clone());
    figures.save(dir)?;
    model
        .save_with_meta(
            model_path,
            false,
            &model.features,
            &[
                ("solver", toml_string(solver.liblinear_name())),
                ("c", format!("{:?}", s.c)),
                ("p", format!("{:?}", s.p)),
                ("tolerance", format!("{:?}", checked_tolerance)),
                ("bias", format!("{:?}", s.bias)),
                ("max_iterations", s.max_iterations.to_string()),
                ("iterations", fitted.iterations.to_string()),
                ("objective", format!("{:?}", fitted.objective)),
                ("binary", "false".into()),
            ],
        )
        .map_err(io_at(model_path))?;
    Ok(figures_fit)
}

/// `evaluator,phase,positions,top1,top3,top5`, as `kifulearn evaluate --csv`.
fn write_agreement(path: &Path, table: &[(String, Agreement)]) -> Result<(), PipelineError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    let mut rows = vec![vec![
        "evaluator".to_string(),
        "phase".into(),
        "positions".into(),
        "top1".into(),
        "top3".into(),
        "top5".into(),
    ]];
    for (name, a) in table {
        for (phase, tally) in a.rows() {
            let [t1, t3, t5] = tally.rates();
            rows.push(vec![
                name.clone(),
                phase.to_string(),
                tally.positions.to_string(),
                format!("{t1:.6}"),
                format!("{t3:.6}"),
                format!("{t5:.6}"),
            ]);
        }
    }
    for r in rows {
        w.write_record(&r).map_err(other)?;
    }
    let bytes = w.into_inner().map_err(other)?;
    write_atomic(path, &bytes)
}

/// Writes `weights.csv` (docs/reports.md): one row per non-zero weight; returns the row count.
pub fn write_weights(
    path: &Path,
    model: &Model,
    features: &Features,
) -> Result<usize, PipelineError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "index", "set", "weight", "piece_a", "square_a", "piece_b", "square_b", "name",
    ])
    .map_err(other)?;
    let mut n = 0;
    for (j, &weight) in model.w.iter().enumerate() {
        if weight == 0.0 {
            continue;
        }
        let index = j as u32 + 1;
        let name = features.describe(index).ok_or_else(|| {
            PipelineError::Other(format!(
                "weight index {index} is beyond feature set {} (dimension {})",
                features.name(),
                features.dimension()
            ))
        })?;
        w.write_record([
            index.to_string().as_str(),
            name.set,
            &format_g17(weight),
            &name.piece_a,
            &name.square_a,
            &name.piece_b,
            &name.square_b,
            &name.name,
        ])
        .map_err(other)?;
        n += 1;
    }
    let bytes = w.into_inner().map_err(other)?;
    write_atomic(path, &bytes)?;
    Ok(n)
}

/// The `all` row of each evaluator in a round's `agreement.csv`: `(evaluator, [top1, top3, top5])`.
fn read_agreement(path: &Path) -> Result<Vec<(String, [String; 3])>, PipelineError> {
    let mut r = csv::Reader::from_path(path).map_err(other)?;
    let mut out = Vec::new();
    for rec in r.records() {
        let rec = rec.map_err(other)?;
        if rec.get(1) == Some("all") {
            let f = |i| rec.get(i).unwrap_or("").to_string();
            out.push((f(0), [f(3), f(4), f(5)]));
        }
    }
    Ok(out)
}

/// Rewrites `DIR/rounds.csv` from the files of rounds 1..=`last` (docs/reports.md).
pub fn write_rounds(out: &Path, last: u32) -> Result<(), PipelineError> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "round",
        "labeller",
        "train_games",
        "heldout_games",
        "rows",
        "nonzeros",
        "objective",
        "iterations",
        "extract_seconds",
        "fit_seconds",
        "evaluate_seconds",
        "model_top1",
        "model_top3",
        "model_top5",
        "material_top1",
        "material_top3",
        "material_top5",
        "match_depth",
        "match_games",
        "match_score",
        "match_elo",
        "match_elo_low",
        "match_elo_high",
    ])
    .map_err(other)?;
    for round in 1..=last {
        let dir = out.join(format!("round-{round}"));
        let f = Figures::load(&dir);
        let (Some(e), Some(fit), Some(ev)) = (f.extract.clone(), f.fit.clone(), f.evaluate.clone())
        else {
            return Err(PipelineError::Other(format!(
                "{}: a step's figures are missing",
                Figures::path(&dir).display()
            )));
        };
        let agreement = read_agreement(&dir.join("agreement.csv"))?;
        let tops = |name: &str| {
            agreement
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, t)| t.clone())
                .unwrap_or_default()
        };
        let (m, b) = (tops(&model_name(round)), tops("material"));
        let mut row = vec![
            round.to_string(),
            e.labeller,
            e.train_games.to_string(),
            e.heldout_games.to_string(),
            e.rows.to_string(),
            e.nonzeros.to_string(),
            format!("{:?}", fit.objective),
            fit.iterations.to_string(),
            format!("{:.3}", e.seconds),
            format!("{:.3}", fit.seconds),
            format!("{:.3}", ev.seconds),
        ];
        row.extend(m);
        row.extend(b);
        match &f.arena {
            Some(a) => row.extend([
                a.depth.to_string(),
                (a.wins + a.losses + a.draws).to_string(),
                format!("{:.4}", a.score()),
                format!("{:.1}", a.elo),
                format!("{:.1}", a.elo_low),
                format!("{:.1}", a.elo_high),
            ]),
            None => row.extend(std::iter::repeat_n(String::new(), 6)),
        }
        w.write_record(&row).map_err(other)?;
    }
    let bytes = w.into_inner().map_err(other)?;
    write_atomic(&out.join("rounds.csv"), &bytes)
}
