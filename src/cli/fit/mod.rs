//! `kifulearn fit svr|ranking|streaming|positions`: one subcommand per
//! learner, each with its own options (`--help` shows only those), the
//! options every learner shares ([`OutArgs`]), and the dispatch to one file
//! per learner (`svr.rs`, `ranking.rs`, `streaming.rs`, `positions.rs`). A
//! learner file imports from here and from the library, never from another
//! learner.

use std::ffi::OsString;
use std::path::PathBuf;

use clap::{Args as ClapArgs, Subcommand};
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

/// Options of `fit`: the learner, as a subcommand.
#[derive(ClapArgs)]
#[command(subcommand_required = true, arg_required_else_help = true)]
pub struct Args {
    #[command(subcommand)]
    learner: Learner,
}

/// The learners, one subcommand each.
#[derive(Subcommand)]
enum Learner {
    /// L2-loss ε-SVR on labelled libsvm rows, in memory (liblinear `-s 11`/`-s 12`
    /// compatible; docs/svr.md).
    Svr(svr::Args),
    /// A ranking of each position's moves, straight from game records
    /// (Bonanza's comparison training; docs/ranking.md).
    Ranking(ranking::Args),
    /// The streaming batched learner on libsvm files, one file (game) at a
    /// time (docs/streaming.md).
    Streaming(streaming::Args),
    /// The Texel / elmo learner on positions of game records or position
    /// files, scored by a search (docs/positions-learner.md).
    Positions(positions::Args),
}

/// The learners' names, as `fit` takes them.
pub const LEARNERS: [&str; 4] = ["svr", "ranking", "streaming", "positions"];

/// Rewrites a command line of the old spelling, `fit --method NAME ...` or
/// `fit DATA ...` (meaning `svr`), to `fit NAME ...`, so scripts written for
/// it keep working. `args` are the whole command line, the program's name
/// first; any other command line is returned unchanged.
pub fn old_spelling(args: Vec<OsString>) -> Vec<OsString> {
    let global = |a: &OsString| {
        matches!(
            a.to_str(),
            Some("-q" | "--quiet" | "-v" | "--verbose" | "-qv" | "-vq")
        )
    };
    let Some(fit) = args
        .iter()
        .skip(1)
        .position(|a| !global(a))
        .map(|i| i + 1)
        .filter(|&i| args[i] == "fit")
    else {
        return args;
    };
    let rest = &args[fit + 1..];
    let first = rest.iter().find(|a| !global(a)).and_then(|a| a.to_str());
    match first {
        None | Some("help" | "-h" | "--help") => return args,
        Some(name) if LEARNERS.contains(&name) => return args,
        _ => {}
    }
    let mut rest: Vec<OsString> = rest.to_vec();
    let mut learner = OsString::from("svr");
    if let Some(i) = rest.iter().position(|a| a == "--method") {
        if i + 1 < rest.len() {
            learner = rest.remove(i + 1);
        }
        rest.remove(i);
    } else if let Some(i) = rest
        .iter()
        .position(|a| a.to_str().is_some_and(|s| s.starts_with("--method=")))
    {
        let a = rest.remove(i);
        learner = OsString::from(&a.to_str().expect("checked")["--method=".len()..]);
    } else if rest.iter().any(|a| a == "-h" || a == "--help") {
        // `fit --out m --help`: the list of learners.
        return args;
    }
    let mut new = args[..=fit].to_vec();
    new.push(learner);
    new.extend(rest);
    new
}

/// When clap refuses an option of `fit NAME` that another learner takes,
/// the message that says so: `--solver does not apply to fit streaming (it
/// is an option of fit svr)`. `args` are the command line clap parsed.
pub fn other_learners_option(args: &[OsString], option: &str) -> Option<String> {
    let fit = args.iter().position(|a| a == "fit")?;
    let learner = args[fit + 1..]
        .iter()
        .filter_map(|a| a.to_str())
        .find(|a| LEARNERS.contains(a))?;
    // `--rate=0.1` and `-c5` name `--rate` and `-c`.
    let flag = option.split('=').next().unwrap_or(option);
    let command = Args::augment_args(clap::Command::new("fit"));
    let takes = |sub: &clap::Command| {
        sub.get_arguments().any(|arg| {
            let long = arg
                .get_long_and_visible_aliases()
                .into_iter()
                .flatten()
                .chain(arg.get_all_aliases().into_iter().flatten())
                .any(|l| flag.strip_prefix("--") == Some(l));
            let short = arg.get_short().is_some_and(|s| {
                flag.strip_prefix('-')
                    .and_then(|f| f.chars().next())
                    .is_some_and(|c| c == s && !flag.starts_with("--"))
            });
            long || short
        })
    };
    let others: Vec<String> = command
        .get_subcommands()
        .filter(|s| s.get_name() != learner && takes(s))
        .map(|s| format!("fit {}", s.get_name()))
        .collect();
    if others.is_empty() {
        return None;
    }
    let flag = if flag.starts_with("--") {
        flag
    } else {
        &flag[..2.min(flag.len())]
    };
    Some(format!(
        "{flag} does not apply to fit {learner} (it is an option of {})",
        others.join(", ")
    ))
}

