//! Training rows from games, into a dataset folder other tools read as it is
//! ([`crate::libsvm::dataset`]): per game `rows/NAME.svm` and
//! `reports/NAME.rows.csv`, and for the run `manifest.csv` and `dataset.toml`.
//!
//! For each position of a game (the final one excluded, and within the ply
//! range asked for), every legal move gives one row: the features of the
//! sibling position seen by the side that moved, labelled by
//! [`crate::label::Labeller`]. Rows are grouped by position, in game order,
//! and with `qid` each position's rows carry its number ([`names::qid_bases`]).
//!
//! Files are written under hidden temporary names (`rows/.NAME.svm.tmp`) and
//! renamed when complete, `.svm` first and `.rows.csv` last; the manifest
//! records each game as it finishes, with its options and the content hash of
//! both files. A rerun reuses a game only when all of these match
//! ([`manifest::stale_reason`]) and redoes the rest, saying why, so nothing is
//! lost, written twice, or kept from other options. The folder is locked
//! ([`lock::OutputLock`]) while a run writes it. `docs/dataset.md` has the layout.

pub mod lock;
pub mod manifest;
pub mod merge;
pub mod names;
pub mod schedule;

use std::collections::HashSet;
use std::fs::{self, File};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::Instant;

use rayon::prelude::*;

use crate::eval::{EvalChoice, Evaluator};
use crate::features::{FeatureSet, RowBuilder};
use crate::generate::Shard;
use crate::label::{LabelError, LabelOptions, Labeller, Sibling};
use crate::libsvm::dataset::{
    DatasetInfo, Fnv64, HashingWriter, LabelInfo, FORMAT, REPORTS_DIR, ROWS_DIR,
};
use crate::libsvm::write_row_qid;
use crate::record::Game;
use crate::shogi::{Move, Position};

pub use manifest::{read_manifest, GameReport, MANIFEST};
pub use names::{file_stems, game_name};

/// The labelling evaluator as recorded: the name given and, for a model, a
/// content hash of the model file and its sidecar (so a retrained model at the
/// same path is told apart).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Labelling {
    /// `material`, or the model file as given.
    pub name: String,
    /// FNV-1a 64 of the model file then its sidecar, in hex; empty for material.
    pub hash: String,
}

impl Default for Labelling {
    fn default() -> Self {
        Self {
            name: "material".into(),
            hash: String::new(),
        }
    }
}

impl Labelling {
    /// Describes the labeller `text` names (as `extract --evaluator` takes it), hashing a model's files.
    pub fn of(text: &str) -> io::Result<Self> {
        match EvalChoice::parse(text) {
            EvalChoice::Material => Ok(Self::default()),
            EvalChoice::Model(path) => Self::model(&path),
        }
    }

    /// Describes the model file at `path`.
    pub fn model(path: &Path) -> io::Result<Self> {
        let mut h = Fnv64::default();
        let bytes = fs::read(path)
            .map_err(|e| io::Error::new(e.kind(), format!("{}: {e}", path.display())))?;
        h.update(&bytes);
        if let Ok(meta) = fs::read(crate::model::meta_path(path)) {
            h.update(&meta);
        }
        Ok(Self {
            name: path.display().to_string(),
            hash: h.hex(),
        })
    }
}

/// What to extract from each game, and which games.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractOptions {
    /// Label rule and search.
    pub label: LabelOptions,
    /// Positions before this ply (0 = the start position) are not labelled.
    pub skip_opening: usize,
    /// Positions at this ply and later are not labelled.
    pub max_plies: Option<usize>,
    /// Where each row's features are taken.
    pub rows_at: RowsAt,
    /// Write `qid:N` after each label, N numbering the positions of the run.
    pub qid: bool,
    /// The share of the games to extract (by [`names::shard_key`]).
    pub shard: Shard,
    /// The labelling evaluator, as recorded (the evaluator itself is passed to [`run`]).
    pub labeller: Labelling,
    /// Search every sibling to its exact value (`--exact-values`), for the
    /// reports; rows at the leaf always are. Without, a sibling at least as
    /// good as the game's move is searched only until that is proved, and
    /// its report line leaves the value empty (the rows are the same).
    pub exact_values: bool,
}

