//! USI command lines into the engine's state machine (`UsiEngine::handle_line`):
//! `position` with any SFEN and move list, `go` with any words, `setoption`,
//! `stop`, `ponderhit`, ... as a GUI or a script might send them.
//!
//! So that an input runs in about a millisecond, the engine is made once with
//! a 1 MB hash table, a depth cap of 1 and the smallest node cap (`NodesLimit`
//! 1, which the fuzz build checks at every node): every `go` starts a real
//! search on its thread, as in play, and stops at its first node. The
//! state machine is the target here; the search has its own tests. Lines that
//! would lift those caps or touch the file system are skipped: `setoption` of
//! `USI_Hash`, `Depth`, `NodesLimit` and `ModelFile` (model files have their
//! own targets). Each input starts from a reset (start position, default
//! options) and ends with the search finished.
#![no_main]
use std::io;
use std::sync::Mutex;

use kifulearn::engine::usi::UsiEngine;
use kifulearn::eval::EvalChoice;
use libfuzzer_sys::fuzz_target;

static ENGINE: Mutex<Option<UsiEngine<io::Sink>>> = Mutex::new(None);

const RESET: &[&str] = &[
    "setoption name USI_Hash value 1",
    "setoption name Depth value 1",
    "setoption name NodesLimit value 1",
    "setoption name EvalScale value 10000",
    "setoption name EvalNoise value 0",
    "setoption name NoiseSeed value 0",
    "setoption name USI_Ponder value false",
    "position startpos",
];

fn skipped(line: &str) -> bool {
    let mut words = line.split_whitespace();
    words.next() == Some("setoption")
        && words.any(|w| matches!(w, "USI_Hash" | "Depth" | "NodesLimit" | "ModelFile"))
}

fuzz_target!(|data: &[u8]| {
    let mut guard = ENGINE.lock().unwrap_or_else(|e| e.into_inner());
    let engine = guard.get_or_insert_with(|| {
        UsiEngine::new(io::sink(), EvalChoice::Material).expect("the material engine")
    });
    for line in RESET {
        engine.handle_line(line);
    }
    let text = String::from_utf8_lossy(data);
    for line in text.split('\n') {
        if skipped(line) {
            continue;
        }
        if engine.handle_line(line) == kifulearn::engine::usi::Flow::Quit {
            break;
        }
    }
    engine.finish_search(true);
});
