//! The USI protocol: reads commands, answers, and runs the search on its own thread.
//!
//! This module only speaks USI: the search is [`crate::search`], the
//! evaluator is chosen once by an [`EvalChoice`] and handed in.
//!
//! Behaviour worth knowing (the engine is always listening: the input loop never
//! waits for a search to finish on its own):
//! - stdin is read on the calling thread; a `go` starts a search thread, so `stop`,
//!   `ponderhit`, `isready` (answered `readyok` at once) and `quit` are answered
//!   while it runs. Every line written is flushed.
//! - A `position`/`go`/`setoption`/`usinewgame`/`gameover` arriving during a search
//!   (finite or not) stops it first — its `bestmove` is sent — then acts.
//! - End of input acts as `quit`: a running search is given [`EOF_GRACE_MS`] to
//!   finish on its own (so `echo "go depth 3" | kifulearn usi` still answers its
//!   search), then stopped; the process ends within a second even during
//!   `go depth 64` or `go infinite`.
//! - Unknown or malformed lines are answered with one `info string` and otherwise
//!   ignored. Nothing in the input can make the loop panic.
//! - A malformed `go` (an unknown word, a limit without a number, a negative
//!   number) is refused with `info string go ignored: ...` and starts no search:
//!   it is never turned into an infinite search.
//! - An illegal `position` (bad SFEN, an illegal move in the list) is reported and
//!   leaves the engine with *no position*: the next `go` answers
//!   `info string no position` and `bestmove resign`. Keeping the previous position
//!   instead would have the engine play a move for a game the GUI is not playing.
//! - `setoption name Depth` and `NodesLimit` cap every search (0 = no cap); the
//!   fuzz harness plays with both at their smallest so that an input runs fast.
//! - `setoption name ModelFile` reports what it loaded (`info string ModelFile: ...`);
//!   a missing or unreadable model is reported and the previous evaluator kept.
//! - `go infinite` and `go ponder` never send `bestmove` before `stop` (or
//!   `ponderhit`, for ponder).
//! - A `go` without any limit (no depth, nodes, clock, move time) searches until
//!   `stop`, like `go infinite`.
//! - `bestmove resign` when the side to move has no legal move; `bestmove win`
//!   when it may declare an entering-king win ([`can_declare_win`]).
//! - A search that panics (a bug) answers `info string the search failed …`
//!   and `bestmove resign`, the panic's message on stderr; the engine goes on
//!   with the next command instead of leaving the GUI without a `bestmove`.
//! - Time: [`crate::search::clock`] decides, for the USI engine and matches
//!   alike. `go movetime T` searches `T − clamp(T/20, 5, 150)` ms (90–100 % of
//!   `T` from 100 ms on); with a clock a move may use `time/30 + inc + byoyomi`,
//!   never more than `time + byoyomi − margin`.
//! - `go nodes N` and `NodesLimit` search until N nodes (checked every 1024
//!   nodes: N to N + 1023), aborting the iteration under way. The last `info`
//!   line before `bestmove` covers the whole search (its nodes and time).

use std::io::{self, BufRead, Write};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::engine::evaluators::{EvalNoise, Grained, Scaled, DEFAULT_EVAL_SCALE, MAX_GRAIN};
use crate::eval::{load_engine_parts, DynEvaluator, EvalChoice, Evaluator};
use crate::search::clock::MoveClock;
use crate::search::{
    game_path, Control, Limits, PathEntry, Score, SearchInfo, SearchMemory, Searcher,
    TranspositionTable, MAX_DEPTH,
};
use crate::shogi::declaration::can_declare_win;
use crate::shogi::{Move, Position};

/// The largest `NodesLimit` (10^12: days of search at any speed this engine reaches).
pub const MAX_NODES_LIMIT: i64 = 1_000_000_000_000;

/// Milliseconds a running search may go on after the end of input before it is stopped.
pub const EOF_GRACE_MS: u64 = 500;

