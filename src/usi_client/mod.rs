//! Other USI engines, run as child processes: the one USI client of the
//! teacher (`teacher`, scores) and of matches (`arena`, moves).
//!
//! - [`UsiSpec`]: the command line, the hash, more options, and the engine's
//!   role in messages (`teacher`, `engine B`).
//! - [`UsiProcess`]: one running engine: the handshake (`usi`/`usiok`,
//!   `setoption`s, `isready`/`readyok`, `usinewgame`), `position` + `go`
//!   answered by `bestmove` ([`Answer`]: the move, the ponder move, what the
//!   `info` lines before it said, [`Info`]), `gameover`. **Every read has a
//!   deadline**: a crash (the output closes), a hang (no answer by the
//!   deadline) or a write to a gone process is a [`UsiError`], never a wait.
//! - [`UsiClient`]: a process started when first needed and again after
//!   [`UsiClient::fail`] (which kills the one that failed at once), or fresh
//!   on demand ([`UsiClient::fresh`]); it counts its restarts.
//!
//! The options sent after `usiok`: `Threads 1`, `Hash` (or `USI_Hash`),
//! `UCI_Variant shogi` (Fairy-Stockfish plays shogi over USI after `usi`;
//! its default variant is already shogi, the option makes sure), `USI_Ponder
//! false`, each only if the engine offers it, then [`UsiSpec::options`]
//! whatever it offers (so they can override the ones before).
//!
//! What an answer means is the caller's: the teacher reads the score
//! (`docs/teacher.md`), the arena the move and the clock (`docs/arena.md`).
//!
//! # Example
//!
//! ```
//! use kifulearn::usi_client::{parse_info_score, split_command, Info, InfoScore};
//!
//! assert_eq!(split_command("python3 'my engine.py' --x").unwrap(), ["python3", "my engine.py", "--x"]);
//! let mut info = Info::default();
//! info.read("info depth 8 seldepth 11 score cp -161 nodes 9188 time 17 pv 7g7f 5a4b");
//! assert_eq!((info.depth, info.nodes), (Some(8), Some(9188)));
//! assert_eq!(info.score, Some(InfoScore::Cp(-161)));
//! assert_eq!(parse_info_score("info string hello"), Ok(None));
//! ```

use std::time::Duration;

use crate::shogi::{Move, Position};

mod info;
mod process;

pub use info::{parse_info_score, Info, InfoScore};
pub use process::{Answer, UsiProcess};

/// How to start an engine and what to set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UsiSpec {
    /// The command line, split like a shell would ([`split_command`]); no
    /// shell runs it.
    pub command: String,
    /// `Hash` (or `USI_Hash`) in megabytes, when the engine offers it.
    pub hash_mb: usize,
    /// More `setoption name K value V`, sent after the module's defaults.
    pub options: Vec<(String, String)>,
    /// The engine in messages: `teacher`, `engine B`.
    pub role: String,
}

impl UsiSpec {
    /// `command` as `role`, 16 MB, no more options.
    pub fn new(command: &str, role: &str) -> Self {
        Self {
            command: command.to_string(),
            hash_mb: 16,
            options: Vec::new(),
            role: role.to_string(),
        }
    }
}

/// Why an engine gave no usable answer.
#[derive(Debug, thiserror::Error)]
pub enum UsiError {
    /// A command line or option no run can use.
    #[error("{0}")]
    Config(String),
    /// The command could not be started.
    #[error("cannot start {who} {command:?}: {source}")]
    Spawn {
        /// The engine's role.
        who: String,
        /// The command line.
        command: String,
        /// The error.
        source: std::io::Error,
    },
    /// The engine exited (or closed its output) while we waited for `what`.
    #[error("{who} exited while waiting for {what}")]
    Crashed {
        /// The engine's role.
        who: String,
        /// What was awaited (`usiok`, `readyok`, `bestmove`).
        what: String,
    },
    /// No answer by the deadline.
    #[error("{who} gave no {what} within {secs:.3} s")]
    Timeout {
        /// The engine's role.
        who: String,
        /// What was awaited.
        what: String,
        /// Seconds from the request to the deadline.
        secs: f64,
    },
    /// An answer that does not parse or cannot be right.
    #[error("{who} answered garbage: {text}")]
    Garbage {
        /// The engine's role.
        who: String,
        /// What was wrong.
        text: String,
    },
    /// Writing to the engine failed (it has gone).
    #[error("cannot write to {who}: {source}")]
    Write {
        /// The engine's role.
        who: String,
        /// The error.
        source: std::io::Error,
    },
}

/// [`search_timeout`]'s wait for a shallow search, seconds.
pub const TIMEOUT_SECONDS: u64 = 10;
/// [`search_timeout`] doubles its wait for every depth above this one.
pub const TIMEOUT_FREE_DEPTH: u32 = 12;
/// [`search_timeout`] adds a second for every this many nodes.
pub const TIMEOUT_NODES_PER_SECOND: u64 = 100_000;

