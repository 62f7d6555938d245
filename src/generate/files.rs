//! A generation run on disk: `DIR/generate.toml`, `DIR/positions/NNNNNN.psv`
//! (or `.hcpe`, one file per chunk), `DIR/chunks/NNNNNN.csv` (which games a
//! chunk holds and how many positions each gave), `DIR/games/NNNNNN.csa`
//! (one per game).
//!
//! Every file is written under `NAME.tmp` and renamed when complete. A chunk's
//! game records and index are written before its position file, and chunks
//! are written in order, so the complete position files are always chunks
//! `0..k` and each has its index and the records of its games: that prefix
//! is what a rerun resumes from.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::{GenerateConfig, GenerateError, GeneratedGame};
use crate::positions::{read_positions_as, PositionFormat, PositionRecord, PositionWriter};
use crate::record::csa_writer::to_csa;

/// `DIR/generate.toml`.
pub fn options_path(dir: &Path) -> PathBuf {
    dir.join("generate.toml")
}

/// `DIR/positions/NNNNNN.psv` (or `.hcpe`): the positions of chunk `chunk`.
pub fn chunk_path(dir: &Path, chunk: u64, format: PositionFormat) -> PathBuf {
    dir.join("positions").join(format!("{chunk:06}.{format}"))
}

/// `DIR/chunks/NNNNNN.csv`: chunk `chunk`'s games, in order, each with the
/// positions it gave to the chunk's position file and those it left out as
/// duplicates (`game,positions,duplicates`).
pub fn index_path(dir: &Path, chunk: u64) -> PathBuf {
    dir.join("chunks").join(format!("{chunk:06}.csv"))
}

/// The header of a chunk index.
const INDEX_HEADER: &str = "game,positions,duplicates";

/// The folders a run writes below `DIR`.
const RUN_FOLDERS: [&str; 3] = ["positions", "chunks", "games"];

/// `DIR/games/NNNNNN.csa`: the record of game `game` (its global index).
pub fn game_path(dir: &Path, game: u64) -> PathBuf {
    dir.join("games").join(format!("{game:06}.csa"))
}

pub(crate) fn io_error(path: &Path, e: std::io::Error) -> GenerateError {
    GenerateError::Io {
        path: path.to_path_buf(),
        source: e,
    }
}

pub(crate) fn write_renamed(path: &Path, bytes: &[u8]) -> Result<(), GenerateError> {
    crate::files::write_atomic(path, bytes).map_err(|e| io_error(path, e))
}

/// What a previous run left: complete chunks `0..chunks`, their positions
/// counted and hashed (so de-duplication goes on as if the run had not stopped).
#[derive(Debug, Default)]
pub struct Existing {
    /// Complete chunk files.
    pub chunks: u64,
    /// Positions in them.
    pub positions: u64,
    /// [`crate::shogi::Position::hash`] of every position in them.
    pub seen: HashSet<u64>,
}

/// Checks `DIR/generate.toml` against `cfg` and reads the complete chunks.
///
/// No `generate.toml`: a new run (an error if `DIR/positions` already holds
/// position files). Different options: [`GenerateError::OptionDiffers`]
/// naming the first option that differs (`positions` may grow: it is not compared).
pub fn open_existing(dir: &Path, cfg: &GenerateConfig) -> Result<Existing, GenerateError> {
    let toml_path = options_path(dir);
    let chunk_files = list_chunks(dir, cfg.format)?;
    if !toml_path.exists() {
        if !chunk_files.is_empty() {
            return Err(GenerateError::Existing(format!(
                "{} holds position files but no generate.toml: use --force to start over",
                dir.display()
            )));
        }
        return Ok(Existing::default());
    }
    let old = read_options(dir)?;
    if let Some((option, was, now)) = first_difference(&old, &cfg.options_table(), &["positions"]) {
        return Err(GenerateError::OptionDiffers { option, was, now });
    }
    let mut existing = Existing::default();
    for path in in_order(dir, &chunk_files, cfg.format)? {
        for rec in read_positions_as(path, cfg.format)? {
            let rec = rec?;
            existing.positions += 1;
            existing.seen.insert(rec.position.hash());
        }
        existing.chunks += 1;
    }
    Ok(existing)
}

