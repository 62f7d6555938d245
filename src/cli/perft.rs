//! `kifulearn perft DEPTH [--sfen SFEN]`.

use std::process::ExitCode;
use std::time::Instant;

use kifulearn::shogi::{perft, Position};

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    /// Depth in plies.
    depth: u32,
    /// Start from this SFEN instead of the start position.
    #[arg(long)]
    sfen: Option<String>,
}

pub fn run(args: Args) -> CliResult {
    let pos = match &args.sfen {
        Some(sfen) => Position::from_sfen(sfen)?,
        None => Position::startpos(),
    };
    let start = Instant::now();
    let nodes = perft(&pos, args.depth);
    let secs = start.elapsed().as_secs_f64();
    println!("position: {}", pos.to_sfen());
    println!(
        "time: {secs:.3} s ({:.0} nodes/s)",
        nodes as f64 / secs.max(1e-9)
    );
    println!("perft {}: {nodes}", args.depth);
    Ok(ExitCode::SUCCESS)
}
