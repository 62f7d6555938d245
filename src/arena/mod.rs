//! Matches between two sides: referee rules, time controls, faults, Elo, SPRT.
//!
//! A match plays each opening twice, colours swapped (game `2k`: A is Black,
//! game `2k + 1`: A is White, both from opening `k`). A side ([`Side`]) is an
//! evaluator searched in-process, with its own transposition table (cleared
//! before every game), or another USI engine run as a child process, one per
//! game thread (`usi_client`). Both play under fixed depth or node limits, or
//! on a clock ([`TimeControl`]: a move time, or main time with byoyomi or an
//! increment). Without a clock games are independent and deterministic, so a
//! match is the same whatever the number of threads; on a clock it depends on
//! timing. `docs/arena.md` states the rules and formulas.
//!
//! - [`referee`](mod@referee) plays one game between two [`Player`]s and
//!   decides the ending, faults included (crash, time, illegal move).
//! - [`side`] makes the players: our search, or an external engine.
//! - [`clock`] keeps both sides' time in a game.
//! - [`stats`] holds the score, Elo and normalized Elo with 95 % intervals
//!   over games and over game pairs, and the GSPRT on the pairs.
//! - [`openings`] reads opening lines and bundles the test openings.
//! - [`files`] writes a match to disk: CSA records, `results.csv`, `summary.txt`.
//!
//! # Example
//!
//! ```
//! use kifulearn::arena::{default_openings, run_match, MatchConfig};
//! use kifulearn::eval::Material;
//!
//! let openings = default_openings();
//! let cfg = MatchConfig { games: 2, depth: Some(1), ..MatchConfig::default() };
//! let report = run_match(&Material, &Material, &openings[..1], &cfg, |_| {});
//! assert_eq!(report.games.len(), 2);
//! // The same evaluator on both sides of one opening: the two games mirror each other.
//! assert_eq!(report.wins, report.losses);
//! ```

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::mpsc;

use std::time::Duration;

use crate::eval::Evaluator;
use crate::record::{Game, Source};
use crate::search::{DepthRange, Limits, MAX_DEPTH};
use crate::shogi::{Color, Move, Position};

pub mod clock;
pub mod files;
pub mod openings;
pub mod referee;
pub mod side;
pub mod stats;

pub use clock::{GameClock, TimeControl};

pub use openings::{
    default_openings, left_out_line, read_openings, select_openings, Opening, TestOpenings,
};
pub use referee::{referee, GameEnd, Player, Refereed, Reply, Rules, SearchPlayer, Turn};
pub use side::{Seat, Side, UsiPlayer};
pub use stats::{
    elo_from_score, sprt_bounds, sprt_llr, EloModel, Interval, Pentanomial, SprtConfig, SprtResult,
    SprtVerdict, Tally,
};

/// A match's depth when neither a depth, a node limit nor a clock is given
/// ([`MatchConfig::limits`]): `match --depth`'s default and a recipe's
/// `[match] depth`.
pub const DEFAULT_DEPTH: u32 = 2;

/// The depths a match is played at, `match --depth` and a recipe's `[match]
/// depth` alike: 1 to the deepest our search iterates to
/// ([`MAX_DEPTH`]; a `usi:` engine gets the same `go depth N`).
pub const DEPTHS: DepthRange = DepthRange::new(1, MAX_DEPTH);

/// How a match is played. `MatchConfig::default()` is depth
/// [`DEFAULT_DEPTH`], 100 games, 320 plies, all cores, 16 MB tables, no
/// clock, no SPRT: `match`'s defaults.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Search depth of both sides (iterative deepening to this depth).
    pub depth: Option<u32>,
    /// Node limit of both sides per move (checked every 1024 nodes, so deterministic).
    pub nodes: Option<u64>,
    /// The clock both sides play on; `None`: depth and node limits only.
    /// Our sides search by it ([`crate::search::clock`]) within any depth or
    /// node limit also given; an external engine gets the clock alone.
    pub time: Option<TimeControl>,
    /// Added to a move's allowed time before it is lost on time.
    pub time_margin: Duration,
    /// Games to play (at most; an SPRT may stop earlier). Opening `k` serves games
    /// `2k` and `2k + 1`; the openings are reused from the first when they run out.
    pub games: usize,
    /// Plies from the start position (opening moves included) after which a game is drawn.
    pub max_plies: usize,
    /// Threads playing games; 0 = all cores.
    pub jobs: usize,
    /// Megabytes of each side's transposition table (two tables per thread).
    pub hash_mb: usize,
    /// Stop early when the SPRT decides.
    pub sprt: Option<SprtConfig>,
}