/// Options every learner takes: where the model goes and what it says.
#[derive(ClapArgs)]
pub struct OutArgs {
    /// Model file to write (liblinear text, or binary with --binary).
    #[arg(long)]
    out: PathBuf,
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
}

impl OutArgs {
    /// Checks the options before any data is read: the feature set (from
    /// the dataset folders among `data` when `rows`, the libsvm learners),
    /// and `--monotone-hand` against it.
    fn model_out(
        &self,
        data: &[PathBuf],
        rows: bool,
    ) -> Result<ModelOut, Box<dyn std::error::Error>> {
        let set = data_features(self.features.as_deref(), data, rows)?;
        let monotone = if self.monotone_hand {
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
        Ok(ModelOut {
            path: self.out.clone(),
            features: set,
            binary: self.binary,
            monotone_hand: monotone,
        })
    }
}

/// The training games of `records` ([`kifulearn::record::read_games`]), less
/// those through a test opening's position unless `keep_test_openings`; the
/// games left out are counted and the first named on stderr.
pub fn training_games(records: &[PathBuf], keep_test_openings: bool) -> Result<Vec<Game>, String> {
    let games = kifulearn::record::read_games(records)?;
    if keep_test_openings {
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
pub struct ModelOut {
    /// The model file.
    pub path: PathBuf,
    /// The feature set's name, as given.
    pub features: String,
    /// Compact binary instead of liblinear text.
    pub binary: bool,
    /// Make hand-piece worth non-increasing before saving.
    pub monotone_hand: Option<Features>,
}

impl ModelOut {
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
        model.save_with_meta(&self.path, self.binary, features, &options)
    }
}

/// The feature set of the model: `--features` if given, else (`rows`: the
/// libsvm learners) the one the dataset folders among `data` name
/// (`dataset.toml`), else `unspecified`. A `--features` other than a dataset
/// folder's is refused: the model would be read with the wrong index layout.
fn data_features(
    given: Option<&str>,
    data: &[PathBuf],
    rows: bool,
) -> Result<String, Box<dyn std::error::Error>> {
    use kifulearn::libsvm::dataset;
    let from_data = if rows {
        dataset::features_of(data)?
    } else {
        None
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

/// Runs `fit NAME`.
pub fn run(args: Args) -> CliResult {
    match args.learner {
        Learner::Svr(args) => svr::run(&args),
        Learner::Ranking(args) => ranking::run(&args),
        Learner::Streaming(args) => streaming::run(&args),
        Learner::Positions(args) => positions::run(&args),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rewritten(line: &str) -> String {
        let args = line.split(' ').map(OsString::from).collect();
        let new: Vec<String> = old_spelling(args)
            .into_iter()
            .map(|a| a.into_string().unwrap())
            .collect();
        new.join(" ")
    }

    /// The old spelling keeps working: `--method NAME` becomes the
    /// subcommand, and no method means the SVR; the new one is left alone.
    #[test]
    fn old_spelling_becomes_the_subcommand() {
        for (old, new) in [
            (
                "k fit --method ranking g --out m",
                "k fit ranking g --out m",
            ),
            (
                "k fit g --method=streaming --out m",
                "k fit streaming g --out m",
            ),
            ("k -q fit g --out m -v", "k -q fit svr g --out m -v"),
            ("k fit g --out m", "k fit svr g --out m"),
            ("k fit --bogus", "k fit svr --bogus"),
            ("k fit ranking g --out m", "k fit ranking g --out m"),
            ("k fit -v positions g", "k fit -v positions g"),
            ("k fit", "k fit"),
            ("k fit --help", "k fit --help"),
            ("k fit help svr", "k fit help svr"),
            ("k extract fit --method x", "k extract fit --method x"),
        ] {
            assert_eq!(rewritten(old), new, "{old}");
        }
    }
}