/// The engine's options, as set by `setoption`.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// `USI_Hash`: transposition table size in MB.
    pub hash_mb: usize,
    /// `USI_Ponder`: the GUI may send `go ponder`.
    pub ponder: bool,
    /// `Depth`: maximum search depth (0 = no cap).
    pub depth: u32,
    /// `NodesLimit`: maximum nodes per search (0 = no cap), as YaneuraOu's option of
    /// that name; the smaller of it and `go nodes` applies. Like `go nodes`, it is
    /// checked every 1024 nodes, so a search stops at the first multiple of 1024 at
    /// or past it (deterministic, and free in the node loop).
    pub nodes_limit: u64,
    /// `EvalScale`: centipawns per unit of model output (evaluations × this / 10000).
    pub eval_scale: i32,
    /// `EvalGrain`: values rounded to multiples of this many centipawns
    /// (1 = none; 0, the default = the model's own grain, its meta's `grain`,
    /// else none).
    pub eval_grain: i32,
    /// `EvalNoise`: uniform noise of ± this many centipawns (0 = none).
    pub eval_noise: i32,
    /// `NoiseSeed`: base seed of the noise (mixed with the game number).
    pub noise_seed: u64,
}

impl Default for Options {
    fn default() -> Self {
        Self {
            hash_mb: 16,
            ponder: false,
            depth: 0,
            nodes_limit: 0,
            eval_scale: crate::engine::evaluators::DEFAULT_EVAL_SCALE,
            eval_grain: 0,
            eval_noise: 0,
            noise_seed: 0,
        }
    }
}

/// The arguments of one `go` command.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Go {
    /// `depth N`.
    pub depth: Option<u32>,
    /// `nodes N`.
    pub nodes: Option<u64>,
    /// `movetime MS`.
    pub movetime: Option<u64>,
    /// `byoyomi MS`.
    pub byoyomi: Option<u64>,
    /// `btime MS`.
    pub btime: Option<u64>,
    /// `wtime MS`.
    pub wtime: Option<u64>,
    /// `binc MS`.
    pub binc: Option<u64>,
    /// `winc MS`.
    pub winc: Option<u64>,
    /// `infinite`.
    pub infinite: bool,
    /// `ponder`.
    pub ponder: bool,
    /// `mate ...` (not supported).
    pub mate: bool,
}

impl Go {
    /// Parses the words after `go`; words it does not understand, limits without a
    /// number and negative numbers are returned as complaints (the caller refuses
    /// such a `go`).
    pub fn parse(words: &[&str]) -> (Self, Vec<String>) {
        let mut go = Go::default();
        let mut complaints = Vec::new();
        let mut i = 0;
        while i < words.len() {
            let w = words[i];
            let slot: Option<&mut Option<u64>> = match w {
                "nodes" => Some(&mut go.nodes),
                "movetime" => Some(&mut go.movetime),
                "byoyomi" => Some(&mut go.byoyomi),
                "btime" => Some(&mut go.btime),
                "wtime" => Some(&mut go.wtime),
                "binc" => Some(&mut go.binc),
                "winc" => Some(&mut go.winc),
                _ => None,
            };
            if let Some(slot) = slot {
                match number_after(words, i) {
                    Ok(v) => *slot = Some(v),
                    Err(e) => complaints.push(format!("{w} {e}")),
                }
                i += 2;
                continue;
            }
            match w {
                "depth" => {
                    match number_after(words, i).map(|v| u32::try_from(v).unwrap_or(u32::MAX)) {
                        Ok(v) => go.depth = Some(v.max(1)),
                        Err(e) => complaints.push(format!("depth {e}")),
                    }
                    i += 2;
                    continue;
                }
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                "mate" => {
                    go.mate = true;
                    i += 2;
                    continue;
                }
                other => complaints.push(format!("unknown go argument {}", clip(other))),
            }
            i += 1;
        }
        (go, complaints)
    }

