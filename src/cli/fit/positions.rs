//! `kifulearn fit positions RECORDS... --features SET --out MODEL`:
//! the Texel / elmo learner on positions (see `docs/positions-learner.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;

use kifulearn::eval::{load_evaluator, DynEvaluator, EvalChoice, Material};
use kifulearn::features::Features;
use kifulearn::model::{ModelMeta, Seed};
use kifulearn::record::{read_games, Game};
use kifulearn::train::positions::{
    named_prior, samples_from_games, samples_from_position_files, split_position_paths,
    EpochReport, Leaves, PositionsParams, DEFAULT_PRIOR, DEFAULT_SKIP_PLIES, DEFAULT_TEACHER,
    DEFAULT_TEACHER_DEPTH, TEACHER_DEPTHS,
};
use kifulearn::train::progress::{Epoch, Event};

use super::{training_games, ModelOut, OutArgs};
use crate::cli::verbosity;
use crate::cli::CliResult;

mod stream;

/// Options of `fit positions`.
#[derive(ClapArgs)]
pub struct Args {
    /// Game records or position files (.psv, .bin, .hcpe), or folders of them.
    #[arg(required = true)]
    records: Vec<PathBuf>,
    #[command(flatten)]
    out: OutArgs,
    /// Where the weights are pulled to (½μ‖w − w0‖²), also the start:
    /// `material` (the built-in piece values on the `material` part of
    /// --features), `zero`, or a model file.
    #[arg(long, default_value = DEFAULT_PRIOR)]
    prior: String,
    /// Evaluator whose search scores the positions (the teacher): `material`
    /// or a model file.
    #[arg(long = "evaluator", alias = "teacher", default_value = DEFAULT_TEACHER)]
    teacher: String,
    /// Plies searched below each scored position, then its quiescence (0: the quiescence only).
    #[arg(long, default_value_t = DEFAULT_TEACHER_DEPTH, value_parser = |s: &str| TEACHER_DEPTHS.parse(s))]
    teacher_depth: u32,
    /// Weight of the game result in the target, 0..1.
    #[arg(long, default_value_t = PositionsParams::default().lambda)]
    result_weight: f64,
    /// Centipawns per unit of the logistic σ(v / K).
    #[arg(long, default_value_t = PositionsParams::default().eval_k)]
    eval_k: f64,
    /// ½μ‖w − prior‖² per position.
    #[arg(long, default_value_t = PositionsParams::default().mu)]
    mu: f64,
    /// Learn the `material` part too (by default it stays at the prior).
    #[arg(long)]
    learn_material: bool,
    /// Passes over the positions.
    #[arg(long, default_value_t = PositionsParams::default().epochs)]
    epochs: usize,
    /// Positions per step.
    #[arg(long, default_value_t = PositionsParams::default().batch)]
    batch: usize,
    /// Adam's step, in centipawns.
    #[arg(long, allow_negative_numbers = true, default_value_t = PositionsParams::default().rate)]
    rate: f64,
    /// Seed of the mini-batch order.
    #[arg(long, default_value_t = PositionsParams::default().seed)]
    seed: u64,
    /// Records held out: loss reported per epoch, never trained on.
    #[arg(long = "held-out-records", num_args = 1..)]
    held_out_records: Vec<PathBuf>,
    /// Positions before this ply are not used.
    #[arg(long = "skip-plies", default_value_t = DEFAULT_SKIP_PLIES)]
    skip: usize,
    /// Train on the games that pass through a test opening's position too.
    /// By default they are left out and named, as recipes do: `kifulearn
    /// match` plays from those openings (`fixtures/openings/match.sfen`), and
    /// a model must not be judged on games it learned from.
    #[arg(long)]
    keep_test_openings: bool,
    /// Worker threads [default: all cores].
    #[arg(long = "threads")]
    threads: Option<usize>,
    /// Stream the data in chunks of N positions (memory bounded by N); 0 holds
    /// everything in memory [default: 65536 when the position files hold over
    /// 524,288 records, else 0].
    #[arg(long)]
    chunk: Option<usize>,
    /// Streaming: build the leaves again every epoch instead of caching them
    /// in a temporary file next to the model.
    #[arg(long)]
    no_leaf_cache: bool,
}

