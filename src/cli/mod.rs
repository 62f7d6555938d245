//! Subcommands of `kifulearn`, one module each.

use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{CommandFactory, FromArgMatches, Parser, Subcommand};

pub(crate) mod verbosity;

mod arena;
mod dataset;
mod evaluate;
mod extract;
mod fit;
mod games;
mod generate;
mod perft;
mod pipeline;
mod positions;
mod predict;
mod teacher;
#[cfg(test)]
mod test_views;
mod usi;
mod weights;

/// The help of a flag whose default the code applies itself: `HELP
/// [default: DEFAULT]`, with DEFAULT made from the constant the code applies
/// (`#[arg(help = help_with_default(..))]`, evaluated when clap builds the
/// command). Such a flag is an `Option`, not clap's `default_value_t`,
/// because the code must know whether it was given (the default depends on
/// another flag, or the flag needs another one); written out in a doc
/// comment, the default would be a second copy that can drift from the
/// constant, where this text cannot. (Not a `concat!`: it takes literals
/// only, no constants.)
pub(crate) fn help_with_default(help: &str, default: impl std::fmt::Display) -> String {
    format!("{help} [default: {default}]")
}

/// Learn a shogi evaluation function from game records, and play it over USI.
#[derive(Parser)]
#[command(name = "kifulearn", version, about)]
struct Cli {
    /// Print only results, warnings and errors: no progress bars, no summary lines.
    #[arg(
        short,
        long,
        global = true,
        conflicts_with = "verbose",
        display_order = 1000
    )]
    quiet: bool,
    /// Print per-iteration traces too (solver iterations, epochs, games, chunks).
    #[arg(short, long, global = true, display_order = 1000)]
    verbose: bool,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Count the leaf nodes of the legal-move tree (checks the move generator).
    Perft(perft::Args),
    /// Read game records and report the games read and the errors, per file.
    Games(games::Args),
    /// Play over the USI protocol on stdin/stdout.
    Usi(usi::Args),
    /// Top-1/3/5 agreement of an evaluator's move ranking with the moves of games.
    Evaluate(evaluate::Args),
    /// Train a model: `fit svr` or `fit streaming` on libsvm rows, `fit
    /// ranking` or `fit positions` on game records (each with its own --help).
    Fit(fit::Args),
    /// Predict libsvm rows with a model, like liblinear-predict.
    Predict(predict::Args),
    /// Extract labelled training rows (libsvm) from game records.
    Extract(extract::Args),
    /// Work on dataset folders (`merge` the shards of a sharded extraction).
    Dataset(dataset::Args),
    /// Run a recipe: extract, fit, evaluate, relabel with the model, repeat.
    Pipeline(pipeline::Args),
    /// Summarize position files (YaneuraOu PackedSfenValue, cshogi HCPE), dump
    /// their positions as SFEN lines, convert between the two formats, or
    /// relabel them with a USI engine's scores (--relabel OUT --teacher-usi CMD).
    Positions(positions::Args),
    /// Print a 9x9 table of relation weights of a piece around the own king.
    Weights(weights::Args),
    /// Play a match between two evaluators or USI engines, on depth, nodes
    /// or a clock (W/L/D, Elo, SPRT; CSA records).
    Match(arena::Args),
    /// Generate positions by self-play (scores, best moves, results) as
    /// PackedSfenValue or HCPE files, with every game as a CSA record.
    Generate(Box<generate::Args>),
}

/// Parses the command line and runs the chosen command.
pub fn run() -> ExitCode {
    // `fit --method NAME` and `fit DATA` (the SVR) are the old spellings of `fit NAME`.
    let args = fit::old_spelling(std::env::args_os().collect());
    let matches = Cli::command()
        .try_get_matches_from(&args)
        .unwrap_or_else(|e| exit_with(e, &args));
    let cli = Cli::from_arg_matches(&matches).unwrap_or_else(|e| e.exit());
    if cli.quiet && cli.verbose {
        // clap checks the conflict only when both come before the subcommand.
        eprintln!("error: -q/--quiet and -v/--verbose cannot be used together");
        return ExitCode::from(FAILURE);
    }
    verbosity::set(if cli.quiet {
        verbosity::Verbosity::Quiet
    } else if cli.verbose {
        verbosity::Verbosity::Verbose
    } else {
        verbosity::Verbosity::Normal
    });
    let result = match cli.command {
        Command::Perft(args) => perft::run(args),
        Command::Games(args) => games::run(args),
        Command::Usi(args) => usi::run(args),
        Command::Evaluate(args) => evaluate::run(args),
        Command::Fit(args) => fit::run(args),
        Command::Predict(args) => predict::run(args),
        Command::Extract(args) => extract::run(args),
        Command::Dataset(args) => dataset::run(args),
        Command::Pipeline(args) => pipeline::run(args),
        Command::Weights(args) => weights::run(args),
        Command::Match(args) => arena::run(args),
        Command::Positions(args) => positions::run(args),
        Command::Generate(args) => generate::run(*args),
    };
    match result {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(FAILURE)
        }
    }
}

