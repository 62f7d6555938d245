//! `kifulearn fit`: the arguments every method shares, the check that an
//! option belongs to the method chosen, and the dispatch to one file per
//! method (`svr.rs`, `ranking.rs`, `streaming.rs`, `positions.rs`). A method
//! file imports from here and from the library, never from another method.

use std::path::{Path, PathBuf};

use clap::parser::ValueSource;
use clap::{ArgMatches, Args as ClapArgs, ValueEnum};
use kifulearn::arena::{left_out_line, TestOpenings};
use kifulearn::features::{BaseSet, Features};
use kifulearn::model::Model;
use kifulearn::record::Game;
use kifulearn::train::isotonic::monotone_hand;

use super::verbosity::summary;
use super::CliResult;

mod positions;
mod ranking;
mod streaming;
mod svr;

use positions::PositionsArgs;
use ranking::RankingArgs;
use streaming::StreamingArgs;
use svr::SvrArgs;

/// Options of `fit` (defaults as `liblinear-train -s 11`).
#[derive(ClapArgs)]
pub struct Args {
    /// libsvm files, or folders of `*.svm` files (`--method ranking`: game records or folders).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    /// What to train: the in-memory SVR on labelled libsvm rows, a ranking of
    /// each position's moves straight from game records (docs/ranking.md), or
    /// the streaming batched learner on libsvm files (docs/streaming.md).
    #[arg(long, value_enum, default_value_t = Method::Svr)]
    method: Method,
    /// Model file to write (liblinear text, or binary with --binary).
    #[arg(long)]
    out: PathBuf,
    #[command(flatten)]
    svr: SvrArgs,
    /// Write the compact binary model instead of liblinear's text.
    #[arg(long)]
    binary: bool,
    /// Name of the feature set the data was extracted with (kept in MODEL.meta.toml)
    /// [default: what the dataset folders' dataset.toml say, else "unspecified"].
    /// Refused when a dataset folder given says another set.
    #[arg(long)]
    features: Option<String>,
    /// After fitting, make the worth of the k-th piece in hand non-increasing in
    /// k (the `material` part of --features; isotonic regression, for the SVR
    /// weighted by how often each count occurs in the data).
    #[arg(long)]
    monotone_hand: bool,
    /// Where the weights are pulled to instead of 0 (`--method svr`: ½‖w − w0‖²;
    /// `--method positions`: ½μ‖w − w0‖², also the start): `material` (the
    /// built-in piece values on the `material` part of --features), `zero`, or
    /// a model file [default: svr zero, positions material].
    #[arg(long)]
    prior: Option<String>,
    #[command(flatten)]
    learner: LearnerArgs,
    #[command(flatten)]
    ranking: RankingArgs,
    #[command(flatten)]
    streaming: StreamingArgs,
    #[command(flatten)]
    positions: PositionsArgs,
}

/// Options shared by the ranking and streaming learners.
#[derive(ClapArgs)]
#[command(next_help_heading = "Ranking and streaming learners")]
pub struct LearnerArgs {
    /// Passes over the data [default: ranking 10, streaming 1].
    #[arg(long)]
    pub epochs: Option<usize>,
    /// Games per update [default: ranking 8, streaming 4].
    #[arg(long)]
    pub batch_games: Option<usize>,
    /// Step size [default: ranking adagrad 0.002, adam 0.0005, sign 0.0002; streaming 0.005].
    #[arg(long, allow_negative_numbers = true)]
    pub rate: Option<f64>,
    /// Seed of the game order [default: ranking 1, streaming sorted order].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Ranking and positions: train on the games that pass through a test
    /// opening's position too. By default they are left out and named, as
    /// recipes do: `kifulearn match` plays from those openings
    /// (`fixtures/openings/match.sfen`), and a model must not be judged on
    /// games it learned from.
    #[arg(long)]
    pub keep_test_openings: bool,
}

