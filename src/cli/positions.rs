//! `kifulearn positions PATH... [--format F] [--sfen OUT] [--convert OUT [--to F]]`:
//! summarize position files (PackedSfenValue, HCPE), dump SFEN lines, convert.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use kifulearn::positions::{
    read_positions, read_positions_as, GameResult, PositionFormat, PositionRecord, PositionWriter,
};
use kifulearn::shogi::Color;

use super::{AtomicFile, CliResult};

#[derive(clap::Args)]
pub struct Args {
    /// Position files: .psv/.bin (YaneuraOu PackedSfenValue) or .hcpe (cshogi/dlshogi HCPE).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Read every file as this format (psv or hcpe) whatever its extension.
    #[arg(long, value_name = "FORMAT")]
    format: Option<PositionFormat>,
    /// Write each position read as one SFEN line (move number = the record's ply).
    #[arg(long, value_name = "OUT")]
    sfen: Option<PathBuf>,
    /// Write every record read to OUT, in the format of --to or of OUT's extension.
    #[arg(long, value_name = "OUT")]
    convert: Option<PathBuf>,
    /// The format --convert writes: psv or hcpe.
    #[arg(long, value_name = "FORMAT", requires = "convert")]
    to: Option<PositionFormat>,
}

/// Errors printed per file before the rest are only counted.
const ERRORS_SHOWN: usize = 10;

pub fn run(args: Args) -> CliResult {
    let convert_format = match &args.convert {
        None => None,
        Some(out) => Some(
            args.to
                .or_else(|| PositionFormat::from_path(out))
                .ok_or_else(|| {
                    format!(
                        "--convert {}: give --to psv|hcpe or a .psv, .bin or .hcpe name",
                        out.display()
                    )
                })?,
        ),
    };
    let mut sfen_out = args.sfen.as_deref().map(AtomicFile::create).transpose()?;
    let mut converted = match (&args.convert, convert_format) {
        (Some(out), Some(format)) => Some((AtomicFile::create(out)?, format)),
        _ => None,
    };
    let mut writer = converted
        .as_mut()
        .map(|(file, format)| PositionWriter::new(file.writer(), *format));

    let mut out = std::io::stdout().lock();
    let mut summary = Summary::default();
    for path in &args.paths {
        let reader = match args.format {
            Some(format) => read_positions_as(path, format),
            None => read_positions(path),
        }?;
        let format = reader.format();
        let (mut ok, mut failed) = (0u64, 0u64);
        let mut shown = Vec::new();
        for item in reader {
            match item {
                Ok(rec) => {
                    ok += 1;
                    summary.add(&rec);
                    if let Some(file) = &mut sfen_out {
                        writeln!(file.writer(), "{}", rec.position.to_sfen())?;
                    }
                    if let Some(w) = &mut writer {
                        w.write(&rec)?;
                    }
                }
                Err(e) => {
                    failed += 1;
                    if shown.len() < ERRORS_SHOWN {
                        shown.push(e);
                    }
                }
            }
        }
        summary.failed += failed;
        writeln!(
            out,
            "{}: {format}, {ok} records, {failed} errors",
            path.display()
        )?;
        for e in &shown {
            writeln!(out, "  error: {e}")?;
        }
        if failed > shown.len() as u64 {
            writeln!(out, "  ... and {} more errors", failed - shown.len() as u64)?;
        }
    }
    writer.map(PositionWriter::finish).transpose()?;
    summary.print(&mut out)?;
    if let Some(file) = sfen_out {
        file.commit()?;
        writeln!(
            out,
            "wrote {} SFEN lines to {}",
            summary.records,
            args.sfen.as_ref().expect("--sfen given").display()
        )?;
    }
    if let Some((file, format)) = converted {
        file.commit()?;
        writeln!(
            out,
            "wrote {} {format} records to {}",
            summary.records,
            args.convert.as_ref().expect("--convert given").display()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Counts and ranges over the records read.
#[derive(Default)]
struct Summary {
    records: u64,
    failed: u64,
    to_move: [u64; 2],
    results: [u64; 4],
    with_move: u64,
    score_min: i16,
    score_max: i16,
    score_sum: i64,
    ply_min: u16,
    ply_max: u16,
}

impl Summary {
    fn add(&mut self, rec: &PositionRecord) {
        if self.records == 0 {
            (self.score_min, self.score_max) = (rec.score, rec.score);
            (self.ply_min, self.ply_max) = (rec.ply, rec.ply);
        }
        self.records += 1;
        self.to_move[usize::from(rec.position.side_to_move() == Color::White)] += 1;
        self.results[match rec.result {
            GameResult::Win => 0,
            GameResult::Loss => 1,
            GameResult::Draw => 2,
            GameResult::Unknown => 3,
        }] += 1;
        self.with_move += u64::from(rec.best_move.is_some());
        self.score_min = self.score_min.min(rec.score);
        self.score_max = self.score_max.max(rec.score);
        self.score_sum += i64::from(rec.score);
        self.ply_min = self.ply_min.min(rec.ply);
        self.ply_max = self.ply_max.max(rec.ply);
    }

    fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            out,
            "positions: {} ok, {} failed",
            self.records, self.failed
        )?;
        if self.records == 0 {
            return Ok(());
        }
        let [win, loss, draw, _] = self.results;
        writeln!(
            out,
            "side to move: black {}, white {}",
            self.to_move[0], self.to_move[1]
        )?;
        writeln!(
            out,
            "results for the side to move: win {win}, loss {loss}, draw {draw}"
        )?;
        writeln!(
            out,
            "scores: {} to {}, mean {:.1}",
            self.score_min,
            self.score_max,
            self.score_sum as f64 / self.records as f64
        )?;
        writeln!(out, "plies: {} to {}", self.ply_min, self.ply_max)?;
        writeln!(
            out,
            "best moves: {} ({} without)",
            self.with_move,
            self.records - self.with_move
        )
    }
}
