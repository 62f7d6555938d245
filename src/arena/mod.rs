//! In-process matches between two evaluators: referee rules, Elo, SPRT.
//!
//! A match plays each opening twice, colours swapped (game `2k`: A is Black,
//! game `2k + 1`: A is White, both from opening `k`), every side searching with
//! its own transposition table (cleared before every game) under fixed depth or
//! node limits. Games are independent, so a match is deterministic whatever
//! the number of threads. `docs/arena.md` states the rules and formulas.
//!
//! - [`referee`] plays one game between two [`Player`]s and decides the ending.
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

use crate::eval::Evaluator;
use crate::record::{Game, Source};
use crate::search::{Limits, TranspositionTable};
use crate::shogi::{Color, Move, Position};

pub mod files;
pub mod openings;
pub mod referee;
pub mod stats;

pub use openings::{
    default_openings, left_out_line, read_openings, select_openings, Opening, TestOpenings,
};
pub use referee::{referee, GameEnd, Player, Refereed, SearchPlayer};
pub use stats::{
    elo_from_score, sprt_bounds, sprt_llr, EloModel, Interval, Pentanomial, SprtConfig, SprtResult,
    SprtVerdict, Tally,
};

/// How a match is played. `MatchConfig::default()` is depth 2, 100 games,
/// 320 plies, all cores, 16 MB tables, no SPRT.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchConfig {
    /// Search depth of both sides (iterative deepening to this depth).
    pub depth: Option<u32>,
    /// Node limit of both sides per move (checked every 1024 nodes, so deterministic).
    pub nodes: Option<u64>,
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
            depth: Some(2),
            nodes: None,
            games: 100,
            max_plies: 320,
            jobs: 0,
            hash_mb: 16,
            sprt: None,
        }
    }
}

impl MatchConfig {
    /// The search limits of every move (depth 2 if neither depth nor nodes is set).
    pub fn limits(&self) -> Limits {
        Limits {
            depth: if self.depth.is_none() && self.nodes.is_none() {
                Some(2)
            } else {
                self.depth
            },
            nodes: self.nodes,
            ..Limits::default()
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
    /// Nodes searched by A and by B over the game.
    pub nodes: [u64; 2],
    /// Time A and B spent searching (not part of a game's identity: two
    /// plays of a game are equal whatever their timings).
    pub thinking: Thinking,
}

/// Time A and B spent searching. Compares equal to any other: a match
/// replayed on other threads, or on a busier machine, is the same match.
#[derive(Clone, Copy, Debug, Default, Eq)]
pub struct Thinking(pub [std::time::Duration; 2]);

impl PartialEq for Thinking {
    fn eq(&self, _: &Self) -> bool {
        true
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

    /// Nodes per second of A and of B over the games counted (`None`
    /// before any search time): the engines' speed in the same match.
    pub fn nodes_per_second(&self) -> Option<[f64; 2]> {
        let mut nodes = [0u64; 2];
        let mut secs = [0f64; 2];
        for g in &self.games {
            for side in 0..2 {
                nodes[side] += g.nodes[side];
                secs[side] += g.thinking.0[side].as_secs_f64();
            }
        }
        (secs[0] > 0.0 && secs[1] > 0.0)
            .then(|| [nodes[0] as f64 / secs[0], nodes[1] as f64 / secs[1]])
    }

    /// `speed: A 1.37M nodes/s, B 4.90M nodes/s, A/B 0.28` (what each engine
    /// searched per second of its own thinking, games in parallel included).
    pub fn speed_line(&self) -> Option<String> {
        let [a, b] = self.nodes_per_second()?;
        Some(format!(
            "speed: A {:.2}M nodes/s, B {:.2}M nodes/s, A/B {:.2}",
            a / 1e6,
            b / 1e6,
            a / b
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

/// Plays game `game` of a match: opening `game / 2`, A Black in even games.
pub fn play_game<A: Evaluator + ?Sized, B: Evaluator + ?Sized>(
    a: &A,
    b: &B,
    opening: &Opening,
    game: usize,
    cfg: &MatchConfig,
    tables: &mut [TranspositionTable; 2],
) -> GameOutcome {
    let a_color = if game.is_multiple_of(2) {
        Color::Black
    } else {
        Color::White
    };
    let [table_a, table_b] = tables;
    table_a.clear();
    table_b.clear();
    let mut player_a = SearchPlayer::new(a, table_a, cfg.limits());
    let mut player_b = SearchPlayer::new(b, table_b, cfg.limits());
    let (black, white): (&mut dyn Player, &mut dyn Player) = if a_color == Color::Black {
        (&mut player_a, &mut player_b)
    } else {
        (&mut player_b, &mut player_a)
    };
    let r = referee(&opening.start, &opening.moves, black, white, cfg.max_plies);
    let nodes = [player_a.nodes, player_b.nodes];
    let thinking = Thinking([player_a.thinking, player_b.thinking]);
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
        nodes,
        thinking,
    }
}

/// Plays a match of `a` against `b` from `openings` (used in order, opening `k`
/// for games `2k` and `2k + 1`, from the first again when they run out).
///
/// Games run on `cfg.jobs` threads; `progress` is called on the calling thread
/// with every game in game order, so what it sees does not depend on the
/// threads either. With an SPRT the LLR of the game pairs is checked after
/// every completed pair, in order; at the first pair where it crosses a bound the match
/// stops (games of later pairs already under way are dropped, so the report is
/// the same whatever the thread count). Panics if `openings` is empty.
pub fn run_match<A: Evaluator + ?Sized, B: Evaluator + ?Sized>(
    a: &A,
    b: &B,
    openings: &[Opening],
    cfg: &MatchConfig,
    mut progress: impl FnMut(&GameOutcome),
) -> MatchReport {
    assert!(!openings.is_empty(), "a match needs at least one opening");
    let pairs = cfg.games.div_ceil(2);
    let jobs = if cfg.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cfg.jobs
    }
    .clamp(1, pairs.max(1));
    let next_pair = AtomicUsize::new(0);
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
        for _ in 0..jobs {
            let sender = sender.clone();
            let (next_pair, last_pair) = (&next_pair, &last_pair);
            scope.spawn(move || {
                let mut tables = [
                    TranspositionTable::new(cfg.hash_mb),
                    TranspositionTable::new(cfg.hash_mb),
                ];
                loop {
                    let k = next_pair.fetch_add(1, Ordering::Relaxed);
                    if k >= pairs || k > last_pair.load(Ordering::Relaxed) {
                        break;
                    }
                    let opening = &openings[k % openings.len()];
                    let games = (2 * k..(2 * k + 2).min(cfg.games))
                        .map(|g| play_game(a, b, opening, g, cfg, &mut tables))
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
