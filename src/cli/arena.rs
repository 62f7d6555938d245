//! `kifulearn match --engine-a A --engine-b B [--depth D | --nodes N |
//! --movetime MS | --byoyomi MS ...] ...`: a match between two evaluators
//! searched in-process or other USI engines (`usi:COMMAND`), `docs/arena.md`.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use kifulearn::arena::files::{earlier_results, read_done, summary_text, MatchFiles};
use kifulearn::arena::openings::DEFAULT_OPENINGS_NAME;
use kifulearn::arena::{
    default_openings, read_openings, run_sides_after, select_openings, EloModel, MatchConfig, Side,
    SprtConfig, Tally, TimeControl, DEFAULT_DEPTH, DEPTHS,
};
use kifulearn::eval::{load_engine_evaluator, DynEvaluator, EvalChoice};
use kifulearn::usi_client::{parse_option, UsiClient, UsiSpec};

use super::verbosity::summary;
use super::{help_with_default, verbosity, CliResult};

/// The library's defaults of a match ([`MatchConfig::default`]), which the
/// flags take and `--help` shows.
fn defaults() -> MatchConfig {
    MatchConfig::default()
}

#[derive(clap::Args)]
#[command(group(clap::ArgGroup::new("sprt").args(["elo0", "nelo0"])))]
#[command(group(clap::ArgGroup::new("clock").multiple(true).args(["movetime", "byoyomi", "time", "inc"])))]
pub struct Args {
    /// Side A: `material`, a model file, or another USI engine as
    /// `usi:COMMAND` (e.g. `usi:/usr/games/fairy-stockfish`). Results are
    /// from A's view.
    #[arg(long)]
    engine_a: String,
    /// Side B: `material`, a model file, or `usi:COMMAND`.
    #[arg(long)]
    engine_b: String,
    /// A `usi:` engine A's option, NAME=VALUE (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    option_a: Vec<String>,
    /// A `usi:` engine B's option, NAME=VALUE (repeatable).
    #[arg(long, value_name = "NAME=VALUE")]
    option_b: Vec<String>,
    // Search depth of both sides; unset, MatchConfig::limits applies
    // DEFAULT_DEPTH unless --nodes or a clock is given, and the help says it.
    #[arg(long, value_parser = |s: &str| DEPTHS.parse(s), help = help_with_default(
        "Search depth of both sides",
        format_args!("{DEFAULT_DEPTH} without --nodes or a clock"),
    ))]
    depth: Option<u32>,
    /// Node limit per move of both sides (deterministic: counted, not timed).
    #[arg(long)]
    nodes: Option<u64>,
    /// Every move this many milliseconds (a clock: games depend on timing).
    #[arg(long, value_name = "MS", conflicts_with_all = ["depth", "nodes"])]
    movetime: Option<u64>,
    /// Byoyomi in milliseconds: each move's time once the main time is spent.
    #[arg(long, value_name = "MS", conflicts_with_all = ["depth", "nodes"])]
    byoyomi: Option<u64>,
    /// Main time per side and game, milliseconds [default: 0 with --byoyomi or --inc].
    #[arg(long, value_name = "MS", conflicts_with_all = ["depth", "nodes"])]
    time: Option<u64>,
    /// Increment per move, milliseconds (Fischer; not with --byoyomi).
    #[arg(long, value_name = "MS", conflicts_with_all = ["depth", "nodes"])]
    inc: Option<u64>,
    /// On a clock: a move answered later than its time plus this many
    /// milliseconds loses on time.
    #[arg(long, value_name = "MS", default_value_t = defaults().time_margin.as_millis() as u64, requires = "clock")]
    time_margin: u64,
    /// Games to play; each opening is played twice, colours swapped.
    #[arg(long, default_value_t = defaults().games)]
    games: usize,
    /// Opening lines (`startpos moves ...` / `sfen ... moves ...`, one a line)
    /// [default: the bundled TEST openings, fixtures/openings/match.sfen: 575 of
    /// lines 10232–10831 of the floodgate-2016 set, less 25 that open training
    /// games; generation uses only lines 1–10231].
    #[arg(long)]
    openings: Option<PathBuf>,
    /// Start at this opening line (counting after the --seed shuffle), wrapping around.
    #[arg(long, default_value_t = 0)]
    openings_skip: usize,
    /// Shuffle the openings with this seed [default: none, file order].
    #[arg(long)]
    seed: Option<u64>,
    /// Threads playing games [default: all cores]. Results do not depend on
    /// it, except on a clock.
    #[arg(long)]
    jobs: Option<usize>,
    /// Plies from the start position (opening included) after which a game is drawn.
    #[arg(long, default_value_t = defaults().max_plies)]
    max_plies: usize,
    /// Megabytes of each side's transposition table (a `usi:` engine's Hash).
    #[arg(long, default_value_t = defaults().hash_mb)]
    hash: usize,
    /// SPRT on game pairs: logistic Elo of H0 (with --elo1; stops the match
    /// when the test decides).
    #[arg(
        long,
        requires = "elo1",
        conflicts_with = "nelo0",
        allow_hyphen_values = true
    )]
    elo0: Option<f64>,
    /// SPRT on game pairs: logistic Elo of H1.
    #[arg(
        long,
        requires = "elo0",
        conflicts_with = "nelo1",
        allow_hyphen_values = true
    )]
    elo1: Option<f64>,
    /// SPRT on game pairs: normalized Elo of H0 (with --nelo1; instead of
    /// --elo0/--elo1; from -200 to 200).
    #[arg(long, requires = "nelo1", allow_hyphen_values = true)]
    nelo0: Option<f64>,
    /// SPRT on game pairs: normalized Elo of H1.
    #[arg(long, requires = "nelo0", allow_hyphen_values = true)]
    nelo1: Option<f64>,
    /// SPRT: type I error rate (with --elo0/--elo1 or --nelo0/--nelo1).
    #[arg(long, default_value_t = kifulearn::arena::stats::DEFAULT_ERROR_RATE, requires = "sprt")]
    alpha: f64,
    /// SPRT: type II error rate (with --elo0/--elo1 or --nelo0/--nelo1).
    #[arg(long, default_value_t = kifulearn::arena::stats::DEFAULT_ERROR_RATE, requires = "sprt")]
    beta: f64,
    /// Write DIR/games/NNNN.csa, DIR/results.csv and DIR/summary.txt. A DIR
    /// that holds a match already is refused, unless --resume.
    #[arg(long)]
    out: Option<PathBuf>,
    /// Continue the match in --out DIR (interrupted, or to more --games):
    /// its complete game pairs count and are not played again; the same
    /// engines, openings and settings are expected.
    #[arg(long, requires = "out")]
    resume: bool,
}

