//! Training rows from games: per game a libsvm file and a CSV of what each row is,
//! and a manifest for the run that lets an interrupted run resume.
//!
//! For each position of a game (the final one excluded, and within the ply
//! range asked for), every legal move gives one row: the features of the
//! sibling position seen by the side that moved, labelled by
//! [`crate::label::Labeller`]. Rows are grouped by position, in game order.
//!
//! Files are written under temporary names (`NAME.svm.tmp`) and renamed when
//! complete, `.svm` first and `.rows.csv` last; the manifest records each game
//! as it finishes. A rerun skips every game the manifest lists as `ok` whose
//! two files are present with the row count recorded, and redoes the rest, so
//! nothing is lost or written twice.

use std::collections::HashMap;
use std::fs::{self, File, OpenOptions};
use std::io::{self, BufRead, BufReader, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;
use serde::{Deserialize, Serialize};

use crate::eval::Evaluator;
use crate::features::{FeatureSet, RowBuilder};
use crate::label::{LabelError, LabelOptions, Labeller, Sibling};
use crate::libsvm::write_row;
use crate::record::Game;

/// File name of the run's manifest in the output folder.
pub const MANIFEST: &str = "manifest.csv";

/// What to extract from each game.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ExtractOptions {
    /// Label rule and search.
    pub label: LabelOptions,
    /// Positions before this ply (0 = the start position) are not labelled.
    pub skip_opening: usize,
    /// Positions at this ply and later are not labelled.
    pub max_plies: Option<usize>,
    /// Where each row's features are taken.
    pub rows_at: RowsAt,
}

/// Where a sibling's row describes the game: the sibling itself (the
/// Mecha-Joshi recipe) or the end of its labelling search's principal
/// variation, the position its label's value is the evaluation of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowsAt {
    /// The position right after the candidate move.
    #[default]
    Sibling,
    /// The end of the sibling's search line (replies and captures played).
    /// Features are still seen from the side that played the candidate move,
    /// whose value the label is, whoever is to move at the leaf.
    Leaf,
}

impl ExtractOptions {
    /// Is the position at `ply` (0 = the start position) one to label?
    pub fn wants(&self, ply: usize) -> bool {
        in_ply_range(ply, self.skip_opening, self.max_plies)
    }
}

/// The one rule of which positions of a game are used for training, shared by
/// extraction and ranking training: plies `skip_opening..max_plies` (0 = the
/// start position).
pub fn in_ply_range(ply: usize, skip_opening: usize, max_plies: Option<usize>) -> bool {
    ply >= skip_opening && max_plies.is_none_or(|m| ply < m)
}

/// One game to extract: its output name, where it came from, and the game (or why it could not be read).
#[derive(Clone, Debug)]
pub struct GameJob {
    /// Output file stem, unique in the run (`NAME.svm`, `NAME.rows.csv`).
    pub name: String,
    /// The source, as `path#index`.
    pub source: String,
    /// The game, or the reader's error message.
    pub game: Result<Game, String>,
}

/// One line of the manifest: what became of one game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameReport {
    /// Output file stem.
    pub game: String,
    /// The source, as `path#index`.
    pub source: String,
    /// Positions labelled.
    pub plies: u64,
    /// Rows written (one per legal move of each labelled position).
    pub rows: u64,
    /// Feature entries written over all rows.
    pub nonzeros: u64,
    /// Wall time spent on the game.
    pub seconds: f64,
    /// `ok`, or `error: ` and the reason.
    pub status: String,
}

impl GameReport {
    /// Did the game complete?
    pub fn is_ok(&self) -> bool {
        self.status == "ok"
    }
}

/// Output names for record files: the file stem, made unique by a `_2`, `_3`, …
/// suffix when two files share a stem. A game's name is `STEM-INDEX`.
pub fn file_stems(files: &[PathBuf]) -> Vec<String> {
    let mut seen: HashMap<String, usize> = HashMap::new();
    files
        .iter()
        .map(|f| {
            let stem: String = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "games".into())
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || "-_.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let n = seen.entry(stem.clone()).or_insert(0);
            *n += 1;
            if *n == 1 {
                stem
            } else {
                format!("{stem}_{n}")
            }
        })
        .collect()
}

/// The output name of game `index` of a file with output stem `stem`.
pub fn game_name(stem: &str, index: usize) -> String {
    format!("{stem}-{index:05}")
}

