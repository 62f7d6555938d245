//! Teacher labels from any USI engine: positions scored by an external
//! engine (Fairy-Stockfish, YaneuraOu, ...) instead of our own search.
//!
//! - [`TeacherSpec`]: the command, the limit (`go depth N` or `go nodes N`),
//!   hash, timeout, options and the score scale.
//! - [`Teacher`]: a [`UsiClient`] (the one USI client, `usi_client`: one
//!   engine process, every read under a deadline, restarted after a
//!   failure) asked `go depth N` or `go nodes N` per position, reading the
//!   last `info ... score cp|mate` before `bestmove`; a crash, a hang or an
//!   answer that does not parse is retried once on a fresh process, then
//!   the position is skipped, with counts ([`TeacherStats`]).
//! - [`label_records`]: a batch of position records labelled by one teacher
//!   per thread.
//!
//! `docs/teacher.md` describes the options, the score scale measured against
//! our material search, the fault handling and the throughput.
//!
//! # Example
//!
//! ```
//! use kifulearn::teacher::{TeacherScore, TeacherSpec};
//!
//! let spec = TeacherSpec { depth: Some(4), ..TeacherSpec::new("fairy-stockfish") };
//! assert_eq!(spec.go_command(), "go depth 4");
//! assert_eq!(spec.to_score(TeacherScore::Cp(250), 3000), 250);
//! assert_eq!(spec.to_score(TeacherScore::Mate(-3), 3000), -3000);
//! assert_eq!(split_words_example(), vec!["python3", "my engine.py", "--x"]);
//! # fn split_words_example() -> Vec<String> {
//! #     kifulearn::teacher::split_command("python3 'my engine.py' --x").unwrap()
//! # }
//! ```

use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use crate::positions::PositionRecord;
use crate::shogi::Position;
use crate::usi_client::{search_timeout, UsiClient, UsiError, UsiSpec};

pub use crate::usi_client::{parse_info_score, split_command, InfoScore as TeacherScore};

/// Positions a teacher process labels in [`label_records`] before it is
/// replaced by a fresh one (the default of `--teacher-batch`): the batches
/// are fixed by the records' order, so the labels do not depend on the
/// thread count or on which thread took which batch.
pub const BATCH: usize = 1024;

/// The default of `--teacher-scale`: Fairy-Stockfish's centipawns to ours
/// (`docs/teacher.md` has the measurement).
pub const DEFAULT_SCALE: f64 = 1.6;

/// The teacher's `go depth N` when neither a depth nor a node limit is
/// given ([`TeacherSpec::limit_depth`], `--teacher-depth`'s default).
pub const DEFAULT_DEPTH: u32 = 6;

/// The teacher engine's `Hash` (or `USI_Hash`), megabytes
/// ([`TeacherSpec::new`], `--teacher-hash`'s default).
pub const DEFAULT_HASH_MB: usize = 16;

/// Failures in a row (positions skipped, or starts that failed) after which a
/// teacher gives up with [`TeacherError::GaveUp`] instead of skipping on.
pub const MAX_FAILURES_IN_ROW: u32 = 50;

/// How to run and ask a teacher engine.
#[derive(Clone, Debug, PartialEq)]
pub struct TeacherSpec {
    /// The command line, split like a shell would (quotes, backslashes); no
    /// shell runs it.
    pub command: String,
    /// `go depth N`.
    pub depth: Option<u32>,
    /// `go nodes N` (when `depth` is not set).
    pub nodes: Option<u64>,
    /// The engine's `Hash` (or `USI_Hash`) in megabytes.
    pub hash_mb: usize,
    /// Longest wait for `bestmove`; `None`: [`TeacherSpec::timeout`]'s default.
    pub timeout: Option<Duration>,
    /// The teacher's centipawns are multiplied by this before clamping.
    pub scale: f64,
    /// More `setoption name K value V`, sent after `Threads`, `Hash` and
    /// `UCI_Variant` (so they can override them).
    pub options: Vec<(String, String)>,
}

