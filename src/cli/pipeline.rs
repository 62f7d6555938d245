//! `kifulearn pipeline run RECIPE [--out DIR] [--input PATH]... [--generate-openings FILE]`:
//! a whole recipe, resumable.

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::{Arc, Mutex};

use indicatif::ProgressBar;

use kifulearn::extract::GameReport;
use kifulearn::pipeline::run::{run_recipe, Observer};
use kifulearn::pipeline::Recipe;
use kifulearn::train::Progress;

use super::{verbosity, CliResult};

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: PipelineCommand,
}

#[derive(clap::Subcommand)]
enum PipelineCommand {
    /// Run every round of a recipe (rerunning resumes where an interrupted run stopped).
    Run(RunArgs),
}

#[derive(clap::Args)]
struct RunArgs {
    /// Recipe file (TOML, see pipelines/).
    recipe: PathBuf,
    /// Output folder [default: out/<recipe file stem>].
    #[arg(long)]
    out: Option<PathBuf>,
    /// Game-record file or folder to use instead of the recipe's inputs (repeatable).
    #[arg(long = "input")]
    inputs: Vec<PathBuf>,
    /// Opening lines for self-play generation instead of the recipe's
    /// `[learner] generate_openings` (beside the bundled ones; test openings refused).
    #[arg(long, value_name = "FILE")]
    generate_openings: Option<PathBuf>,
}

/// Progress bars on stderr, the step being run as a spinner on stderr, each
/// step's summary line on stderr with `-v`; the closing table on stdout.
struct Bars {
    bar: Mutex<Option<ProgressBar>>,
}

impl Bars {
    fn start(&self, len: u64, template: &str) {
        let bar = verbosity::bar(len, template).unwrap_or_else(|_| ProgressBar::hidden());
        if let Ok(mut b) = self.bar.lock() {
            *b = Some(bar);
        }
    }
    fn finish(&self) {
        if let Ok(mut b) = self.bar.lock() {
            if let Some(bar) = b.take() {
                bar.finish_and_clear();
            }
        }
    }
}

impl Observer for Bars {
    fn line(&self, text: &str) {
        self.finish();
        verbosity::trace!("{text}");
    }
    fn step(&self, text: &str) {
        self.finish();
        self.start(0, "{spinner} {elapsed_precise} {msg}");
        if let Ok(b) = self.bar.lock() {
            if let Some(bar) = b.as_ref() {
                bar.set_message(text.to_string());
                bar.enable_steady_tick(std::time::Duration::from_millis(200));
            }
        }
    }
    fn warning(&self, text: &str) {
        eprintln!("warning: {text}");
    }
    fn extract_start(&self, round: u32, games: usize) {
        self.start(
            games as u64,
            &format!("round {round} extract {{elapsed_precise}} [{{bar:30}}] {{pos}}/{{len}} games {{msg}}"),
        );
    }
    fn extract_game(&self, report: &GameReport, _resumed: bool) {
        if let Ok(b) = self.bar.lock() {
            if let Some(bar) = b.as_ref() {
                if !report.is_ok() {
                    bar.suspend(|| eprintln!("{}: {}", report.source, report.status));
                }
                bar.inc(1);
            }
        }
    }
    fn extract_end(&self) {
        self.finish();
    }
    fn fit_iteration(&self, p: &Progress) {
        verbosity::trace!(
            "{} iter {:4}  objective {:.6e}  |g| {:.3e}  {:.2}s",
            p.solver,
            p.iteration,
            p.objective,
            p.gradient_norm,
            p.seconds
        );
    }
    fn evaluate_start(&self, round: u32, games: usize) {
        self.start(
            games as u64,
            &format!(
                "round {round} evaluate {{elapsed_precise}} {{spinner}} {{len}} held-out games"
            ),
        );
        if let Ok(b) = self.bar.lock() {
            if let Some(bar) = b.as_ref() {
                bar.enable_steady_tick(std::time::Duration::from_millis(200));
            }
        }
    }
    fn evaluate_end(&self) {
        self.finish();
    }
}

pub fn run(args: Args) -> CliResult {
    let PipelineCommand::Run(args) = args.command;
    let mut recipe = Recipe::load(&args.recipe)?;
    if !args.inputs.is_empty() {
        recipe.inputs.paths = args.inputs.clone();
    }
    if let Some(file) = &args.generate_openings {
        recipe.learner.generate_openings = Some(file.clone());
    }
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args
            .recipe
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "pipeline".into());
        PathBuf::from("out").join(stem)
    });
    let observer = Arc::new(Bars {
        bar: Mutex::new(None),
    });
    let result = run_recipe(&recipe, &out, observer)?;
    print!("{}", result.summary);
    Ok(ExitCode::SUCCESS)
}