    /// The time `side` has for this move, if the command gives a move time or a clock.
    pub fn move_clock(&self, side: crate::shogi::Color) -> Option<MoveClock> {
        if let Some(mt) = self.movetime {
            return Some(MoveClock::MoveTime(Duration::from_millis(mt)));
        }
        let (time, inc) = match side {
            crate::shogi::Color::Black => (self.btime, self.binc),
            crate::shogi::Color::White => (self.wtime, self.winc),
        };
        if time.is_none() && inc.is_none() && self.byoyomi.is_none() {
            return None;
        }
        let ms = |v: Option<u64>| Duration::from_millis(v.unwrap_or(0));
        Some(MoveClock::Clock {
            time: ms(time),
            inc: ms(inc),
            byoyomi: ms(self.byoyomi),
        })
    }

    /// Soft and hard time limits for `side` ([`MoveClock::budget`]), if the
    /// command gives a clock or a move time.
    pub fn time_limits(&self, side: crate::shogi::Color) -> (Option<Duration>, Option<Duration>) {
        match self.move_clock(side).map(MoveClock::budget) {
            Some(b) => (Some(b.soft), Some(b.hard)),
            None => (None, None),
        }
    }
}

/// The word after `words[i]` as a number of milliseconds, nodes or plies.
fn number_after(words: &[&str], i: usize) -> Result<u64, String> {
    match words.get(i + 1) {
        None => Err("needs a number".to_string()),
        Some(v) => match v.parse::<u64>() {
            Ok(n) => Ok(n),
            Err(_) if v.parse::<i64>().is_ok() => {
                Err(format!("needs a number >= 0, got {}", clip(v)))
            }
            Err(_) if v.bytes().all(|b| b.is_ascii_digit()) => {
                Err(format!("number too large: {}", clip(v)))
            }
            Err(_) => Err(format!("needs a number, got {}", clip(v))),
        },
    }
}

struct Running {
    handle: JoinHandle<()>,
    control: Arc<Control>,
    started: Instant,
}

/// Whether the loop goes on after a line.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Flow {
    /// Read the next line.
    Continue,
    /// `quit` was received.
    Quit,
}

/// A USI engine writing to `W`.
pub struct UsiEngine<W: Write + Send + 'static> {
    out: Arc<Mutex<W>>,
    options: Options,
    choice: EvalChoice,
    evaluator: DynEvaluator,
    /// The grain the model's meta names (1: none), used while `EvalGrain` is 0.
    model_grain: u32,
    /// `None` after an illegal `position`: `go` then resigns rather than guess.
    position: Option<Position>,
    history: Vec<PathEntry>,
    tt: Arc<Mutex<TranspositionTable>>,
    running: Option<Running>,
    games: u64,
    /// The evaluation cache and the history table, kept from `go` to `go`
    /// of a game ([`SearchMemory`]); `None` (forgotten) at `usinewgame` and
    /// whenever the evaluation changes ([`UsiEngine::forget_evaluations`]).
    memory: Arc<Mutex<Option<SearchMemory>>>,
}

fn clip(text: &str) -> String {
    let t: String = text
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .take(60)
        .collect();
    if text.chars().count() > 60 {
        format!("{t}...")
    } else {
        t
    }
}

fn write_line<W: Write>(out: &Mutex<W>, line: &str) {
    let mut w = out.lock().unwrap_or_else(|e| e.into_inner());
    // A closed output (the GUI went away) is not worth a panic.
    let _ = writeln!(w, "{line}");
    let _ = w.flush();
}

/// The `info` line of one iteration.
pub fn info_line(info: &SearchInfo) -> String {
    let ms = info.time.as_millis() as u64;
    let nps = info.nodes * 1000 / ms.max(1);
    let score = match info.score {
        Score::Cp(v) => format!("cp {v}"),
        Score::Mate(n) => format!("mate {n}"),
    };
    let mut s = format!(
        "info depth {} seldepth {} score {score} nodes {} nps {nps} time {ms}",
        info.depth, info.seldepth, info.nodes
    );
    if !info.pv.is_empty() {
        s.push_str(" pv");
        for mv in &info.pv {
            s.push(' ');
            s.push_str(&mv.to_string());
        }
    }
    s
}

