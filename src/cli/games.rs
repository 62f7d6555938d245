//! `kifulearn games PATH... [--csv FILE] [--usi FILE]`: read game records and say what was read.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use indicatif::ProgressBar;
use kifulearn::files::write_atomic_with;
use kifulearn::record::{find_record_files, read_file, FileGames};
use rayon::prelude::*;

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    /// Record files, or folders searched recursively (CSA, KIF, KI2, USI lines, Kisen).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Write one CSV row per game: source,index,format,plies,result,ending,ending_word,error.
    #[arg(long, value_name = "FILE")]
    csv: Option<PathBuf>,
    /// Write every game read as one USI position line.
    #[arg(long, value_name = "FILE")]
    usi: Option<PathBuf>,
}

/// Files at which a progress bar starts to be worth drawing.
const PROGRESS_FROM: usize = 200;

pub fn run(args: Args) -> CliResult {
    let files = find_record_files(&args.paths)?;
    let bar = if files.len() >= PROGRESS_FROM {
        super::verbosity::bar(files.len() as u64, "{bar:40} {pos}/{len} files {elapsed}")?
    } else {
        ProgressBar::hidden()
    };
    // `par_iter().map().collect()` keeps the files' order, so the output does not
    // depend on which thread finished first.
    let read: Vec<FileGames> = files
        .par_iter()
        .map(|p| {
            let games = read_file(p);
            bar.inc(1);
            games
        })
        .collect();
    bar.finish_and_clear();

    let mut out = std::io::stdout().lock();
    // Problem positions (one king) are not games; they are counted apart from
    // malformed records so that a folder of tsume problems does not look broken.
    let (mut ok, mut failed, mut problems) = (0usize, 0usize, 0usize);
    for file in &read {
        let n_ok = file.games.iter().filter(|g| g.is_ok()).count();
        let n_problems = file
            .games
            .iter()
            .filter(|g| g.as_ref().is_err_and(|e| e.is_problem_position()))
            .count();
        let n_failed = file.games.len() - n_ok - n_problems;
        ok += n_ok;
        failed += n_failed;
        problems += n_problems;
        let format = file
            .format
            .map_or_else(|| "unknown".to_string(), |f| f.to_string());
        let problem_note = if n_problems > 0 {
            format!(", {n_problems} problem positions")
        } else {
            String::new()
        };
        writeln!(
            out,
            "{}: {format}, {n_ok} ok, {n_failed} failed{problem_note}",
            file.path.display()
        )?;
        for err in file.games.iter().filter_map(|g| g.as_ref().err()) {
            writeln!(out, "  error: {err}")?;
        }
    }
    if let Some(path) = &args.csv {
        write_atomic_with(path, |w| write_csv(&read, w))?;
    }
    if let Some(path) = &args.usi {
        write_atomic_with(path, |w| -> std::io::Result<()> {
            for game in read.iter().flat_map(|f| f.games.iter().flatten()) {
                writeln!(w, "{}", game.to_usi())?;
            }
            Ok(())
        })?;
    }
    writeln!(
        out,
        "games: {ok} ok, {failed} failed, {problems} problem positions (one king)"
    )?;
    Ok(ExitCode::SUCCESS)
}

fn write_csv(read: &[FileGames], w: &mut dyn Write) -> Result<(), Box<dyn std::error::Error>> {
    let mut csv = csv::Writer::from_writer(w);
    csv.write_record([
        "source",
        "index",
        "format",
        "plies",
        "result",
        "ending",
        "ending_word",
        "error",
    ])?;
    for file in read {
        let source = file.path.display().to_string();
        let format = file.format.map(|f| f.to_string()).unwrap_or_default();
        for (index, game) in file.games.iter().enumerate() {
            let index = index.to_string();
            match game {
                Ok(g) => csv.write_record([
                    source.as_str(),
                    &index,
                    &format,
                    &g.plies().to_string(),
                    &g.result.to_string(),
                    &g.ending.to_string(),
                    g.ending_word.as_deref().unwrap_or(""),
                    "",
                ])?,
                Err(e) => csv.write_record([
                    source.as_str(),
                    &index,
                    &format,
                    "",
                    "",
                    "",
                    "",
                    &e.to_string(),
                ])?,
            }
        }
    }
    csv.flush()?;
    Ok(())
}
