//! The shards of one generation run, joined into the folder the run writes
//! unsharded (`kifulearn dataset merge` on `generate --shard K/N --games M`
//! folders).
//!
//! Every game is a function of the options and its number, and a shard's
//! position files hold its games' positions, in game order, less those an
//! earlier game of the same shard had written; its chunk indices say which
//! game gave which. A position the shard kept is a superset of what one run
//! keeps (a shard's earlier games are earlier games of the run), and the
//! first occurrence of each position in the run is kept by its shard. So
//! taking the games in the run's order, chunk by chunk of the run, and
//! leaving out a position seen before gives the run's chunks exactly; the
//! CSA records, named by game number, are hard-linked (or copied) as they are.

use std::collections::{HashSet, VecDeque};
use std::path::{Path, PathBuf};

use super::files::{
    chunk_path, complete_chunks, create_folders, first_difference, game_path, io_error,
    options_path, read_index, read_options, remove_run, write_options, write_positions,
};
use super::{GenerateError, Shard};
use crate::positions::{read_positions_as, PositionFormat, PositionRecord};

/// What a merge wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct MergeSummary {
    /// Shards joined.
    pub shards: usize,
    /// Games (`0..games`).
    pub games: u64,
    /// Chunks written.
    pub chunks: u64,
    /// Positions written.
    pub positions: u64,
    /// Positions of the shards left out because an earlier game of another
    /// shard had written them.
    pub duplicates: u64,
}

/// One shard's games in order, read a chunk at a time.
struct ShardGames<'a> {
    dir: &'a Path,
    format: PositionFormat,
    chunks: u64,
    next_chunk: u64,
    games: VecDeque<(u64, Vec<PositionRecord>)>,
}

impl ShardGames<'_> {
    /// The shard's next game: its number and the positions its chunk file
    /// holds for it; `None` after the last.
    fn next_game(&mut self) -> Result<Option<(u64, Vec<PositionRecord>)>, GenerateError> {
        while self.games.is_empty() && self.next_chunk < self.chunks {
            let chunk = self.next_chunk;
            self.next_chunk += 1;
            let path = chunk_path(self.dir, chunk, self.format);
            let mut records = read_positions_as(&path, self.format)?;
            for (game, count) in read_index(self.dir, chunk)? {
                let positions = records
                    .by_ref()
                    .take(count as usize)
                    .collect::<Result<Vec<_>, _>>()?;
                if positions.len() as u64 != count {
                    return Err(GenerateError::Shards(format!(
                        "{}: fewer positions than its index lists",
                        path.display()
                    )));
                }
                self.games.push_back((game, positions));
            }
            if records.next().is_some() {
                return Err(GenerateError::Shards(format!(
                    "{}: more positions than its index lists",
                    path.display()
                )));
            }
        }
        Ok(self.games.pop_front())
    }
}

/// An integer option of a `generate.toml`.
fn int_option(options: &toml::Table, key: &str, dir: &Path) -> Result<u64, GenerateError> {
    options
        .get(key)
        .and_then(toml::Value::as_integer)
        .and_then(|v| u64::try_from(v).ok())
        .ok_or_else(|| {
            GenerateError::Shards(format!(
                "{}: no {key} (only the shards of a `generate --games M` run add up to one run)",
                options_path(dir).display()
            ))
        })
}

