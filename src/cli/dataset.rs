//! `kifulearn dataset merge SHARD_DIR... --out DIR`: join the shards of one
//! extraction, or of one generation run (`generate --shard K/N --games M`).

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