/// The training games of `records` ([`kifulearn::record::read_games`]), less
/// those through a test opening's position unless `shared` keeps them; the
/// games left out are counted and the first named on stderr.
pub fn training_games(records: &[PathBuf], shared: &LearnerArgs) -> Result<Vec<Game>, String> {
    let games = kifulearn::record::read_games(records)?;
    if shared.keep_test_openings {
        return Ok(games);
    }
    let (kept, left_out) =
        TestOpenings::bundled().leave_out(games, |g| Some(g), |g| g.source.to_string());
    if let Some(line) = left_out_line(&left_out) {
        summary!("{line}");
    }
    if kept.is_empty() {
        return Err(format!(
            "every game of {records:?} passes through a test opening's position: \
             none is left to train on (--keep-test-openings trains on them)"
        ));
    }
    Ok(kept)
}

/// Where and how a learner writes its model.
pub struct ModelOut<'a> {
    /// The model file.
    pub path: &'a Path,
    /// The feature set's name, as given.
    pub features: &'a str,
    /// Compact binary instead of liblinear text.
    pub binary: bool,
    /// Make hand-piece worth non-increasing before saving.
    pub monotone_hand: Option<Features>,
}

impl ModelOut<'_> {
    /// Applies `--monotone-hand` (weighted by `counts` when given), then writes
    /// the model and its sidecar as one unit ([`Model::save_with_meta`]), with
    /// `monotone_hand` added to `options`.
    pub fn write(
        &self,
        model: &mut Model,
        counts: Option<&[f64]>,
        features: &str,
        options: &[(&str, String)],
    ) -> std::io::Result<()> {
        if let Some(features) = &self.monotone_hand {
            let changed = monotone_hand(features, &mut model.w, counts).unwrap_or(0);
            summary!("monotone hand: {changed} weight(s) pooled");
        }
        let mut options = options.to_vec();
        options.push(("monotone_hand", self.monotone_hand.is_some().to_string()));
        model.save_with_meta(self.path, self.binary, features, &options)
    }
}

#[derive(Clone, Copy, PartialEq, Eq, ValueEnum)]
enum Method {
    Svr,
    Ranking,
    Streaming,
    Positions,
}

impl Method {
    /// The name `--method` takes.
    fn name(self) -> &'static str {
        match self {
            Method::Svr => "svr",
            Method::Ranking => "ranking",
            Method::Streaming => "streaming",
            Method::Positions => "positions",
        }
    }
}

/// The feature set of the model: `--features` if given, else the one the
/// dataset folders among `data` name (`dataset.toml`), else `unspecified`.
/// A `--features` other than a dataset folder's is refused: the model would
/// be read with the wrong index layout.
fn data_features(
    given: Option<&str>,
    data: &[PathBuf],
    method: Method,
) -> Result<String, Box<dyn std::error::Error>> {
    use kifulearn::libsvm::dataset;
    let from_data = match method {
        Method::Svr | Method::Streaming => dataset::features_of(data)?,
        Method::Ranking | Method::Positions => None,
    };
    Ok(match (given, from_data) {
        (Some(given), Some(data_set)) => {
            let canonical = given
                .parse::<Features>()
                .map(|f| kifulearn::features::FeatureSet::name(&f))
                .unwrap_or_else(|_| given.to_string());
            if canonical != data_set {
                let dir = data
                    .iter()
                    .find(|p| dataset::is_dataset(p))
                    .map(|p| p.display().to_string())
                    .unwrap_or_default();
                return Err(format!(
                    "--features {given} but {dir} was extracted with features {data_set:?} \
                     ({}): a model must name the set of its rows; drop --features or extract again",
                    dataset::DATASET_TOML
                )
                .into());
            }
            given.to_string()
        }
        (None, Some(data_set)) => {
            summary!("features {data_set} (from {})", dataset::DATASET_TOML);
            data_set
        }
        (Some(given), None) => given.to_string(),
        (None, None) => "unspecified".to_string(),
    })
}