impl Args {
    fn params(&self) -> PositionsParams {
        PositionsParams {
            epochs: self.epochs,
            batch: self.batch,
            rate: self.rate,
            final_rate: None,
            lambda: self.result_weight,
            eval_k: self.eval_k,
            mu: self.mu,
            anchor_material: !self.learn_material,
            seed: self.seed,
        }
    }
}

/// The parameters the options set, as `Debug` shows them, and those of
/// the teacher's scoring (`fit::tests`).
#[cfg(test)]
pub(super) fn params_debug(args: &Args) -> (String, Vec<(&'static str, String)>) {
    (
        format!("{:?}", args.params()),
        vec![
            ("teacher_depth", args.teacher_depth.to_string()),
            ("skip_plies", args.skip.to_string()),
            ("prior", format!("{:?}", args.prior)),
            ("teacher", format!("{:?}", args.teacher)),
        ],
    )
}

/// Runs `fit positions`.
pub fn run(args: &Args) -> CliResult {
    let out = &args.out.model_out(&args.records, false)?;
    let records = &args.records[..];
    let prior = args.prior.as_str();
    if let Some(chunk) = stream::chunk(records, args)? {
        return stream::run(records, out, prior, args, chunk);
    }
    let setup = Setup::new(out, prior, args)?;
    let (position_files, records) = split_position_paths(records)?;
    let (file_samples, bad) = samples_from_position_files(&position_files)?;
    if bad > 0 {
        eprintln!("skipped {bad} position record(s) that do not decode");
    }
    let (games, held_games) = setup.games(&records, args)?;
    let Setup {
        features,
        params,
        teacher_choice,
        teacher,
        depth,
        skip,
        w0,
        pool,
    } = setup;
    let bar = verbosity::bar(
        (games.len() + held_games.len()) as u64,
        "teacher {elapsed_precise} [{bar:30}] {pos}/{len} games, {per_sec}",
    )?;
    let tick = || bar.inc(1);
    let mut samples = pool.install(|| samples_from_games(&games, &teacher, depth, skip, tick));
    samples.extend(file_samples);
    if samples.is_empty() {
        return Err(
            "no training position: give game records or position files (.psv, .bin, .hcpe)".into(),
        );
    }
    let held = pool.install(|| samples_from_games(&held_games, &teacher, depth, skip, tick));
    bar.finish_and_clear();
    let train = pool.install(|| Leaves::build(&features, &Material, &samples));
    let held =
        (!held.is_empty()).then(|| pool.install(|| Leaves::build(&features, &Material, &held)));
    // Position files carry their own scores: the teacher scores only the
    // positions of game records (and the held-out records).
    let scores = match (
        games.is_empty() && held_games.is_empty(),
        position_files.is_empty(),
    ) {
        (true, _) => "scores from the position files".to_string(),
        (false, true) => format!("teacher {} depth {depth}", teacher_choice.name()),
        (false, false) => format!(
            "scores from the position files, and teacher {} depth {depth} for the records",
            teacher_choice.name()
        ),
    };
    verbosity::summary!(
        "positions: {} training positions ({} with a result, {} nonzeros) from {} games and {} position file(s), {} held out; {scores}; features {features}",
        train.len(),
        train.with_result(),
        train.nonzeros(),
        games.len(),
        position_files.len(),
        held.as_ref().map_or(0, Leaves::len),
    );
    let line = |e: &Event<'_>| {
        // Every epoch with -v, the last one otherwise (the fit's summary).
        if let Event::Epoch(Epoch::Positions(r)) = e {
            if verbosity::verbose() || r.epoch == params.epochs {
                epoch_line(r, "");
            }
        }
    };
    let fitted = pool.install(|| params.fit(&features, &train, held.as_ref(), &w0, &line))?;
    let mut model = fitted.model;
    let meta = Meta {
        teacher: &teacher_choice.name(),
        depth,
        params: &params,
        prior,
        skip,
        positions: train.len(),
        chunk: None,
        train_cross_entropy: fitted.epochs.last().map(|r| r.train.cross_entropy),
        files: position_files.iter().chain(&records),
    }
    .into_meta(&features.to_string());
    out.write(&mut model, None, meta)?;
    verbosity::summary!("wrote {}", out.path.display());
    Ok(ExitCode::SUCCESS)
}