impl TeacherSpec {
    /// `command` at [`DEFAULT_DEPTH`], [`DEFAULT_HASH_MB`], scale 1 (the
    /// teacher's centipawns as they are; the command line's default is
    /// [`DEFAULT_SCALE`]), no extra option.
    pub fn new(command: &str) -> Self {
        Self {
            command: command.to_string(),
            depth: None,
            nodes: None,
            hash_mb: DEFAULT_HASH_MB,
            timeout: None,
            scale: 1.0,
            options: Vec::new(),
        }
    }

    /// The depth asked: `depth`, or [`DEFAULT_DEPTH`] when neither depth
    /// nor nodes is set.
    pub fn limit_depth(&self) -> Option<u32> {
        match (self.depth, self.nodes) {
            (None, None) => Some(DEFAULT_DEPTH),
            (d, _) => d,
        }
    }

    /// `go depth N` or `go nodes N`.
    pub fn go_command(&self) -> String {
        match (self.limit_depth(), self.nodes) {
            (Some(d), _) => format!("go depth {d}"),
            (None, Some(n)) => format!("go nodes {n}"),
            (None, None) => unreachable!("limit_depth is set when nodes is not"),
        }
    }

    /// The longest wait for `bestmove`: the `timeout` given, else 10 s
    /// doubled for every depth above 12, or 10 s plus 1 s per 100,000 nodes.
    pub fn timeout(&self) -> Duration {
        if let Some(t) = self.timeout {
            return t;
        }
        search_timeout(self.limit_depth(), self.nodes)
    }

    /// The engine to run, as the teacher.
    pub fn usi(&self) -> UsiSpec {
        UsiSpec {
            command: self.command.clone(),
            hash_mb: self.hash_mb,
            options: self.options.clone(),
            role: "teacher".into(),
        }
    }

    /// Rejects values no run can use, naming the option.
    pub fn check(&self) -> Result<(), TeacherError> {
        let bad = |what: String| Err(TeacherError::Config(what));
        let words = split_command(&self.command)
            .map_err(|e| TeacherError::Config(format!("--teacher-usi {e}")))?;
        if words.is_empty() {
            return bad("--teacher-usi \"\": expected an engine command".into());
        }
        // The old `--teacher` also named an evaluator (`fit positions`): say
        // which option takes one rather than fail to start it as an engine.
        let first = std::path::Path::new(&words[0]);
        if words[0].eq_ignore_ascii_case("material") || crate::model::meta_path(first).exists() {
            return bad(format!(
                "--teacher-usi {}: expected a USI engine's command; an evaluator \
                 (material or a model file) is given with --evaluator",
                self.command
            ));
        }
        if self.depth == Some(0) {
            return bad("--teacher-depth 0: expected at least 1".into());
        }
        if self.nodes == Some(0) {
            return bad("--teacher-nodes 0: expected at least 1".into());
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return bad(format!(
                "--teacher-scale {}: expected a positive number",
                self.scale
            ));
        }
        if self.timeout == Some(Duration::ZERO) {
            return bad("--teacher-timeout 0: expected more than 0 seconds".into());
        }
        Ok(())
    }

    /// A teacher score in our convention: centipawns × `scale`, rounded and
    /// clamped to ±`limit`; a mate for the side to move is +`limit`, a mate
    /// against it (or `mate 0`: it is mated) −`limit`.
    pub fn to_score(&self, score: TeacherScore, limit: i32) -> i16 {
        let limit = limit.clamp(1, i16::MAX as i32);
        let v = match score {
            TeacherScore::Cp(cp) => (f64::from(cp) * self.scale)
                .round()
                .clamp(-f64::from(limit), f64::from(limit))
                as i32,
            TeacherScore::Mate(n) if n > 0 => limit,
            TeacherScore::Mate(_) => -limit,
        };
        v as i16
    }

