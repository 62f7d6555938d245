//! `kifulearn evaluate --evaluator MODEL [--depth D] [--csv FILE] GAMES...`: move agreement
//! (D: plies searched below each sibling; none: static evaluation).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use kifulearn::engine::agreement::{games_agreement, Agreement, DEPTHS};
use kifulearn::eval::{load_evaluator, EvalChoice};
use kifulearn::record::{find_record_files, read_file, Game};

use super::CliResult;

#[derive(clap::Args)]
pub struct Args {
    /// Evaluator: a model file, or `material` for the built-in material baseline.
    #[arg(long, alias = "model")]
    evaluator: String,
    /// Rank moves by a search of each sibling (the position after the move):
    /// this many plies of all moves below it, then captures (0: the sibling's
    /// capture quiescence only) [default: no search, each sibling's static
    /// evaluation]. `--depth D` is what `--depth D+1` was before the one
    /// meaning of depth (docs/search.md).
    #[arg(long, value_parser = |s: &str| DEPTHS.parse(s))]
    depth: Option<u32>,
    /// Also write the table as CSV (`evaluator,phase,positions,top1,top3,top5`).
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Game record files or folders.
    #[arg(required = true)]
    games: Vec<PathBuf>,
}

pub fn run(args: Args) -> CliResult {
    let choice = EvalChoice::parse(&args.evaluator);
    let evaluator = load_evaluator(&choice)?;
    let mut games: Vec<Game> = Vec::new();
    for path in find_record_files(&args.games)? {
        for game in read_file(&path).games {
            match game {
                Ok(g) => games.push(g),
                Err(e) => eprintln!("skipped: {e}"),
            }
        }
    }
    if games.is_empty() {
        return Err("no game could be read".into());
    }
    let agreement = games_agreement(&games, &evaluator, args.depth);
    let name = choice.name();
    match args.depth {
        None => println!("{} games, static evaluation of each sibling", games.len()),
        Some(d) => println!("{} games, depth {d} below each sibling", games.len()),
    }
    print!("{}", table(&name, &agreement));
    if let Some(path) = &args.csv {
        write_csv(path, &name, &agreement)?;
    }
    Ok(ExitCode::SUCCESS)
}

fn table(name: &str, a: &Agreement) -> String {
    let mut s = format!(
        "{:<20} {:<6} {:>9} {:>7} {:>7} {:>7}\n",
        "evaluator", "phase", "positions", "top1", "top3", "top5"
    );
    for (phase, tally) in a.rows() {
        let [t1, t3, t5] = tally.rates();
        s.push_str(&format!(
            "{name:<20} {phase:<6} {:>9} {t1:>7.4} {t3:>7.4} {t5:>7.4}\n",
            tally.positions
        ));
    }
    s
}

/// Written under a temporary name and renamed, so an interrupted run leaves no half file.
fn write_csv(path: &Path, name: &str, a: &Agreement) -> Result<(), Box<dyn std::error::Error>> {
    kifulearn::files::write_atomic_with(path, |out| {
        let mut w = csv::Writer::from_writer(out);
        w.write_record(["evaluator", "phase", "positions", "top1", "top3", "top5"])?;
        for (phase, tally) in a.rows() {
            let [t1, t3, t5] = tally.rates();
            w.write_record([
                name.to_string(),
                phase.to_string(),
                tally.positions.to_string(),
                format!("{t1:.6}"),
                format!("{t3:.6}"),
                format!("{t5:.6}"),
            ])?;
        }
        w.flush()?;
        Ok(())
    })
}
