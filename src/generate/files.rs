//! A generation run on disk: `DIR/generate.toml`, `DIR/positions/NNNNNN.psv`
//! (or `.hcpe`, one file per chunk), `DIR/games/NNNNNN.csa` (one per game).
//!
//! Every file is written under `NAME.tmp` and renamed when complete. A chunk's
//! game records are written before its position file, and chunks are written
//! in order, so the complete position files are always chunks `0..k` and each
//! of their games has its record: that prefix is what a rerun resumes from.

use std::collections::HashSet;
use std::fs;
use std::path::{Path, PathBuf};

use super::{GenerateConfig, GenerateError, GeneratedGame};
use crate::positions::{read_positions_as, PositionFormat, PositionWriter};
use crate::record::csa_writer::to_csa;

/// `DIR/generate.toml`.
pub fn options_path(dir: &Path) -> PathBuf {
    dir.join("generate.toml")
}

/// `DIR/positions/NNNNNN.psv` (or `.hcpe`): the positions of chunk `chunk`.
pub fn chunk_path(dir: &Path, chunk: u64, format: PositionFormat) -> PathBuf {
    dir.join("positions").join(format!("{chunk:06}.{format}"))
}

/// `DIR/games/NNNNNN.csa`: the record of game `game` (its global index).
pub fn game_path(dir: &Path, game: u64) -> PathBuf {
    dir.join("games").join(format!("{game:06}.csa"))
}

fn io_error(path: &Path, e: std::io::Error) -> GenerateError {
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
    let text = fs::read_to_string(&toml_path).map_err(|e| io_error(&toml_path, e))?;
    let old: toml::Table = text
        .parse()
        .map_err(|e| GenerateError::Existing(format!("{}: {e}", toml_path.display())))?;
    let new = cfg.options_table();
    let mut keys: Vec<&String> = old.keys().chain(new.keys()).collect();
    keys.sort();
    keys.dedup();
    for key in keys {
        if key == "positions" {
            continue;
        }
        let (was, now) = (old.get(key), new.get(key));
        if was != now {
            let show =
                |v: Option<&toml::Value>| v.map_or("(not set)".to_string(), |v| v.to_string());
            return Err(GenerateError::OptionDiffers {
                option: key.replace('_', "-"),
                was: show(was),
                now: show(now),
            });
        }
    }
    let mut existing = Existing::default();
    for (i, path) in chunk_files.iter().enumerate() {
        if *path != chunk_path(dir, i as u64, cfg.format) {
            return Err(GenerateError::Existing(format!(
                "{}: chunk {i:06} is missing before it (use --force to start over)",
                path.display()
            )));
        }
        for rec in read_positions_as(path, cfg.format)? {
            let rec = rec?;
            existing.positions += 1;
            existing.seen.insert(rec.position.hash());
        }
        existing.chunks += 1;
    }
    Ok(existing)
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

/// Removes what a run writes (`generate.toml`, `positions/`, `games/`), nothing else.
pub fn remove_run(dir: &Path) -> Result<(), GenerateError> {
    for sub in ["positions", "games"] {
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

/// Creates `DIR/positions` and `DIR/games` and writes `DIR/generate.toml`.
pub fn start_run(dir: &Path, cfg: &GenerateConfig) -> Result<(), GenerateError> {
    for sub in ["positions", "games"] {
        let p = dir.join(sub);
        fs::create_dir_all(&p).map_err(|e| io_error(&p, e))?;
    }
    let text = format!(
        "# kifulearn generate: the options of this run (a rerun must match them; positions may grow)\n{}",
        cfg.options_table()
    );
    write_renamed(&options_path(dir), text.as_bytes())
}

/// What writing one chunk did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChunkWritten {
    /// Positions written.
    pub positions: u64,
    /// Positions left out because an earlier one had the same hash.
    pub duplicates: u64,
}

/// Writes chunk `chunk`: each game's CSA record, then the positions not in
/// `seen` (added to it), in game order, to the chunk's position file.
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
    let path = chunk_path(dir, chunk, cfg.format);
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = PathBuf::from(tmp);
    let mut writer = PositionWriter::create(&tmp, cfg.format)?;
    let mut written = ChunkWritten::default();
    for rec in games.iter().flat_map(|g| &g.positions) {
        if seen.insert(rec.position.hash()) {
            writer.write(rec)?;
            written.positions += 1;
        } else {
            written.duplicates += 1;
        }
    }
    let file = writer.finish()?;
    file.sync_all().map_err(|e| io_error(&tmp, e))?;
    drop(file);
    fs::rename(&tmp, &path).map_err(|e| io_error(&path, e))?;
    Ok(written)
}