impl Args {
    /// The match's options, checked: [`MatchConfig::default`] moved by the
    /// flags given.
    fn config(&self) -> Result<MatchConfig, Box<dyn std::error::Error>> {
        if self.games == 0 {
            return Err("--games 0: expected at least 1".into());
        }
        if self.jobs == Some(0) {
            return Err("--jobs 0: expected at least 1".into());
        }
        let sprt = match (self.elo0, self.elo1, self.nelo0, self.nelo1) {
            (Some(elo0), Some(elo1), _, _) => Some((EloModel::Logistic, elo0, elo1)),
            (_, _, Some(nelo0), Some(nelo1)) => Some((EloModel::Normalized, nelo0, nelo1)),
            _ => None,
        }
        .map(|(model, elo0, elo1)| SprtConfig {
            model,
            elo0,
            elo1,
            alpha: self.alpha,
            beta: self.beta,
        });
        if let Some(sprt) = &sprt {
            sprt.check().map_err(|e| format!("SPRT: {e}"))?;
        }
        let time = TimeControl::from_options(self.movetime, self.time, self.inc, self.byoyomi)?;
        Ok(MatchConfig {
            depth: self.depth,
            nodes: self.nodes,
            time,
            time_margin: Duration::from_millis(self.time_margin),
            games: self.games,
            max_plies: self.max_plies,
            jobs: self.jobs.unwrap_or(0),
            hash_mb: self.hash.max(1),
            sprt,
        })
    }
}

