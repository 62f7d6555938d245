//! `kifulearn dataset merge SHARD_DIR... --out DIR`: join the shards of one extraction.

use std::path::PathBuf;
use std::process::ExitCode;

use kifulearn::extract::merge::merge;

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    command: DatasetCommand,
}

#[derive(clap::Subcommand)]
enum DatasetCommand {
    /// Join the folders of `extract --shard K/N` (every K of one N, same options)
    /// into the dataset one run over all the games writes.
    Merge(MergeArgs),
}

#[derive(clap::Args)]
struct MergeArgs {
    /// The shard folders (each an `extract --out`).
    #[arg(required = true)]
    shards: Vec<PathBuf>,
    /// The merged dataset folder.
    #[arg(long)]
    out: PathBuf,
}

pub fn run(args: Args) -> CliResult {
    match args.command {
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
