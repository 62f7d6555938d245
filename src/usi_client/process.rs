//! One running engine ([`UsiProcess`]): the handshake, `position` + `go`
//! answered by `bestmove`, every read under a deadline.

use std::collections::HashSet;
use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use super::{split_command, Info, UsiError, UsiSpec};

/// Longest line kept from an engine; the rest of a longer line is dropped.
const MAX_LINE: usize = 64 * 1024;

/// Deadline of the handshake (`usiok`, `readyok`): engines may load large
/// evaluation files.
const HANDSHAKE: Duration = Duration::from_secs(60);

/// Deadline of `readyok` after `usinewgame` (an engine may clear a large hash).
const NEW_GAME: Duration = Duration::from_secs(10);

/// The answer to one `go`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Answer {
    /// The word after `bestmove` (a move, `resign`, `win`; empty if none).
    pub best: String,
    /// The word after `ponder`, if given.
    pub ponder: Option<String>,
    /// What the `info` lines before `bestmove` said.
    pub info: Info,
    /// From writing `go` to reading `bestmove`.
    pub elapsed: Duration,
}

/// One running USI engine.
pub struct UsiProcess {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
    who: String,
    /// When the request being answered was sent (for timeout messages).
    asked: Instant,
    /// The engine's `id name`, if it gave one.
    pub name: Option<String>,
    /// Whether dropping it sends `quit` and waits a moment (a working
    /// engine) or kills it at once (one that failed: [`UsiProcess::kill`]).
    graceful: bool,
}

impl UsiProcess {
    /// Starts `spec.command`, does the handshake (`usi`/`usiok`, options,
    /// `isready`/`readyok`) and `usinewgame`.
    pub fn start(spec: &UsiSpec) -> Result<Self, UsiError> {
        let who = spec.role.clone();
        let argv = split_command(&spec.command)
            .map_err(|e| UsiError::Config(format!("{who} command {e}")))?;
        let (program, args) = argv
            .split_first()
            .ok_or_else(|| UsiError::Config(format!("{who}: empty command")))?;
        let mut child = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .map_err(|source| UsiError::Spawn {
                who: who.clone(),
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
            who,
            asked: Instant::now(),
            name: None,
            graceful: true,
        };
        // An engine gone before reading `usi` is one that exited at start.
        engine.send("usi").map_err(|_| UsiError::Crashed {
            who: engine.who.clone(),
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

    /// Writes one line.
    pub fn send(&mut self, line: &str) -> Result<(), UsiError> {
        writeln!(self.stdin, "{line}")
            .and_then(|_| self.stdin.flush())
            .map_err(|source| UsiError::Write {
                who: self.who.clone(),
                source,
            })
    }

    fn next_line(&mut self, what: &str, deadline: Instant) -> Result<String, UsiError> {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => Ok(line),
            Err(RecvTimeoutError::Timeout) => Err(UsiError::Timeout {
                who: self.who.clone(),
                what: what.to_string(),
                secs: deadline.saturating_duration_since(self.asked).as_secs_f64(),
            }),
            Err(RecvTimeoutError::Disconnected) => Err(UsiError::Crashed {
                who: self.who.clone(),
                what: what.to_string(),
            }),
        }
    }

    fn ready(&mut self, within: Duration) -> Result<(), UsiError> {
        self.asked = Instant::now();
        self.send("isready")?;
        let deadline = self.asked + within;
        while self.next_line("readyok", deadline)?.trim() != "readyok" {}
        Ok(())
    }

    /// `usinewgame` (Stockfish-like engines clear their hash), then
    /// `isready`/`readyok`.
    pub fn new_game(&mut self) -> Result<(), UsiError> {
        self.send("usinewgame")?;
        self.ready(NEW_GAME)
    }

    /// `gameover win|lose|draw` for `won` true, false or `None`.
    pub fn game_over(&mut self, won: Option<bool>) -> Result<(), UsiError> {
        let result = match won {
            Some(true) => "win",
            Some(false) => "lose",
            None => "draw",
        };
        self.send(&format!("gameover {result}"))
    }

    /// Sends `position` (a whole `position ...` line) and `go` (a whole `go
    /// ...` line) and reads until `bestmove`, at the latest until `deadline`.
    pub fn go(&mut self, position: &str, go: &str, deadline: Instant) -> Result<Answer, UsiError> {
        self.send(position)?;
        self.asked = Instant::now();
        self.send(go)?;
        let mut info = Info::default();
        loop {
            let line = self.next_line("bestmove", deadline)?;
            let mut words = line.split_whitespace();
            match words.next() {
                Some("info") => info.read(&line),
                Some("bestmove") => {
                    let best = words.next().unwrap_or("").to_string();
                    let ponder = match words.next() {
                        Some("ponder") => words.next().map(str::to_string),
                        _ => None,
                    };
                    return Ok(Answer {
                        best,
                        ponder,
                        info,
                        elapsed: self.asked.elapsed(),
                    });
                }
                _ => {}
            }
        }
    }

    /// Kills the process at once (it failed: no `quit`, no waiting).
    pub fn kill(mut self) {
        self.graceful = false;
    }
}

impl Drop for UsiProcess {
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
