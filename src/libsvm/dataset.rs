//! A dataset folder: rows other tools read as they are, and what made them.
//!
//! ```text
//! DIR/rows/NAME.svm        libsvm rows, one file per game, nothing else in the folder
//! DIR/reports/NAME.rows.csv what each row is (ply, move, game move, value, label)
//! DIR/manifest.csv         one line per game: counts, status, options, content hashes
//! DIR/dataset.toml         dimension, feature set, label options, rows, nonzeros
//! ```
//!
//! `rows/` holds only finished `*.svm` files (temporary files start with a dot,
//! which Spark and Hadoop skip), so Spark's `load("DIR/rows")`, scikit-learn's
//! `load_svmlight_files` over `glob("DIR/rows/*.svm")` and liblinear on their
//! concatenation read the rows as written; `dataset.toml` tells them the
//! dimension (`numFeatures`, `n_features`). `docs/dataset.md` has the details.

use std::fmt::Write as _;
use std::fs;
use std::io::{self, Read};
use std::path::{Path, PathBuf};

use serde::Deserialize;

/// The `format` key of every `dataset.toml` this version writes.
pub const FORMAT: &str = "kifulearn-dataset-1";
/// File name of the description in a dataset folder.
pub const DATASET_TOML: &str = "dataset.toml";
/// Folder of the row files in a dataset folder.
pub const ROWS_DIR: &str = "rows";
/// Folder of the per-game row reports in a dataset folder.
pub const REPORTS_DIR: &str = "reports";

/// The label options of a dataset (`[label]` in `dataset.toml`).
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct LabelInfo {
    /// Centipawns by which the game's move is put above the others.
    pub margin: i32,
    /// Labels are centipawns divided by this.
    pub scale: f64,
    /// Full-width plies searched below each sibling.
    pub depth: u32,
    /// Captures followed after the last full-width ply.
    pub quiescence: bool,
    /// `material`, or the model file as given.
    pub labeller: String,
    /// FNV-1a 64 of the model file and its sidecar (`""` for material).
    #[serde(default)]
    pub labeller_hash: String,
}

/// How position rows are labelled (`[target]` in `dataset.toml`): one row
/// per position, at the end of its quiescence line, labelled with the
/// teacher's score (`docs/dataset.md`, "Position rows").
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct TargetInfo {
    /// `score` (the target's score, centipawns) or `sigmoid` (σ-squashed).
    pub target: String,
    /// λ, the weight of the game result in the target.
    pub result_weight: f64,
    /// K of σ(s / K), centipawns.
    pub eval_k: f64,
    /// Labels are centipawns divided by this.
    pub scale: f64,
    /// Where the scores come from: `position files`, or the evaluator searched.
    pub teacher: String,
    /// Plies the teacher searched (absent: the position files' own scores).
    #[serde(default)]
    pub teacher_depth: Option<u32>,
}

/// What `dataset.toml` says: enough for a reader to load the rows without
/// being told anything else, and for `dataset merge` to check shards agree.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct DatasetInfo {
    /// [`FORMAT`].
    pub format: String,
    /// Number of feature columns: every index is in `1..=dimension`.
    pub dimension: u64,
    /// The feature set's name as models' meta write it (`relation`, `relation,material`, …).
    pub features: String,
    /// Rows in `rows/`.
    pub rows: u64,
    /// Feature entries in `rows/`.
    pub nonzeros: u64,
    /// Games whose rows are in `rows/`.
    pub games: u64,
    /// Games that failed (listed in the manifest with their error).
    #[serde(default)]
    pub failed: u64,
    /// Whether rows carry `qid:N` (one N per labelled position).
    #[serde(default)]
    pub qid: bool,
    /// Where each row's features are taken: `sibling` or `leaf` (a row per
    /// sibling), or `position` (a row per position, at its quiescence leaf).
    pub rows_at: String,
    /// Positions before this ply are not labelled.
    pub skip_opening: u64,
    /// Positions at this ply and later are not labelled (absent: no limit).
    #[serde(default)]
    pub max_plies: Option<u64>,
    /// The share of the games this folder holds, `K/N` (`0/1`: all).
    pub shard: String,
    /// The program that wrote it, `kifulearn VERSION`.
    pub program: String,
    /// The label options of sibling rows.
    #[serde(default)]
    pub label: Option<LabelInfo>,
    /// The target of position rows.
    #[serde(default)]
    pub target: Option<TargetInfo>,
    /// Set on residual rows (`kifulearn dataset residual`): the labels are
    /// the first folder's minus this prior's value of each row (`material`,
    /// or a model file as given), and a model fitted to them needs the
    /// prior added back (`kifulearn dataset add-prior`).
    #[serde(default)]
    pub prior: Option<String>,
    /// FNV-1a 64 of the prior model file and its sidecar (`""` for
    /// `material`), checked when the prior is added back.
    #[serde(default)]
    pub prior_hash: Option<String>,
}