/// Where a sibling's row describes the game: the sibling itself (the
/// Mecha-Joshi recipe) or the end of its labelling search's principal
/// variation, the position its label's value is the evaluation of.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
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

    /// Does every sibling get its exact value (asked for, or rows at the
    /// leaf, which need every sibling's whole line)?
    pub fn all_values_exact(&self) -> bool {
        self.exact_values || self.rows_at == RowsAt::Leaf
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

/// `DIR/rows/NAME.svm`: where game `name`'s rows go.
pub fn rows_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(ROWS_DIR).join(format!("{name}.svm"))
}

/// `DIR/reports/NAME.rows.csv`: what each row of game `name` is.
pub fn report_path(dir: &Path, name: &str) -> PathBuf {
    dir.join(REPORTS_DIR).join(format!("{name}.rows.csv"))
}

/// Reads every record file and makes one job per game, in file order, named by
/// [`file_stems`] and [`game_name`] (files are read in parallel on the current
/// rayon pool).
pub fn read_jobs(files: &[PathBuf]) -> Vec<GameJob> {
    let stems = file_stems(files);
    files
        .par_iter()
        .zip(&stems)
        .flat_map_iter(|(file, stem)| {
            let read = crate::record::read_file(file);
            let stem = stem.clone();
            read.games
                .into_iter()
                .enumerate()
                .map(move |(index, game)| GameJob {
                    name: game_name(&stem, index),
                    source: format!("{}#{index}", file.display()),
                    game: game.map_err(|e| e.to_string()),
                })
        })
        .collect()
}

/// Counts written by [`extract_game`], and the content hashes of its two files.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct GameCounts {
    /// Positions labelled.
    pub plies: u64,
    /// Rows written.
    pub rows: u64,
    /// Feature entries written.
    pub nonzeros: u64,
    /// FNV-1a 64 of the rows file, hex.
    pub rows_hash: String,
    /// FNV-1a 64 of the report file, hex.
    pub report_hash: String,
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

/// The hidden temporary name of `path` (`.NAME.tmp` beside it), which no
/// `*.svm` glob and no Spark or Hadoop reader picks up.
pub fn temp_path(path: &Path) -> PathBuf {
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    path.with_file_name(format!(".{name}.tmp"))
}

/// Writes `rows/NAME.svm` and `reports/NAME.rows.csv` for `game` in `dir`,
/// through temporary names; with `qid`, position k of the game (from 0) gets
/// `qid:(qid + k)`.
///
/// The positions are labelled on every thread of the current rayon pool,
/// each with a [`Labeller::fork`] of `labeller` (exact values or not as
/// `options` say), and written in ply order: the same bytes as one labeller
/// going through the plies.
pub fn extract_game<F: FeatureSet + Sync, E: Evaluator>(
    game: &Game,
    name: &str,
    dir: &Path,
    features: &F,
    labeller: &Labeller<'_, E>,
    options: &ExtractOptions,
    qid: Option<u64>,
) -> Result<GameCounts, ExtractError> {
    let extraction = Extraction {
        dir,
        features,
        options,
        labeller,
        count: 1,
        before: |_| Ok(Start::Label(name, game, qid)),
        after: |_, counts, _| Ok(counts),
    };
    let done: io::Result<Vec<Result<GameCounts, ExtractError>>> =
        schedule::label_games(&extraction);
    done.expect("no step of one game stops a run")
        .pop()
        .expect("one game")
}

/// Games to extract as [`schedule::label_games`] labels them, shared by
/// [`run`] and [`extract_game`]: `before(i)` names game i's record, file
/// stem and first query id (or gives its result without labelling it: a
/// resumed or unreadable game), `after(i, counts, seconds)` makes the result
/// of a game labelled.
struct Extraction<'a, F, E: Evaluator, B, A> {
    dir: &'a Path,
    features: &'a F,
    options: &'a ExtractOptions,
    /// What every thread's labeller is forked from (set to exact values or
    /// not by `options`).
    labeller: &'a Labeller<'a, E>,
    count: usize,
    before: B,
    after: A,
}

/// What [`Extraction`]'s `before` says of a game: label it (its file stem,
/// record and first query id), or take this result.
enum Start<'a, D> {
    Label(&'a str, &'a Game, Option<u64>),
    Done(D),
}

