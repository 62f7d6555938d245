//! `manifest.csv`: one line per game, what became of it and how it was made,
//! and the rule by which a rerun reuses a game's files.
//!
//! Each line carries the game's options (a readable `key=value;…` string:
//! feature set, label options, labeller and its content hash, ply range, qid,
//! program version) and a content hash of each of its two files. A rerun
//! reuses a game only when the line says `ok`, the source and options equal
//! this run's, and both files hash to what was recorded; otherwise it redoes
//! the game and says why ([`stale_reason`]).

use std::collections::HashMap;
use std::fs::{self, OpenOptions};
use std::io;
use std::path::Path;

use serde::{Deserialize, Serialize};

use super::{report_path, rows_path, ExtractOptions, RowsAt};
use crate::libsvm::dataset::Fnv64;

/// File name of the run's manifest in the output folder.
pub const MANIFEST: &str = "manifest.csv";

const HEADER: &[u8] =
    b"game,source,plies,rows,nonzeros,seconds,status,options,rows_hash,report_hash\n";

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
    /// How the rows were made ([`game_options`]).
    #[serde(default)]
    pub options: String,
    /// FNV-1a 64 of `rows/NAME.svm`, 16 hex digits.
    #[serde(default)]
    pub rows_hash: String,
    /// FNV-1a 64 of `reports/NAME.rows.csv`, 16 hex digits.
    #[serde(default)]
    pub report_hash: String,
}

impl GameReport {
    /// Did the game complete?
    pub fn is_ok(&self) -> bool {
        self.status == "ok"
    }
}

/// The options that make a game's files, as `key=value` pairs joined by `;`:
/// two runs write the same files for a game exactly when these agree.
pub fn game_options(features: &str, options: &ExtractOptions, qid: Option<u64>) -> String {
    let l = &options.label;
    let lab = &options.labeller;
    format!(
        "features={features};margin={};scale={:?};depth={};quiescence={};rows_at={};\
         values={};skip_opening={};max_plies={};labeller={};labeller_hash={};qid={};program={}",
        l.margin,
        l.scale,
        l.depth,
        l.quiescence,
        match options.rows_at {
            RowsAt::Sibling => "sibling",
            RowsAt::Leaf => "leaf",
        },
        if options.all_values_exact() {
            "exact"
        } else {
            "capped"
        },
        options.skip_opening,
        options
            .max_plies
            .map_or_else(|| "none".to_string(), |m| m.to_string()),
        if lab.hash.is_empty() {
            "material"
        } else {
            "model"
        },
        lab.hash,
        qid.map_or_else(|| "none".to_string(), |q| q.to_string()),
        env!("CARGO_PKG_VERSION"),
    )
}

/// What differs between two [`game_options`] strings, as `key old → new, …`.
pub fn options_diff(old: &str, new: &str) -> String {
    let pairs = |s: &str| -> Vec<(String, String)> {
        s.split(';')
            .filter(|p| !p.is_empty())
            .map(|p| match p.split_once('=') {
                Some((k, v)) => (k.to_string(), v.to_string()),
                None => (p.to_string(), String::new()),
            })
            .collect()
    };
    let old = pairs(old);
    let new = pairs(new);
    let old_map: HashMap<&str, &str> = old.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
    let diffs: Vec<String> = new
        .iter()
        .filter_map(|(k, v)| match old_map.get(k.as_str()) {
            Some(o) if o == v => None,
            Some(o) => Some(format!("{k} {o} → {v}")),
            None => Some(format!("{k} (none) → {v}")),
        })
        .collect();
    if diffs.is_empty() {
        "options changed".to_string()
    } else {
        format!("options changed: {}", diffs.join(", "))
    }
}