impl<W: Write + Send + 'static> UsiEngine<W> {
    /// An engine playing with `choice`, writing to `out`. Fails if the evaluator cannot be loaded.
    pub fn new(out: W, choice: EvalChoice) -> Result<Self, String> {
        let (evaluator, model_grain) = load_engine_parts(&choice)?;
        let options = Options::default();
        let pos = Position::startpos();
        Ok(Self {
            out: Arc::new(Mutex::new(out)),
            tt: Arc::new(Mutex::new(TranspositionTable::new(options.hash_mb))),
            options,
            choice,
            evaluator,
            model_grain,
            history: Vec::new(),
            position: Some(pos),
            running: None,
            memory: Arc::default(),
            games: 0,
        })
    }

    /// The current options.
    pub fn options(&self) -> &Options {
        &self.options
    }

    /// The current position; `None` after an illegal `position` command.
    pub fn position(&self) -> Option<&Position> {
        self.position.as_ref()
    }

    fn say(&self, line: &str) {
        write_line(&self.out, line);
    }

    fn info_string(&self, text: &str) {
        self.say(&format!("info string {text}"));
    }

    /// Handles one input line.
    pub fn handle_line(&mut self, line: &str) -> Flow {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some(&command) = words.first() else {
            return Flow::Continue;
        };
        match command {
            "usi" => self.usi(),
            "isready" => self.say("readyok"),
            // A command that changes what is searched stops the running search first.
            "setoption" => {
                self.finish_search(true);
                self.setoption(&words[1..]);
            }
            "usinewgame" => {
                self.finish_search(true);
                // A new game has a new noise seed.
                self.games += 1;
                self.forget_evaluations();
            }
            "position" => {
                self.finish_search(true);
                self.set_position(&words[1..]);
            }
            "go" => {
                self.finish_search(true);
                self.go(&words[1..]);
            }
            "stop" => {
                if let Some(r) = &self.running {
                    r.control.stop.store(true, Ordering::Relaxed);
                }
            }
            "ponderhit" => {
                if let Some(r) = &self.running {
                    let elapsed = r.started.elapsed().as_millis() as u64;
                    r.control.time_origin_ms.store(elapsed, Ordering::Relaxed);
                    r.control.untimed.store(false, Ordering::Relaxed);
                }
            }
            "gameover" => self.finish_search(true),
            "quit" => {
                self.finish_search(true);
                return Flow::Quit;
            }
            _ => self.info_string(&format!("unknown command ignored: {}", clip(line.trim()))),
        }
        Flow::Continue
    }

    /// Waits for a running search. An infinite or ponder search (which would wait for
    /// `stop` forever) is stopped first; a finite one too if `stop_finite`, else it
    /// runs to its limits.
    pub fn finish_search(&mut self, stop_finite: bool) {
        if let Some(r) = self.running.take() {
            if stop_finite || r.control.untimed.load(Ordering::Relaxed) {
                r.control.stop.store(true, Ordering::Relaxed);
            }
            if r.handle.join().is_err() {
                self.info_string("the search thread failed");
            }
        }
    }

    /// Lets a running search go on for at most `grace`, then stops it and waits for
    /// its `bestmove` (the end of input: a piped `go depth 3` still gets its answer,
    /// a `go depth 64` or `go infinite` does not keep the process alive).
    pub fn finish_search_within(&mut self, grace: Duration) {
        if let Some(r) = &self.running {
            let deadline = Instant::now() + grace;
            while !r.handle.is_finished()
                && !r.control.untimed.load(Ordering::Relaxed)
                && Instant::now() < deadline
            {
                std::thread::sleep(Duration::from_millis(2));
            }
        }
        self.finish_search(true);
    }

    fn usi(&self) {
        self.say(&format!("id name kifulearn {}", env!("CARGO_PKG_VERSION")));
        self.say("id author the kifulearn authors");
        let o = Options::default();
        for line in [
            format!(
                "option name USI_Hash type spin default {} min 1 max 4096",
                o.hash_mb
            ),
            "option name USI_Ponder type check default false".to_string(),
            format!(
                "option name ModelFile type string default {}",
                self.choice.name()
            ),
            format!(
                "option name EvalScale type spin default {DEFAULT_EVAL_SCALE} min 1 max 1000000"
            ),
            format!("option name EvalGrain type spin default 0 min 0 max {MAX_GRAIN}"),
            "option name EvalNoise type spin default 0 min 0 max 1000".to_string(),
            "option name NoiseSeed type spin default 0 min 0 max 1000000000".to_string(),
            format!("option name Depth type spin default 0 min 0 max {MAX_DEPTH}"),
            format!("option name NodesLimit type spin default 0 min 0 max {MAX_NODES_LIMIT}"),
        ] {
            self.say(&line);
        }
        self.say("usiok");
    }

    /// The grain values are rounded to: `EvalGrain`, or the model's when it is 0.
    fn grain(&self) -> i32 {
        match self.options.eval_grain {
            0 => self.model_grain as i32,
            g => g,
        }
    }

    fn setoption(&mut self, words: &[&str]) {
        if words.first() != Some(&"name") || words.len() < 2 {
            self.info_string("setoption needs: setoption name NAME [value VALUE]");
            return;
        }
        let split = words.iter().position(|w| *w == "value");
        let name = words[1..split.unwrap_or(words.len())].join(" ");
        let value = split.map(|i| words[i + 1..].join(" ")).unwrap_or_default();
        let number = |lo: i64, hi: i64| -> Result<i64, String> {
            match value.parse::<i64>() {
                Ok(v) if (lo..=hi).contains(&v) => Ok(v),
                _ => Err(format!(
                    "option {name} needs a number from {lo} to {hi}, got {}",
                    clip(&value)
                )),
            }
        };
        let result: Result<(), String> = match name.as_str() {
            "USI_Hash" => number(1, 4096).map(|v| {
                self.options.hash_mb = v as usize;
                self.tt = Arc::new(Mutex::new(TranspositionTable::new(v as usize)));
            }),
            "USI_Ponder" => match value.as_str() {
                "true" => {
                    self.options.ponder = true;
                    Ok(())
                }
                "false" => {
                    self.options.ponder = false;
                    Ok(())
                }
                _ => Err(format!(
                    "option USI_Ponder needs true or false, got {}",
                    clip(&value)
                )),
            },
            "Depth" => number(0, 64).map(|v| self.options.depth = v as u32),
            "NodesLimit" => number(0, MAX_NODES_LIMIT).map(|v| self.options.nodes_limit = v as u64),
            "EvalScale" => number(1, 1_000_000).map(|v| self.options.eval_scale = v as i32),
            "EvalGrain" => number(0, MAX_GRAIN.into()).map(|v| self.options.eval_grain = v as i32),
            "EvalNoise" => number(0, 1000).map(|v| self.options.eval_noise = v as i32),
            "NoiseSeed" => number(0, 1_000_000_000).map(|v| self.options.noise_seed = v as u64),
            // A model that cannot be loaded keeps the previous evaluator, and says so;
            // the evaluator in use is always named.
            "ModelFile" => {
                let choice = EvalChoice::parse(&value);
                match load_engine_parts(&choice) {
                    Ok((e, grain)) => {
                        self.evaluator = e;
                        self.model_grain = grain;
                        self.choice = choice;
                        self.info_string(&format!(
                            "ModelFile: using {}",
                            clip(&self.choice.name())
                        ));
                        Ok(())
                    }
                    Err(e) => Err(format!(
                        "ModelFile not loaded, still using {}: {e}",
                        clip(&self.choice.name())
                    )),
                }
            }
            _ => Err(format!("unknown option ignored: {}", clip(&name))),
        };
        match result {
            Ok(())
                if [
                    "EvalScale",
                    "EvalGrain",
                    "EvalNoise",
                    "NoiseSeed",
                    "ModelFile",
                ]
                .contains(&name.as_str()) =>
            {
                self.forget_evaluations();
            }
            Ok(()) => {}
            Err(e) => self.info_string(&e),
        }
    }

    /// Empties the transposition table and the evaluation cache, whose
    /// scores and values were found with an evaluation that has just changed
    /// (another model, scale, grain, noise or noise seed): kept, they would give the
    /// next search values the new evaluation does not. The history table
    /// goes with them: it orders one game's moves with one evaluation.
    fn forget_evaluations(&mut self) {
        self.tt.lock().unwrap_or_else(|e| e.into_inner()).clear();
        *self.memory.lock().unwrap_or_else(|e| e.into_inner()) = None;
    }

    fn set_position(&mut self, words: &[&str]) {
        let moves_at = words.iter().position(|w| *w == "moves");
        let head = &words[..moves_at.unwrap_or(words.len())];
        let start = match head.first() {
            Some(&"startpos") if head.len() == 1 => Ok(Position::startpos()),
            Some(&"sfen") if head.len() > 1 => {
                Position::from_sfen(&head[1..].join(" ")).map_err(|e| e.to_string())
            }
            _ => Err("position needs: position startpos|sfen SFEN [moves ...]".to_string()),
        };
        // Whatever the error, the old position is dropped: see the module notes.
        self.position = None;
        self.history.clear();
        let start = match start {
            Ok(p) => p,
            Err(e) => {
                self.info_string(&format!("position cleared: {}", clip(&e)));
                return;
            }
        };
        let mut pos = start.clone();
        let mut moves: Vec<Move> = Vec::new();
        for text in moves_at.map_or(&[][..], |i| &words[i + 1..]) {
            match pos.parse_move(text) {
                Ok(mv) => {
                    pos.play_unchecked(mv);
                    moves.push(mv);
                }
                Err(_) => {
                    self.info_string(&format!(
                        "position cleared: move {} ({}) is not legal in {}",
                        clip(text),
                        moves.len() + 1,
                        pos.to_sfen()
                    ));
                    return;
                }
            }
        }
        let mut history = game_path(&start, &moves);
        history.pop();
        self.history = history;
        self.position = Some(pos);
    }

    fn go(&mut self, words: &[&str]) {
        let (go, complaints) = Go::parse(words);
        if !complaints.is_empty() {
            self.info_string(&format!("go ignored: {}", complaints.join("; ")));
            return;
        }
        if go.mate {
            self.say("checkmate notimplemented");
            return;
        }
        let Some(position) = self.position.clone() else {
            self.info_string("no position");
            self.say("bestmove resign");
            return;
        };
        let (soft_time, hard_time) = go.time_limits(position.side_to_move());
        let cap = (self.options.depth > 0).then_some(self.options.depth);
        let depth = match (go.depth, cap) {
            (Some(d), Some(c)) => Some(d.min(c)),
            (d, c) => d.or(c),
        };
        let node_cap = (self.options.nodes_limit > 0).then_some(self.options.nodes_limit);
        let nodes = match (go.nodes, node_cap) {
            (Some(n), Some(c)) => Some(n.min(c)),
            (n, c) => n.or(c),
        };
        let limits = Limits {
            depth,
            nodes,
            soft_time,
            hard_time,
        };
        let control = Arc::new(Control::new());
        // A `go` with no limit at all searches until `stop`, like `go infinite`.
        let unlimited =
            limits.depth.is_none() && limits.nodes.is_none() && limits.hard_time.is_none();
        control
            .untimed
            .store(go.infinite || go.ponder || unlimited, Ordering::Relaxed);
        let seed = self
            .options
            .noise_seed
            .wrapping_mul(1_000_003)
            .wrapping_add(self.games);
        let evaluator = EvalNoise::new(
            Grained::new(
                Scaled::new(self.evaluator.clone(), self.options.eval_scale),
                self.grain(),
            ),
            self.options.eval_noise,
            seed,
        );
        let job = SearchJob {
            pos: position,
            history: self.history.clone(),
            limits,
            control: Arc::clone(&control),
            tt: Arc::clone(&self.tt),
            out: Arc::clone(&self.out),
            memory: Arc::clone(&self.memory),
        };
        let started = Instant::now();
        match std::thread::Builder::new()
            .name("search".into())
            .spawn(move || job.run(&evaluator))
        {
            Ok(handle) => {
                self.running = Some(Running {
                    handle,
                    control,
                    started,
                })
            }
            Err(e) => self.info_string(&format!("cannot start the search thread: {e}")),
        }
    }
}

