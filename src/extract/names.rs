//! Which file each game's rows go to, which shard a game belongs to, and the
//! `qid` of each labelled position: all decided by the games themselves, so
//! every machine of a sharded run agrees without talking to the others.

use std::collections::HashMap;
use std::path::{Component, Path, PathBuf};

use super::{ExtractOptions, GameJob};
use crate::generate::Shard;
use crate::libsvm::dataset::Fnv64;

/// Output names for record files, one per file, unique in the run and a
/// function of the paths alone.
///
/// A file's name is its stem with every character but letters, digits, `-`,
/// `_` and `.` replaced by `_`. When that changed the stem, or another file
/// whose stem needed no change has the same one ignoring case (`a/games.csa`,
/// `b/Games.kif`), the name gets `~` and 12 hex digits of a hash of the path
/// below the folder all the files share (`a/games.csa`, `b/Games.kif`):
/// `a b.csa`, `a_b.csa` and `a_b_2.csa` give `a_b~…`, `a_b` and `a_b_2`. A
/// `~` never survives the cleaning, so a hashed name cannot meet a plain one.
///
/// The shared folder is left out of the hash so that the names, and so the
/// order a folder's row files are read in, do not depend on where the run
/// is or how its paths are spelt: `out/r/round-1/generate/positions/000000.psv`
/// and `/tmp/out/r/round-1/...` name their rows alike, and an SVR fitted
/// from them (whose coordinate descent visits rows in file order) is the
/// same model.
pub fn file_stems(files: &[PathBuf]) -> Vec<String> {
    let shared = shared_folder(files);
    let clean: Vec<(String, bool)> = files
        .iter()
        .map(|f| {
            let raw = f
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_else(|| "games".into());
            let stem: String = raw
                .chars()
                .map(|c| {
                    if c.is_alphanumeric() || "-_.".contains(c) {
                        c
                    } else {
                        '_'
                    }
                })
                .collect();
            let changed = stem != raw;
            (stem, changed)
        })
        .collect();
    let mut count: HashMap<String, usize> = HashMap::new();
    for (stem, _) in clean.iter().filter(|(_, changed)| !changed) {
        *count.entry(stem.to_lowercase()).or_insert(0) += 1;
    }
    files
        .iter()
        .zip(clean)
        .map(|(file, (stem, changed))| {
            if changed || count[&stem.to_lowercase()] > 1 {
                let below: PathBuf = file.components().skip(shared).collect();
                let hash = Fnv64::hex_of(below.to_string_lossy().as_bytes());
                format!("{stem}~{}", &hash[4..])
            } else {
                stem
            }
        })
        .collect()
}

/// How many leading path components all of `files`' folders share.
fn shared_folder(files: &[PathBuf]) -> usize {
    let mut folders = files.iter().map(|f| f.parent().unwrap_or(Path::new("")));
    let Some(first) = folders.next() else {
        return 0;
    };
    let first: Vec<Component> = first.components().collect();
    folders.fold(first.len(), |n, folder| {
        first
            .iter()
            .zip(folder.components())
            .take(n)
            .take_while(|(a, b)| *a == b)
            .count()
    })
}

/// The output name of game `index` of a file with output stem `stem`.
pub fn game_name(stem: &str, index: usize) -> String {
    format!("{stem}-{index:05}")
}

/// The number that decides a game's shard: a hash of its start position and
/// moves (a game that cannot be read: of its output name), finished with
/// SplitMix64 so that `key % N` spreads evenly. Not the file order, so adding
/// files moves no game from one shard to another.
pub fn shard_key(job: &GameJob) -> u64 {
    let mut h = Fnv64::default();
    match &job.game {
        Ok(game) => {
            h.update(game.start.to_sfen().as_bytes());
            for mv in &game.moves {
                h.update(b" ");
                h.update(mv.to_string().as_bytes());
            }
        }
        Err(_) => h.update(job.name.as_bytes()),
    }
    let mut z = h.finish();
    z ^= z >> 30;
    z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z ^= z >> 27;
    z = z.wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Does `shard` take `job`?
pub fn in_shard(shard: Shard, job: &GameJob) -> bool {
    shard.count <= 1 || shard_key(job) % shard.count == shard.index
}

/// The `qid` of each job's first labelled position: positions are numbered
/// 1, 2, 3, … over all jobs in job order (a game that cannot be read takes no
/// number). Every shard numbers all jobs, so qids agree across shards.
pub fn qid_bases(jobs: &[GameJob], options: &ExtractOptions) -> Vec<u64> {
    let mut next = 1u64;
    jobs.iter()
        .map(|job| {
            let base = next;
            if let Ok(game) = &job.game {
                next += (0..game.moves.len()).filter(|&p| options.wants(p)).count() as u64;
            }
            base
        })
        .collect()
}
