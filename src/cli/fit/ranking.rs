//! `kifulearn fit ranking RECORDS... --features SET --out MODEL`:
//! comparison training straight from game records (see `docs/ranking.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args as ClapArgs, ValueEnum};
use indicatif::ProgressBar;
use kifulearn::features::Features;
use kifulearn::model::{ModelMeta, Seed};
use kifulearn::record::read_games;
use kifulearn::train::progress::{Epoch, Event, Observer};
use kifulearn::train::ranking::{EpochReport, Leaf, Optimizer, RankingParams, RankingValidParams};
use linfa::ParamGuard;

use super::{training_games, OutArgs};
use crate::cli::verbosity;
use crate::cli::CliResult;

/// The learner's defaults ([`RankingParams::default`]), which `--help` shows.
fn defaults() -> RankingValidParams {
    RankingParams::default().check_unwrap()
}

/// `--rate`'s help, with each step rule's default rate
/// ([`Optimizer::default_rate`]).
fn rate_help() -> String {
    let rates: Vec<String> = OptimizerArg::value_variants()
        .iter()
        .map(|&o| {
            let o = Optimizer::from(o);
            format!("{} {}", o.name(), o.default_rate())
        })
        .collect();
    format!("Step size [default: the step rule's, {}]", rates.join(", "))
}

/// Options of `fit ranking` (defaults in `docs/ranking.md`).
#[derive(ClapArgs)]
pub struct Args {
    /// Game records, or folders of them.
    #[arg(required = true)]
    records: Vec<PathBuf>,
    #[command(flatten)]
    out: OutArgs,
    /// Start from and regularize towards this evaluation (λ‖w − w0‖²):
    /// `material` or a model file; without it, λ‖w‖² from zero.
    #[arg(long, alias = "ranking-prior")]
    prior: Option<String>,
    /// Keep the `material` part of --features at the prior (the anchored piece values).
    #[arg(long)]
    anchor_material: bool,
    /// Passes over the games.
    #[arg(long, default_value_t = defaults().epochs())]
    epochs: usize,
    /// Games per update.
    #[arg(long, default_value_t = defaults().batch_games())]
    batch_games: usize,
    /// Step rule.
    #[arg(long, value_enum, default_value_t = defaults().optimizer().into())]
    optimizer: OptimizerArg,
    // Step size; the help names each step rule's default (`rate_help`).
    #[arg(long, allow_negative_numbers = true, help = rate_help())]
    rate: Option<f64>,
    /// Sigmoid window in model units (0.02 = 200 centipawns).
    #[arg(long, allow_negative_numbers = true, default_value_t = defaults().window())]
    window: f64,
    /// λ of the regularizer λ‖w − w0‖².
    #[arg(long, allow_negative_numbers = true, default_value_t = defaults().lambda())]
    lambda: f64,
    /// Seed of the game order.
    #[arg(long, default_value_t = defaults().seed())]
    seed: u64,
    /// Positions before this ply are not used.
    #[arg(long, default_value_t = defaults().skip_opening())]
    skip_opening: usize,
    /// Positions at this ply and later are not used [default: none, every ply].
    #[arg(long)]
    max_plies: Option<usize>,
    /// Records scored after every epoch (not trained on).
    #[arg(long, num_args = 1..)]
    held_out: Vec<PathBuf>,
    /// Compare the ends of each sibling's quiescence line instead of the raw siblings.
    #[arg(long)]
    leaf: bool,
    /// Compare the ends of each sibling's quiescence line searched with the
    /// weights being learned, re-searched at every step (Bonanza's comparison
    /// training; --leaf searches with material).
    #[arg(long, conflicts_with = "leaf")]
    research: bool,
    /// Train on the games that pass through a test opening's position too.
    /// By default they are left out and named, as recipes do: `kifulearn
    /// match` plays from those openings (`fixtures/openings/match.sfen`), and
    /// a model must not be judged on games it learned from.
    #[arg(long)]
    keep_test_openings: bool,
    /// Threads: games ranked in parallel (the same --jobs gives the same
    /// model, bit for bit) [default: all cores].
    #[arg(long)]
    jobs: Option<usize>,
}

#[derive(Clone, Copy, ValueEnum)]
enum OptimizerArg {
    Adagrad,
    Adam,
    Sign,
}

impl From<Optimizer> for OptimizerArg {
    fn from(o: Optimizer) -> Self {
        match o {
            Optimizer::AdaGrad => OptimizerArg::Adagrad,
            Optimizer::Adam => OptimizerArg::Adam,
            Optimizer::Sign => OptimizerArg::Sign,
        }
    }
}

impl From<OptimizerArg> for Optimizer {
    fn from(o: OptimizerArg) -> Self {
        match o {
            OptimizerArg::Adagrad => Optimizer::AdaGrad,
            OptimizerArg::Adam => Optimizer::Adam,
            OptimizerArg::Sign => Optimizer::Sign,
        }
    }
}

impl Args {
    fn params(&self) -> RankingParams {
        let p = RankingParams::new()
            .epochs(self.epochs)
            .batch_games(self.batch_games)
            .optimizer(self.optimizer.into())
            .window(self.window)
            .lambda(self.lambda)
            .seed(self.seed)
            .skip_opening(self.skip_opening)
            .max_plies(self.max_plies)
            .leaf_kind(match (self.leaf, self.research) {
                (_, true) => Leaf::Current,
                (true, false) => Leaf::Material,
                (false, false) => Leaf::Sibling,
            });
        match self.rate {
            Some(r) => p.rate(r),
            None => p,
        }
    }
}