impl Default for MatchConfig {
    fn default() -> Self {
        Self {
            depth: Some(DEFAULT_DEPTH),
            nodes: None,
            time: None,
            time_margin: Duration::from_millis(100),
            games: 100,
            max_plies: 320,
            jobs: 0,
            hash_mb: 16,
            sprt: None,
        }
    }
}

impl MatchConfig {
    /// The search limits of every move ([`DEFAULT_DEPTH`] if neither depth,
    /// nodes nor a clock is set); a clock's times are the move's own.
    pub fn limits(&self) -> Limits {
        Limits {
            depth: if self.depth.is_none() && self.nodes.is_none() && self.time.is_none() {
                Some(DEFAULT_DEPTH)
            } else {
                self.depth
            },
            nodes: self.nodes,
            ..Limits::default()
        }
    }

    /// The referee's rules of every game.
    pub fn rules(&self) -> Rules {
        Rules {
            max_plies: self.max_plies,
            time: self.time,
            tolerance: self.time_margin,
        }
    }
}

/// One game of a match.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GameOutcome {
    /// Game number from 0: game `2k` has A as Black, `2k + 1` A as White, both from opening `k`.
    pub game: usize,
    /// Line of the opening in its file.
    pub opening_line: usize,
    /// A's colour.
    pub a_color: Color,
    /// The opening's start position.
    pub start: Position,
    /// How many of [`GameOutcome::moves`] are the opening's.
    pub opening_plies: usize,
    /// Every move from `start`, the opening's included.
    pub moves: Vec<Move>,
    /// How the game ended.
    pub end: GameEnd,
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// The position after the last move.
    pub final_position: Position,
    /// Why a side failed, when one did (crash, time, illegal move).
    pub detail: Option<String>,
    /// What A and B searched over the game.
    pub sides: [SideStats; 2],
}

/// Time spent searching. Compares equal to any other: a match replayed on
/// other threads, or on a busier machine, is the same match.
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Thinking(pub Duration);

impl PartialEq for Thinking {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

/// What one side searched, over a game or a match: the moves it chose (the
/// opening's are not its), the depths, nodes and time of their searches. An
/// external engine's are those of its last `info` before each `bestmove`
/// (its time: the time to its answer when it reports none).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SideStats {
    /// Moves chosen.
    pub moves: u32,
    /// Sum of the depths the searches completed.
    pub depth: u64,
    /// Nodes searched.
    pub nodes: u64,
    /// Time spent searching.
    pub time: Thinking,
}

impl SideStats {
    /// Adds `other`'s moves, depths, nodes and time.
    pub fn add(&mut self, other: &SideStats) {
        self.moves += other.moves;
        self.depth += other.depth;
        self.nodes += other.nodes;
        self.time.0 += other.time.0;
    }

    /// Mean depth per move (0 without moves).
    pub fn mean_depth(&self) -> f64 {
        self.depth as f64 / f64::from(self.moves.max(1))
    }

    /// Milliseconds per move (0 without moves).
    pub fn ms_per_move(&self) -> f64 {
        self.time.0.as_secs_f64() * 1000.0 / f64::from(self.moves.max(1))
    }

    /// Nodes per second of search time (`None` before any).
    pub fn nodes_per_second(&self) -> Option<f64> {
        let secs = self.time.0.as_secs_f64();
        (secs > 0.0).then(|| self.nodes as f64 / secs)
    }
}

impl GameOutcome {
    /// A's score: 1, ½ or 0.
    pub fn score_a(&self) -> f64 {
        match self.winner {
            None => 0.5,
            Some(c) if c == self.a_color => 1.0,
            Some(_) => 0.0,
        }
    }