/// An open game's positions, each with its game move, and its first query id.
struct GamePositions {
    wanted: Vec<(usize, Position, Move)>,
    qid: Option<u64>,
}

/// A file written under its temporary name, renamed to `path` when complete.
struct TempFile {
    tmp: PathBuf,
    path: PathBuf,
    writer: HashingWriter<BufWriter<File>>,
}

/// An open game's output files (written under temporary names), what went
/// into them, and the first error.
struct GameSink {
    files: Option<[TempFile; 2]>,
    counts: GameCounts,
    error: Option<ExtractError>,
    start: Instant,
    source: PathBuf,
}

impl GameSink {
    /// Creates game `name`'s two temporary files in `dir`, the report's header written.
    fn create(dir: &Path, name: &str, source: PathBuf) -> Self {
        let start = Instant::now();
        let create = |path: PathBuf| {
            let tmp = temp_path(&path);
            match File::create(&tmp) {
                Ok(f) => Ok(TempFile {
                    tmp,
                    path,
                    writer: HashingWriter::new(BufWriter::new(f)),
                }),
                Err(source) => Err(ExtractError::Io { path: tmp, source }),
            }
        };
        let mut sink = Self {
            files: None,
            counts: GameCounts::default(),
            error: None,
            start,
            source,
        };
        match (create(rows_path(dir, name)), create(report_path(dir, name))) {
            (Ok(svm), Ok(csv)) => sink.files = Some([svm, csv]),
            (Err(e), other) | (other, Err(e)) => {
                if let Ok(file) = other {
                    let _ = fs::remove_file(file.tmp);
                }
                sink.error = Some(e);
            }
        }
        sink.write(b"ply,move,game_move,value,label\n", 1);
        sink
    }

    /// Writes `bytes` to file `f` (0 rows, 1 report) unless an error came first.
    fn write(&mut self, bytes: &[u8], f: usize) {
        if self.error.is_some() {
            return;
        }
        if let Some(files) = &mut self.files {
            if let Err(source) = files[f].writer.write_all(bytes) {
                self.error = Some(ExtractError::Io {
                    path: self.source.clone(),
                    source,
                });
            }
        }
    }

    /// Renames the complete files into place, with their hashes in the
    /// counts; after an error, removes them and gives the error.
    fn close(mut self) -> Result<GameCounts, ExtractError> {
        let Some(files) = self.files.take() else {
            return Err(self.error.expect("no files without an error"));
        };
        let mut hashes = Vec::new();
        let mut paths = Vec::new();
        for TempFile {
            tmp,
            path,
            mut writer,
        } in files
        {
            if self.error.is_none() {
                if let Err(source) = writer.flush() {
                    self.error = Some(ExtractError::Io {
                        path: tmp.clone(),
                        source,
                    });
                }
            }
            let (_, hash) = writer.into_parts();
            hashes.push(hash.hex());
            paths.push((tmp, path));
        }
        if self.error.is_none() {
            for (tmp, path) in &paths {
                if let Err(source) = fs::rename(tmp, path) {
                    self.error = Some(ExtractError::Io {
                        path: path.clone(),
                        source,
                    });
                    break;
                }
            }
        }
        if let Some(e) = self.error {
            for (tmp, _) in &paths {
                let _ = fs::remove_file(tmp);
            }
            return Err(e);
        }
        self.counts.report_hash = hashes.pop().expect("two files");
        self.counts.rows_hash = hashes.pop().expect("two files");
        Ok(self.counts)
    }
}

/// The positions of `game` that `options` wants, each with the game's move
/// there; the replay stops at the first wanted move that is not legal
/// (whose labelling reports the error; no later position exists).
fn wanted_positions(game: &Game, options: &ExtractOptions) -> Vec<(usize, Position, Move)> {
    let mut wanted = Vec::new();
    let mut pos = game.start.clone();
    for (ply, &mv) in game.moves.iter().enumerate() {
        if options.wants(ply) {
            wanted.push((ply, pos.clone(), mv));
            if !pos.is_legal(mv) {
                break;
            }
        }
        if options.max_plies.is_some_and(|m| ply + 1 >= m) {
            break;
        }
        pos.play_unchecked(mv);
    }
    wanted
}