/// The methods an option of `fit` applies to, by its clap id and the option
/// group (`#[derive(Args)]` struct) it is declared in. An option not named
/// here applies as its group says; options of `Args` itself not named apply
/// to every method (data, --method, --out, --features, --binary, --monotone-hand).
fn applies_to(id: &str, group: Option<&str>) -> &'static [Method] {
    use Method::*;
    match (id, group) {
        ("solver" | "c" | "p" | "tolerance" | "bias" | "max_iter", _) => &[Svr],
        ("jobs", _) => &[Svr, Ranking],
        ("keep_test_openings", _) => &[Ranking, Positions],
        ("prior", _) => &[Svr, Positions],
        // The positions learner's batch is --batch (positions, not games).
        ("batch_games", _) => &[Ranking, Streaming],
        (_, Some("SvrArgs")) => &[Svr],
        (_, Some("LearnerArgs")) => &[Ranking, Streaming, Positions],
        (_, Some("RankingArgs")) => &[Ranking],
        (_, Some("StreamingArgs")) => &[Streaming],
        (_, Some("PositionsArgs")) => &[Positions],
        _ => &[Svr, Ranking, Streaming, Positions],
    }
}

/// Refuses the first option given on the command line that `method` does not
/// use, naming the option, the method and the methods it belongs to: an
/// option silently ignored (`--method streaming --solver dual -c 5`) is a
/// result the user did not ask for.
fn reject_inapplicable(matches: &ArgMatches, method: Method) -> Result<(), String> {
    let command = Args::augment_args(clap::Command::new("fit"));
    let group_of = |id: &clap::Id| {
        command
            .get_groups()
            .find(|g| g.get_args().any(|a| a == id))
            .map(|g| g.get_id().as_str())
    };
    for arg in command.get_arguments() {
        let id = arg.get_id();
        if matches.value_source(id.as_str()) != Some(ValueSource::CommandLine) {
            continue;
        }
        let methods = applies_to(id.as_str(), group_of(id));
        if methods.contains(&method) {
            continue;
        }
        let flag = match (arg.get_long(), arg.get_short()) {
            (Some(long), _) => format!("--{long}"),
            (None, Some(short)) => format!("-{short}"),
            (None, None) => id.to_string(),
        };
        let names: Vec<String> = methods.iter().map(|m| m.name().to_string()).collect();
        let hint = if id == "prior" && method == Method::Ranking {
            "; ranking: --ranking-prior"
        } else {
            ""
        };
        return Err(format!(
            "{flag} does not apply to --method {} (it is an option of --method {}{hint})",
            method.name(),
            names.join(", ")
        ));
    }
    Ok(())
}

/// Runs `fit`; `matches` are its own, to tell options given from defaults.
pub fn run(args: Args, matches: &ArgMatches) -> CliResult {
    reject_inapplicable(matches, args.method)?;
    let set = data_features(args.features.as_deref(), &args.data, args.method)?;
    // Reject bad options before reading gigabytes.
    let monotone = if args.monotone_hand {
        let features: Features = set.parse()?;
        if features.offset_of(BaseSet::Material).is_none() {
            return Err(format!(
                "--monotone-hand needs a material part in --features (got {:?})",
                set
            )
            .into());
        }
        Some(features)
    } else {
        None
    };
    let out = ModelOut {
        path: &args.out,
        features: &set,
        binary: args.binary,
        monotone_hand: monotone,
    };
    match args.method {
        Method::Svr => svr::run(
            &args.data,
            &out,
            args.prior.as_deref(),
            args.ranking.jobs,
            &args.svr,
        ),
        Method::Ranking => ranking::run(&args.data, &out, &args.ranking, &args.learner),
        Method::Streaming => streaming::run(&args.data, &out, &args.streaming, &args.learner),
        Method::Positions => positions::run(
            &args.data,
            &out,
            args.prior.as_deref(),
            &args.positions,
            &args.learner,
        ),
    }
}