pub fn run(args: Args) -> CliResult {
    let cfg = args.config()?;
    let hash_mb = cfg.hash_mb;
    let (given_a, given_b) = (
        given(&args.engine_a, &args.option_a, "A", hash_mb)?,
        given(&args.engine_b, &args.option_b, "B", hash_mb)?,
    );
    let (a, b) = (given_a.side(), given_b.side());
    let (a_name, b_name) = (args.engine_a.trim(), args.engine_b.trim());
    let (a_name, b_name) = (name_of(a_name), name_of(b_name));
    let (openings, openings_name) = match &args.openings {
        Some(path) => {
            let text =
                std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
            (read_openings(&text, path)?, path.display().to_string())
        }
        None => (default_openings(), DEFAULT_OPENINGS_NAME.to_string()),
    };
    let openings = select_openings(openings, args.openings_skip, args.seed);
    let done = match &args.out {
        Some(dir) if args.resume => read_done(dir, &openings, cfg.games, &a_name, &b_name)?,
        Some(dir) => match earlier_results(dir) {
            Some(path) => {
                return Err(format!(
                    "{} holds a match already; --resume continues it, or give another --out",
                    path.display()
                )
                .into())
            }
            None => Vec::new(),
        },
        None => Vec::new(),
    };
    if args.resume {
        summary!("resumed: {} games of the earlier run counted", done.len());
    }
    let mut files = match &args.out {
        Some(dir) => Some(
            MatchFiles::create(dir, &a_name, &b_name)
                .map_err(|e| format!("{}: {e}", dir.display()))?,
        ),
        None => None,
    };
    // -q: no bar; -v: one line per game on stderr.
    let bar = verbosity::bar(
        args.games as u64,
        "{bar:40} {pos}/{len} games {msg} {elapsed}",
    )?;
    let mut tally = Tally::default();
    let mut write_error = None;
    let report = run_sides_after(&a, &b, &openings, &cfg, done, |g| {
        tally.add(g.score_a());
        if verbosity::verbose() {
            let mut line = format!(
                "game {:4} line {:5} A {:5} {:4} {:15} {:3} plies",
                g.game,
                g.opening_line,
                if g.a_color == kifulearn::shogi::Color::Black {
                    "black"
                } else {
                    "white"
                },
                g.result_a(),
                g.end.name(),
                g.plies()
            );
            if let Some(why) = &g.detail {
                line.push_str(&format!(": {why}"));
            }
            // println on a hidden bar (stderr not a terminal) prints nothing.
            bar.suspend(|| eprintln!("{line}"));
        }
        bar.set_message(format!(
            "+{} -{} ={} score {:.3}",
            tally.wins,
            tally.losses,
            tally.draws,
            tally.score()
        ));
        bar.inc(1);
        if let Some(f) = files.as_mut() {
            if write_error.is_none() {
                write_error = f.add(g).err();
            }
        }
    });
    bar.finish_and_clear();
    if let Some(e) = write_error {
        return Err(format!("writing the match files: {e}").into());
    }
    println!("{}", report.summary_line(&a_name, &b_name));
    for line in report.speed_lines().iter().chain(&report.fault_line()) {
        summary!("{line}");
    }
    if let (Some(f), Some(dir)) = (files, &args.out) {
        let summary = summary_text(&report, &a_name, &b_name, &cfg, &openings_name);
        f.finish(&summary)
            .map_err(|e| format!("{}: {e}", dir.display()))?;
    }
    Ok(ExitCode::SUCCESS)
}

/// A side as given on the command line.
enum Given {
    Eval(DynEvaluator),
    Usi(UsiSpec),
}

