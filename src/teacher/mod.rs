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

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use crate::positions::PositionRecord;
use crate::shogi::Position;

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

/// Longest line kept from an engine; the rest of a longer line is dropped.
const MAX_LINE: usize = 64 * 1024;

/// Deadline of the handshake (`usiok`, `readyok`): engines may load large
/// evaluation files.
const HANDSHAKE: Duration = Duration::from_secs(60);

/// One running USI engine.
pub struct UsiEngine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    go: String,
    timeout: Duration,
    /// The engine's `id name`, if it gave one.
    pub name: Option<String>,
    /// Whether dropping it sends `quit` and waits a moment (a working
    /// engine) or kills it at once (one that failed).
    graceful: bool,
}

impl UsiEngine {
    /// Starts `spec.command`, does the handshake (`usi`/`usiok`, options,
    /// `isready`/`readyok`) and `usinewgame`.
    ///
    /// Options set: `Threads 1`, `Hash` (or `USI_Hash`), `UCI_Variant shogi`
    /// (Fairy-Stockfish), `USI_Ponder false`, each only if the engine offers
    /// it, then `spec.options` whatever it offers.
    pub fn start(spec: &TeacherSpec) -> Result<Self, TeacherError> {
        let argv = split_command(&spec.command)?;
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| TeacherError::Config("--teacher: empty command".into()))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| TeacherError::Spawn {
                command: spec.command.clone(),
                source,
            })?;
        let stdin = child.stdin.take().expect("stdin piped");
        let stdout = child.stdout.take().expect("stdout piped");
        let (sender, lines) = mpsc::sync_channel(1024);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(line) = read_line(&mut reader) {
                if sender.send(line).is_err() {
                    return;
                }
            }
        });
        let mut engine = Self {
            child,
            stdin,
            lines,
            go: spec.go_command(),
            timeout: spec.timeout(),
            name: None,
            graceful: true,
        };
        // An engine gone before reading `usi` is one that exited at start.
        engine.send("usi").map_err(|_| TeacherError::Crashed {
            what: "usiok".into(),
        })?;
        let mut offered = HashSet::new();
        let deadline = Instant::now() + HANDSHAKE;
        loop {
            let line = engine.next_line("usiok", deadline)?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("usiok") => break,
                Some("id") if words.next() == Some("name") => {
                    engine.name = Some(words.collect::<Vec<_>>().join(" "));
                }
                Some("option") if words.next() == Some("name") => {
                    if let Some(name) = words.next() {
                        offered.insert(name.to_string());
                    }
                }
                _ => {}
            }
        }
        let hash = spec.hash_mb.max(1).to_string();
        let mut set: Vec<(String, String)> = Vec::new();
        for (name, value) in [
            ("Threads", "1"),
            ("Hash", hash.as_str()),
            ("USI_Hash", hash.as_str()),
            ("UCI_Variant", "shogi"),
            ("USI_Ponder", "false"),
        ] {
            if offered.contains(name) {
                set.push((name.into(), value.into()));
            }
        }
        set.extend(spec.options.iter().cloned());
        for (name, value) in &set {
            engine.send(&format!("setoption name {name} value {value}"))?;
        }
        engine.ready(HANDSHAKE)?;
        engine.new_game()?;
        Ok(engine)
    }

    fn send(&mut self, line: &str) -> Result<(), TeacherError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(TeacherError::Write)
    }

    fn next_line(&mut self, what: &str, deadline: Instant) -> Result<String, TeacherError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(TeacherError::Timeout {
                what: what.to_string(),
                secs: wait.as_secs_f64(),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(TeacherError::Crashed {
                what: what.to_string(),
            }),
        }
    }

    fn ready(&mut self, within: Duration) -> Result<(), TeacherError> {
        self.send("isready")?;
        let deadline = Instant::now() + within;
        while self.next_line("readyok", deadline)?.trim() != "readyok" {}
        Ok(())
    }

    /// `usinewgame` (Stockfish-like engines clear their hash), then
    /// `isready`/`readyok`.
    pub fn new_game(&mut self) -> Result<(), TeacherError> {
        self.send("usinewgame")?;
        self.ready(self.timeout.max(Duration::from_secs(10)))
    }

    /// Scores `pos`: `position sfen ...`, `go depth N|nodes N`, and the last
    /// `score` of an `info` line before `bestmove`.
    ///
    /// Garbage: a `score` that does not parse, a `bestmove` with no score
    /// before it, or a best move that is neither legal here nor
    /// `resign`/`win`.
    pub fn score(&mut self, pos: &Position) -> Result<TeacherScore, TeacherError> {
        let sfen = pos.to_sfen();
        self.send(&format!("position sfen {sfen}"))?;
        let go = self.go.clone();
        self.send(&go)?;
        let what = format!("bestmove for {sfen}");
        let deadline = Instant::now() + self.timeout;
        let mut last = None;
        loop {
            let line = self.next_line(&what, deadline)?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => {
                    if let Some(s) = parse_info_score(&line)? {
                        last = Some(s);
                    }
                }
                Some("bestmove") => {
                    let mv = words.next().unwrap_or("");
                    if !matches!(mv, "resign" | "win") && pos.parse_move(mv).is_err() {
                        return Err(TeacherError::Garbage(format!(
                            "{line:?}: not a legal move of {sfen}"
                        )));
                    }
                    return last.ok_or_else(|| {
                        TeacherError::Garbage(format!("{line:?} with no score before it ({sfen})"))
                    });
                }
                _ => {}
            }
        }
    }
}