    /// `win`, `loss` or `draw`, from A's view.
    pub fn result_a(&self) -> &'static str {
        match self.winner {
            None => "draw",
            Some(c) if c == self.a_color => "win",
            Some(_) => "loss",
        }
    }

    /// Plies from the start position, opening included.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// The game as a record (for the CSA writer), Black and White named after A and B.
    ///
    /// The ending is what a CSA file can say: a mate or a resignation is
    /// `%TORYO` by the side to move, sennichite `%SENNICHITE`, perpetual check
    /// `%±ILLEGAL_ACTION` naming the checker, a declaration `%KACHI`, the ply
    /// limit `%JISHOGI` (a draw).
    pub fn to_record(&self, a_name: &str, b_name: &str) -> Game {
        let (black, white) = if self.a_color == Color::Black {
            (a_name, b_name)
        } else {
            (b_name, a_name)
        };
        let mut game = Game::new(
            self.start.clone(),
            Source {
                path: format!("game {}", self.game).into(),
                index: self.game,
            },
        );
        game.moves = self.moves.clone();
        game.black = Some(black.to_string());
        game.white = Some(white.to_string());
        game.event = Some(format!("kifulearn match {a_name} vs {b_name}"));
        game.ending = self.end.ending();
        game.result = GameEnd::result(self.winner);
        game
    }
}

/// The result of a match, from A's view.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchReport {
    /// Games A won.
    pub wins: u32,
    /// Games A lost.
    pub losses: u32,
    /// Drawn games.
    pub draws: u32,
    /// The SPRT, when one was asked for.
    pub sprt: Option<SprtResult>,
    /// Every game counted, in game order.
    pub games: Vec<GameOutcome>,
}

impl MatchReport {
    /// W/L/D as a [`Tally`].
    pub fn tally(&self) -> Tally {
        Tally {
            wins: self.wins,
            losses: self.losses,
            draws: self.draws,
        }
    }

    /// A's mean score per game.
    pub fn score(&self) -> f64 {
        self.tally().score()
    }

    /// Elo difference A − B implied by the score (±∞ for a clean sweep).
    pub fn elo(&self) -> f64 {
        self.tally().elo()
    }

    /// 95 % interval of the Elo difference (trinomial model).
    pub fn elo_interval95(&self) -> (f64, f64) {
        self.tally().elo_interval95()
    }

    /// The complete game pairs (games `2k` and `2k + 1`) by A's score over the pair.
    pub fn pentanomial(&self) -> Pentanomial {
        Pentanomial::from_games(self.games.iter().map(|g| (g.game, g.score_a())))
    }

    /// What A and B searched over the games counted.
    pub fn side_stats(&self) -> [SideStats; 2] {
        let mut sides = [SideStats::default(); 2];
        for g in &self.games {
            for (total, game) in sides.iter_mut().zip(&g.sides) {
                total.add(game);
            }
        }
        sides
    }

    /// Nodes per second of A and of B over the games counted (`None`
    /// before any search time): the engines' speed in the same match.
    pub fn nodes_per_second(&self) -> Option<[f64; 2]> {
        let [a, b] = self.side_stats();
        Some([a.nodes_per_second()?, b.nodes_per_second()?])
    }

    /// One line per side, then A's speed over B's (when both are known):
    ///
    /// ```text
    /// speed A: 1.37M nodes/s, depth 4.21, 48.1 ms/move (1234 moves)
    /// speed B: 4.90M nodes/s, depth 5.02, 47.3 ms/move (1230 moves)
    /// speed A/B: 0.28
    /// ```
    ///
    /// Nodes per second of each side's own search time, games in parallel
    /// included; an external engine's as it reports them.
    pub fn speed_lines(&self) -> Vec<String> {
        let sides = self.side_stats();
        if sides.iter().all(|s| s.moves == 0) {
            return Vec::new();
        }
        let mut lines: Vec<String> = ["A", "B"]
            .iter()
            .zip(&sides)
            .map(|(name, s)| {
                let nps = s
                    .nodes_per_second()
                    .map_or("-".to_string(), |n| format!("{:.2}M", n / 1e6));
                format!(
                    "speed {name}: {nps} nodes/s, depth {:.2}, {:.1} ms/move ({} moves)",
                    s.mean_depth(),
                    s.ms_per_move(),
                    s.moves
                )
            })
            .collect();
        if let Some([a, b]) = self.nodes_per_second().filter(|[_, b]| *b > 0.0) {
            lines.push(format!("speed A/B: {:.2}", a / b));
        }
        lines
    }

