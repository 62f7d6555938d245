//! `kifulearn extract PATH... --out DIR`: game records to libsvm rows.

use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Instant;

use kifulearn::eval::{load_evaluator, DynEvaluator, EvalChoice};
use kifulearn::extract::{self, ExtractOptions, Labelling};
use kifulearn::features::DEFAULT_SET;
use kifulearn::features::{FeatureSet, Features};
use kifulearn::generate::Shard;
use kifulearn::label::LabelOptions;
use kifulearn::record;
use kifulearn::record::Game;
use kifulearn::train::positions::rows::PositionRows;
use kifulearn::train::positions::{
    samples_from_games, Sample, DEFAULT_TEACHER_DEPTH, TEACHER_DEPTHS,
};

use super::positions::rows::RowArgs;
use super::verbosity::{self, summary};
use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    /// Record files or folders (searched recursively): CSA, KIF, USI lines, Kisen.
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Output dataset folder: rows/NAME.svm and reports/NAME.rows.csv per game,
    /// manifest.csv and dataset.toml for the run (docs/dataset.md).
    #[arg(long)]
    out: PathBuf,
    /// Write svmlight's `qid:N` after each label, one N per position (its moves' rows).
    #[arg(long)]
    qid: bool,
    /// Extract only share K of N of the games (by a hash of each game); the
    /// N shards' folders join with `kifulearn dataset merge`.
    #[arg(long, default_value = "0/1")]
    shard: Shard,
    /// Feature sets, comma-separated, each in its own index range in the order named.
    #[arg(long, default_value = DEFAULT_SET)]
    features: String,
    /// Centipawns by which the game's move is put above every other move.
    #[arg(long, default_value_t = LabelOptions::default().margin)]
    margin: i32,
    /// Labels are centipawns divided by this.
    #[arg(long, default_value_t = LabelOptions::default().scale)]
    scale: f64,
    /// Plies searched below each sibling (the position after a candidate move),
    /// then captures; 0: the sibling's capture quiescence only (docs/search.md).
    #[arg(long, default_value_t = LabelOptions::default().depth)]
    depth: u32,
    /// Evaluate the search leaves statically instead of following captures.
    #[arg(long)]
    no_quiescence: bool,
    /// Take each row's features at the sibling (the Mecha-Joshi recipe) or at
    /// the end of its labelling search's line, the position its value describes.
    #[arg(long, value_enum, default_value_t = RowsAtArg::Sibling)]
    rows_at: RowsAtArg,
    /// Do not label positions before this ply.
    #[arg(long, default_value_t = 0)]
    skip_opening: usize,
    /// Do not label positions at this ply or later [default: none, every ply].
    #[arg(long)]
    max_plies: Option<usize>,
    /// The labelling evaluator: `material` (round 1 of the Mecha-Joshi recipe) or a
    /// model file from `fit` (later rounds relabel with the previous model).
    #[arg(long = "evaluator", alias = "labeller", default_value = kifulearn::eval::EvalChoice::MATERIAL)]
    labeller: String,
    /// Search every sibling to its exact value, for the reports' `value`
    /// column. Without it, a sibling at least as good as the game's move is
    /// searched only until that is proved, and its report line leaves the
    /// value empty: the rows are the same either way, about 1.6–2.1× faster
    /// with the material labeller (docs/speed.md).
    #[arg(long)]
    exact_values: bool,
    /// Threads [default: all cores]: games, and the positions of each game, are labelled in parallel.
    #[arg(long)]
    jobs: Option<usize>,
    /// Extract the games that pass through a test opening's position too. By
    /// default they are left out and named, as recipes and the learners do:
    /// `kifulearn match` plays from those openings
    /// (`fixtures/openings/match.sfen`), and a model must not be judged on
    /// games it learned from.
    #[arg(long)]
    keep_test_openings: bool,
    /// One row per position instead of one per sibling: the features of the
    /// end of its quiescence line, labelled with the --evaluator's search
    /// score (the positions learner's rows; docs/dataset.md, "Position rows").
    #[arg(long, conflicts_with_all = ["margin", "depth", "no_quiescence", "rows_at", "exact_values", "shard", "max_plies"])]
    per_position: bool,
    /// --per-position: plies the --evaluator searches below each position,
    /// then its quiescence (the positions learner's --teacher-depth).
    #[arg(long, requires = "per_position", default_value_t = DEFAULT_TEACHER_DEPTH, value_parser = |s: &str| TEACHER_DEPTHS.parse(s))]
    teacher_depth: u32,
    #[command(flatten)]
    rows: RowArgs,
}