/// Counts written by [`extract_game`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GameCounts {
    /// Positions labelled.
    pub plies: u64,
    /// Rows written.
    pub rows: u64,
    /// Feature entries written.
    pub nonzeros: u64,
}

/// Why a game's extraction failed.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// Writing an output file failed.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: io::Error,
    },
    /// Labelling failed (a game move not legal in its position).
    #[error(transparent)]
    Label(#[from] LabelError),
}

/// Writes `NAME.svm` and `NAME.rows.csv` for `game` in `dir`, through temporary names.
pub fn extract_game<F: FeatureSet, E: Evaluator>(
    game: &Game,
    name: &str,
    dir: &Path,
    features: &F,
    labeller: &mut Labeller<'_, E>,
    options: &ExtractOptions,
) -> Result<GameCounts, ExtractError> {
    let svm_path = dir.join(format!("{name}.svm"));
    let csv_path = dir.join(format!("{name}.rows.csv"));
    let svm_tmp = dir.join(format!("{name}.svm.tmp"));
    let csv_tmp = dir.join(format!("{name}.rows.csv.tmp"));
    let io_err = |path: &Path| {
        let path = path.to_path_buf();
        move |source| ExtractError::Io { path, source }
    };
    let result = (|| {
        let mut svm = BufWriter::new(File::create(&svm_tmp).map_err(io_err(&svm_tmp))?);
        let mut csv = BufWriter::new(File::create(&csv_tmp).map_err(io_err(&csv_tmp))?);
        let counts = write_game(game, features, labeller, options, &mut svm, &mut csv)?;
        svm.flush().map_err(io_err(&svm_tmp))?;
        csv.flush().map_err(io_err(&csv_tmp))?;
        drop((svm, csv));
        fs::rename(&svm_tmp, &svm_path).map_err(io_err(&svm_path))?;
        fs::rename(&csv_tmp, &csv_path).map_err(io_err(&csv_path))?;
        Ok(counts)
    })();
    if result.is_err() {
        let _ = fs::remove_file(&svm_tmp);
        let _ = fs::remove_file(&csv_tmp);
    }
    result
}

/// Labels the game's positions and writes rows to `svm` and their description to `csv`.
fn write_game<F: FeatureSet, E: Evaluator, W: Write>(
    game: &Game,
    features: &F,
    labeller: &mut Labeller<'_, E>,
    options: &ExtractOptions,
    svm: &mut W,
    csv: &mut W,
) -> Result<GameCounts, ExtractError> {
    let io = |source| ExtractError::Io {
        path: PathBuf::from(&game.source.path),
        source,
    };
    csv.write_all(b"ply,move,game_move,value,label\n")
        .map_err(io)?;
    let mut builder = RowBuilder::new();
    let mut rows: Vec<(u32, f32)> = Vec::new();
    let mut offsets: Vec<usize> = Vec::new();
    let mut siblings: Vec<Sibling> = Vec::new();
    let mut counts = GameCounts::default();
    let mut pos = game.start.clone();
    for (ply, &mv) in game.moves.iter().enumerate() {
        if options.wants(ply) {
            let view = pos.side_to_move();
            rows.clear();
            offsets.clear();
            let g = labeller.label_position(&pos, mv, &mut siblings, |_, _, sibling, line| {
                offsets.push(rows.len());
                if options.rows_at == RowsAt::Leaf && !line.is_empty() {
                    let mut leaf = sibling.clone();
                    for &m in line {
                        leaf.play_unchecked(m);
                    }
                    rows.extend_from_slice(builder.build(features, &leaf, view));
                } else {
                    rows.extend_from_slice(builder.build(features, sibling, view));
                }
            })?;
            offsets.push(rows.len());
            for (i, s) in siblings.iter().enumerate() {
                let row = &rows[offsets[i]..offsets[i + 1]];
                write_row(svm, s.label, row).map_err(io)?;
                writeln!(
                    csv,
                    "{ply},{},{},{},{}",
                    s.mv,
                    (i == g) as u8,
                    s.value,
                    s.label
                )
                .map_err(io)?;
                counts.nonzeros += row.len() as u64;
            }
            counts.rows += siblings.len() as u64;
            counts.plies += 1;
        }
        if options.max_plies.is_some_and(|m| ply + 1 >= m) {
            break;
        }
        pos.play_unchecked(mv);
    }
    Ok(counts)
}