    /// `faults: A none, B crash 1, time_up 2`: the games each side lost by
    /// failing (crash, time, illegal move); `None` when none did.
    pub fn fault_line(&self) -> Option<String> {
        let mut counts: [BTreeMap<&str, u32>; 2] = Default::default();
        for g in self.games.iter().filter(|g| g.end.is_fault()) {
            let loser = usize::from(g.score_a() > 0.5);
            *counts[loser].entry(g.end.name()).or_default() += 1;
        }
        if counts.iter().all(BTreeMap::is_empty) {
            return None;
        }
        let side = |c: &BTreeMap<&str, u32>| {
            if c.is_empty() {
                "none".to_string()
            } else {
                let parts: Vec<String> = c.iter().map(|(k, v)| format!("{k} {v}")).collect();
                parts.join(", ")
            }
        };
        Some(format!(
            "faults: A {}; B {}",
            side(&counts[0]),
            side(&counts[1])
        ))
    }

    /// One line: `A vs B: +W -L =D, score 0.xxx, Elo +x ± y [lo, hi], pairs
    /// LL/LD/DD/WD/WW, nElo +x ± y [lo, hi], SPRT: ...`; Elo and nElo are
    /// those of the complete pairs (`-` before the first).
    pub fn summary_line(&self, a_name: &str, b_name: &str) -> String {
        let pairs = self.pentanomial();
        let interval = |i: Option<Interval>| i.map_or("-".to_string(), |i| i.to_string());
        let [ll, ld, dd, wd, ww] = pairs.counts;
        let sprt = match &self.sprt {
            Some(s) => s.to_string(),
            None => "off".to_string(),
        };
        format!(
            "{a_name} vs {b_name}: +{} -{} ={}, score {:.3}, Elo {}, pairs {ll}/{ld}/{dd}/{wd}/{ww}, nElo {}, SPRT: {sprt}",
            self.wins,
            self.losses,
            self.draws,
            self.score(),
            interval(pairs.elo95()),
            interval(pairs.nelo95()),
        )
    }
}

/// Plays game `game` of a match: opening `game / 2`, A Black in even games,
/// each side in its seat (made by [`Side::seat`]).
pub fn play_game<A: Evaluator + ?Sized, B: Evaluator + ?Sized>(
    a: &Side<'_, A>,
    b: &Side<'_, B>,
    opening: &Opening,
    game: usize,
    cfg: &MatchConfig,
    seats: &mut [Seat; 2],
) -> GameOutcome {
    let a_color = if game.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    let [seat_a, seat_b] = seats;
    let mut player_a = a.player(seat_a, cfg);
    let mut player_b = b.player(seat_b, cfg);
    let (black, white): (&mut dyn Player, &mut dyn Player) = if a_color == Color::Black {
        (&mut *player_a, &mut *player_b)
    } else {
        (&mut *player_b, &mut *player_a)
    };
    let r = referee(&opening.start, &opening.moves, black, white, &cfg.rules());
    GameOutcome {
        game,
        opening_line: opening.line,
        a_color,
        start: opening.start.clone(),
        opening_plies: opening.moves.len(),
        moves: r.moves,
        end: r.end,
        winner: r.winner,
        final_position: r.final_position,
        detail: r.detail,
        sides: [player_a.stats(), player_b.stats()],
    }
}

/// Plays a match of `a` against `b`, both evaluators searched in-process
/// ([`run_sides`] with [`Side::Search`]).
pub fn run_match<A: Evaluator + ?Sized, B: Evaluator + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    cfg: &MatchConfig,
    progress: impl FnMut(&GameOutcome),
) -> MatchReport {
    run_sides(&Side::Search(a), &Side::Search(b), openings, cfg, progress)
}

/// Plays a match of `a` against `b` from `openings` (used in order, opening `k`
/// for games `2k` and `2k + 1`, from the first again when they run out).
///
/// Games run on `cfg.jobs` threads, each with its own seat per side (a table,
/// or an external engine's process); `progress` is called on the calling
/// thread with every game in game order, so what it sees does not depend on
/// the threads either. With an SPRT the LLR of the game pairs is checked
/// after every completed pair, in order; at the first pair where it crosses a
/// bound the match stops (games of later pairs already under way are
/// dropped, so the report is the same whatever the thread count). Panics if
/// `openings` is empty.
pub fn run_sides<A: Evaluator + ?Sized, B: Evaluator + ?Sized>(
    a: &Side<'_, A>,
    b: &Side<'_, B>,
    openings: &[Opening],
    cfg: &MatchConfig,
    progress: impl FnMut(&GameOutcome),
) -> MatchReport {
    run_sides_after(a, b, openings, cfg, Vec::new(), progress)
}