impl DatasetInfo {
    /// Reads `DIR/dataset.toml`, naming the file in every error.
    pub fn read(dir: &Path) -> Result<Self, String> {
        let path = dir.join(DATASET_TOML);
        let text = fs::read_to_string(&path).map_err(|e| format!("{}: {e}", path.display()))?;
        let info: DatasetInfo =
            toml::from_str(&text).map_err(|e| format!("{}: {}", path.display(), e.message()))?;
        if info.format != FORMAT {
            return Err(format!(
                "{}: format {:?}, expected {FORMAT:?} (written by another version?)",
                path.display(),
                info.format
            ));
        }
        Ok(info)
    }

    /// The file's text: top-level keys, then `[label]`. Deterministic (no
    /// times, no absolute paths beyond the labeller as given), so two runs
    /// that make the same rows write the same bytes.
    pub fn to_toml(&self) -> String {
        let q = crate::files::toml_string;
        let mut s = String::from(
            "# A kifulearn dataset: rows in rows/*.svm (libsvm, 1-based indices), docs/dataset.md.\n",
        );
        let _ = writeln!(s, "format = {}", q(&self.format));
        let _ = writeln!(s, "dimension = {}", self.dimension);
        let _ = writeln!(s, "features = {}", q(&self.features));
        let _ = writeln!(s, "rows = {}", self.rows);
        let _ = writeln!(s, "nonzeros = {}", self.nonzeros);
        let _ = writeln!(s, "games = {}", self.games);
        let _ = writeln!(s, "failed = {}", self.failed);
        let _ = writeln!(s, "qid = {}", self.qid);
        let _ = writeln!(s, "rows_at = {}", q(&self.rows_at));
        let _ = writeln!(s, "skip_opening = {}", self.skip_opening);
        if let Some(m) = self.max_plies {
            let _ = writeln!(s, "max_plies = {m}");
        }
        let _ = writeln!(s, "shard = {}", q(&self.shard));
        let _ = writeln!(s, "program = {}", q(&self.program));
        if let Some(p) = &self.prior {
            let _ = writeln!(s, "prior = {}", q(p));
        }
        if let Some(h) = &self.prior_hash {
            let _ = writeln!(s, "prior_hash = {}", q(h));
        }
        if let Some(l) = &self.label {
            s.push_str("\n[label]\n");
            let _ = writeln!(s, "margin = {}", l.margin);
            let _ = writeln!(s, "scale = {:?}", l.scale);
            let _ = writeln!(s, "depth = {}", l.depth);
            let _ = writeln!(s, "quiescence = {}", l.quiescence);
            let _ = writeln!(s, "labeller = {}", q(&l.labeller));
            let _ = writeln!(s, "labeller_hash = {}", q(&l.labeller_hash));
        }
        if let Some(t) = &self.target {
            s.push_str("\n[target]\n");
            let _ = writeln!(s, "target = {}", q(&t.target));
            let _ = writeln!(s, "result_weight = {:?}", t.result_weight);
            let _ = writeln!(s, "eval_k = {:?}", t.eval_k);
            let _ = writeln!(s, "scale = {:?}", t.scale);
            let _ = writeln!(s, "teacher = {}", q(&t.teacher));
            if let Some(d) = t.teacher_depth {
                let _ = writeln!(s, "teacher_depth = {d}");
            }
        }
        s
    }

    /// Writes `DIR/dataset.toml` through a temporary name.
    pub fn write(&self, dir: &Path) -> io::Result<()> {
        crate::files::write_atomic(&dir.join(DATASET_TOML), self.to_toml().as_bytes())
    }
}

/// `path` is a dataset folder (it holds a `dataset.toml`).
pub fn is_dataset(path: &Path) -> bool {
    path.is_dir() && path.join(DATASET_TOML).is_file()
}

/// The feature set named by the dataset folders among `paths` (plain files and
/// folders without `dataset.toml` say nothing): `None` when none names one, an
/// error naming both folders when two disagree.
pub fn features_of(paths: &[PathBuf]) -> Result<Option<String>, String> {
    let mut found: Option<(String, &Path)> = None;
    for p in paths.iter().filter(|p| is_dataset(p)) {
        let info = DatasetInfo::read(p)?;
        match &found {
            Some((name, at)) if *name != info.features => {
                return Err(format!(
                    "{} holds features {:?} but {} holds {:?}: rows of two feature sets cannot be learned together",
                    at.display(),
                    name,
                    p.display(),
                    info.features
                ))
            }
            Some(_) => {}
            None => found = Some((info.features, p)),
        }
    }
    Ok(found.map(|f| f.0))
}

/// FNV-1a, 64 bits: a content hash that only has to tell files apart (not
/// resist attack), written out so it never changes between Rust releases.
#[derive(Clone, Copy, Debug)]
pub struct Fnv64(u64);

