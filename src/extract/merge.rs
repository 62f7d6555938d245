//! `dataset merge`: the shards of one sharded extraction, joined into the
//! dataset one run over all the games would have written.
//!
//! The shards must agree on everything but their counts and shard (feature
//! set, dimension, label options, labeller content, ply range, qid, program),
//! be `K/N` for one N with every K in `0..N` exactly once, hold disjoint games,
//! and have every file the manifests list with the hash they record. The
//! rows and reports are hard-linked (copied where links fail) into the output
//! folder, the manifests joined, and `dataset.toml` written with the sums.

use std::collections::{HashMap, HashSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use super::lock::OutputLock;
use super::manifest::{read_manifest_lines, write_manifest, GameReport};
use super::{remove_if_present, report_path, rows_path, temp_path};
use crate::generate::Shard;
use crate::libsvm::dataset::{DatasetInfo, Fnv64, DATASET_TOML, REPORTS_DIR, ROWS_DIR};

/// What a merge wrote.
#[derive(Clone, Debug)]
pub struct MergeSummary {
    /// The merged description.
    pub dataset: DatasetInfo,
    /// Shards joined.
    pub shards: usize,
}

/// The keys of `dataset.toml` shards must agree on, as `(key, value)` lines.
fn agreed_keys(info: &DatasetInfo) -> Vec<(String, String)> {
    const OWN: [&str; 7] = [
        "rows", "nonzeros", "games", "failed", "shard", "labeller", "program",
    ];
    info.to_toml()
        .lines()
        .filter_map(|l| l.split_once(" = "))
        .filter(|(k, _)| !OWN.contains(k))
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect()
}

/// Joins the shard folders `inputs` into `out` (see the module's rules); errors
/// name the folder, game or key at fault.
pub fn merge(inputs: &[PathBuf], out: &Path) -> Result<MergeSummary, String> {
    if inputs.is_empty() {
        return Err("no shard folder given".into());
    }
    let infos: Vec<DatasetInfo> = inputs
        .iter()
        .map(|dir| {
            if !dir.join(DATASET_TOML).is_file() {
                return Err(format!(
                    "{}: no {DATASET_TOML} (not an extract output, or its run has not finished)",
                    dir.display()
                ));
            }
            DatasetInfo::read(dir)
        })
        .collect::<Result<_, _>>()?;
    let first = agreed_keys(&infos[0]);
    for (dir, info) in inputs.iter().zip(&infos).skip(1) {
        let theirs = agreed_keys(info);
        if let Some(((k, a), (_, b))) = first.iter().zip(&theirs).find(|(a, b)| a != b) {
            return Err(format!(
                "{} has {k} = {b} but {} has {k} = {a}: shards of one dataset must be made with the same options",
                dir.display(),
                inputs[0].display()
            ));
        }
        if first.len() != theirs.len() {
            return Err(format!(
                "{} and {} differ in max_plies: shards of one dataset must be made with the same options",
                dir.display(),
                inputs[0].display()
            ));
        }
    }
    // One N, every K once.
    let shards: Vec<Shard> = inputs
        .iter()
        .zip(&infos)
        .map(|(dir, i)| {
            i.shard
                .parse::<Shard>()
                .map_err(|e| format!("{}: {e}", dir.display()))
        })
        .collect::<Result<_, _>>()?;
    let pairs: Vec<(Shard, &Path)> = shards
        .into_iter()
        .zip(inputs.iter().map(PathBuf::as_path))
        .collect();
    Shard::split_of(&pairs)?;
    // Disjoint games, files as recorded.
    let mut owner: HashMap<String, &Path> = HashMap::new();
    let mut lines: Vec<(GameReport, &Path)> = Vec::new();
    for (dir, info) in inputs.iter().zip(&infos) {
        let manifest = read_manifest_lines(dir);
        let (mut rows, mut games) = (0u64, 0u64);
        for r in manifest {
            if let Some(other) = owner.insert(r.game.clone(), dir) {
                return Err(format!(
                    "game {} is in both {} and {}: shards must hold disjoint games",
                    r.game,
                    other.display(),
                    dir.display()
                ));
            }
            if r.is_ok() {
                for (path, want) in [
                    (rows_path(dir, &r.game), &r.rows_hash),
                    (report_path(dir, &r.game), &r.report_hash),
                ] {
                    let got = Fnv64::hex_of_file(&path)
                        .map_err(|e| format!("{}: {e}", path.display()))?;
                    if &got != want {
                        return Err(format!(
                            "{}: content hash {got}, but the manifest records {want} (changed since extract wrote it)",
                            path.display()
                        ));
                    }
                }
                rows += r.rows;
                games += 1;
            }
            lines.push((r, dir));
        }
        if rows != info.rows || games != info.games {
            return Err(format!(
                "{}: the manifest lists {games} games and {rows} rows, {DATASET_TOML} says {} and {}",
                dir.display(),
                info.games,
                info.rows
            ));
        }
    }
    if inputs
        .iter()
        .any(|i| fs::canonicalize(i).ok() == fs::canonicalize(out).ok())
    {
        return Err(format!(
            "--out {} is one of the shards: merge into a new folder",
            out.display()
        ));
    }

    let io = |path: &Path| {
        let path = path.to_path_buf();
        move |e: io::Error| format!("{}: {e}", path.display())
    };
    fs::create_dir_all(out).map_err(io(out))?;
    let _lock = OutputLock::acquire(out, "dataset merge").map_err(|e| e.to_string())?;
    remove_if_present(&out.join(DATASET_TOML)).map_err(io(out))?;
    for sub in [ROWS_DIR, REPORTS_DIR] {
        fs::create_dir_all(out.join(sub)).map_err(io(out))?;
    }
    lines.sort_by(|a, b| a.0.game.cmp(&b.0.game));
    let mut keep: HashSet<PathBuf> = HashSet::new();
    for (r, dir) in lines.iter().filter(|(r, _)| r.is_ok()) {
        for (from, to) in [
            (rows_path(dir, &r.game), rows_path(out, &r.game)),
            (report_path(dir, &r.game), report_path(out, &r.game)),
        ] {
            crate::files::link_or_copy(&from, &temp_path(&to), &to).map_err(io(&to))?;
            keep.insert(to);
        }
    }
    // Files of an earlier merge into the same folder that this one does not hold.
    for sub in [ROWS_DIR, REPORTS_DIR] {
        let folder = out.join(sub);
        for entry in fs::read_dir(&folder).map_err(io(&folder))? {
            let path = entry.map_err(io(&folder))?.path();
            if !keep.contains(&path) {
                fs::remove_file(&path).map_err(io(&path))?;
            }
        }
    }
    let reports: Vec<GameReport> = lines.into_iter().map(|(r, _)| r).collect();
    write_manifest(out, &reports).map_err(io(out))?;
    let mut dataset = infos[0].clone();
    dataset.rows = infos.iter().map(|i| i.rows).sum();
    dataset.nonzeros = infos.iter().map(|i| i.nonzeros).sum();
    dataset.games = infos.iter().map(|i| i.games).sum();
    dataset.failed = infos.iter().map(|i| i.failed).sum();
    dataset.shard = Shard::default().to_string();
    dataset.write(out).map_err(io(out))?;
    Ok(MergeSummary {
        dataset,
        shards: inputs.len(),
    })
}