impl Given {
    fn side(&self) -> Side<'_, DynEvaluator> {
        match self {
            Given::Eval(eval) => Side::Search(eval),
            Given::Usi(spec) => Side::Usi(spec.clone()),
        }
    }
}

/// `usi:COMMAND` as an external engine (started once here, so that a wrong
/// command stops the match before it begins), anything else as an evaluator.
fn given(
    text: &str,
    options: &[String],
    which: &str,
    hash_mb: usize,
) -> Result<Given, Box<dyn std::error::Error>> {
    let flag = format!("--option-{}", which.to_lowercase());
    let Some(command) = text.trim().strip_prefix("usi:") else {
        if !options.is_empty() {
            return Err(format!("{flag}: engine {which} is not a usi: engine").into());
        }
        return Ok(Given::Eval(load_engine_evaluator(&EvalChoice::parse(
            text,
        ))?));
    };
    let mut spec = UsiSpec::new(command.trim(), &format!("engine {which}"));
    spec.hash_mb = hash_mb;
    for o in options {
        spec.options
            .push(parse_option(o).ok_or_else(|| format!("{flag} {o:?}: expected NAME=VALUE"))?);
    }
    if command.trim().is_empty() {
        return Err(format!("--engine-{}: usi: needs a command", which.to_lowercase()).into());
    }
    let client = UsiClient::start(spec.clone())?;
    summary!(
        "engine {which}: {} ({})",
        client.name().unwrap_or("no id name"),
        spec.command
    );
    Ok(Given::Usi(spec))
}

/// A side's name in records and reports: what was given (`material`, a
/// model path, `usi:COMMAND`).
fn name_of(text: &str) -> String {
    match text.strip_prefix("usi:") {
        Some(command) => format!("usi:{}", command.trim()),
        None => EvalChoice::parse(text).name(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::{Args as _, FromArgMatches};
    use kifulearn::pipeline::recipe::Recipe;

    /// The options `match --engine-a a --engine-b b ARGS...` sets.
    fn cli_config(args: &[&str]) -> MatchConfig {
        let line = ["match", "--engine-a", "a", "--engine-b", "b"]
            .into_iter()
            .chain(args.iter().copied());
        let matches = Args::augment_args(clap::Command::new("match"))
            .try_get_matches_from(line)
            .unwrap();
        Args::from_arg_matches(&matches).unwrap().config().unwrap()
    }

    /// `match` with no flag plays MatchConfig::default(), the one
    /// definition of a match's defaults, which a recipe's `[match]` starts
    /// from too; the depth is applied by MatchConfig::limits, so that
    /// --nodes or a clock can replace it.
    #[test]
    fn match_flags_default_to_the_match_config() {
        let d = MatchConfig::default();
        let cli = cli_config(&[]);
        assert_eq!(
            MatchConfig {
                depth: d.depth,
                ..cli.clone()
            },
            d
        );
        assert_eq!(cli.depth, None);
        assert_eq!(cli.limits(), d.limits());
        assert_eq!(d.limits().depth, Some(DEFAULT_DEPTH));
        let recipe = Recipe::parse(
            "[inputs]\npaths = [\"g\"]\n",
            std::path::Path::new("r.toml"),
        )
        .unwrap();
        assert_eq!(recipe.arena.depth, DEFAULT_DEPTH);
        // Each flag moves its own option.
        assert_eq!(cli_config(&["--depth", "5"]).limits().depth, Some(5));
        assert_eq!(cli_config(&["--nodes", "500"]).limits().depth, None);
        assert_eq!(cli_config(&["--games", "7"]).games, 7);
        assert_eq!(cli_config(&["--max-plies", "99"]).max_plies, 99);
        assert_eq!(cli_config(&["--hash", "3"]).hash_mb, 3);
        let clock = cli_config(&["--byoyomi", "100", "--time-margin", "7"]);
        assert_eq!(clock.time_margin, Duration::from_millis(7));
    }
}