/// The longest wait for `bestmove` to `go depth D` or `go nodes N`:
/// [`TIMEOUT_SECONDS`], doubled for every depth above
/// [`TIMEOUT_FREE_DEPTH`], or plus 1 s per [`TIMEOUT_NODES_PER_SECOND`]
/// nodes ([`search_timeout_rule`] says it in words).
pub fn search_timeout(depth: Option<u32>, nodes: Option<u64>) -> Duration {
    match (depth, nodes) {
        (Some(d), _) => {
            Duration::from_secs(TIMEOUT_SECONDS << d.saturating_sub(TIMEOUT_FREE_DEPTH).min(10))
        }
        (None, Some(n)) => Duration::from_secs(TIMEOUT_SECONDS + n / TIMEOUT_NODES_PER_SECOND),
        (None, None) => Duration::from_secs(TIMEOUT_SECONDS),
    }
}

/// [`search_timeout`] in words, for help texts.
pub fn search_timeout_rule() -> String {
    format!(
        "{TIMEOUT_SECONDS}, doubled per depth above {TIMEOUT_FREE_DEPTH}, or {TIMEOUT_SECONDS} + 1 per {TIMEOUT_NODES_PER_SECOND} nodes"
    )
}

/// `NAME=VALUE` (an option on the command line) as its trimmed name and
/// value; `None` without `=` or a name.
pub fn parse_option(text: &str) -> Option<(String, String)> {
    let (name, value) = text.split_once('=')?;
    let name = name.trim();
    (!name.is_empty()).then(|| (name.to_string(), value.trim().to_string()))
}

/// `position sfen START [moves M...]`: the game so far, as a GUI states it.
pub fn position_command(start: &Position, moves: &[Move]) -> String {
    let mut s = format!("position sfen {}", start.to_sfen());
    if !moves.is_empty() {
        s.push_str(" moves");
        for mv in moves {
            s.push(' ');
            s.push_str(&mv.to_string());
        }
    }
    s
}

/// Splits a command line into words like a POSIX shell (no expansion):
/// whitespace separates, `'...'` is literal, `"..."` keeps `\"` and `\\`
/// escapes, a backslash outside quotes escapes the next character.
pub fn split_command(line: &str) -> Result<Vec<String>, UsiError> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut in_word = false;
    let mut chars = line.chars();
    let unterminated = || UsiError::Config(format!("{line:?}: unterminated quote"));
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

/// An engine process started when needed: first use, after a failure
/// ([`UsiClient::fail`]), or fresh on demand ([`UsiClient::fresh`]).
pub struct UsiClient {
    spec: UsiSpec,
    process: Option<UsiProcess>,
    /// Whether the running process has been used since it started.
    used: bool,
    /// Whether a process was ever started (the next start is a restart).
    started: bool,
    /// Processes started by [`UsiClient::process`] after an earlier one
    /// failed or could not start.
    pub restarts: u64,
}

impl UsiClient {
    /// A client that starts its engine when first asked.
    pub fn new(spec: UsiSpec) -> Self {
        Self {
            spec,
            process: None,
            used: false,
            started: false,
            restarts: 0,
        }
    }

    /// A client whose engine is started now, so a wrong command fails at once.
    pub fn start(spec: UsiSpec) -> Result<Self, UsiError> {
        let mut client = Self::new(spec);
        client.started = true;
        client.process = Some(UsiProcess::start(&client.spec)?);
        Ok(client)
    }

    /// What it runs.
    pub fn spec(&self) -> &UsiSpec {
        &self.spec
    }

    /// The engine's `id name`, if running and it gave one.
    pub fn name(&self) -> Option<&str> {
        self.process.as_ref().and_then(|p| p.name.as_deref())
    }

    /// The running engine, started first if there is none (a restart when
    /// one ran before). It counts as used.
    pub fn process(&mut self) -> Result<&mut UsiProcess, UsiError> {
        if self.process.is_none() {
            if self.started {
                self.restarts += 1;
            }
            self.started = true;
            self.process = Some(UsiProcess::start(&self.spec)?);
        }
        self.used = true;
        Ok(self.process.as_mut().expect("started above"))
    }

    /// The running engine, if there is one (none is started).
    pub fn running(&mut self) -> Option<&mut UsiProcess> {
        self.process.as_mut()
    }

    /// Kills the engine at once (it crashed, hung or answered garbage); the
    /// next [`UsiClient::process`] starts another.
    pub fn fail(&mut self) {
        if let Some(p) = self.process.take() {
            p.kill();
        }
        self.used = false;
    }

    /// A fresh engine process, unless the running one has not been used
    /// yet: for work whose answers must not depend on what the engine
    /// searched before (`usinewgame` does not reset everything in every
    /// engine: Fairy-Stockfish keeps some state across it).
    pub fn fresh(&mut self) -> Result<(), UsiError> {
        if self.used || self.process.is_none() {
            self.process = None;
            self.used = false;
            self.started = true;
            self.process = Some(UsiProcess::start(&self.spec)?);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