/// [`run_sides`] continuing an earlier run of the same match: the games in
/// `done` (whole pairs, as [`files::read_done`] gives them) are not played
/// again but counted, in game order, with the new ones (`progress` sees
/// them too), the SPRT included. A match stopped by an interruption and
/// resumed this way is the match it would have been (on a clock, up to
/// timing).
pub fn run_sides_after<A: Evaluator + ?Sized, B: Evaluator + ?Sized>(
    a: &Side<'_, A>,
    b: &Side<'_, B>,
    openings: &[Opening],
    cfg: &MatchConfig,
    done: Vec<GameOutcome>,
    mut progress: impl FnMut(&GameOutcome),
) -> MatchReport {
    assert!(!openings.is_empty(), "a match needs at least one opening");
    let pairs = cfg.games.div_ceil(2);
    let mut done_pairs: BTreeMap<usize, Vec<GameOutcome>> = BTreeMap::new();
    for g in done.into_iter().filter(|g| g.game < cfg.games) {
        done_pairs.entry(g.game / 2).or_default().push(g);
    }
    // A pair counts as done only with all its games; the others are replayed.
    done_pairs.retain(|&k, games| games.len() == (2 * k + 2).min(cfg.games) - 2 * k);
    let todo: Vec<usize> = (0..pairs).filter(|k| !done_pairs.contains_key(k)).collect();
    let jobs = if cfg.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cfg.jobs
    }
    .clamp(1, todo.len().max(1));
    let next_todo = AtomicUsize::new(0);
    // Pairs after this one are not started (usize::MAX: no decision yet).
    let last_pair = AtomicUsize::new(usize::MAX);
    let mut report = MatchReport {
        wins: 0,
        losses: 0,
        draws: 0,
        sprt: None,
        games: Vec::new(),
    };
    let mut tally = Tally::default();
    let mut pentanomial = Pentanomial::default();
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<(usize, Vec<GameOutcome>)>();
        for _ in 0..jobs.min(todo.len()) {
            let sender = sender.clone();
            let (next_todo, last_pair, todo) = (&next_todo, &last_pair, &todo);
            scope.spawn(move || {
                let mut seats = [a.seat(cfg), b.seat(cfg)];
                while let Some(&k) = todo.get(next_todo.fetch_add(1, Ordering::Relaxed)) {
                    if k > last_pair.load(Ordering::Relaxed) {
                        break;
                    }
                    let opening = &openings[k % openings.len()];
                    let games = (2 * k..(2 * k + 2).min(cfg.games))
                        .map(|g| play_game(a, b, opening, g, cfg, &mut seats))
                        .collect();
                    if sender.send((k, games)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        let mut pending: BTreeMap<usize, Vec<GameOutcome>> = BTreeMap::new();
        let mut k = 0;
        while k < pairs {
            let games = loop {
                if let Some(mut games) = done_pairs.remove(&k) {
                    games.sort_by_key(|g| g.game);
                    break games;
                }
                if let Some(games) = pending.remove(&k) {
                    break games;
                }
                match receiver.recv() {
                    Ok((i, games)) => {
                        pending.insert(i, games);
                    }
                    Err(_) => unreachable!("a worker stopped before pair {k} was played"),
                }
            };
            if let [first, second] = games.as_slice() {
                pentanomial.add_pair(first.score_a(), second.score_a());
            }
            for g in games {
                tally.add(g.score_a());
                progress(&g);
                report.games.push(g);
            }
            if let Some(sprt) = cfg.sprt {
                let result = sprt.result(&pentanomial);
                report.sprt = Some(result);
                if result.verdict != SprtVerdict::Inconclusive {
                    last_pair.store(k, Ordering::Relaxed);
                    break;
                }
            }
            k += 1;
        }
        // Dropping the receiver makes workers still playing later pairs stop after them.
        drop(receiver);
    });
    report.wins = tally.wins;
    report.losses = tally.losses;
    report.draws = tally.draws;
    report
}

#[cfg(test)]
mod tests;
