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
use kifulearn::model::{Model, ModelMeta};
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

/// The learners' names, as `fit` takes them: [`Learner`]'s subcommands.
fn learners() -> Vec<String> {
    Learner::augment_subcommands(clap::Command::new("fit"))
        .get_subcommands()
        .map(|s| s.get_name().to_string())
        .collect()
}

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
        Some(name) if learners().iter().any(|l| l == name) => return args,
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
    let names = learners();
    let learner = args[fit + 1..]
        .iter()
        .filter_map(|a| a.to_str())
        .find(|a| names.iter().any(|l| l == a))?;
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
    /// `binary` and `monotone_hand` set in `meta`.
    pub fn write(
        &self,
        model: &mut Model,
        counts: Option<&[f64]>,
        meta: ModelMeta,
    ) -> std::io::Result<()> {
        if let Some(features) = &self.monotone_hand {
            let changed = monotone_hand(features, &mut model.w, counts).unwrap_or(0);
            summary!("monotone hand: {changed} weight(s) pooled");
        }
        let meta = ModelMeta {
            binary: Some(self.binary),
            monotone_hand: Some(self.monotone_hand.is_some()),
            ..meta
        };
        model.save_with_meta(&self.path, self.binary, &meta)
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
    use kifulearn::pipeline::recipe::{Learner as LearnerTable, Recipe};
    use kifulearn::train::SvrOptions;
    use std::collections::BTreeMap;

    /// The serde field names of `T` (the keys a recipe table takes), read
    /// from the parser's message for a key that is none of them.
    fn keys<T: serde::de::DeserializeOwned>() -> Vec<String> {
        let err = toml::from_str::<T>("no_such_key = 0")
            .err()
            .unwrap()
            .to_string();
        let list = err
            .split("expected one of ")
            .nth(1)
            .expect("a list of fields");
        list.lines()
            .next()
            .unwrap()
            .split(", ")
            .map(|k| k.trim_matches('`').to_string())
            .collect()
    }

    /// A recipe table's defaults, as TOML text per key ("none" when unset).
    fn table_defaults<T: serde::Serialize>(table: &T) -> BTreeMap<String, String> {
        let value = toml::Value::try_from(table).unwrap();
        let table = value.as_table().unwrap();
        table
            .iter()
            .map(|(k, v)| (k.clone(), v.to_string().trim_matches('"').to_string()))
            .collect()
    }

    /// The flags of `fit LEARNER` with their defaults as `--help` shows them:
    /// "false" for a switch, "none" for an option without one.
    fn flags(learner: &str) -> BTreeMap<String, String> {
        // Built, so a switch has its default ("false") and `--help` is there.
        let mut fit = Args::augment_args(clap::Command::new("fit"));
        fit.build();
        let sub = fit.find_subcommand(learner).expect("a learner");
        sub.get_arguments()
            .filter(|a| !a.is_positional())
            .map(|a| {
                let name = match (a.get_long(), a.get_short()) {
                    (Some(long), _) => format!("--{long}"),
                    (None, Some(short)) => format!("-{short}"),
                    _ => unreachable!(),
                };
                let default = a.get_default_values();
                let default = match default.first() {
                    Some(d) => d.to_string_lossy().into_owned(),
                    None => "none".to_string(),
                };
                (name, default)
            })
            .collect()
    }

    /// Two defaults as the same value: numbers compared as numbers.
    fn same(a: &str, b: &str) -> bool {
        match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => x == y,
            _ => a == b,
        }
    }

    /// The options every learner takes, and clap's own.
    const SHARED: &[&str] = &[
        "--out",
        "--binary",
        "--features",
        "--monotone-hand",
        "--help",
    ];

    /// Every recipe key of `[solver]` and `[learner]` and every flag of every
    /// `fit` learner, walked against each other: a key and a flag of one
    /// parameter have one default, or the difference is listed here with
    /// both values (so a new one, or a changed value, fails until it is
    /// listed and explained); a key with no flag or a flag with no key is
    /// listed as such.
    #[test]
    fn every_recipe_key_and_fit_flag_has_one_default() {
        // `[solver]` is `fit svr`'s option struct itself: every key is a flag
        // with the same default, and every SVR flag a key.
        let svr = flags("svr");
        let solver = table_defaults(&SvrOptions::default());
        let svr_flag = |key: &str| match key {
            "name" => "--solver".to_string(),
            "max_iterations" => "--max-iter".to_string(),
            "c" | "p" => format!("-{key}"),
            "tolerance" => "-e".to_string(),
            "bias" => "-B".to_string(),
            other => panic!("[solver] {other}: no flag of fit svr"),
        };
        let solver_keys = keys::<SvrOptions>();
        assert_eq!(solver_keys.len(), 6, "{solver_keys:?}");
        for key in &solver_keys {
            let flag = svr_flag(key);
            let want = solver.get(key).map_or("none", String::as_str);
            let got = svr
                .get(&flag)
                .unwrap_or_else(|| panic!("fit svr has no {flag}"));
            assert!(
                same(want, got),
                "[solver] {key} = {want} but fit svr {flag} {got}"
            );
        }
        for flag in svr.keys() {
            let svr_own = ["--prior", "--jobs"];
            assert!(
                SHARED.contains(&flag.as_str())
                    || svr_own.contains(&flag.as_str())
                    || solver_keys.iter().any(|k| &svr_flag(k) == flag),
                "fit svr {flag}: no [solver] key and not listed"
            );
        }

        // `[learner]`: one flat table for every learner. Each link is (key,
        // learner, flag, the key's default, the flag's default); `None`
        // where the two are the same value. A flag's switch is the key's
        // boolean (`learn-material`: its negation; `--leaf`: `leaf` other
        // than `sibling`).
        type Link = (
            &'static str,
            &'static str,
            &'static str,
            Option<(&'static str, &'static str)>,
        );
        const LINKS: &[Link] = &[
            ("teacher_depth", "positions", "--teacher-depth", None),
            ("result_weight", "positions", "--result-weight", None),
            ("eval_k", "positions", "--eval-k", None),
            ("mu", "positions", "--mu", None),
            // Unset: the learner's own step.
            ("rate", "ranking", "--rate", None),
            ("rate", "streaming", "--rate", Some(("none", "0.005"))),
            ("rate", "positions", "--rate", Some(("none", "1"))),
            // Recipes train every learner 10 epochs, ranking's default.
            ("epochs", "ranking", "--epochs", None),
            ("epochs", "streaming", "--epochs", Some(("10", "1"))),
            ("epochs", "positions", "--epochs", Some(("10", "30"))),
            ("batch", "positions", "--batch", None),
            ("skip_plies", "positions", "--skip-plies", None),
            // Recipes skip the opening plies for ranking as for positions.
            ("skip_plies", "ranking", "--skip-opening", Some(("16", "0"))),
            ("prior", "positions", "--prior", None),
            // Recipes start ranking from material; `fit ranking` from zero.
            ("prior", "ranking", "--prior", Some(("material", "none"))),
            (
                "anchor_material",
                "positions",
                "--learn-material",
                Some(("true", "false")),
            ),
            (
                "anchor_material",
                "ranking",
                "--anchor-material",
                Some(("true", "false")),
            ),
            ("teacher", "positions", "--evaluator", None),
            ("leaf", "ranking", "--leaf", Some(("sibling", "false"))),
            ("optimizer", "ranking", "--optimizer", None),
            ("window", "ranking", "--window", None),
            ("lambda", "ranking", "--lambda", None),
            ("batch_games", "ranking", "--batch-games", None),
            // Recipes batch 8 games for streaming too, ranking's default.
            (
                "batch_games",
                "streaming",
                "--batch-games",
                Some(("8", "4")),
            ),
        ];
        // Keys with no `fit` flag: the learner itself, and self-play's
        // generation (`kifulearn generate`'s options).
        const RECIPE_ONLY: &[&str] = &[
            "method",
            "generate_positions",
            "generate_depth",
            "learn_rounds",
            "generate_openings",
        ];
        // Flags with no `[learner]` key: threads, held-out records, the test
        // openings (recipes always leave them out), seeds (recipes use the
        // learners' defaults), ranking's last ply (`[labels] max_plies`),
        // `--research` (`leaf = "current"`), the streaming learner's weight
        // bounds, and the streamed positions learner's memory.
        const FLAG_ONLY: &[(&str, &str)] = &[
            ("ranking", "--jobs"),
            ("ranking", "--held-out"),
            ("ranking", "--keep-test-openings"),
            ("ranking", "--seed"),
            ("ranking", "--max-plies"),
            ("ranking", "--research"),
            ("streaming", "--seed"),
            ("streaming", "--min-frequency"),
            ("streaming", "--bound"),
            ("positions", "--threads"),
            ("positions", "--held-out-records"),
            ("positions", "--keep-test-openings"),
            ("positions", "--seed"),
            ("positions", "--chunk"),
            ("positions", "--no-leaf-cache"),
        ];
        let learner_keys = keys::<LearnerTable>();
        let recipe = Recipe::parse(
            "[inputs]\npaths = [\"g\"]\n",
            std::path::Path::new("r.toml"),
        )
        .unwrap();
        let defaults = table_defaults(&recipe.learner);
        for key in &learner_keys {
            let links: Vec<&Link> = LINKS.iter().filter(|l| l.0 == key).collect();
            assert!(
                !links.is_empty() || RECIPE_ONLY.contains(&key.as_str()),
                "[learner] {key}: no fit flag and not listed as recipe-only"
            );
            for (_, learner, flag, differs) in links {
                let want = defaults.get(key.as_str()).map_or("none", String::as_str);
                let got = flags(learner);
                let got = got
                    .get(*flag)
                    .unwrap_or_else(|| panic!("fit {learner} has no {flag}"));
                match differs {
                    None => assert!(
                        same(want, got),
                        "[learner] {key} = {want} but fit {learner} {flag} {got}: one default, or list the difference"
                    ),
                    Some((key_default, flag_default)) => assert!(
                        same(want, key_default) && same(got, flag_default),
                        "[learner] {key} = {want}, fit {learner} {flag} {got}: the listed difference is {key_default} against {flag_default}"
                    ),
                }
            }
        }
        for key in RECIPE_ONLY {
            assert!(
                learner_keys.iter().any(|k| k == key),
                "{key} is no [learner] key"
            );
        }
        for learner in ["ranking", "streaming", "positions"] {
            for flag in flags(learner).keys() {
                let linked = LINKS.iter().any(|l| l.1 == learner && l.2 == flag);
                let listed = FLAG_ONLY.contains(&(learner, flag.as_str()));
                assert!(
                    SHARED.contains(&flag.as_str()) || linked || listed,
                    "fit {learner} {flag}: no [learner] key and not listed as a flag only"
                );
                assert!(!(linked && listed), "fit {learner} {flag} is listed twice");
            }
        }
    }

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
