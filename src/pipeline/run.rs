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

use super::figures::{EvaluateFigures, ExtractFigures, Figures};
use super::recipe::Recipe;
use super::reports::{model_name, round_dir, write_agreement, write_rounds, write_weights};
use super::split::is_held_out;
use super::steps::{fit_svr, play_material};
use crate::arena::TestOpenings;
use crate::engine::agreement::{games_agreement, Agreement};
use crate::eval::{load_linear, Material};
use crate::extract::{self, ExtractOptions, GameJob, GameReport, Labelling};
use crate::features::Features;
use crate::model::{meta_path, Model, ModelMeta};
use crate::record::{self, Game};
use crate::train::Progress;

/// Receives what a run does, for progress bars and summary lines. Every method does nothing by default.
pub trait Observer: Send + Sync {
    /// A summary line (one per step).
    fn line(&self, _text: &str) {}
    /// A step that has no progress bar of its own starts (scoring or
    /// generating positions, the match).
    fn step(&self, _text: &str) {}
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

/// A fingerprint of everything in `recipe` that changes what a round writes
/// (its description aside): FNV-1a over the recipe serialized as TOML, in hex.
/// Written by hand rather than with `std`'s hasher, whose output may change
/// between Rust releases; it only has to tell recipes apart, not resist attack.
pub fn recipe_fingerprint(recipe: &Recipe) -> String {
    let mut r = recipe.clone();
    r.description.clear();
    // A round does not depend on how many rounds follow it: adding a round
    // keeps the rounds already made.
    r.rounds = 0;
    let text = toml::to_string(&r).unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in text.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

/// The games of a recipe, split.
pub struct Games {
    /// Training games, as extraction jobs in input order.
    pub train: Vec<GameJob>,
    /// Held-out games.
    pub heldout: Vec<Game>,
    /// Games that could not be read: `path#index: message`.
    pub errors: Vec<String>,
    /// Games left out of training because they pass through a test
    /// opening's position ([`TestOpenings`]): `path#index`.
    pub test_openings: Vec<String>,
}

/// Reads the recipe's inputs (at most `max_games` readable games, in file order) and splits them.
pub fn read_games(recipe: &Recipe) -> Result<Games, PipelineError> {
    let files = record::find_record_files(&recipe.inputs.paths).map_err(other)?;
    let stems = extract::file_stems(&files);
    let mut games = Games {
        train: Vec::new(),
        heldout: Vec::new(),
        errors: Vec::new(),
        test_openings: Vec::new(),
    };
    let test = TestOpenings::bundled();
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
                    } else if test.passed_by(&game) {
                        games.test_openings.push(source);
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
    /// The closing table ([`super::reports::summary_table`]).
    pub summary: String,
}

/// Runs every round of `recipe` into `out`, skipping steps an earlier run completed.
pub fn run_recipe(
    recipe: &Recipe,
    out: &Path,
    observer: Arc<dyn Observer>,
) -> Result<RunResult, PipelineError> {
    let features: Features = recipe.features.set.parse().map_err(other)?;
    let label = recipe.labels.options().check().map_err(other)?;
    let options = ExtractOptions {
        label,
        skip_opening: recipe.labels.skip_opening as usize,
        max_plies: match recipe.labels.max_plies {
            0 => None,
            n => Some(n as usize),
        },
        rows_at: recipe.labels.rows_at,
        ..ExtractOptions::default()
    };
    fs::create_dir_all(out).map_err(io_at(out))?;
    let games = read_games(recipe)?;
    for e in &games.errors {
        observer.line(&format!("skipped: {e}"));
    }
    if let Some(line) = crate::arena::left_out_line(&games.test_openings) {
        observer.line(&line);
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
        let dir = round_dir(out, round);
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

        let method = recipe.learner.method.name();
        if matches!(method, "ranking" | "positions" | "selfplay") {
            // The learners that read the games themselves (`learn.rs`).
            if model_path.exists() && figures.fit.is_some() {
                observer.line(&format!(
                    "round {round} {method}: done earlier ({})",
                    model_path.display()
                ));
            } else {
                let train: Vec<Game> = games
                    .train
                    .iter()
                    .filter_map(|j| j.game.as_ref().ok().cloned())
                    .collect();
                let previous = (round > 1).then(|| out.join(model_name(round - 1)));
                observer.step(&format!(
                    "round {round} {method}: {}",
                    match method {
                        "selfplay" => format!(
                            "generating {} positions at depth {}, then learning",
                            recipe.learner.generate_positions, recipe.learner.generate_depth
                        ),
                        "positions" => format!(
                            "scoring {} games' positions at depth {}, then learning",
                            train.len(),
                            recipe.learner.teacher_depth
                        ),
                        _ => format!("ranking {} games' moves", train.len()),
                    }
                ));
                let step = if method == "ranking" {
                    let step = super::learn::ranking_round(
                        recipe,
                        &features,
                        &train,
                        previous.as_deref(),
                        &model_path,
                    )?;
                    observer.line(&format!(
                        "round {round} ranking: {} positions, {} epochs, J/position {:.6}, {:.1}s -> {}",
                        step.extract.rows,
                        step.fit.iterations,
                        step.fit.objective,
                        step.fit.seconds,
                        model_path.display()
                    ));
                    step
                } else {
                    let step = super::learn::positions_round(
                        recipe,
                        round,
                        &features,
                        &train,
                        &games.heldout,
                        previous.as_deref(),
                        &model_path,
                    )?;
                    let fit = if recipe.learner.fit == super::recipe::SelfplayFit::Svr {
                        format!(
                            "rows in {}, fit svr {} iterations, objective {:.6e}",
                            dir.join("rows").display(),
                            step.fit.iterations,
                            step.fit.objective
                        )
                    } else {
                        format!(
                            "fit {} epochs, cross-entropy {:.5}",
                            step.fit.iterations, step.fit.objective
                        )
                    };
                    observer.line(&format!(
                        "round {round} {method}: {} positions scored by {} at depth {} in {:.1}s; {fit}, {:.1}s -> {}",
                        step.extract.rows,
                        step.extract.labeller,
                        recipe.learner.scores_depth(),
                        step.extract.seconds,
                        step.fit.seconds,
                        model_path.display()
                    ));
                    step
                };
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
                let fit = if recipe.learner.method == super::recipe::Method::Streaming {
                    super::steps::fit_streaming(
                        recipe,
                        &features,
                        &svm,
                        &model_path,
                        &dir,
                        &mut figures,
                    )?
                } else {
                    fit_svr(
                        recipe,
                        &features,
                        &svm,
                        &model_path,
                        &dir,
                        &mut figures,
                        &observer,
                    )?
                };
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

        // The grain the model plays at, in its sidecar before any match.
        if let Some(grain) = recipe.arena.grain {
            crate::model::set_grain(&model_path, grain).map_err(other)?;
        }

        // Match against material.
        if recipe.arena.games > 0 && figures.arena.is_none() {
            observer.step(&format!(
                "round {round} match: {} games against material at depth {}",
                recipe.arena.games, recipe.arena.depth
            ));
            let m = play_material(recipe, &model_path, &dir, None)?;
            observer.line(&match_line(round, &m));
            figures.arena = Some(m);
            figures.save(&dir)?;
        }
        if recipe.arena.games > 0 && recipe.arena.movetime.is_some() && figures.timed.is_none() {
            let m = play_material(recipe, &model_path, &dir, recipe.arena.movetime)?;
            observer.line(&match_line(round, &m));
            figures.timed = Some(m);
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
    let meta = ModelMeta::parse(&meta)
        .map_err(|e| PipelineError::Other(format!("{}: {e}", meta_path(&last).display())))?;
    // Each with its sidecar (its own model_hash); the binary carries the meta too.
    model
        .save_with_meta(&final_model, false, &meta)
        .map_err(io_at(&final_model))?;
    model
        .save_with_meta(&final_bin, true, &meta)
        .map_err(io_at(&final_bin))?;
    observer.line(&format!(
        "final model: {} and {}",
        final_model.display(),
        final_bin.display()
    ));
    let summary =
        super::reports::summary_table(recipe, out, recipe.rounds, &final_model, &final_bin);
    Ok(RunResult {
        rounds: recipe.rounds,
        final_model,
        final_bin,
        summary,
    })
}

/// The line a round's match prints: its conditions, W/L/D, score, Elo and,
/// when measured, the model's nodes/s over material's.
fn match_line(round: u32, m: &super::figures::MatchFigures) -> String {
    let at = match m.movetime_ms {
        Some(ms) => format!("at {ms} ms a move"),
        None => format!("at depth {}", m.depth),
    };
    let speed = m
        .nps_ratio
        .map_or(String::new(), |r| format!(", nodes/s {r:.2}x material's"));
    format!(
        "round {round} match vs material {at}: +{} -{} ={}, score {:.3}, Elo {:+.0} [{:+.0}, {:+.0}]{speed}, {:.1}s",
        m.wins,
        m.losses,
        m.draws,
        m.score(),
        m.elo,
        m.elo_low,
        m.elo_high,
        m.seconds
    )
}