    /// The options that decide the labels, for a run's recorded options
    /// (`generate.toml`): command, depth or nodes, scale, extra options.
    pub fn options_table(&self) -> toml::Table {
        let mut t = toml::Table::new();
        t.insert("teacher".into(), self.command.clone().into());
        if let Some(d) = self.limit_depth() {
            t.insert("teacher_depth".into(), i64::from(d).into());
        }
        if let (None, Some(n)) = (self.limit_depth(), self.nodes) {
            t.insert(
                "teacher_nodes".into(),
                (n.min(i64::MAX as u64) as i64).into(),
            );
        }
        t.insert("teacher_scale".into(), self.scale.into());
        if !self.options.is_empty() {
            let opts: Vec<String> = self
                .options
                .iter()
                .map(|(k, v)| format!("{k}={v}"))
                .collect();
            t.insert("teacher_options".into(), opts.join(" ").into());
        }
        t
    }
}

/// Why a teacher could not label.
#[derive(Debug, thiserror::Error)]
pub enum TeacherError {
    /// An option value no run can use.
    #[error("{0}")]
    Config(String),
    /// The engine could not be started, died, hung or answered garbage.
    #[error(transparent)]
    Engine(#[from] UsiError),
    /// Too many failures in a row: the engine or its options are wrong.
    #[error("teacher failed {count} times in a row; last error: {last}")]
    GaveUp {
        /// Failures in a row.
        count: u32,
        /// The last one.
        last: String,
    },
}

/// What a [`Teacher`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TeacherStats {
    /// Positions scored.
    pub labelled: u64,
    /// Positions asked a second time after a failure (crash, hang, garbage).
    pub retried: u64,
    /// Positions given up after the retry failed too.
    pub skipped: u64,
    /// Engine restarts after a failure.
    pub restarts: u64,
}

impl TeacherStats {
    /// Adds `other`'s counts.
    pub fn add(&mut self, other: &TeacherStats) {
        self.labelled += other.labelled;
        self.retried += other.retried;
        self.skipped += other.skipped;
        self.restarts += other.restarts;
    }
}

/// An engine that is restarted when it fails: a position whose answer fails
/// (crash, hang past the timeout, garbage) is retried once on a fresh
/// process, then skipped and counted.
pub struct Teacher {
    client: UsiClient,
    go: String,
    timeout: Duration,
    /// Counts so far.
    pub stats: TeacherStats,
    /// The last failure, for messages.
    pub last_error: Option<String>,
    failures_in_row: u32,
}

impl Teacher {
    /// Starts the engine once, so a wrong command fails at once.
    pub fn new(spec: &TeacherSpec) -> Result<Self, TeacherError> {
        spec.check()?;
        Ok(Self {
            client: UsiClient::start(spec.usi())?,
            go: spec.go_command(),
            timeout: spec.timeout(),
            stats: TeacherStats::default(),
            last_error: None,
            failures_in_row: 0,
        })
    }

    /// The engine's `id name`, if running and it gave one.
    pub fn engine_name(&self) -> Option<&str> {
        self.client.name()
    }

    fn fail(&mut self, e: UsiError) -> Result<(), TeacherError> {
        self.client.fail();
        self.stats.restarts = self.client.restarts;
        self.failures_in_row += 1;
        let text = e.to_string();
        self.last_error = Some(text.clone());
        if self.failures_in_row >= MAX_FAILURES_IN_ROW {
            return Err(TeacherError::GaveUp {
                count: self.failures_in_row,
                last: text,
            });
        }
        Ok(())
    }

    /// A fresh engine process (unless the running one has not been asked
    /// anything yet): call before a batch whose labels must not depend on
    /// what the engine searched before. `usinewgame` is not enough:
    /// Fairy-Stockfish keeps some state across it (a guess: its hash table's
    /// age), and labels after it differ from a fresh process's.
    pub fn fresh(&mut self) -> Result<(), TeacherError> {
        match self.client.fresh() {
            Ok(()) => Ok(()),
            Err(e) => self.fail(e),
        }
    }

    /// Scores `pos`, or `None` when it was skipped (two failures).
    ///
    /// Errors only with [`TeacherError::GaveUp`], after
    /// [`MAX_FAILURES_IN_ROW`] failures in a row.
    pub fn label(&mut self, pos: &Position) -> Result<Option<TeacherScore>, TeacherError> {
        for attempt in 0..2 {
            if attempt == 1 {
                self.stats.retried += 1;
            }
            let scored = self
                .client
                .process()
                .and_then(|p| score(p, pos, &self.go, self.timeout));
            self.stats.restarts = self.client.restarts;
            match scored {
                Ok(score) => {
                    self.stats.labelled += 1;
                    self.failures_in_row = 0;
                    return Ok(Some(score));
                }
                Err(e) => self.fail(e)?,
            }
        }
        self.stats.skipped += 1;
        Ok(None)
    }
}

