//! `kifulearn perft DEPTH [--sfen SFEN]`.

use std::process::ExitCode;
use std::time::Instant;

use kifulearn::shogi::{perft, perft_haitaka, Position};

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    /// Depth in plies.
    depth: u32,
    /// Start from this SFEN [default: the start position].
    #[arg(long)]
    sfen: Option<String>,
    /// Count straight on haitaka's Board, bypassing our Position layer (the
    /// baseline of `benches/perft_layer.sh`).
    #[arg(long)]
    baseline: bool,
}

pub fn run(args: Args) -> CliResult {
    let pos = match &args.sfen {
        Some(sfen) => Position::from_sfen(sfen)?,
        None => Position::startpos(),
    };
    let start = Instant::now();
    let nodes = if args.baseline {
        perft_haitaka(pos.board(), args.depth)
    } else {
        perft(&pos, args.depth)
    };
    let secs = start.elapsed().as_secs_f64();
    println!("position: {}", pos.to_sfen());
    println!(
        "time: {secs:.3} s ({:.0} nodes/s)",
        nodes as f64 / secs.max(1e-9)
    );
    println!("perft {}: {nodes}", args.depth);
    Ok(ExitCode::SUCCESS)
}
