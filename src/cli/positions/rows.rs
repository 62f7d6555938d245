//! `kifulearn positions FILES... --rows DIR`: position files to a dataset
//! folder of position rows (`train::positions::rows`, docs/dataset.md); and
//! the label options that `extract --per-position` shares.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args as ClapArgs, ValueEnum};
use kifulearn::features::{Features, DEFAULT_SET};
use kifulearn::libsvm::dataset::DatasetInfo;
use kifulearn::train::positions::rows::{PositionRows, RowLabels, RowTarget};
use kifulearn::train::positions::{split_position_paths, PositionsParams};

use crate::cli::verbosity::summary;
use crate::cli::{help_with_default, CliResult};

/// The labels of position rows: the positions learner's target.
#[derive(ClapArgs)]
#[command(next_help_heading = "Position rows (positions --rows, extract --per-position)")]
pub struct RowArgs {
    // λ, the weight of the game result in the target; unset, `labels`
    // applies the positions learner's (PositionsParams::default().lambda),
    // which the help shows. An Option: `given` must see whether it was given.
    #[arg(long, help = help_with_default(
        "λ, the weight of the game result in the target, 0..1",
        format_args!("{}, the positions learner's", PositionsParams::default().lambda),
    ))]
    result_weight: Option<f64>,
    // K of σ(s / K); unset, the positions learner's
    // (PositionsParams::default().eval_k), which the help shows.
    #[arg(long, help = help_with_default(
        "K of σ(s / K), centipawns",
        format_args!("{}, the positions learner's", PositionsParams::default().eval_k),
    ))]
    eval_k: Option<f64>,
    /// Labels: `score` (K·logit of the target: the teacher's score when λ is
    /// 0) or `sigmoid` (4K·(target − ½): the score near 0, squashed
    /// towards ±2K) [default: score].
    #[arg(long, value_enum)]
    target: Option<TargetArg>,
}

#[derive(Clone, Copy, ValueEnum)]
enum TargetArg {
    Score,
    Sigmoid,
}

impl RowArgs {
    /// The first of these options given, for commands that need another option with them.
    pub fn given(&self) -> Option<&'static str> {
        [
            (self.result_weight.is_some(), "--result-weight"),
            (self.eval_k.is_some(), "--eval-k"),
            (self.target.is_some(), "--target"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }

    /// The labels, checked.
    pub fn labels(&self) -> Result<RowLabels, Box<dyn std::error::Error>> {
        let d = PositionsParams::default();
        let params = PositionsParams {
            lambda: self.result_weight.unwrap_or(d.lambda),
            eval_k: self.eval_k.unwrap_or(d.eval_k),
            ..d
        };
        params.check()?;
        let target = match self.target {
            None | Some(TargetArg::Score) => RowTarget::Score,
            Some(TargetArg::Sigmoid) => RowTarget::Sigmoid,
        };
        Ok(RowLabels::of(target, &params))
    }
}

/// The summary line of a finished folder of position rows.
pub fn summary_line(info: &DatasetInfo, parts: usize, dir: &Path) {
    let t = info.target.as_ref().expect("position rows have a target");
    summary!(
        "{} position rows ({:.1} nonzeros/row) of {parts} file(s), {} game(s), features {} (dimension {}), target {} (λ {}, K {}) in {}",
        info.rows,
        info.nonzeros as f64 / info.rows.max(1) as f64,
        info.games,
        info.features,
        info.dimension,
        t.target,
        t.result_weight,
        t.eval_k,
        dir.display()
    );
}

pub(super) fn run(
    paths: &[PathBuf],
    dir: &Path,
    features: Option<&str>,
    qid: bool,
    args: &RowArgs,
) -> CliResult {
    let features: Features = features.unwrap_or(DEFAULT_SET).parse()?;
    let labels = args.labels()?;
    let (files, others) = split_position_paths(paths)?;
    if !others.is_empty() {
        return Err(format!(
            "--rows reads position files (.psv, .bin, .hcpe): {} holds none",
            others[0].display()
        )
        .into());
    }
    let mut out = PositionRows::create(dir, features, labels, qid, "positions --rows")?;
    let bad = out.write_files(&files)?;
    if bad > 0 {
        eprintln!("skipped {bad} position record(s) that do not decode");
    }
    let info = out.finish("position files", None, 0)?;
    summary_line(&info, files.len(), dir);
    Ok(ExitCode::SUCCESS)
}