struct SearchJob<W: Write + Send + 'static> {
    pos: Position,
    history: Vec<PathEntry>,
    limits: Limits,
    control: Arc<Control>,
    tt: Arc<Mutex<TranspositionTable>>,
    out: Arc<Mutex<W>>,
    memory: Arc<Mutex<Option<SearchMemory>>>,
}

impl<W: Write + Send + 'static> SearchJob<W> {
    fn run<E: Evaluator>(self, evaluator: &E) {
        // A search that panics (a bug) still answers: the panic's message
        // has gone to stderr, the GUI gets a line that says so and a
        // `bestmove`, instead of waiting for one until its clock runs out.
        let answer =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.bestmove(evaluator)));
        let bestmove = answer.unwrap_or_else(|_| {
            write_line(
                &self.out,
                "info string the search failed (a bug: see stderr); resigning",
            );
            "bestmove resign".to_string()
        });
        // USI: after `go infinite` or `go ponder`, bestmove waits for stop (or ponderhit).
        while self.control.untimed.load(Ordering::Relaxed)
            && !self.control.stop.load(Ordering::Relaxed)
        {
            std::thread::sleep(Duration::from_millis(2));
        }
        write_line(&self.out, &bestmove);
    }

    /// The `bestmove` line of the search of the job's position.
    fn bestmove<E: Evaluator>(&self, evaluator: &E) -> String {
        if can_declare_win(&self.pos) {
            "bestmove win".to_string()
        } else {
            let mut tt = self.tt.lock().unwrap_or_else(|e| e.into_inner());
            let mut searcher =
                Searcher::player(evaluator, &mut tt, &self.control, self.limits.clone());
            // The previous search's memory (forgotten whenever the
            // evaluation changes, so a cached value is the value), or a
            // fresh one.
            let mut kept = self.memory.lock().unwrap_or_else(|e| e.into_inner());
            let memory = kept
                .take()
                .unwrap_or_else(|| SearchMemory::for_evaluator(evaluator));
            searcher = searcher.with_memory(memory);
            let out = &self.out;
            let result = searcher.search(&self.pos, &self.history, |info| {
                write_line(out, &info_line(info));
            });
            *kept = Some(searcher.take_memory());
            drop(kept);
            match result.best {
                None => "bestmove resign".to_string(),
                Some(best) => {
                    let mut after = self.pos.clone();
                    after.play_unchecked(best);
                    match result.ponder.filter(|p| after.is_legal(*p)) {
                        Some(p) => format!("bestmove {best} ponder {p}"),
                        None => format!("bestmove {best}"),
                    }
                }
            }
        }
    }
}

/// Runs the USI loop over `input` until `quit` or end of input.
pub fn run<R: BufRead, W: Write + Send + 'static>(
    mut input: R,
    out: W,
    choice: EvalChoice,
) -> Result<(), String> {
    let mut engine = UsiEngine::new(out, choice)?;
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match input.read_until(b'\n', &mut buf) {
            Ok(0) => break,
            Ok(_) => {
                let line = String::from_utf8_lossy(&buf);
                if engine.handle_line(&line) == Flow::Quit {
                    return Ok(());
                }
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => {
                engine.finish_search(true);
                return Err(format!("reading the input: {e}"));
            }
        }
    }
    engine.finish_search_within(Duration::from_millis(EOF_GRACE_MS));
    Ok(())
}

#[cfg(test)]
mod tests;
