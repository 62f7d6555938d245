//! Abuse of `kifulearn usi` as a GUI or a script might commit it: commands during a
//! search, end of input mid-search, malformed `go`, illegal positions, missing model
//! files. The engine runs as a child process; every wait has a deadline, so a
//! regression (a blocked input loop, a hang) fails the test instead of hanging it.

mod common;

use std::io::Write;
use std::process::{Child, ChildStdin};
use std::sync::mpsc::{Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a command that must be answered "at once" may take (generous for a
/// loaded 2-core machine; a blocked loop would take the whole search, i.e. forever).
const AT_ONCE: Duration = Duration::from_millis(1000);

struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    seen: Vec<String>,
}

impl Engine {
    fn start(args: &[&str]) -> Self {
        let (child, stdin, rx) = common::usi_engine(args);
        let stdin = Some(stdin);
        Self {
            child,
            stdin,
            lines: rx,
            seen: Vec::new(),
        }
    }

    fn send(&mut self, line: &str) {
        let stdin = self.stdin.as_mut().expect("stdin still open");
        writeln!(stdin, "{line}").unwrap();
        stdin.flush().unwrap();
    }

    /// Closes stdin (end of input).
    fn close(&mut self) {
        self.stdin = None;
    }

    /// Reads lines until one satisfies `want`, within `limit`; returns the lines read
    /// (the last is the match). Panics with everything seen on a timeout.
    fn expect(&mut self, limit: Duration, want: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + limit;
        let mut got = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.lines.recv_timeout(left) {
                Ok(line) => {
                    self.seen.push(line.clone());
                    got.push(line.clone());
                    if want(&line) {
                        return got;
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    panic!("no expected line within {limit:?}; seen: {:#?}", self.seen)
                }
                Err(RecvTimeoutError::Disconnected) => {
                    panic!("engine output closed; seen: {:#?}", self.seen)
                }
            }
        }
    }

    /// `isready` → `readyok` within [`AT_ONCE`]; returns the lines before it.
    fn ready(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.expect(AT_ONCE, |l| l == "readyok");
        lines.pop();
        lines
    }

    /// Waits for the process to end within `limit`.
    fn exits_within(&mut self, limit: Duration) {
        let deadline = Instant::now() + limit;
        while Instant::now() < deadline {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "exit status {status}");
                return;
            }
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        panic!(
            "the engine did not exit within {limit:?}; seen: {:#?}",
            self.seen
        );
    }

    /// Starts a search that would take far longer than any test, and waits until it
    /// has really started (its first `info depth` line).
    fn start_long_search(&mut self, go: &str) {
        self.send("position startpos moves 7g7f 3c3d");
        self.send(go);
        self.expect(Duration::from_secs(10), |l| l.starts_with("info depth"));
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn is_bestmove(l: &str) -> bool {
    l.starts_with("bestmove")
}

#[test]
fn isready_is_answered_at_once_during_a_long_finite_search() {
    let mut e = Engine::start(&[]);
    e.start_long_search("go depth 64");
    let before = e.ready();
    assert!(!before.iter().any(|l| is_bestmove(l)), "{before:?}");
    e.send("stop");
    e.expect(AT_ONCE, is_bestmove);
    e.send("quit");
    e.exits_within(AT_ONCE);
}

#[test]
fn isready_and_stop_are_answered_at_once_during_go_infinite() {
    let mut e = Engine::start(&[]);
    e.start_long_search("go infinite");
    e.ready();
    e.send("stop");
    let best = e.expect(AT_ONCE, is_bestmove);
    assert!(best.last().unwrap().split_whitespace().count() >= 2);
    e.ready();
}

#[test]
fn quit_ends_a_long_search_at_once() {
    let mut e = Engine::start(&[]);
    e.start_long_search("go depth 64");
    e.send("quit");
    e.exits_within(AT_ONCE);
}

#[test]
fn end_of_input_during_go_depth_64_ends_the_process_within_a_second() {
    let mut e = Engine::start(&[]);
    e.start_long_search("go depth 64");
    e.close();
    e.expect(Duration::from_secs(1), is_bestmove);
    e.exits_within(Duration::from_secs(1));
}

#[test]
fn end_of_input_during_go_infinite_ends_the_process_within_a_second() {
    let mut e = Engine::start(&[]);
    e.start_long_search("go infinite");
    e.close();
    e.exits_within(Duration::from_secs(1));
}

#[test]
fn end_of_input_after_a_short_search_still_answers_it() {
    let mut e = Engine::start(&[]);
    e.send("position startpos");
    e.send("go depth 1");
    e.close();
    let lines = e.expect(Duration::from_secs(2), is_bestmove);
    assert!(
        lines.iter().any(|l| l.starts_with("info depth 1 ")),
        "{lines:?}"
    );
    e.exits_within(Duration::from_secs(2));
}

/// Each command that changes what is searched stops the running search (its
/// `bestmove` comes at once) and then acts.
fn new_command_stops_the_search(command: &str) {
    let mut e = Engine::start(&[]);
    e.start_long_search("go depth 64");
    e.send(command);
    e.expect(AT_ONCE, is_bestmove);
    e.ready();
    // It acted: a new short search works from here.
    e.send("position startpos moves 2g2f");
    e.send("go depth 1");
    e.expect(Duration::from_secs(5), is_bestmove);
}

#[test]
fn position_during_a_search_stops_it_first() {
    new_command_stops_the_search("position startpos moves 2g2f 8c8d");
}

#[test]
fn go_during_a_search_stops_it_first_then_searches() {
    let mut e = Engine::start(&[]);
    e.start_long_search("go depth 64");
    e.send("go depth 1");
    e.expect(AT_ONCE, is_bestmove);
    e.expect(Duration::from_secs(5), is_bestmove);
}

#[test]
fn setoption_during_a_search_stops_it_first() {
    new_command_stops_the_search("setoption name Depth value 3");
}

#[test]
fn usinewgame_during_a_search_stops_it_first() {
    new_command_stops_the_search("usinewgame");
}

/// A malformed `go` is refused with an `info string` and starts no search.
fn malformed_go_is_refused(go: &str, why: &str) {
    let mut e = Engine::start(&[]);
    e.send("position startpos");
    e.send(go);
    let lines = e.ready();
    assert_eq!(
        lines,
        vec![format!("info string go ignored: {why}")],
        "{go}"
    );
    // Nothing is searching: no bestmove turns up later either.
    std::thread::sleep(Duration::from_millis(300));
    e.send("stop");
    let lines = e.ready();
    assert!(lines.is_empty(), "{go}: {lines:?}");
}

#[test]
fn go_byoyomi_without_a_number_is_refused() {
    malformed_go_is_refused("go byoyomi", "byoyomi needs a number");
}

#[test]
fn go_with_an_unknown_word_is_refused() {
    malformed_go_is_refused("go depth 2 fast", "unknown go argument fast");
}

#[test]
fn go_with_a_negative_number_is_refused() {
    malformed_go_is_refused(
        "go btime -1000 wtime 1000",
        "btime needs a number >= 0, got -1000",
    );
}

fn illegal_position_leaves_no_position(position: &str) {
    let mut e = Engine::start(&[]);
    e.send("position startpos moves 7g7f");
    e.send(position);
    let lines = e.ready();
    assert!(
        lines.len() == 1 && lines[0].starts_with("info string position cleared: "),
        "{lines:?}"
    );
    e.send("go depth 1");
    let lines = e.expect(AT_ONCE, is_bestmove);
    assert_eq!(lines, vec!["info string no position", "bestmove resign"]);
    // A good position afterwards plays again.
    e.send("position startpos");
    e.send("go depth 1");
    let lines = e.expect(Duration::from_secs(5), is_bestmove);
    assert_ne!(lines.last().unwrap(), "bestmove resign");
}

#[test]
fn bad_sfen_clears_the_position() {
    illegal_position_leaves_no_position("position sfen garbage b - 1");
}

#[test]
fn illegal_move_in_position_clears_the_position() {
    illegal_position_leaves_no_position("position startpos moves 7g7f 7g7f");
}

fn missing_model_keeps_the_evaluator(path: &str) {
    let mut e = Engine::start(&[]);
    e.send(&format!("setoption name ModelFile value {path}"));
    let lines = e.ready();
    assert!(
        lines.len() == 1
            && lines[0].starts_with(&format!(
                "info string ModelFile not loaded, still using material: {path}"
            )),
        "{lines:?}"
    );
    e.send("position startpos");
    e.send("go depth 2");
    let lines = e.expect(Duration::from_secs(5), is_bestmove);
    assert_ne!(lines.last().unwrap(), "bestmove resign");
}

#[test]
fn missing_model_file_is_reported_and_the_evaluator_kept() {
    missing_model_keeps_the_evaluator("/nonexistent/model.txt");
}

#[test]
fn unreadable_model_file_is_reported_and_the_evaluator_kept() {
    // A directory cannot be read as a model.
    missing_model_keeps_the_evaluator(env!("CARGO_MANIFEST_DIR"));
}