/// Reads a manifest left by an earlier run: the last record of each game wins;
/// a line cut short by an interruption is ignored.
pub fn read_manifest(dir: &Path) -> HashMap<String, GameReport> {
    let mut out = HashMap::new();
    let Ok(mut reader) = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(dir.join(MANIFEST))
    else {
        return out;
    };
    for report in reader.deserialize::<GameReport>().flatten() {
        out.insert(report.game.clone(), report);
    }
    out
}

/// Are the outputs of a game listed as complete really there, with its row count?
fn outputs_complete(dir: &Path, report: &GameReport) -> bool {
    let lines = |path: PathBuf| -> Option<u64> {
        let file = File::open(path).ok()?;
        let mut n = 0;
        for line in BufReader::new(file).split(b'\n') {
            line.ok()?;
            n += 1;
        }
        Some(n)
    };
    report.is_ok()
        && lines(dir.join(format!("{}.svm", report.game))) == Some(report.rows)
        && lines(dir.join(format!("{}.rows.csv", report.game))) == Some(report.rows + 1)
}

/// Summary of a run.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// One report per job, in job order.
    pub reports: Vec<GameReport>,
    /// Games skipped because an earlier run completed them.
    pub resumed: usize,
}

/// Extracts every job into `dir` (games in parallel on the current rayon pool),
/// skipping games an earlier run completed; `on_game` sees each report as it is
/// made (for progress bars). Writes `manifest.csv` as games finish, and in job
/// order at the end.
pub fn run<F, E>(
    jobs: &[GameJob],
    dir: &Path,
    features: &F,
    eval: &E,
    options: &ExtractOptions,
    on_game: impl Fn(&GameReport, bool) + Sync,
) -> io::Result<RunSummary>
where
    F: FeatureSet + Sync,
    E: Evaluator,
{
    fs::create_dir_all(dir)?;
    let previous = read_manifest(dir);
    let manifest_path = dir.join(MANIFEST);
    let fresh = !manifest_path.exists();
    let mut file = OpenOptions::new()
        .create(true)
        .append(true)
        .open(&manifest_path)?;
    if fresh {
        file.write_all(b"game,source,plies,rows,nonzeros,seconds,status\n")?;
    } else {
        // An interrupted run may have left half a line: start on a fresh one.
        file.write_all(b"\n")?;
    }
    let log = Mutex::new(
        csv::WriterBuilder::new()
            .has_headers(false)
            .from_writer(file),
    );
    let results: Vec<(GameReport, bool)> = jobs
        .par_iter()
        .map_init(
            || Labeller::new(eval, options.label),
            |labeller, job| {
                if let Some(done) = previous.get(&job.name) {
                    if done.source == job.source && outputs_complete(dir, done) {
                        on_game(done, true);
                        return (done.clone(), true);
                    }
                }
                let start = Instant::now();
                let (counts, status) = match &job.game {
                    Err(e) => (GameCounts::default(), format!("error: {e}")),
                    Ok(game) => {
                        match extract_game(game, &job.name, dir, features, labeller, options) {
                            Ok(c) => (c, "ok".to_string()),
                            Err(e) => (GameCounts::default(), format!("error: {e}")),
                        }
                    }
                };
                let report = GameReport {
                    game: job.name.clone(),
                    source: job.source.clone(),
                    plies: counts.plies,
                    rows: counts.rows,
                    nonzeros: counts.nonzeros,
                    seconds: start.elapsed().as_secs_f64(),
                    status,
                };
                if let Ok(mut log) = log.lock() {
                    let _ = log.serialize(&report).and_then(|_| Ok(log.flush()?));
                }
                on_game(&report, false);
                (report, false)
            },
        )
        .collect();
    drop(log);
    let resumed = results.iter().filter(|r| r.1).count();
    let reports: Vec<GameReport> = results.into_iter().map(|r| r.0).collect();
    write_manifest(dir, &reports)?;
    Ok(RunSummary { reports, resumed })
}

/// Rewrites the manifest in job order, through a temporary name.
fn write_manifest(dir: &Path, reports: &[GameReport]) -> io::Result<()> {
    let tmp = dir.join(format!("{MANIFEST}.tmp"));
    let mut w = csv::Writer::from_path(&tmp)?;
    for r in reports {
        w.serialize(r)?;
    }
    w.flush()?;
    drop(w);
    fs::rename(tmp, dir.join(MANIFEST))
}

#[cfg(test)]
mod tests;