impl Drop for UsiEngine {
    fn drop(&mut self) {
        if self.graceful {
            let _ = writeln!(self.stdin, "quit");
            let _ = self.stdin.flush();
            // A working engine exits at `quit`; give it a moment, then kill.
            let deadline = Instant::now() + Duration::from_millis(200);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = self.child.try_wait() {
                    return;
                }
                std::thread::sleep(Duration::from_millis(5));
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One line of at most [`MAX_LINE`] bytes (lossy UTF-8, no line end); `None`
/// at end of output or on a read error.
fn read_line(reader: &mut impl BufRead) -> Option<String> {
    let mut bytes = Vec::new();
    let n = reader
        .by_ref()
        .take(MAX_LINE as u64)
        .read_until(b'\n', &mut bytes)
        .ok()?;
    if n == 0 {
        return None;
    }
    if bytes.last() != Some(&b'\n') && n == MAX_LINE {
        // Drop the rest of an overlong line.
        let mut rest = Vec::new();
        reader.read_until(b'\n', &mut rest).ok()?;
    }
    while matches!(bytes.last(), Some(b'\n' | b'\r')) {
        bytes.pop();
    }
    Some(String::from_utf8_lossy(&bytes).into_owned())
}

/// The score of an `info` line, if it has one: `score cp X` or `score mate
/// N` (`mate +`/`mate -` read as ±1000; `lowerbound`/`upperbound` ignored).
///
/// ```
/// use kifulearn::teacher::{parse_info_score, TeacherScore};
/// let s = parse_info_score("info depth 8 seldepth 11 score cp -161 nodes 9188 pv 7g7f");
/// assert_eq!(s.unwrap(), Some(TeacherScore::Cp(-161)));
/// assert_eq!(parse_info_score("info depth 0 score mate 0").unwrap(), Some(TeacherScore::Mate(0)));
/// assert_eq!(parse_info_score("info string hello").unwrap(), None);
/// assert!(parse_info_score("info score cp banana").is_err());
/// ```
pub fn parse_info_score(line: &str) -> Result<Option<TeacherScore>, TeacherError> {
    let mut words = line.split_whitespace();
    while let Some(w) = words.next() {
        if w == "string" {
            return Ok(None); // free text follows
        }
        if w != "score" {
            continue;
        }
        let garbage = || TeacherError::Garbage(format!("{line:?}: expected score cp X or mate N"));
        return match (words.next(), words.next()) {
            (Some("cp"), Some(v)) => v
                .parse()
                .map(|v| Some(TeacherScore::Cp(v)))
                .map_err(|_| garbage()),
            (Some("mate"), Some("+")) => Ok(Some(TeacherScore::Mate(1000))),
            (Some("mate"), Some("-")) => Ok(Some(TeacherScore::Mate(-1000))),
            (Some("mate"), Some(v)) => v
                .trim_start_matches('+')
                .parse()
                .map(|v| Some(TeacherScore::Mate(v)))
                .map_err(|_| garbage()),
            _ => Err(garbage()),
        };
    }
    Ok(None)
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