impl<'a, F, E, B, D, A> schedule::Games for Extraction<'a, F, E, B, A>
where
    F: FeatureSet + Sync,
    E: Evaluator,
    D: Send,
    B: Fn(usize) -> io::Result<Start<'a, D>> + Sync,
    A: Fn(usize, Result<GameCounts, ExtractError>, f64) -> io::Result<D> + Sync,
{
    type Worker = (Labeller<'a, E>, PlyBuffers);
    type Positions = GamePositions;
    type Sink = GameSink;
    type Text = Result<PlyText, ExtractError>;
    type Done = D;
    type Error = io::Error;

    fn count(&self) -> usize {
        self.count
    }

    fn worker(&self) -> Self::Worker {
        let mut labeller = self.labeller.fork();
        labeller.set_exact_values(self.options.all_values_exact());
        (labeller, PlyBuffers::default())
    }

    fn open(&self, i: usize) -> io::Result<schedule::Opened<Self>> {
        let (name, game, qid) = match (self.before)(i)? {
            Start::Label(name, game, qid) => (name, game, qid),
            Start::Done(done) => return Ok(schedule::Opened::Done(done)),
        };
        let sink = GameSink::create(self.dir, name, PathBuf::from(&game.source.path));
        let wanted = if sink.error.is_none() {
            wanted_positions(game, self.options)
        } else {
            Vec::new()
        };
        Ok(schedule::Opened::Game {
            count: wanted.len(),
            positions: GamePositions { wanted, qid },
            sink,
        })
    }

    fn label(
        &self,
        (labeller, buffers): &mut Self::Worker,
        positions: &GamePositions,
        k: usize,
    ) -> Self::Text {
        let (ply, pos, mv) = &positions.wanted[k];
        let group = positions.qid.map(|q| q + k as u64);
        buffers.label_ply(self.features, labeller, self.options, group, *ply, pos, *mv)
    }

    fn write(&self, sink: &mut GameSink, _k: usize, text: Self::Text) {
        match text {
            Err(e) => {
                if sink.error.is_none() {
                    sink.error = Some(e);
                }
            }
            Ok(text) => {
                sink.write(&text.svm, 0);
                sink.write(&text.csv, 1);
                sink.counts.rows += text.rows;
                sink.counts.nonzeros += text.nonzeros;
                sink.counts.plies += 1;
            }
        }
    }

    fn finish(&self, i: usize, sink: GameSink) -> io::Result<D> {
        let seconds = sink.start.elapsed().as_secs_f64();
        (self.after)(i, sink.close(), seconds)
    }
}

/// One labelled position's output: its rows and report lines, as bytes.
#[derive(Default)]
struct PlyText {
    svm: Vec<u8>,
    csv: Vec<u8>,
    rows: u64,
    nonzeros: u64,
}

/// A labelling thread's buffers, kept from position to position.
#[derive(Default)]
struct PlyBuffers {
    builder: RowBuilder,
    rows: Vec<(u32, f32)>,
    offsets: Vec<usize>,
    siblings: Vec<Sibling>,
}

impl PlyBuffers {
    /// Labels the position at `ply` (`mv` the game's move there) and writes
    /// its rows (query `group`) and report lines as text.
    #[allow(clippy::too_many_arguments)]
    fn label_ply<F: FeatureSet, E: Evaluator>(
        &mut self,
        features: &F,
        labeller: &mut Labeller<'_, E>,
        options: &ExtractOptions,
        group: Option<u64>,
        ply: usize,
        pos: &Position,
        mv: Move,
    ) -> Result<PlyText, ExtractError> {
        let view = pos.side_to_move();
        let Self {
            builder,
            rows,
            offsets,
            siblings,
        } = self;
        rows.clear();
        offsets.clear();
        let g = labeller.label_position(pos, mv, siblings, |_, _, sibling, line| {
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
        let mut text = PlyText::default();
        for (i, s) in siblings.iter().enumerate() {
            let row = &rows[offsets[i]..offsets[i + 1]];
            // Writing into memory cannot fail.
            write_row_qid(&mut text.svm, s.label, group, row).expect("write to memory");
            // A value that is only a bound is left empty.
            if s.exact {
                writeln!(
                    text.csv,
                    "{ply},{},{},{},{}",
                    s.mv,
                    (i == g) as u8,
                    s.value,
                    s.label
                )
            } else {
                writeln!(text.csv, "{ply},{},{},,{}", s.mv, (i == g) as u8, s.label)
            }
            .expect("write to memory");
            text.nonzeros += row.len() as u64;
        }
        text.rows = siblings.len() as u64;
        Ok(text)
    }
}

/// Summary of a run.
#[derive(Clone, Debug, Default)]
pub struct RunSummary {
    /// One report per job of the shard, in job order.
    pub reports: Vec<GameReport>,
    /// Games skipped because an earlier run completed them with these options.
    pub resumed: usize,
    /// Games an earlier run had done but that were redone, with the reason.
    pub redone: Vec<(String, String)>,
    /// Files removed: games not in this run, or an older layout's.
    pub removed: usize,
    /// What `dataset.toml` now says.
    pub dataset: Option<DatasetInfo>,
}

/// Extracts the jobs of `options.shard` into the dataset folder `dir` (games in
/// parallel on the current rayon pool), reusing games an earlier run completed
/// with the same options; `on_game` sees each report as it is made (for
/// progress bars). `jobs` must be every game of the run, whatever the shard: the
/// qids number them all.
///
/// Holds `dir`'s lock throughout. Writes `manifest.csv` as games finish and in
/// job order at the end, removes files of games not in this run (and a
/// previous version's top-level `NAME.svm`), then writes `dataset.toml`.
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
    let _lock = lock::OutputLock::acquire(dir, "extract")?;
    let rows_dir = dir.join(ROWS_DIR);
    let reports_dir = dir.join(REPORTS_DIR);
    fs::create_dir_all(&rows_dir)?;
    fs::create_dir_all(&reports_dir)?;
    // Temporary files of a killed run: nobody else writes here (the lock).
    for folder in [&rows_dir, &reports_dir] {
        for entry in fs::read_dir(folder)? {
            let path = entry?.path();
            let name = path.file_name().map(|n| n.to_string_lossy().into_owned());
            if name.is_some_and(|n| n.starts_with('.') && n.ends_with(".tmp")) {
                fs::remove_file(&path)?;
            }
        }
    }
    // The description is rewritten at the end: until then the folder is not a finished dataset.
    match fs::remove_file(dir.join(crate::libsvm::dataset::DATASET_TOML)) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let previous_lines = manifest::read_manifest_lines(dir);
    let previous = read_manifest(dir);
    let set_name = features.name();
    let bases = names::qid_bases(jobs, options);
    let mine: Vec<(&GameJob, String, Option<u64>)> = jobs
        .iter()
        .zip(&bases)
        .filter(|(job, _)| names::in_shard(options.shard, job))
        .map(|(job, &base)| {
            let qid = options.qid.then_some(base);
            (job, manifest::game_options(&set_name, options, qid), qid)
        })
        .collect();
    let wanted: HashSet<&str> = mine.iter().map(|(j, _, _)| j.name.as_str()).collect();
    // Keep the lines of this run's games (the rest will be removed), dropping
    // a half-written last line and an older header.
    let keep: Vec<GameReport> = {
        let mut seen = HashSet::new();
        let mut lines: Vec<GameReport> = previous_lines
            .into_iter()
            .rev()
            .filter(|r| wanted.contains(r.game.as_str()) && seen.insert(r.game.clone()))
            .collect();
        lines.reverse();
        lines
    };
    let log = Mutex::new(manifest::open_log(dir, &keep)?);
    let redone = Mutex::new(Vec::new());
    // The result of game i, labelled (`counts`) or not (its reader's error).
    let report = |i: usize, counts: Result<GameCounts, String>, seconds: f64| {
        let (job, game_options, _) = &mine[i];
        let (counts, status) = match counts {
            Ok(c) => (c, "ok".to_string()),
            Err(e) => (GameCounts::default(), format!("error: {e}")),
        };
        if status != "ok" {
            // Files an earlier run left for this game are no longer its rows.
            remove_if_present(&rows_path(dir, &job.name))?;
            remove_if_present(&report_path(dir, &job.name))?;
        }
        let report = GameReport {
            game: job.name.clone(),
            source: job.source.clone(),
            plies: counts.plies,
            rows: counts.rows,
            nonzeros: counts.nonzeros,
            seconds,
            status,
            options: game_options.clone(),
            rows_hash: counts.rows_hash,
            report_hash: counts.report_hash,
        };
        if let Ok(mut log) = log.lock() {
            manifest::log_line(&mut log, &report)?;
        }
        on_game(&report, false);
        Ok((report, false))
    };
    let labeller = Labeller::new(eval, options.label);
    let extraction = Extraction {
        dir,
        features,
        options,
        labeller: &labeller,
        count: mine.len(),
        before: |i: usize| -> io::Result<Start<'_, (GameReport, bool)>> {
            let (job, game_options, qid) = &mine[i];
            if let Some(done) = previous.get(&job.name) {
                match manifest::stale_reason(dir, done, &job.source, game_options) {
                    None => {
                        on_game(done, true);
                        return Ok(Start::Done((done.clone(), true)));
                    }
                    Some(why) => {
                        if let Ok(mut r) = redone.lock() {
                            r.push((job.name.clone(), why));
                        }
                    }
                }
            }
            match &job.game {
                Ok(game) => Ok(Start::Label(job.name.as_str(), game, *qid)),
                Err(e) => report(i, Err(e.clone()), 0.0).map(Start::Done),
            }
        },
        after: |i: usize, counts: Result<GameCounts, ExtractError>, seconds: f64| {
            report(i, counts.map_err(|e| e.to_string()), seconds)
        },
    };
    let results: Vec<(GameReport, bool)> = schedule::label_games(&extraction)?;
    drop(log);
    let resumed = results.iter().filter(|r| r.1).count();
    let reports: Vec<GameReport> = results.into_iter().map(|r| r.0).collect();
    manifest::write_manifest(dir, &reports)?;

    // Files of games not in this run, and a previous version's top-level files.
    let ok: HashSet<&str> = reports
        .iter()
        .filter(|r| r.is_ok())
        .map(|r| r.game.as_str())
        .collect();
    let mut removed = 0;
    for (folder, suffix) in [(&rows_dir, ".svm"), (&reports_dir, ".rows.csv")] {
        for entry in fs::read_dir(folder)? {
            let path = entry?.path();
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            if let Some(game) = name.strip_suffix(suffix) {
                if !ok.contains(game) {
                    fs::remove_file(&path)?;
                    removed += 1;
                }
            }
        }
    }
    for game in previous.keys() {
        for old in [format!("{game}.svm"), format!("{game}.rows.csv")] {
            removed += remove_if_present(&dir.join(old))? as usize;
        }
    }

    let mut redone = redone.into_inner().unwrap_or_default();
    redone.sort();
    let l = &options.label;
    let info = DatasetInfo {
        format: FORMAT.into(),
        dimension: u64::from(features.dimension()),
        features: set_name,
        rows: reports.iter().filter(|r| r.is_ok()).map(|r| r.rows).sum(),
        nonzeros: reports
            .iter()
            .filter(|r| r.is_ok())
            .map(|r| r.nonzeros)
            .sum(),
        games: ok.len() as u64,
        failed: (reports.len() - ok.len()) as u64,
        qid: options.qid,
        rows_at: match options.rows_at {
            RowsAt::Sibling => "sibling".into(),
            RowsAt::Leaf => "leaf".into(),
        },
        skip_opening: options.skip_opening as u64,
        max_plies: options.max_plies.map(|m| m as u64),
        shard: options.shard.to_string(),
        program: format!("kifulearn {}", env!("CARGO_PKG_VERSION")),
        label: Some(LabelInfo {
            margin: l.margin,
            scale: l.scale,
            depth: l.depth,
            quiescence: l.quiescence,
            labeller: options.labeller.name.clone(),
            labeller_hash: options.labeller.hash.clone(),
        }),
        target: None,
        prior: None,
        prior_hash: None,
    };
    info.write(dir)?;
    Ok(RunSummary {
        reports,
        resumed,
        redone,
        removed,
        dataset: Some(info),
    })
}

/// Removes `path` if it exists; whether it did.
pub fn remove_if_present(path: &Path) -> io::Result<bool> {
    match fs::remove_file(path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(false),
        Err(e) => Err(e),
    }
}

#[cfg(test)]
mod tests;
