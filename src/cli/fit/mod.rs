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
    use crate::cli::test_views::{changed, fields, keys};
    use clap::FromArgMatches;
    use kifulearn::pipeline::recipe::{Learner as LearnerTable, Method, Recipe, SharedDefaults};
    use kifulearn::train::positions::{
        PositionsParams, DEFAULT_PRIOR, DEFAULT_SKIP_PLIES, DEFAULT_TEACHER, DEFAULT_TEACHER_DEPTH,
    };
    use kifulearn::train::ranking::RankingParams;
    use kifulearn::train::{StreamingParams, SvrOptions};
    use std::collections::{BTreeMap, BTreeSet};

    /// A learner's parameters by field name: its parameter struct, then
    /// what it takes besides (`params_debug` of each learner's file).
    fn view((debug, extra): (String, Vec<(&'static str, String)>)) -> BTreeMap<String, String> {
        let mut view = fields(&debug);
        for (name, value) in extra {
            view.insert(name.to_string(), value);
        }
        view
    }

    const LEARNERS: [&str; 4] = ["svr", "ranking", "streaming", "positions"];

    /// The parameters `fit LEARNER ARGS...` sets.
    fn cli_view(learner: &str, args: &[&str]) -> BTreeMap<String, String> {
        let fit = Args::augment_args(clap::Command::new("fit"));
        let line = ["fit", learner, "data", "--out", "m"]
            .into_iter()
            .chain(args.iter().copied());
        let matches = fit
            .try_get_matches_from(line)
            .unwrap_or_else(|e| panic!("fit {learner} {args:?}: {e}"));
        view(match Args::from_arg_matches(&matches).unwrap().learner {
            Learner::Svr(a) => svr::params_debug(&a),
            Learner::Ranking(a) => ranking::params_debug(&a),
            Learner::Streaming(a) => streaming::params_debug(&a),
            Learner::Positions(a) => positions::params_debug(&a),
        })
    }

    /// The learners' own defaults, from their parameter structs and the
    /// named constants beside them: what `fit LEARNER` must default to.
    fn library_view(learner: &str) -> BTreeMap<String, String> {
        view(match learner {
            "svr" => (format!("{:?}", SvrOptions::default()), vec![]),
            "ranking" => (format!("{:?}", RankingParams::default()), vec![]),
            "streaming" => (
                format!("{:?}", StreamingParams::default()),
                vec![("prior", "None".to_string())],
            ),
            "positions" => (
                format!("{:?}", PositionsParams::default()),
                vec![
                    ("teacher_depth", DEFAULT_TEACHER_DEPTH.to_string()),
                    ("skip_plies", DEFAULT_SKIP_PLIES.to_string()),
                    ("prior", format!("{DEFAULT_PRIOR:?}")),
                    ("teacher", format!("{DEFAULT_TEACHER:?}")),
                ],
            ),
            other => panic!("{other}: no learner"),
        })
    }

    /// The parameters each learner of a recipe's `[learner]` would take
    /// (the same `Recipe::*_params` the rounds use).
    fn recipe_views(learner_table: &str) -> BTreeMap<&'static str, BTreeMap<String, String>> {
        let text = format!("[inputs]\npaths = [\"g\"]\n[learner]\n{learner_table}");
        // Read, not checked: the views are of one table whatever learner
        // it names (a recipe that sets a key its learner does not read is
        // refused: (d) below).
        let r: Recipe = toml::from_str(&text).unwrap_or_else(|e| panic!("{learner_table}: {e}"));
        let l = &r.learner;
        let prior = (l.prior != "zero").then_some(l.prior.clone());
        let frozen = if l.anchor_material {
            "anchored"
        } else {
            "None"
        };
        BTreeMap::from([
            (
                "ranking",
                view((
                    format!("{:?}", r.ranking_params()),
                    vec![
                        ("prior", format!("{prior:?}")),
                        ("frozen", frozen.to_string()),
                    ],
                )),
            ),
            (
                "streaming",
                view((format!("{:?}", r.streaming_params()), vec![])),
            ),
            (
                "positions",
                view((
                    format!("{:?}", r.positions_params()),
                    vec![
                        ("teacher_depth", l.teacher_depth.to_string()),
                        ("skip_plies", l.skip_plies.to_string()),
                        ("prior", format!("{:?}", l.prior)),
                        ("teacher", format!("{:?}", l.teacher)),
                    ],
                )),
            ),
        ])
    }

    /// Two defaults as the same value: numbers compared as numbers, names
    /// whatever their case (`adagrad`, `AdaGrad`).
    fn same(a: &str, b: &str) -> bool {
        match (a.parse::<f64>(), b.parse::<f64>()) {
            (Ok(x), Ok(y)) => x == y,
            _ => a.eq_ignore_ascii_case(b.trim_matches('"')),
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

    /// Flags that set no learner parameter: threads, held-out records, the
    /// test openings (recipes always leave them out), the SVR's prior (a
    /// shift of the labels, not an SVR parameter) and the streamed
    /// positions learner's memory.
    const NOT_PARAMETERS: &[(&str, &str)] = &[
        ("svr", "--jobs"),
        ("svr", "--prior"),
        ("ranking", "--jobs"),
        ("ranking", "--held-out"),
        ("ranking", "--keep-test-openings"),
        ("positions", "--threads"),
        ("positions", "--held-out-records"),
        ("positions", "--keep-test-openings"),
        ("positions", "--chunk"),
        ("positions", "--no-leaf-cache"),
    ];

    /// The field a flag sets: its long name with `_` for `-`, but for these.
    fn field_of(learner: &str, flag: &str) -> String {
        match (learner, flag) {
            ("svr", "-e") => "tolerance",
            ("svr", "-B") => "bias",
            ("svr", "--max-iter") => "max_iterations",
            ("ranking", "--research") => "leaf",
            ("ranking", "--anchor-material") => "frozen",
            ("positions", "--result-weight") => "lambda",
            ("positions", "--learn-material") => "anchor_material",
            ("positions", "--evaluator") => "teacher",
            (_, flag) => return flag.trim_start_matches('-').replace('-', "_"),
        }
        .to_string()
    }

    /// `[learner]` keys that set no parameter of `fit`'s learners: the
    /// learner itself (`method`, and `fit`, which of two fits self-play's
    /// positions), and self-play's generation (`kifulearn generate`).
    const RECIPE_ONLY: &[&str] = &[
        "method",
        "fit",
        "generate_positions",
        "generate_depth",
        "learn_rounds",
        "generate_openings",
    ];

    /// A value other than `default` for a recipe key, in range.
    fn other_value(key: &str, default: Option<&toml::Value>) -> String {
        match (key, default) {
            ("prior" | "teacher", _) => "\"previous\"".into(),
            ("leaf", _) => "\"material\"".into(),
            ("optimizer", _) => "\"adam\"".into(),
            (_, Some(toml::Value::Integer(n))) => (n + 1).to_string(),
            (_, Some(toml::Value::Float(x))) => (x / 2.0).to_string(),
            (_, Some(toml::Value::Boolean(b))) => (!b).to_string(),
            (_, None) => "0.5".into(),
            (key, Some(v)) => panic!("[learner] {key} = {v}: no other value"),
        }
    }

    /// No parameter default or range is written in two places: every flag
    /// of `fit svr|ranking|streaming|positions` and every `[learner]` key
    /// sets a field of a learner's parameters (found by setting it and
    /// seeing which field moves), each flag's default (the one `--help`
    /// shows, and the parameters `fit LEARNER` builds with no flag) is the
    /// parameter struct's, and a recipe that sets no key gives each learner
    /// its own defaults with the recipe's [`SharedDefaults`] applied, where
    /// a key read by several learners has one default.
    #[test]
    fn every_fit_flag_and_recipe_key_is_one_parameter() {
        let mut fit = Args::augment_args(clap::Command::new("fit"));
        fit.build();
        for learner in LEARNERS {
            // (b) `fit LEARNER` with no flag: the parameter struct's defaults.
            let defaults = cli_view(learner, &[]);
            assert_eq!(
                defaults,
                library_view(learner),
                "fit {learner}'s defaults are not its parameters' defaults"
            );
            let sub = fit.find_subcommand(learner).expect("a learner");
            for arg in sub.get_arguments().filter(|a| !a.is_positional()) {
                let flag = match (arg.get_long(), arg.get_short()) {
                    (Some(long), _) => format!("--{long}"),
                    (None, Some(short)) => format!("-{short}"),
                    _ => unreachable!(),
                };
                let not_parameter = NOT_PARAMETERS.contains(&(learner, flag.as_str()));
                if SHARED.contains(&flag.as_str()) || not_parameter {
                    continue;
                }
                // (a) The flag sets one field, the one it names.
                let field = field_of(learner, &flag);
                let shown = arg
                    .get_default_values()
                    .first()
                    .map(|d| d.to_string_lossy());
                let takes_value = arg.get_action().takes_values();
                let value = match &shown {
                    _ if !takes_value => None,
                    _ if !arg.get_possible_values().is_empty() => arg
                        .get_possible_values()
                        .iter()
                        .map(|v| v.get_name().to_string())
                        .find(|v| Some(v.as_str()) != shown.as_deref()),
                    Some(d) => Some(match (d.parse::<i64>(), d.parse::<f64>()) {
                        (Ok(n), _) => (n + 1).to_string(),
                        (_, Ok(x)) => (x + 1.0).to_string(),
                        // A name (`material`): a model file.
                        _ => "other.model".to_string(),
                    }),
                    None => Some("3".to_string()),
                };
                let mut line = vec![flag.as_str()];
                line.extend(value.as_deref());
                let moved = changed(&defaults, &cli_view(learner, &line));
                assert_eq!(
                    moved,
                    BTreeSet::from([field.clone()]),
                    "fit {learner} {flag}: sets no parameter field {field:?} (list it in NOT_PARAMETERS if it is no parameter)"
                );
                // (b) The default `--help` shows is the parameter's.
                if let (true, Some(shown)) = (takes_value, &shown) {
                    let want = &defaults[&field];
                    assert!(
                        same(shown, want),
                        "fit {learner} {flag} shows [default: {shown}] but the parameter's is {want}"
                    );
                }
            }
        }
        for (learner, flag) in NOT_PARAMETERS {
            let sub = fit.find_subcommand(learner).unwrap();
            assert!(
                sub.get_arguments()
                    .any(|a| a.get_long() == Some(flag.trim_start_matches('-'))),
                "fit {learner} has no {flag}"
            );
        }

        // `[solver]` is `fit svr`'s options struct itself.
        let r = Recipe::parse(
            "[inputs]\npaths = [\"g\"]\n",
            std::path::Path::new("r.toml"),
        )
        .unwrap();
        assert_eq!(r.solver, SvrOptions::default());

        // (a) Every `[learner]` key sets a field of some learner's
        // parameters (and a recipe-only key none).
        let unset = recipe_views("");
        let table = toml::Value::try_from(&r.learner).unwrap();
        let shared: BTreeMap<String, String> = fields(&format!("{:?}", SharedDefaults::default()));
        let mut read_by: BTreeMap<String, Vec<(&str, String)>> = BTreeMap::new();
        for key in keys::<LearnerTable>() {
            if RECIPE_ONLY.contains(&key.as_str()) {
                continue;
            }
            let value = other_value(&key, table.get(&key));
            let set = recipe_views(&format!("{key} = {value}\n"));
            for (learner, view) in &set {
                let moved = changed(&unset[learner], view);
                assert!(
                    moved.len() <= 1,
                    "[learner] {key} moves {learner}'s {moved:?}"
                );
                read_by
                    .entry(key.clone())
                    .or_default()
                    .extend(moved.into_iter().map(|f| (*learner, f)));
            }
            assert!(
                !read_by.get(&key).is_none_or(Vec::is_empty),
                "[learner] {key}: sets no learner's parameter (list it in RECIPE_ONLY if it is recipe-only)"
            );
        }
        // (d) What a recipe refuses as not read by its learner
        // (`Learner::reads`) is what that learner's parameters do not take.
        for key in keys::<LearnerTable>() {
            if RECIPE_ONLY.contains(&key.as_str()) {
                continue;
            }
            for method in [Method::Ranking, Method::Streaming, Method::Positions] {
                let moved = read_by[&key].iter().any(|(l, _)| *l == method.name());
                let l = LearnerTable {
                    method,
                    ..LearnerTable::default()
                };
                assert_eq!(
                    l.reads(&key),
                    Some(moved),
                    "[learner] {key}, method = {method}"
                );
            }
        }
        // (c) A key several learners read has one default: every learner's
        // own, or, for the keys of `SharedDefaults`, one learner's own.
        for (key, readers) in &read_by {
            let own: Vec<bool> = readers
                .iter()
                .map(|(learner, field)| unset[learner][field] == library_view(learner)[field])
                .collect();
            if shared.contains_key(key) {
                assert!(
                    own.contains(&true),
                    "[learner] {key}'s shared default is no learner's own ({readers:?})"
                );
            } else {
                assert!(
                    own.iter().all(|&o| o),
                    "[learner] {key}'s default is not the learner's own ({readers:?}): make it so, or a SharedDefaults field"
                );
            }
        }
        for key in shared.keys() {
            assert!(
                read_by.contains_key(key),
                "SharedDefaults::{key} is no [learner] key"
            );
        }
        // (c) And the documented defaults: each learner's own with
        // `SharedDefaults` applied.
        let s = SharedDefaults::default();
        let ranking = RankingParams::default()
            .epochs(s.epochs)
            .batch_games(s.batch_games)
            .skip_opening(s.skip_plies);
        let mut want = BTreeMap::from([
            ("ranking", fields(&format!("{ranking:?}"))),
            (
                "streaming",
                fields(&format!(
                    "{:?}",
                    StreamingParams::default()
                        .epochs(s.epochs)
                        .batch_games(s.batch_games)
                )),
            ),
            ("positions", library_view("positions")),
        ]);
        let r = want.get_mut("ranking").unwrap();
        r.insert("prior".into(), format!("{:?}", Some(s.prior)));
        let frozen = if s.anchor_material {
            "anchored"
        } else {
            "None"
        };
        r.insert("frozen".into(), frozen.into());
        let p = want.get_mut("positions").unwrap();
        p.insert("epochs".into(), s.epochs.to_string());
        p.insert("skip_plies".into(), s.skip_plies.to_string());
        p.insert("prior".into(), format!("{:?}", s.prior));
        p.insert("anchor_material".into(), s.anchor_material.to_string());
        assert_eq!(unset, want, "a recipe that sets no [learner] key");
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