#[derive(Clone, Copy, clap::ValueEnum)]
enum RowsAtArg {
    Sibling,
    Leaf,
}

pub fn run(args: Args) -> CliResult {
    let features: Features = args.features.parse()?;
    let labeller = load_evaluator(&EvalChoice::parse(&args.labeller))?;
    let labelling = Labelling::of(&args.labeller)?;
    let label = LabelOptions {
        margin: args.margin,
        scale: args.scale,
        quiescence: !args.no_quiescence,
        depth: args.depth,
    }
    .check()?;
    let options = ExtractOptions {
        label,
        skip_opening: args.skip_opening,
        max_plies: args.max_plies,
        rows_at: match args.rows_at {
            RowsAtArg::Sibling => kifulearn::extract::RowsAt::Sibling,
            RowsAtArg::Leaf => kifulearn::extract::RowsAt::Leaf,
        },
        qid: args.qid,
        shard: args.shard,
        labeller: labelling,
        exact_values: args.exact_values,
    };
    let pool = super::thread_pool(args.jobs)?;

    let files = record::find_record_files(&args.paths)?;
    if files.is_empty() {
        return Err("no record files found (.csa, .kif, .kifu, .usi, .sfen, .kis)".into());
    }
    let mut jobs = pool.install(|| extract::read_jobs(&files));
    if !args.keep_test_openings {
        let (kept, left_out) = kifulearn::arena::TestOpenings::bundled().leave_out(
            jobs,
            |j| j.game.as_ref().ok(),
            |j| j.source.clone(),
        );
        jobs = kept;
        if let Some(line) = kifulearn::arena::left_out_line(&left_out) {
            summary!("{line}");
            if jobs.is_empty() {
                return Err(format!(
                    "every game of {:?} passes through a test opening's position: \
                     none is left to extract (--keep-test-openings extracts them)",
                    args.paths
                )
                .into());
            }
        }
    }
    if args.per_position {
        return per_position(&args, &jobs, features, &labeller, &pool);
    }
    if let Some(flag) = args.rows.given() {
        return Err(format!("{flag}: give --per-position (rows of positions)").into());
    }
    let in_shard = jobs
        .iter()
        .filter(|j| extract::names::in_shard(args.shard, j))
        .count();

    let bar = verbosity::bar(
        in_shard as u64,
        "{elapsed_precise} [{bar:30}] {pos}/{len} games, {per_sec} {msg}",
    )?;
    let start = Instant::now();
    let rows = std::sync::atomic::AtomicU64::new(0);
    let summary = pool.install(|| {
        extract::run(
            &jobs,
            &args.out,
            &features,
            &labeller,
            &options,
            |report, resumed| {
                if !resumed {
                    let n = rows.fetch_add(report.rows, std::sync::atomic::Ordering::Relaxed)
                        + report.rows;
                    let secs = start.elapsed().as_secs_f64().max(1e-9);
                    bar.set_message(format!("{:.0} rows/s", n as f64 / secs));
                }
                if !report.is_ok() {
                    // A failed game is reported at every level (a hidden bar prints nothing).
                    bar.suspend(|| eprintln!("{}: {}", report.source, report.status));
                }
                bar.inc(1);
            },
        )
    })?;
    bar.finish();
    report_redone(&summary.redone);
    if summary.removed > 0 {
        summary!(
            "removed {} file(s) of games not in this run (or of the older flat layout)",
            summary.removed
        );
    }

    let failed = summary.reports.iter().filter(|r| !r.is_ok()).count();
    let total_rows: u64 = summary.reports.iter().map(|r| r.rows).sum();
    let nonzeros: u64 = summary.reports.iter().map(|r| r.nonzeros).sum();
    let secs = start.elapsed().as_secs_f64();
    let new_rows = rows.load(std::sync::atomic::Ordering::Relaxed);
    summary!(
        "{} games{} ({} resumed, {failed} failed), {total_rows} rows, {:.1} nonzeros/row, \
         features {} (dimension {}); {new_rows} new rows in {secs:.1} s ({:.0} rows/s)",
        summary.reports.len(),
        if args.shard.count > 1 {
            format!(" of shard {} ({} in all)", args.shard, jobs.len())
        } else {
            String::new()
        },
        summary.resumed,
        nonzeros as f64 / total_rows.max(1) as f64,
        features.name(),
        features.dimension(),
        new_rows as f64 / secs.max(1e-9),
    );
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::PARTIAL)
    })
}