/// Joins the folders `inputs` of `generate --shard K/N --games M` (every K of
/// one N, the same options) into `out`, which then holds what
/// `generate --games M` writes without `--shard`, byte for byte. Errors name
/// the folder, option or game at fault; `out` may not be one of the shards,
/// and a run already in it is replaced.
pub fn merge_shards(inputs: &[PathBuf], out: &Path) -> Result<MergeSummary, GenerateError> {
    let mut tables = Vec::with_capacity(inputs.len());
    let mut shards = Vec::with_capacity(inputs.len());
    for dir in inputs {
        if !options_path(dir).is_file() {
            return Err(GenerateError::Shards(format!(
                "{}: no generate.toml (not a generate output)",
                dir.display()
            )));
        }
        let table = read_options(dir)?;
        let shard: Shard = table
            .get("shard")
            .and_then(toml::Value::as_str)
            .unwrap_or("")
            .parse()
            .map_err(|e| GenerateError::Shards(format!("{}: {e}", dir.display())))?;
        shards.push((shard, dir.as_path()));
        tables.push(table);
    }
    for (dir, table) in inputs.iter().zip(&tables).skip(1) {
        if let Some((option, was, now)) = first_difference(&tables[0], table, &["shard"]) {
            return Err(GenerateError::Shards(format!(
                "{} has --{option} {now} but {} has {was}: the shards of one run must be made with the same options",
                dir.display(),
                inputs[0].display()
            )));
        }
    }
    let by_k = Shard::split_of(&shards).map_err(GenerateError::Shards)?;
    let options = &tables[0];
    let games = int_option(options, "games", &inputs[0])?;
    let chunk_games = int_option(options, "chunk_games", &inputs[0])?.max(1);
    let format: PositionFormat = options
        .get("format")
        .and_then(toml::Value::as_str)
        .unwrap_or("")
        .parse()
        .map_err(|e| GenerateError::Shards(format!("{}: {e}", inputs[0].display())))?;
    let n = by_k.len() as u64;
    let mut readers = Vec::with_capacity(by_k.len());
    for (k, dir) in by_k.iter().enumerate() {
        let shard = Shard {
            index: k as u64,
            count: n,
        };
        let want = shard.games_of(games).div_ceil(chunk_games);
        let chunks = complete_chunks(dir, format)?;
        if chunks != want {
            return Err(GenerateError::Shards(format!(
                "{}: {chunks} complete chunks of the {want} of shard {shard} (rerun its generate to finish it)",
                dir.display()
            )));
        }
        readers.push(ShardGames {
            dir,
            format,
            chunks,
            next_chunk: 0,
            games: VecDeque::new(),
        });
    }
    if inputs
        .iter()
        .any(|i| std::fs::canonicalize(i).ok() == std::fs::canonicalize(out).ok())
    {
        return Err(GenerateError::Shards(format!(
            "--out {} is one of the shards: merge into a new folder",
            out.display()
        )));
    }

    remove_run(out)?;
    create_folders(out)?;
    let mut summary = MergeSummary {
        shards: inputs.len(),
        games,
        ..MergeSummary::default()
    };
    let mut seen: HashSet<u64> = HashSet::new();
    for chunk in 0..games.div_ceil(chunk_games) {
        let mut played = Vec::with_capacity(chunk_games as usize);
        for g in chunk * chunk_games..((chunk + 1) * chunk_games).min(games) {
            let reader = &mut readers[(g % n) as usize];
            let Some((found, positions)) = reader.next_game()? else {
                return Err(GenerateError::Shards(format!(
                    "{}: game {g} is in none of its chunks",
                    reader.dir.display()
                )));
            };
            if found != g {
                return Err(GenerateError::Shards(format!(
                    "{}: game {found} where game {g} was due",
                    reader.dir.display()
                )));
            }
            let (from, to) = (game_path(reader.dir, g), game_path(out, g));
            crate::files::link_or_copy(&from, &crate::files::tmp_path(&to), &to)
                .map_err(|e| io_error(&from, e))?;
            played.push((g, positions));
        }
        let played: Vec<(u64, &[PositionRecord])> =
            played.iter().map(|(g, p)| (*g, &p[..])).collect();
        let written = write_positions(out, chunk, &played, format, &mut seen)?;
        summary.chunks += 1;
        summary.positions += written.positions;
        summary.duplicates += written.duplicates;
    }
    for reader in &mut readers {
        if let Some((g, _)) = reader.next_game()? {
            return Err(GenerateError::Shards(format!(
                "{}: game {g} is past the run's {games} games",
                reader.dir.display()
            )));
        }
    }
    let mut merged = options.clone();
    merged.insert("shard".into(), Shard::default().to_string().into());
    write_options(out, &merged)?;
    Ok(summary)
}