/// The first option (in key order, `skip` left out) whose value differs
/// between the tables `old` and `new`: its name as on the command line, and
/// its value in each (`(not set)` when absent).
pub(crate) fn first_difference(
    old: &toml::Table,
    new: &toml::Table,
    skip: &[&str],
) -> Option<(String, String, String)> {
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    let key = keys
        .into_iter()
        .find(|k| !skip.contains(&k.as_str()) && old.get(*k) != new.get(*k))?;
    let show = |v: Option<&toml::Value>| v.map_or("(not set)".to_string(), |v| v.to_string());
    Some((
        key.replace('_', "-"),
        show(old.get(key)),
        show(new.get(key)),
    ))
}

/// `chunk_files` (sorted), checked to be chunks `0..k` with none missing.
fn in_order<'a>(
    dir: &Path,
    chunk_files: &'a [PathBuf],
    format: PositionFormat,
) -> Result<&'a [PathBuf], GenerateError> {
    for (i, path) in chunk_files.iter().enumerate() {
        if *path != chunk_path(dir, i as u64, format) {
            return Err(GenerateError::Existing(format!(
                "{}: chunk {i:06} is missing before it (use --force to start over)",
                path.display()
            )));
        }
    }
    Ok(chunk_files)
}

/// The number of complete chunks in `DIR` (files `0..k`, none missing).
pub(crate) fn complete_chunks(dir: &Path, format: PositionFormat) -> Result<u64, GenerateError> {
    let files = list_chunks(dir, format)?;
    Ok(in_order(dir, &files, format)?.len() as u64)
}

/// The complete position files of `format` in `DIR/positions`, sorted.
fn list_chunks(dir: &Path, format: PositionFormat) -> Result<Vec<PathBuf>, GenerateError> {
    let pos_dir = dir.join("positions");
    if !pos_dir.exists() {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for entry in fs::read_dir(&pos_dir).map_err(|e| io_error(&pos_dir, e))? {
        let path = entry.map_err(|e| io_error(&pos_dir, e))?.path();
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("");
        if let Some((stem, ext)) = name.split_once('.') {
            if ext == format.to_string()
                && stem.len() == 6
                && stem.bytes().all(|b| b.is_ascii_digit())
            {
                out.push(path);
            }
        }
    }
    out.sort();
    Ok(out)
}

/// Removes what a run writes (`generate.toml`, `positions/`, `chunks/`,
/// `games/`), nothing else.
pub fn remove_run(dir: &Path) -> Result<(), GenerateError> {
    for sub in RUN_FOLDERS {
        let p = dir.join(sub);
        if p.exists() {
            fs::remove_dir_all(&p).map_err(|e| io_error(&p, e))?;
        }
    }
    let p = options_path(dir);
    if p.exists() {
        fs::remove_file(&p).map_err(|e| io_error(&p, e))?;
    }
    Ok(())
}

/// Creates the run's folders and writes `DIR/generate.toml`.
pub fn start_run(dir: &Path, cfg: &GenerateConfig) -> Result<(), GenerateError> {
    create_folders(dir)?;
    write_options(dir, &cfg.options_table())
}

/// Creates `DIR/positions`, `DIR/chunks` and `DIR/games`.
pub(crate) fn create_folders(dir: &Path) -> Result<(), GenerateError> {
    for sub in RUN_FOLDERS {
        let p = dir.join(sub);
        fs::create_dir_all(&p).map_err(|e| io_error(&p, e))?;
    }
    Ok(())
}

/// Writes `DIR/generate.toml` holding `options` ([`GenerateConfig::options_table`]).
pub(crate) fn write_options(dir: &Path, options: &toml::Table) -> Result<(), GenerateError> {
    let text = format!(
        "# kifulearn generate: the options of this run (a rerun must match them; positions may grow)\n{options}"
    );
    write_renamed(&options_path(dir), text.as_bytes())
}

/// Reads `DIR/generate.toml`.
pub(crate) fn read_options(dir: &Path) -> Result<toml::Table, GenerateError> {
    let path = options_path(dir);
    let text = fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
    text.parse()
        .map_err(|e| GenerateError::Existing(format!("{}: {e}", path.display())))
}

/// What writing one chunk did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkWritten {
    /// Positions written.
    pub positions: u64,
    /// Positions left out because an earlier one had the same hash.
    pub duplicates: u64,
}