/// Exits on clap's error `e` about command line `args`; an option of another
/// learner given to `fit NAME` is named with the learners that take it.
fn exit_with(e: clap::Error, args: &[std::ffi::OsString]) -> ! {
    use clap::error::{ContextKind, ContextValue, ErrorKind};
    if e.kind() == ErrorKind::UnknownArgument {
        if let Some(ContextValue::String(option)) = e.get(ContextKind::InvalidArg) {
            if let Some(message) = fit::other_learners_option(args, option) {
                eprintln!("error: {message}");
                std::process::exit(i32::from(FAILURE));
            }
        }
    }
    e.exit()
}

/// Exit code of a command that failed (an error printed on stderr), the same
/// as clap's for a usage error (`docs/cli.md`).
pub const FAILURE: u8 = 2;

/// Exit code of a command that did its work but for some inputs, each
/// reported on stderr (`extract` with games that failed; `docs/cli.md`).
pub const PARTIAL: u8 = 1;

/// Errors reaching the command line: any error, printed once as `error: MESSAGE`
/// (its `Display`; the library's errors carry their own file, line and cause
/// in that message, so the `source()` chain is not printed again).
pub type CliResult = Result<ExitCode, Box<dyn std::error::Error>>;

/// The rayon pool for `--jobs N` (all cores when not given); `--jobs 0` is an error.
fn thread_pool(jobs: Option<usize>) -> Result<rayon::ThreadPool, Box<dyn std::error::Error>> {
    let mut pool = rayon::ThreadPoolBuilder::new();
    if let Some(n) = jobs {
        if n == 0 {
            return Err("--jobs 0: expected at least 1".into());
        }
        pool = pool.num_threads(n);
    }
    Ok(pool.build()?)
}

/// A file written under `PATH.tmp` and renamed to `PATH` by [`AtomicFile::commit`],
/// so an interrupted run leaves either the complete file or none: for a file
/// kept open while other work goes on (`positions --sfen/--convert`); one
/// written at once goes through [`kifulearn::files::write_atomic_with`].
pub(crate) struct AtomicFile {
    path: PathBuf,
    tmp: PathBuf,
    writer: BufWriter<std::fs::File>,
}

impl AtomicFile {
    pub(crate) fn create(path: &Path) -> Result<Self, Box<dyn std::error::Error>> {
        let tmp = kifulearn::files::tmp_path(path);
        let file = std::fs::File::create(&tmp)
            .map_err(|e| format!("cannot create {}: {e}", tmp.display()))?;
        Ok(Self {
            path: path.to_path_buf(),
            tmp,
            writer: BufWriter::new(file),
        })
    }

    pub(crate) fn writer(&mut self) -> &mut BufWriter<std::fs::File> {
        &mut self.writer
    }

