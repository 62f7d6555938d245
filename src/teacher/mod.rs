//! Teacher labels from any USI engine: positions scored by an external
//! engine (Fairy-Stockfish, YaneuraOu, ...) instead of our own search.
//!
//! - [`TeacherSpec`]: the command, the limit (`go depth N` or `go nodes N`),
//!   hash, timeout, options and the score scale.
//! - [`UsiEngine`]: one engine process: handshake, `position sfen` + `go`,
//!   the last `info ... score cp|mate` before `bestmove`. Every read has a
//!   deadline; a crash, a hang or an answer that does not parse is an error.
//! - [`Teacher`]: an engine that is restarted when it fails, the position
//!   retried once and then skipped, with counts ([`TeacherStats`]).
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
use std::time::Duration;

use crate::positions::PositionRecord;
use crate::shogi::Position;

pub use process::{parse_info_score, UsiEngine};

mod process;

/// Positions a teacher process labels in [`label_records`] before it is
/// replaced by a fresh one (the default of `--teacher-batch`): the batches
/// are fixed by the records' order, so the labels do not depend on the
/// thread count or on which thread took which batch.
pub const BATCH: usize = 1024;

/// The default of `--teacher-scale`: Fairy-Stockfish's centipawns to ours
/// (`docs/teacher.md` has the measurement).
pub const DEFAULT_SCALE: f64 = 1.6;

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
    /// `command` at depth 6, 16 MB, scale 1 (the teacher's centipawns as
    /// they are; the command line's default is [`DEFAULT_SCALE`]), no extra option.
    pub fn new(command: &str) -> Self {
        Self {
            command: command.to_string(),
            depth: None,
            nodes: None,
            hash_mb: 16,
            timeout: None,
            scale: 1.0,
            options: Vec::new(),
        }
    }

    /// The depth asked: `depth`, or 6 when neither depth nor nodes is set.
    pub fn limit_depth(&self) -> Option<u32> {
        match (self.depth, self.nodes) {
            (None, None) => Some(6),
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
        match (self.limit_depth(), self.nodes) {
            (Some(d), _) => Duration::from_secs(10 << d.saturating_sub(12).min(10)),
            (None, Some(n)) => Duration::from_secs(10 + n / 100_000),
            (None, None) => Duration::from_secs(10),
        }
    }

    /// Rejects values no run can use, naming the option.
    pub fn check(&self) -> Result<(), TeacherError> {
        let bad = |what: String| Err(TeacherError::Config(what));
        if split_command(&self.command)?.is_empty() {
            return bad("--teacher \"\": expected an engine command".into());
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

/// A score as a USI engine reports it, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TeacherScore {
    /// `score cp X`.
    Cp(i32),
    /// `score mate N`: mate in N plies (N > 0: the side to move mates; N ≤ 0:
    /// it is mated; `mate +`/`mate -` read as ±1000).
    Mate(i32),
}

/// Why a teacher could not label.
#[derive(Debug, thiserror::Error)]
pub enum TeacherError {
    /// An option value no run can use.
    #[error("{0}")]
    Config(String),
    /// The command could not be started.
    #[error("cannot start teacher {command:?}: {source}")]
    Spawn {
        /// The command line.
        command: String,
        /// The error.
        source: std::io::Error,
    },
    /// The engine exited (or closed its output) while we waited for `what`.
    #[error("teacher exited while waiting for {what}")]
    Crashed {
        /// What was awaited (`usiok`, `readyok`, `bestmove for SFEN`).
        what: String,
    },
    /// No answer in time.
    #[error("teacher gave no {what} within {secs:.1} s")]
    Timeout {
        /// What was awaited.
        what: String,
        /// The deadline, seconds.
        secs: f64,
    },
    /// An answer that does not parse.
    #[error("teacher answered garbage: {0}")]
    Garbage(String),
    /// Writing to the engine failed (it has gone).
    #[error("cannot write to teacher: {0}")]
    Write(std::io::Error),
    /// Too many failures in a row: the engine or its options are wrong.
    #[error("teacher failed {count} times in a row; last error: {last}")]
    GaveUp {
        /// Failures in a row.
        count: u32,
        /// The last one.
        last: String,
    },
}

/// Splits a command line into words like a POSIX shell (no expansion):
/// whitespace separates, `'...'` is literal, `"..."` keeps `\"` and `\\`
/// escapes, a backslash outside quotes escapes the next character.
pub fn split_command(line: &str) -> Result<Vec<String>, TeacherError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    let unterminated = || TeacherError::Config(format!("--teacher {line:?}: unterminated quote"));
    while let Some(c) = chars.next() {
        match c {
            c if c.is_whitespace() => {
                if in_word {
                    words.push(std::mem::take(&mut word));
                    in_word = false;
                }
            }
            '\'' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err(unterminated()),
                    }
                }
            }
            '"' => {
                in_word = true;
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err(unterminated()),
                        },
                        Some(c) => word.push(c),
                        None => return Err(unterminated()),
                    }
                }
            }
            '\\' => {
                in_word = true;
                if let Some(c) = chars.next() {
                    word.push(c);
                }
            }
            c => {
                in_word = true;
                word.push(c);
            }
        }
    }
    if in_word {
        words.push(word);
    }
    Ok(words)
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
    spec: TeacherSpec,
    engine: Option<UsiEngine>,
    /// Counts so far.
    pub stats: TeacherStats,
    /// The last failure, for messages.
    pub last_error: Option<String>,
    failures_in_row: u32,
    /// Whether the running engine has been asked anything since it started.
    used: bool,
}

impl Teacher {
    /// Starts the engine once, so a wrong command fails at once.
    pub fn new(spec: &TeacherSpec) -> Result<Self, TeacherError> {
        spec.check()?;
        let engine = UsiEngine::start(spec)?;
        Ok(Self {
            spec: spec.clone(),
            engine: Some(engine),
            stats: TeacherStats::default(),
            last_error: None,
            failures_in_row: 0,
            used: false,
        })
    }

    /// The engine's `id name`, if running and it gave one.
    pub fn engine_name(&self) -> Option<&str> {
        self.engine.as_ref().and_then(|e| e.name.as_deref())
    }

    fn fail(&mut self, e: TeacherError) -> Result<(), TeacherError> {
        if let Some(mut engine) = self.engine.take() {
            engine.graceful = false; // killed at once by Drop
        }
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

    fn engine(&mut self) -> Result<Option<&mut UsiEngine>, TeacherError> {
        if self.engine.is_none() {
            self.stats.restarts += 1;
            self.used = false;
            match UsiEngine::start(&self.spec) {
                Ok(e) => self.engine = Some(e),
                Err(e) => {
                    self.fail(e)?;
                    return Ok(None);
                }
            }
        }
        Ok(self.engine.as_mut())
    }

    /// A fresh engine process (unless the running one has not been asked
    /// anything yet): call before a batch whose labels must not depend on
    /// what the engine searched before. `usinewgame` is not enough:
    /// Fairy-Stockfish keeps some state across it (a guess: its hash table's
    /// age), and labels after it differ from a fresh process's.
    pub fn fresh(&mut self) -> Result<(), TeacherError> {
        if self.used || self.engine.is_none() {
            self.engine = None;
            self.used = false;
            match UsiEngine::start(&self.spec) {
                Ok(e) => self.engine = Some(e),
                Err(e) => self.fail(e)?,
            }
        }
        Ok(())
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
            if self.engine()?.is_none() {
                continue;
            }
            self.used = true;
            let engine = self.engine.as_mut().expect("started above");
            match engine.score(pos) {
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
