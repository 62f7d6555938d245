//! `kifulearn usi` uses the time it is given (`search::clock`): `go movetime
//! 200` is answered after 180–200 ms of its own search (its last `info`
//! line's `time`), byoyomi likewise, and `go nodes N` searches N nodes or a
//! few more (its last `info` line's `nodes`).
//!
//! Lower bounds are on the engine's own reported time or on wall time (a
//! loaded machine only makes answers later); upper bounds on wall time are
//! generous, for a loaded 2-core machine.

mod common;

use std::io::Write;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

/// Added to a move's time before its wall-clock answer counts as late.
const SLACK: Duration = Duration::from_millis(600);

struct Engine {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Engine {
    fn start() -> Self {
        let (child, stdin, lines) = common::usi_engine(&[]);
        let mut engine = Self {
            child,
            stdin,
            lines,
        };
        engine.send("usi");
        engine.until(|l| l == "usiok");
        engine
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// The lines up to the first that satisfies `want` (included); 30 s at most.
    fn until(&mut self, want: impl Fn(&str) -> bool) -> Vec<String> {
        let mut got = Vec::new();
        loop {
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(30))
                .unwrap_or_else(|e| panic!("{e}; seen {got:#?}"));
            let done = want(&line);
            got.push(line);
            if done {
                return got;
            }
        }
    }

    /// `position`, `isready`, then `go`: the wall time from `go` to
    /// `bestmove` and the lines in between.
    fn go(&mut self, position: &str, go: &str) -> (Duration, Vec<String>) {
        self.send(position);
        self.send("isready");
        self.until(|l| l == "readyok");
        let start = Instant::now();
        self.send(go);
        let lines = self.until(|l| l.starts_with("bestmove"));
        (start.elapsed(), lines)
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The number after `key` in the last `info` line that has one.
fn last_info(lines: &[String], key: &str) -> u64 {
    lines
        .iter()
        .rev()
        .filter(|l| l.starts_with("info "))
        .find_map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let i = words.iter().position(|w| *w == key)?;
            words.get(i + 1)?.parse().ok()
        })
        .unwrap_or_else(|| panic!("no info line with {key}: {lines:#?}"))
}

const MIDDLE_GAME: &str = "position startpos moves 7g7f 3c3d 2g2f 8c8d 2f2e 8d8e 6i7h 4a3b";

#[test]
fn movetime_is_spent_almost_whole() {
    let mut engine = Engine::start();
    let (wall, lines) = engine.go(MIDDLE_GAME, "go movetime 200");
    let time = last_info(&lines, "time");
    assert!(
        (180..=200 + SLACK.as_millis() as u64).contains(&time),
        "the engine searched {time} ms of 200: {lines:#?}"
    );
    assert!(
        wall >= Duration::from_millis(180) && wall <= Duration::from_millis(200) + SLACK,
        "answered after {wall:?}"
    );
}

#[test]
fn byoyomi_is_spent_almost_whole() {
    let mut engine = Engine::start();
    let (wall, lines) = engine.go(MIDDLE_GAME, "go btime 0 wtime 0 byoyomi 300");
    let time = last_info(&lines, "time");
    assert!(
        (270..=300 + SLACK.as_millis() as u64).contains(&time),
        "the engine searched {time} ms of a 300 ms byoyomi: {lines:#?}"
    );
    assert!(
        wall <= Duration::from_millis(300) + SLACK,
        "answered after {wall:?}"
    );
}

#[test]
fn go_nodes_searches_that_many_nodes() {
    let mut engine = Engine::start();
    for n in [20_000u64, 50_000] {
        let (_, lines) = engine.go(MIDDLE_GAME, &format!("go nodes {n}"));
        let nodes = last_info(&lines, "nodes");
        // Checked every 1024 nodes: N, or up to 1023 more.
        assert!(
            (n..n + 1024).contains(&nodes),
            "go nodes {n} searched {nodes}: {lines:#?}"
        );
    }
}