/// Why the files an earlier run left for a game cannot be reused for a job with
/// `source` and `options`, or `None` when they can.
pub fn stale_reason(dir: &Path, done: &GameReport, source: &str, options: &str) -> Option<String> {
    if !done.is_ok() {
        return Some(format!("it failed before ({})", done.status));
    }
    if done.source != source {
        return Some(format!("its source changed (was {})", done.source));
    }
    if done.options.is_empty() || done.rows_hash.is_empty() {
        return Some(
            "the manifest does not say how its rows were made (an older version wrote it)".into(),
        );
    }
    if done.options != options {
        return Some(options_diff(&done.options, options));
    }
    for (path, want) in [
        (rows_path(dir, &done.game), &done.rows_hash),
        (report_path(dir, &done.game), &done.report_hash),
    ] {
        match Fnv64::hex_of_file(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Some(format!("{} is missing", path.display()))
            }
            Err(e) => return Some(format!("{}: {e}", path.display())),
            Ok(h) if &h != want => {
                return Some(format!(
                    "{} is not what was written (content hash {h}, manifest {want})",
                    path.display()
                ))
            }
            Ok(_) => {}
        }
    }
    None
}

/// Reads a manifest left by an earlier run: the last record of each game wins;
/// a line cut short by an interruption is ignored.
pub fn read_manifest(dir: &Path) -> HashMap<String, GameReport> {
    let mut out = HashMap::new();
    for report in read_manifest_lines(dir) {
        out.insert(report.game.clone(), report);
    }
    out
}

/// Every complete line of `DIR/manifest.csv`, in file order (none when there is no file).
pub fn read_manifest_lines(dir: &Path) -> Vec<GameReport> {
    let Ok(mut reader) = csv::ReaderBuilder::new()
        .flexible(true)
        .from_path(dir.join(MANIFEST))
    else {
        return Vec::new();
    };
    reader.deserialize::<GameReport>().flatten().collect()
}

/// Rewrites the manifest with `reports`, in order, through a temporary name.
pub fn write_manifest(dir: &Path, reports: &[GameReport]) -> io::Result<()> {
    let mut w = csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(HEADER.to_vec());
    for r in reports {
        w.serialize(r)?;
    }
    let bytes = w.into_inner().map_err(|e| e.into_error())?;
    crate::model::write_atomic(&dir.join(MANIFEST), &bytes)
}

/// Opens the manifest for appending one line per finished game. An existing
/// manifest is first rewritten whole with the lines of `keep` (so a line cut
/// short by a kill, or an older version's header, is gone).
pub(crate) fn open_log(dir: &Path, keep: &[GameReport]) -> io::Result<csv::Writer<fs::File>> {
    write_manifest(dir, keep)?;
    let file = OpenOptions::new().append(true).open(dir.join(MANIFEST))?;
    Ok(csv::WriterBuilder::new()
        .has_headers(false)
        .from_writer(file))
}

/// Flushes one game's line to the log.
pub(crate) fn log_line(log: &mut csv::Writer<fs::File>, report: &GameReport) -> io::Result<()> {
    log.serialize(report)?;
    log.flush()
}

/// The manifest's lines (the header too), each without its `seconds` column
/// and its fields joined by `|`, sorted: what two runs that did the same work
/// have in common, whatever they took (resume, merge and a fresh run are
/// checked against each other with it).
pub fn lines_without_seconds(dir: &Path) -> io::Result<Vec<String>> {
    let text = fs::read_to_string(dir.join(MANIFEST))?;
    let mut lines = text
        .lines()
        .map(|l| {
            let mut r = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(l.as_bytes());
            let rec = r.records().next().transpose().map_err(io::Error::other)?;
            Ok(rec
                .unwrap_or_default()
                .iter()
                .enumerate()
                .filter(|(i, _)| *i != 5)
                .map(|(_, f)| f.to_string())
                .collect::<Vec<_>>()
                .join("|"))
        })
        .collect::<io::Result<Vec<String>>>()?;
    lines.sort();
    Ok(lines)
}

/// The header of every manifest this version writes.
pub fn manifest_header() -> &'static str {
    std::str::from_utf8(HEADER).unwrap_or_default().trim_end()
}