/// The parameters the options set, as `Debug` shows them, and the
/// options read before the fit: the named prior (in place of the
/// weights it becomes) and whether the piece values are anchored (in
/// place of the range kept), for `fit::tests`.
#[cfg(test)]
pub(super) fn params_debug(args: &Args) -> (String, Vec<(&'static str, String)>) {
    let frozen = if args.anchor_material {
        "anchored"
    } else {
        "None"
    };
    (
        format!("{:?}", args.params()),
        vec![
            ("prior", format!("{:?}", args.prior)),
            ("frozen", frozen.to_string()),
        ],
    )
}

/// Runs `fit ranking`.
pub fn run(args: &Args) -> CliResult {
    let out = &args.out.model_out(&args.records, false)?;
    let records = &args.records[..];
    let features: Features = out.features.parse()?;
    let mut unchecked = args.params();
    if let Some(prior) = &args.prior {
        unchecked = unchecked.named_prior(&features, prior, args.anchor_material)?;
    } else if args.anchor_material {
        return Err("--anchor-material needs --prior (the values to anchor to)".into());
    }
    let params = unchecked.check()?;
    let pool = crate::cli::thread_pool(args.jobs)?;
    let games = pool.install(|| training_games(records, args.keep_test_openings))?;
    let held_out = if args.held_out.is_empty() {
        Vec::new()
    } else {
        pool.install(|| read_games(&args.held_out))?
    };
    verbosity::summary!(
        "ranking: {} training games, {} held out, features {features}, {} threads, optimizer {} rate {} window {} lambda {}",
        games.len(),
        held_out.len(),
        pool.current_num_threads(),
        params.optimizer().name(),
        params.rate(),
        params.window(),
        params.lambda(),
    );
    let observer = EpochLines::new(params.epochs())?;
    let fitted = pool.install(|| params.fit(&features, &games, &held_out, &observer))?;
    observer.bar.finish_and_clear();
    let mut model = fitted.model;
    let last = fitted.epochs.last().copied();
    let meta = ModelMeta {
        prior: args.prior.clone(),
        anchor_material: args.prior.as_ref().map(|_| args.anchor_material),
        ..meta(&params, last, &features.to_string(), records)
    };
    out.write(&mut model, None, meta)?;
    verbosity::summary!("wrote {}", out.path.display());
    Ok(ExitCode::SUCCESS)
}

fn meta(
    p: &RankingValidParams,
    last: Option<EpochReport>,
    features: &str,
    records: &[PathBuf],
) -> ModelMeta {
    ModelMeta {
        seed: Some(Seed(Some(p.seed()))),
        max_plies: p.max_plies().map(|n| n as u64),
        leaf: (p.leaf_kind() != Leaf::Sibling).then(|| p.leaf_kind().name().into()),
        objective_per_position: last.map(|r| r.objective_per_position()),
        top1: last.map(|r| r.train.top1_rate()),
        ..p.meta(features).data_files(records)
    }
}

/// A progress bar over each epoch's games and one summary line per epoch on stderr.
struct EpochLines {
    bar: ProgressBar,
    epochs: usize,
}

impl EpochLines {
    fn new(epochs: usize) -> Result<Self, String> {
        let template = "{prefix} {elapsed_precise} [{bar:30}] {pos}/{len} games, {per_sec}";
        let bar = verbosity::bar(0, template)?;
        Ok(Self { bar, epochs })
    }
}

impl Observer for EpochLines {
    fn event(&self, event: &Event<'_>) {
        match event {
            Event::EpochStart { epoch, games } => self.epoch_start(*epoch, *games),
            Event::Game => self.bar.inc(1),
            Event::Epoch(Epoch::Ranking(r)) => self.epoch_end(r),
            _ => {}
        }
    }
}

impl EpochLines {
    fn epoch_start(&self, epoch: usize, games: usize) {
        self.bar.reset();
        self.bar.set_length(games as u64);
        self.bar
            .set_prefix(format!("epoch {epoch}/{}", self.epochs));
    }

    fn epoch_end(&self, r: &EpochReport) {
        let mut line = format!(
            "epoch {:3}/{}  J/position {:.6} (loss {:.6} + reg {:.6})  top1 {:.4}  {} positions",
            r.epoch,
            self.epochs,
            r.objective_per_position(),
            r.train.loss_per_position(),
            r.regularizer / r.train.positions.max(1) as f64,
            r.train.top1_rate(),
            r.train.positions,
        );
        if let Some(h) = r.held_out {
            line.push_str(&format!(
                "  held-out loss/position {:.6} top1 {:.4} ({} positions)",
                h.loss_per_position(),
                h.top1_rate(),
                h.positions
            ));
        }
        line.push_str(&format!("  {:.2}s", r.seconds));
        // Every epoch with -v, the last one otherwise (the fit's summary).
        if verbosity::verbose() || r.epoch == self.epochs {
            self.bar.suspend(|| verbosity::summary!("{line}"));
        }
    }
}