impl Default for Fnv64 {
    fn default() -> Self {
        Self(0xcbf2_9ce4_8422_2325)
    }
}

impl Fnv64 {
    /// Adds `bytes`.
    pub fn update(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 ^= u64::from(b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }

    /// The hash so far.
    pub fn finish(&self) -> u64 {
        self.0
    }

    /// The hash so far as 16 hex digits.
    pub fn hex(&self) -> String {
        format!("{:016x}", self.0)
    }

    /// The hash of `bytes` as 16 hex digits.
    pub fn hex_of(bytes: &[u8]) -> String {
        let mut h = Self::default();
        h.update(bytes);
        h.hex()
    }

    /// The hash of a file's contents as 16 hex digits.
    pub fn hex_of_file(path: &Path) -> io::Result<String> {
        let mut file = fs::File::open(path)?;
        let mut h = Self::default();
        let mut buf = vec![0u8; 1 << 16];
        loop {
            let n = file.read(&mut buf)?;
            if n == 0 {
                return Ok(h.hex());
            }
            h.update(&buf[..n]);
        }
    }
}

/// A writer that hashes what passes through it (so a file's hash costs no second read).
pub struct HashingWriter<W> {
    inner: W,
    hash: Fnv64,
}

impl<W> HashingWriter<W> {
    /// Wraps `inner`.
    pub fn new(inner: W) -> Self {
        Self {
            inner,
            hash: Fnv64::default(),
        }
    }

    /// The hash of everything written, and the inner writer.
    pub fn into_parts(self) -> (W, Fnv64) {
        (self.inner, self.hash)
    }
}

impl<W: io::Write> io::Write for HashingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let n = self.inner.write(buf)?;
        self.hash.update(&buf[..n]);
        Ok(n)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn sample() -> DatasetInfo {
        DatasetInfo {
            format: FORMAT.into(),
            dimension: 5_143_824,
            features: "relation".into(),
            rows: 12,
            nonzeros: 345,
            games: 2,
            failed: 0,
            qid: true,
            rows_at: "sibling".into(),
            skip_opening: 0,
            max_plies: Some(20),
            shard: "0/1".into(),
            program: "kifulearn 0.1.0".into(),
            label: Some(LabelInfo {
                margin: 100,
                scale: 10_000.0,
                depth: 1,
                quiescence: true,
                labeller: "material".into(),
                labeller_hash: String::new(),
            }),
            target: None,
            prior: None,
            prior_hash: None,
        }
    }

    #[test]
    fn dataset_toml_round_trips() {
        let dir = std::env::temp_dir().join(format!("kifulearn-dataset-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let info = sample();
        info.write(&dir).unwrap();
        assert_eq!(DatasetInfo::read(&dir).unwrap(), info);
        let text = fs::read_to_string(dir.join(DATASET_TOML)).unwrap();
        assert!(text.contains("\nformat = \"kifulearn-dataset-1\"\ndimension = 5143824\n"));
        assert!(text.contains("\n[label]\nmargin = 100\nscale = 10000.0\n"));
        // Position rows: a [target] instead of a [label].
        let positions = DatasetInfo {
            rows_at: "position".into(),
            label: None,
            target: Some(TargetInfo {
                target: "sigmoid".into(),
                result_weight: 0.0,
                eval_k: 600.0,
                scale: 10_000.0,
                teacher: "position files".into(),
                teacher_depth: None,
            }),
            ..info.clone()
        };
        positions.write(&dir).unwrap();
        assert_eq!(DatasetInfo::read(&dir).unwrap(), positions);
        let target = fs::read_to_string(dir.join(DATASET_TOML)).unwrap();
        assert!(!target.contains("[label]"), "{target}");
        assert!(
            target.contains("\n[target]\ntarget = \"sigmoid\"\n"),
            "{target}"
        );
        fs::write(
            dir.join(DATASET_TOML),
            text.replace("kifulearn-dataset-1", "other"),
        )
        .unwrap();
        let e = DatasetInfo::read(&dir).unwrap_err();
        assert!(e.contains("format \"other\", expected"), "{e}");
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn fnv_matches_its_known_answers_and_the_writer() {
        // Known answers of FNV-1a 64 (Fowler, Noll, Vo test vectors).
        assert_eq!(Fnv64::hex_of(b""), "cbf29ce484222325");
        assert_eq!(Fnv64::hex_of(b"a"), "af63dc4c8601ec8c");
        assert_eq!(Fnv64::hex_of(b"foobar"), "85944171f73967e8");
        let mut w = HashingWriter::new(Vec::new());
        w.write_all(b"foo").unwrap();
        w.write_all(b"bar").unwrap();
        let (bytes, h) = w.into_parts();
        assert_eq!(bytes, b"foobar");
        assert_eq!(h.hex(), "85944171f73967e8");
    }
}