/// One epoch's line: the training loss (`running` says how it was taken:
/// the streamed fit's is the running loss over the epoch), and the held-out
/// loss at the epoch's end.
fn epoch_line(r: &EpochReport, running: &str) {
    let held = r
        .held_out
        .map(|h| {
            format!(
                "  held-out ce {:.5} score-ce {:.5} rmse {:.0}",
                h.cross_entropy,
                h.score_ce,
                h.score_mse.sqrt()
            )
        })
        .unwrap_or_default();
    verbosity::summary!(
        "epoch {:3}  train ce {:.5} score-ce {:.5} rmse {:.0}{running}{held}  {:.1}s",
        r.epoch,
        r.train.cross_entropy,
        r.train.score_ce,
        r.train.score_mse.sqrt(),
        r.seconds
    );
}

/// What the in-memory and the streamed fit both take from the arguments,
/// checked before any data is read.
struct Setup {
    features: Features,
    params: PositionsParams,
    teacher_choice: EvalChoice,
    teacher: DynEvaluator,
    depth: u32,
    skip: usize,
    w0: Vec<f32>,
    pool: rayon::ThreadPool,
}

impl Setup {
    fn new(out: &ModelOut, prior: &str, args: &Args) -> Result<Self, Box<dyn std::error::Error>> {
        let features: Features = out.features.parse()?;
        let params = args.params();
        params.check()?;
        let teacher_choice = EvalChoice::parse(&args.teacher);
        let teacher = load_evaluator(&teacher_choice)?;
        let w0 = named_prior(&features, prior)?;
        Ok(Setup {
            features,
            params,
            teacher_choice,
            teacher,
            depth: args.teacher_depth,
            skip: args.skip,
            w0,
            pool: crate::cli::thread_pool(args.threads)?,
        })
    }

    /// The training games of `records` and the held-out games, read in the pool.
    fn games(&self, records: &[PathBuf], args: &Args) -> Result<(Vec<Game>, Vec<Game>), String> {
        let train = if records.is_empty() {
            Vec::new()
        } else {
            self.pool
                .install(|| training_games(records, args.keep_test_openings))?
        };
        let held = if args.held_out_records.is_empty() {
            Vec::new()
        } else {
            self.pool.install(|| read_games(&args.held_out_records))?
        };
        Ok((train, held))
    }
}

/// What `MODEL.meta.toml` records of a positions fit, in-memory or streamed
/// (the streamed fit adds its `chunk`).
struct Meta<'a, I> {
    pub teacher: &'a str,
    pub depth: u32,
    pub params: &'a PositionsParams,
    pub prior: &'a str,
    pub skip: usize,
    pub positions: usize,
    pub chunk: Option<usize>,
    pub train_cross_entropy: Option<f64>,
    pub files: I,
}

impl<'a, I: Iterator<Item = &'a PathBuf>> Meta<'a, I> {
    /// The sidecar of a model of `features`.
    pub fn into_meta(self, features: &str) -> ModelMeta {
        let p = self.params;
        ModelMeta {
            method: Some("positions".into()),
            teacher: Some(self.teacher.into()),
            teacher_depth: Some(self.depth),
            result_weight: Some(p.lambda),
            eval_k: Some(p.eval_k),
            mu: Some(p.mu),
            rate: Some(p.rate),
            epochs: Some(p.epochs as u64),
            batch: Some(p.batch as u64),
            seed: Some(Seed(Some(p.seed))),
            anchor_material: Some(p.anchor_material),
            prior: Some(self.prior.into()),
            skip_plies: Some(self.skip as u64),
            positions: Some(self.positions as u64),
            chunk: self.chunk.map(|n| n as u64),
            train_cross_entropy: self.train_cross_entropy,
            ..ModelMeta::new(features).data_files(self.files)
        }
    }
}