/// Writes chunk `chunk`: each game's CSA record, then (by [`write_positions`])
/// its index and the positions not in `seen`.
pub fn write_chunk(
    dir: &Path,
    chunk: u64,
    games: &[GeneratedGame],
    cfg: &GenerateConfig,
    seen: &mut HashSet<u64>,
) -> Result<ChunkWritten, GenerateError> {
    let name = format!("kifulearn {}", cfg.evaluator);
    for g in games {
        let notes = [
            format!(
                "kifulearn generate game {}: opening line {}, {} plies of opening, seed {}",
                g.game, g.opening_line, g.opening_plies, cfg.seed
            ),
            format!("result: {}", g.end_name()),
        ];
        let text = to_csa(&g.to_record(&name), &notes);
        write_renamed(&game_path(dir, g.game), text.as_bytes())?;
    }
    let games: Vec<(u64, &[PositionRecord])> =
        games.iter().map(|g| (g.game, &g.positions[..])).collect();
    write_positions(dir, chunk, &games, cfg.format, seen)
}

/// Writes chunk `chunk`'s index and position file from `games` (each game's
/// number and positions, in order): the positions not in `seen` (added to
/// it), in game order. The index is written first, so a complete position
/// file always has its index.
pub fn write_positions(
    dir: &Path,
    chunk: u64,
    games: &[(u64, &[PositionRecord])],
    format: PositionFormat,
    seen: &mut HashSet<u64>,
) -> Result<ChunkWritten, GenerateError> {
    let mut written = ChunkWritten::default();
    let mut index = format!("{INDEX_HEADER}\n");
    let mut kept: Vec<&PositionRecord> = Vec::new();
    for &(game, positions) in games {
        let before = kept.len();
        kept.extend(positions.iter().filter(|r| seen.insert(r.position.hash())));
        let new = (kept.len() - before) as u64;
        let duplicates = positions.len() as u64 - new;
        index.push_str(&format!("{game},{new},{duplicates}\n"));
        written.positions += new;
        written.duplicates += duplicates;
    }
    write_renamed(&index_path(dir, chunk), index.as_bytes())?;
    let path = chunk_path(dir, chunk, format);
    let tmp = crate::files::tmp_path(&path);
    let mut writer = PositionWriter::create(&tmp, format)?;
    for rec in kept {
        writer.write(rec)?;
    }
    let file = writer.finish()?;
    file.sync_all().map_err(|e| io_error(&tmp, e))?;
    drop(file);
    fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))?;
    Ok(written)
}

/// Chunk `chunk`'s index: its games' numbers and the positions each gave to
/// the chunk's position file, in order.
pub fn read_index(dir: &Path, chunk: u64) -> Result<Vec<(u64, u64)>, GenerateError> {
    let path = index_path(dir, chunk);
    let text = fs::read_to_string(&path).map_err(|e| io_error(&path, e))?;
    let bad = |line: &str| {
        GenerateError::Existing(format!(
            "{}: {line:?} is not a line of a chunk index ({INDEX_HEADER})",
            path.display()
        ))
    };
    let mut lines = text.lines();
    if lines.next() != Some(INDEX_HEADER) {
        return Err(bad(text.lines().next().unwrap_or("")));
    }
    lines
        .map(|line| {
            let mut fields = line.split(',').map(str::parse::<u64>);
            match (fields.next(), fields.next(), fields.next(), fields.next()) {
                (Some(Ok(game)), Some(Ok(positions)), Some(Ok(_)), None) => Ok((game, positions)),
                _ => Err(bad(line)),
            }
        })
        .collect()
}
