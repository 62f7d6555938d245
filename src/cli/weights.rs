//! `kifulearn weights MODEL --king SQUARE --piece KIND [--opponent]`: a king table of relation weights.

use std::path::PathBuf;
use std::process::ExitCode;

use kifulearn::features::{king_table, parse_kind, parse_square, Features};
use kifulearn::model::Model;

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    /// Model file (text with its .meta.toml sidecar, or binary).
    model: PathBuf,
    /// The view side's king square, file digit and rank letter (`5i`).
    #[arg(long)]
    king: String,
    /// Kind of the other piece: P L N S G B R K +P +L +N +S +B +R.
    #[arg(long)]
    piece: String,
    /// The piece is the opponent's (default: the view side's).
    #[arg(long)]
    opponent: bool,
    /// Weights are printed multiplied by this (the label scale: centipawns per unit of attack code).
    #[arg(long, default_value_t = f64::from(kifulearn::model::LABEL_SCALE))]
    scale: f64,
}

pub fn run(args: Args) -> CliResult {
    let model = Model::load(&args.model)?;
    let features: Features = model.features.parse().map_err(|e| {
        format!(
            "{}: {e} (a text model names its set in its .meta.toml sidecar)",
            args.model.display()
        )
    })?;
    let king = parse_square(&args.king)
        .ok_or_else(|| format!("--king {}: expected a square like 5i", args.king))?;
    let kind = parse_kind(&args.piece, args.opponent).ok_or_else(|| {
        format!(
            "--piece {}: expected one of P L N S G B R K +P +L +N +S +B +R",
            args.piece
        )
    })?;
    let table = king_table(&features, &model.w, king, kind).ok_or_else(|| {
        format!(
            "{}: feature set {} has no relation part",
            args.model.display(),
            model.features
        )
    })?;
    let side = if args.opponent { "opp" } else { "own" };
    print!(
        "{}",
        kifulearn::pipeline::weights::format_king_table(
            &table,
            &format!(
                "relation weight x {} of ({side} {} on the square, own K on {})",
                args.scale, args.piece, args.king
            ),
            args.scale
        )
    );
    Ok(ExitCode::SUCCESS)
}
