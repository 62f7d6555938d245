//! One teacher engine process ([`UsiEngine`]): the USI handshake, `position
//! sfen` + `go`, and the last score before `bestmove` ([`parse_info_score`]),
//! every read under a deadline; what restarts it when it fails is
//! [`super::Teacher`].

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{split_command, TeacherError, TeacherScore, TeacherSpec};
use crate::shogi::Position;

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
    pub(super) graceful: bool,
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