/// Scores `pos` with `engine`: `position sfen ...`, `go`, and the last
/// `score` of an `info` line before `bestmove`.
///
/// Garbage: a `score` that does not parse, a `bestmove` with no score
/// before it, or a best move that is neither legal here nor `resign`/`win`.
fn score(
    engine: &mut crate::usi_client::UsiProcess,
    pos: &Position,
    go: &str,
    timeout: Duration,
) -> Result<TeacherScore, UsiError> {
    let sfen = pos.to_sfen();
    let answer = engine.go(
        &format!("position sfen {sfen}"),
        go,
        Instant::now() + timeout,
    )?;
    let garbage = |text: String| UsiError::Garbage {
        who: "teacher".into(),
        text,
    };
    if let Some(why) = answer.info.garbage {
        return Err(garbage(why));
    }
    let best = &answer.best;
    if !matches!(best.as_str(), "resign" | "win") && pos.parse_move(best).is_err() {
        return Err(garbage(format!(
            "\"bestmove {best}\": not a legal move of {sfen}"
        )));
    }
    answer.info.score.ok_or_else(|| {
        garbage(format!(
            "\"bestmove {best}\" with no score before it ({sfen})"
        ))
    })
}

/// Labels `records` with `teachers` (one thread each): every record's score
/// becomes the teacher's ([`TeacherSpec::to_score`] with `limit`). Returns
/// the records in their order, `None` for those the teacher skipped.
///
/// The records are cut into batches of `batch` (≥ 1; [`BATCH`] by
/// default), each labelled by a fresh engine process ([`Teacher::fresh`]),
/// so the labels do not depend on the number of teachers, except for
/// positions retried after a failure. `done` counts the records finished
/// (labelled or skipped) while it runs.
pub fn label_records(
    teachers: &mut [Teacher],
    spec: &TeacherSpec,
    limit: i32,
    batch: usize,
    records: Vec<PositionRecord>,
    done: &AtomicU64,
) -> Result<Vec<Option<PositionRecord>>, TeacherError> {
    assert!(!teachers.is_empty(), "labelling needs at least one teacher");
    let batches: Vec<std::sync::Mutex<Vec<Option<PositionRecord>>>> = records
        .chunks(batch.max(1))
        .map(|c| std::sync::Mutex::new(c.iter().cloned().map(Some).collect()))
        .collect();
    drop(records);
    let next = AtomicUsize::new(0);
    let failed = AtomicBool::new(false);
    let results: Vec<Result<(), TeacherError>> = std::thread::scope(|scope| {
        let handles: Vec<_> = teachers
            .iter_mut()
            .map(|teacher| {
                let (batches, next, failed) = (&batches, &next, &failed);
                scope.spawn(move || -> Result<(), TeacherError> {
                    let mut work = || loop {
                        if failed.load(Ordering::Relaxed) {
                            return Ok(());
                        }
                        let i = next.fetch_add(1, Ordering::Relaxed);
                        let Some(batch) = batches.get(i) else {
                            return Ok(());
                        };
                        let mut batch = batch.lock().expect("one thread a batch");
                        teacher.fresh()?;
                        for slot in batch.iter_mut() {
                            let rec = slot.as_mut().expect("filled");
                            match teacher.label(&rec.position)? {
                                Some(s) => rec.score = spec.to_score(s, limit),
                                None => *slot = None,
                            }
                            done.fetch_add(1, Ordering::Relaxed);
                        }
                    };
                    let r = work();
                    if r.is_err() {
                        failed.store(true, Ordering::Relaxed);
                    }
                    r
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("teacher thread panicked"))
            .collect()
    });
    for r in results {
        r?;
    }
    Ok(batches
        .into_iter()
        .flat_map(|b| b.into_inner().expect("not poisoned"))
        .collect())
}

#[cfg(test)]
mod tests;
