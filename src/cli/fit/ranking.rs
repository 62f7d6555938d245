//! `kifulearn fit --method ranking RECORDS... --features SET --out MODEL`:
//! comparison training straight from game records (see `docs/ranking.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::{Args as ClapArgs, ValueEnum};
use indicatif::ProgressBar;
use kifulearn::features::Features;
use kifulearn::model::toml_string;
use kifulearn::record::read_games;
use kifulearn::train::progress::{Epoch, Event, Observer};
use kifulearn::train::ranking::{EpochReport, Leaf, Optimizer, RankingParams, RankingValidParams};

use super::{training_games, LearnerArgs, ModelOut};
use crate::cli::verbosity;
use crate::cli::CliResult;

/// Options of `fit --method ranking` only (defaults in `docs/ranking.md`;
/// `--epochs --batch-games --rate --seed` are [`LearnerArgs`]).
#[derive(ClapArgs)]
pub struct RankingArgs {
    /// Ranking: step rule [default: adagrad].
    #[arg(long, value_enum)]
    optimizer: Option<OptimizerArg>,
    /// Ranking: sigmoid window in model units (0.02 = 200 centipawns) [default: 0.02].
    #[arg(long, allow_negative_numbers = true)]
    window: Option<f64>,
    /// Ranking: λ of the regularizer λ‖w‖² [default: 1].
    #[arg(long, allow_negative_numbers = true)]
    lambda: Option<f64>,
    /// Ranking: records scored after every epoch (not trained on).
    #[arg(long, num_args = 1..)]
    held_out: Vec<PathBuf>,
    /// Ranking: positions before this ply are not used [default: 0].
    #[arg(long)]
    skip_opening: Option<usize>,
    /// Ranking: positions at this ply and later are not used [default: none, every ply].
    #[arg(long)]
    max_plies: Option<usize>,
    /// Threads: ranking, games ranked in parallel; svr, the reader and the
    /// solvers' products (the same --jobs gives the same model, bit for bit)
    /// [default: all cores].
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Start from and regularize towards this evaluation (λ‖w − w0‖²): `material` or a model file.
    #[arg(long = "ranking-prior")]
    ranking_prior: Option<String>,
    /// Keep the `material` part of --features at the prior (the anchored piece values).
    #[arg(long)]
    anchor_material: bool,
    /// Compare the ends of each sibling's quiescence line instead of the raw siblings.
    #[arg(long)]
    leaf: bool,
    /// Compare the ends of each sibling's quiescence line searched with the
    /// weights being learned, re-searched at every step (Bonanza's comparison
    /// training; --leaf searches with material).
    #[arg(long, conflicts_with = "leaf")]
    research: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum OptimizerArg {
    Adagrad,
    Adam,
    Sign,
}

impl RankingArgs {
    fn params(&self, shared: &LearnerArgs) -> RankingParams {
        let mut p = RankingParams::new();
        if let Some(n) = shared.epochs {
            p = p.epochs(n);
        }
        if let Some(n) = shared.batch_games {
            p = p.batch_games(n);
        }
        if let Some(o) = self.optimizer {
            p = p.optimizer(match o {
                OptimizerArg::Adagrad => Optimizer::AdaGrad,
                OptimizerArg::Adam => Optimizer::Adam,
                OptimizerArg::Sign => Optimizer::Sign,
            });
        }
        if let Some(r) = shared.rate {
            p = p.rate(r);
        }
        if let Some(w) = self.window {
            p = p.window(w);
        }
        if let Some(l) = self.lambda {
            p = p.lambda(l);
        }
        if let Some(s) = shared.seed {
            p = p.seed(s);
        }
        if let Some(n) = self.skip_opening {
            p = p.skip_opening(n);
        }
        p.max_plies(self.max_plies)
    }
}

/// Runs `fit --method ranking`: `records` are game records, `features` the set's name.
pub fn run(
    records: &[PathBuf],
    out: &ModelOut,
    args: &RankingArgs,
    shared: &LearnerArgs,
) -> CliResult {
    let binary = out.binary;
    let features: Features = out.features.parse()?;
    let mut unchecked = args
        .params(shared)
        .leaf_kind(match (args.leaf, args.research) {
            (_, true) => Leaf::Current,
            (true, false) => Leaf::Material,
            (false, false) => Leaf::Sibling,
        });
    if let Some(prior) = &args.ranking_prior {
        unchecked = unchecked.named_prior(&features, prior, args.anchor_material)?;
    } else if args.anchor_material {
        return Err("--anchor-material needs --ranking-prior (the values to anchor to)".into());
    }
    let params = linfa::ParamGuard::check(unchecked)?;
    let pool = crate::cli::thread_pool(args.jobs)?;
    let games = pool.install(|| training_games(records, shared))?;
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
    let mut meta = meta(&params, last, records, binary);
    if let Some(prior) = &args.ranking_prior {
        meta.push(("prior", toml_string(prior)));
        meta.push(("anchor_material", args.anchor_material.to_string()));
    }
    out.write(&mut model, None, &features.to_string(), &meta)?;
    verbosity::summary!("wrote {}", out.path.display());
    Ok(ExitCode::SUCCESS)
}

fn meta(
    p: &RankingValidParams,
    last: Option<EpochReport>,
    records: &[PathBuf],
    binary: bool,
) -> Vec<(&'static str, String)> {
    let quoted: Vec<String> = records
        .iter()
        .map(|f| toml_string(&f.display().to_string()))
        .collect();
    let mut m = vec![
        ("method", toml_string("ranking")),
        ("optimizer", toml_string(p.optimizer().name())),
        ("rate", format!("{:?}", p.rate())),
        ("window", format!("{:?}", p.window())),
        ("lambda", format!("{:?}", p.lambda())),
        ("epochs", p.epochs().to_string()),
        ("batch_games", p.batch_games().to_string()),
        ("seed", p.seed().to_string()),
        ("skip_opening", p.skip_opening().to_string()),
    ];
    if let Some(n) = p.max_plies() {
        m.push(("max_plies", n.to_string()));
    }
    if p.leaf_kind() != Leaf::Sibling {
        m.push(("leaf", toml_string(p.leaf_kind().name())));
    }
    if let Some(r) = last {
        m.push((
            "objective_per_position",
            format!("{:?}", r.objective_per_position()),
        ));
        m.push(("top1", format!("{:?}", r.train.top1_rate())));
    }
    m.push(("binary", binary.to_string()));
    m.push(("data", format!("[{}]", quoted.join(", "))));
    m
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