    pub(crate) fn commit(mut self) -> Result<(), Box<dyn std::error::Error>> {
        self.writer.flush()?;
        drop(self.writer);
        std::fs::rename(&self.tmp, &self.path).map_err(|e| {
            format!(
                "cannot rename {} to {}: {e}",
                self.tmp.display(),
                self.path.display()
            )
        })?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One flag names an evaluator (`material` or a model file),
    /// `--evaluator`, and `--teacher-usi` a USI engine that scores; the old
    /// spellings are hidden aliases, so scripts that use them still run.
    #[test]
    fn old_evaluator_flags_are_aliases() {
        // (command line before the flag, the argument's id, old flag, new flag)
        let cases: &[(&[&str], &str, &str, &str)] = &[
            (
                &["extract", "g", "--out", "o"],
                "labeller",
                "--labeller",
                "--evaluator",
            ),
            (&["evaluate", "g"], "evaluator", "--model", "--evaluator"),
            (&["usi"], "evaluator", "--model", "--evaluator"),
            (
                &["fit", "positions", "g", "--out", "m"],
                "teacher",
                "--teacher",
                "--evaluator",
            ),
            (
                &["generate", "--out", "o"],
                "teacher",
                "--teacher",
                "--teacher-usi",
            ),
            (
                &["positions", "f", "--relabel", "o"],
                "teacher",
                "--teacher",
                "--teacher-usi",
            ),
        ];
        for (line, id, old, new) in cases {
            let value = |flag: &str| {
                let tail = [flag, "x"];
                let args = ["kifulearn"].iter().chain(*line).chain(&tail);
                let matches = Cli::command().try_get_matches_from(args).unwrap();
                let mut m = &matches;
                while let Some((_, sub)) = m.subcommand() {
                    m = sub;
                }
                m.get_one::<String>(id).cloned()
            };
            assert_eq!(value(old), Some("x".into()), "{line:?} {old}");
            assert_eq!(value(new), Some("x".into()), "{line:?} {new}");
        }
    }

    /// A depth parameter's range is written once (`DepthRange`) and refused
    /// alike by every flag and the recipe key that set it: the same depths
    /// pass, and a depth out of range is refused with the same words,
    /// naming the flag (clap) or the key (the recipe's check): `generate
    /// --depth` and `generate_depth`, `--teacher-depth` and `teacher_depth`,
    /// `match --depth` and `[match] depth`, `evaluate --depth` and
    /// `[evaluate] depth`.
    #[test]
    fn depth_flags_and_recipe_keys_refuse_alike() {
        use kifulearn::arena;
        use kifulearn::engine::agreement;
        use kifulearn::generate::{GenerateConfig, DEPTHS};
        use kifulearn::pipeline::recipe::Recipe;
        use kifulearn::search::DepthRange;
        use kifulearn::train::positions::TEACHER_DEPTHS;
        /// The range, the command lines before the depth, the flag, the
        /// recipe's table, its lines before the key, the key.
        type Case = (
            DepthRange,
            &'static [&'static [&'static str]],
            &'static str,
            &'static str,
            &'static str,
            &'static str,
        );
        let cases: [Case; 4] = [
            (
                DEPTHS,
                &[&["generate", "--out", "o"]],
                "--depth",
                "learner",
                "method = \"selfplay\"\n",
                "generate_depth",
            ),
            (
                TEACHER_DEPTHS,
                &[
                    &["fit", "positions", "g", "--out", "m"],
                    &["extract", "g", "--out", "o", "--per-position"],
                ],
                "--teacher-depth",
                "learner",
                "method = \"positions\"\n",
                "teacher_depth",
            ),
            (
                arena::DEPTHS,
                &[&["match", "--engine-a", "a", "--engine-b", "b"]],
                "--depth",
                "match",
                "games = 2\n",
                "depth",
            ),
            (
                agreement::DEPTHS,
                &[&["evaluate", "--evaluator", "material", "g"]],
                "--depth",
                "evaluate",
                "",
                "depth",
            ),
        ];
        for (range, lines, flag, table, before, key) in cases {
            let allowed = range.allowed();
            for d in range.min.saturating_sub(1)..=range.max + 1 {
                let ok = range.contains(d);
                let text = format!("[inputs]\npaths = [\"g\"]\n[{table}]\n{before}{key} = {d}\n");
                let recipe = Recipe::parse(&text, Path::new("r.toml"));
                match &recipe {
                    Ok(_) => assert!(ok, "{table}.{key} = {d} passes"),
                    Err(e) => assert_eq!(
                        e.to_string(),
                        format!(
                            "r.toml: line {}: {table}.{key} = {d}: {allowed}",
                            text.lines().count()
                        )
                    ),
                }
                for line in lines {
                    let depth = d.to_string();
                    let tail = [flag, depth.as_str()];
                    let args = ["kifulearn"].iter().chain(*line).chain(&tail);
                    match Cli::command().try_get_matches_from(args) {
                        Ok(_) => assert!(ok, "{line:?} {flag} {d} passes"),
                        Err(e) => {
                            let e = e.to_string();
                            assert!(!ok, "{line:?} {flag} {d}: {e}");
                            assert!(
                                e.contains(&format!("'{d}' for '{flag} <"))
                                    && e.contains(&format!(">': {allowed}\n")),
                                "{line:?} {flag} {d}: {e}"
                            );
                        }
                    }
                }
            }
        }
        // The library's own check of a run's options says it too.
        let d = DEPTHS.max + 1;
        let cfg = GenerateConfig {
            depth: Some(d),
            ..GenerateConfig::default()
        };
        assert_eq!(
            cfg.check().unwrap_err().to_string(),
            format!("--depth {d}: expected {}", DEPTHS.allowed())
        );
    }
}