/// `--per-position`: one row per position of each game, at its quiescence
/// leaf, labelled with the labeller's `--teacher-depth` search score: the
/// rows `fit positions` learns from these records.
fn per_position(
    args: &Args,
    jobs: &[extract::GameJob],
    features: Features,
    labeller: &DynEvaluator,
    pool: &rayon::ThreadPool,
) -> CliResult {
    use rayon::prelude::*;
    let depth = args.teacher_depth;
    let mut out = PositionRows::create(
        &args.out,
        features,
        args.rows.labels()?,
        args.qid,
        "extract --per-position",
    )?;
    let mut failed = 0;
    for job in jobs {
        if let Err(e) = &job.game {
            eprintln!("{}: {e}", job.source);
            failed += 1;
        }
    }
    let games: Vec<(&str, &Game)> = jobs
        .iter()
        .filter_map(|j| j.game.as_ref().ok().map(|g| (j.name.as_str(), g)))
        .collect();
    let bar = verbosity::bar(
        games.len() as u64,
        "teacher {elapsed_precise} [{bar:30}] {pos}/{len} games, {per_sec}",
    )?;
    let samples: Vec<Vec<Sample>> = pool.install(|| {
        games
            .par_iter()
            .map(|(_, g)| {
                let tick = || bar.inc(1);
                samples_from_games(
                    std::slice::from_ref(*g),
                    labeller,
                    depth,
                    args.skip_opening,
                    tick,
                )
            })
            .collect()
    });
    bar.finish_and_clear();
    for ((name, _), samples) in games.iter().zip(&samples) {
        pool.install(|| out.write(name, samples))?;
    }
    let info = out.finish(&args.labeller, Some(depth), args.skip_opening)?;
    super::positions::rows::summary_line(&info, games.len(), &args.out);
    Ok(if failed == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(super::PARTIAL)
    })
}

/// Prints why games done by an earlier run were redone: one line per reason,
/// with how many games and the first few names.
fn report_redone(redone: &[(String, String)]) {
    let mut by_reason: Vec<(&str, Vec<&str>)> = Vec::new();
    for (game, why) in redone {
        // A missing or changed file names the file: group by what happened.
        let key = why.as_str();
        match by_reason.iter_mut().find(|(r, _)| *r == key) {
            Some((_, games)) => games.push(game),
            None => by_reason.push((key, vec![game])),
        }
    }
    for (why, games) in by_reason {
        let shown: Vec<&str> = games.iter().take(3).copied().collect();
        summary!(
            "redid {} game(s) ({}{}): {why}",
            games.len(),
            shown.join(", "),
            if games.len() > 3 { ", …" } else { "" }
        );
    }
}
