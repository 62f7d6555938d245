//! `kifulearn dataset merge SHARD_DIR... --out DIR`: join the shards of one
//! extraction, or of one generation run (`generate --shard K/N --games M`).
//! `dataset residual DIR --prior P --out DIR2` and `dataset add-prior MODEL
//! --rows DIR2 --out MODEL2`: a prior for learners that have none
//! (`kifulearn::train::residual`).

use std::path::PathBuf;
use std::process::ExitCode;

use kifulearn::extract::merge::merge;
use kifulearn::generate::files::options_path;
use kifulearn::generate::merge::merge_shards;

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: DatasetCommand,
}

#[derive(clap::Subcommand)]
enum DatasetCommand {
    /// Join the folders of `extract --shard K/N` or `generate --shard K/N
    /// --games M` (every K of one N, same options) into the folder one run
    /// over all the games writes.
    Merge(MergeArgs),
    /// Write the rows of a dataset folder with labels minus a prior's value
    /// of each row (y − w0·x), so that liblinear, scikit-learn or Spark fit
    /// the model `fit svr --prior` fits; `add-prior` then adds the prior back
    /// to what they fitted.
    Residual(ResidualArgs),
    /// Add the prior of residual rows (`dataset residual`) back to a model a
    /// learner fitted to them.
    AddPrior(AddPriorArgs),
}

#[derive(clap::Args)]
struct ResidualArgs {
    /// The dataset folder (rows/*.svm and dataset.toml).
    dir: PathBuf,
    /// `material` (the built-in piece values) or a model file of the rows'
    /// feature set, as `fit svr --prior` takes it.
    #[arg(long)]
    prior: String,
    /// The new dataset folder (must not exist).
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::Args)]
struct AddPriorArgs {
    /// The model a learner fitted to the residual rows (liblinear's text
    /// format with a sidecar naming the feature set, or kifulearn's own).
    fitted: PathBuf,
    /// The residual rows it was fitted to (`dataset residual --out`).
    #[arg(long)]
    rows: PathBuf,
    /// The model with the prior added (a text model and its sidecar).
    #[arg(long)]
    out: PathBuf,
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shard folders (each an `extract --out`, or each a `generate --out`).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// The merged folder.
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: Args) -> CliResult {
    match args.command {
        DatasetCommand::Residual(r) => {
            let s = kifulearn::train::residual::write_residual_rows(&r.dir, &r.prior, &r.out)?;
            super::verbosity::summary!(
                "wrote {} rows in {} file(s), labels minus the prior {} (mean |label| {:.6} -> {:.6}) -> {}",
                s.rows,
                s.files,
                r.prior,
                s.mean_abs_label.0,
                s.mean_abs_label.1,
                r.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        DatasetCommand::AddPrior(a) => {
            let m = kifulearn::train::residual::add_prior(&a.fitted, &a.rows, &a.out)?;
            super::verbosity::summary!(
                "{} plus the prior of {}: {} weights ({}) -> {}",
                a.fitted.display(),
                a.rows.display(),
                m.nr_feature(),
                m.features,
                a.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        DatasetCommand::Merge(m) if m.shards.iter().any(|d| options_path(d).is_file()) => {
            let s = merge_shards(&m.shards, &m.out)?;
            super::verbosity::summary!(
                "merged {} generate shards: {} games, {} chunks, {} positions ({} duplicates across shards left out) -> {}",
                s.shards,
                s.games,
                s.chunks,
                s.positions,
                s.duplicates,
                m.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
        DatasetCommand::Merge(m) => {
            let summary = merge(&m.shards, &m.out)?;
            let d = &summary.dataset;
            super::verbosity::summary!(
                "merged {} shards: {} games ({} failed), {} rows, {} nonzeros, features {} (dimension {}) -> {}",
                summary.shards,
                d.games,
                d.failed,
                d.rows,
                d.nonzeros,
                d.features,
                d.dimension,
                m.out.display()
            );
            Ok(ExitCode::SUCCESS)
        }
    }
}
