//! Self-play position generation: games between two copies of the engine with
//! one evaluator, every searched position written with its score, best move
//! and the game's result (YaneuraOu's `gensfen`, in-process).
//!
//! - [`openings`]: where games start (bundled training openings plus a file;
//!   test openings refused).
//! - [`game`]: one game, refereed by [`crate::arena::referee()`], recording its
//!   positions ([`play_game`]).
//! - [`files`]: the output folder (`generate.toml`, `positions/`, `games/`),
//!   resuming, and chunk files.
//! - [`generate`]: the whole run on threads.
//!
//! Games are numbered; game `g`'s moves depend only on the options and `g`
//! (its opening and its random moves come from SplitMix64 seeded by the seed
//! and `g`; limits are depth or counted nodes; tables are cleared per game).
//! Games are grouped into chunks of [`GenerateConfig::chunk_games`] games of
//! the shard, chunk `c` holding the shard's games `c·G .. (c+1)·G − 1`; the
//! chunks are written in order and the run stops after the first chunk at
//! which its [`Target`] is reached. So the output is the same whatever the
//! thread count, and a resumed run equals an uninterrupted one. With a
//! number of games as the target, the shards `0/N .. N−1/N` of a run hold
//! between them every game of it, and [`merge::merge_shards`] joins them into
//! the folder one run writes, byte for byte.
//! `docs/generate.md` describes the options and files.
//!
//! # Example
//!
//! ```
//! use kifulearn::eval::Material;
//! use kifulearn::search::TranspositionTable;
//! use kifulearn::generate::{generation_openings, play_game, GenerateConfig};
//!
//! let set = generation_openings(None).unwrap();
//! let cfg = GenerateConfig { depth: Some(1), max_plies: 60, skip_plies: 0, ..GenerateConfig::default() };
//! let mut tables = [TranspositionTable::new(1), TranspositionTable::new(1)];
//! let game = play_game(&Material, &set.openings, 0, &cfg, &mut tables);
//! assert_eq!(game, play_game(&Material, &set.openings, 0, &cfg, &mut tables));
//! assert!(game.positions.iter().all(|p| i32::from(p.score.abs()) <= cfg.eval_limit));
//! ```

use std::collections::{BTreeMap, HashSet};
use std::fmt;
use std::path::{Path, PathBuf};
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc;

use crate::arena::Opening;
use crate::eval::Evaluator;
use crate::positions::{PositionError, PositionFormat, DEFAULT_EVAL_LIMIT, EVAL_LIMITS};
use crate::search::{DepthRange, Limits, TranspositionTable};
use crate::teacher::{Teacher, TeacherError, TeacherSpec, TeacherStats};

pub mod files;
pub mod game;
pub mod merge;
pub mod openings;

pub use game::{play_game, GeneratedGame};
pub use openings::{generation_openings, OpeningSet, BUNDLED_OPENINGS_NAME};

/// Which games of the numbering a process plays: those with index ≡ `index`
/// (mod `count`). `0/1` is every game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Shard {
    /// K, in `0..count`.
    pub index: u64,
    /// N ≥ 1.
    pub count: u64,
}

impl Default for Shard {
    fn default() -> Self {
        Self { index: 0, count: 1 }
    }
}

impl Shard {
    /// The global index of the shard's `local`-th game.
    pub fn game(&self, local: u64) -> u64 {
        self.index + self.count * local
    }

    /// The folders of a complete split, in the order of K: each of `shards`
    /// (a shard and the folder that holds it) must split the games N ways
    /// for one N, and every K in `0..N` must be there once. The error names
    /// the folders at fault or the shards missing.
    pub fn split_of<'a>(shards: &[(Shard, &'a Path)]) -> Result<Vec<&'a Path>, String> {
        let Some(&(first, first_dir)) = shards.first() else {
            return Err("no shard folder given".into());
        };
        let n = first.count;
        let mut by_k: BTreeMap<u64, &Path> = BTreeMap::new();
        for &(s, dir) in shards {
            if s.count != n {
                return Err(format!(
                    "{} is shard {s} but {} is shard {first}: all shards must split the games N ways for one N",
                    dir.display(),
                    first_dir.display(),
                ));
            }
            if let Some(other) = by_k.insert(s.index, dir) {
                return Err(format!(
                    "{} and {} are both shard {s}",
                    other.display(),
                    dir.display()
                ));
            }
        }
        let missing: Vec<String> = (0..n)
            .filter(|k| !by_k.contains_key(k))
            .map(|k| format!("{k}/{n}"))
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "shard {} missing: a merge needs every shard of the split",
                missing.join(", ")
            ));
        }
        Ok(by_k.into_values().collect())
    }

    /// How many of the games `0..games` are the shard's.
    pub fn games_of(&self, games: u64) -> u64 {
        games.saturating_sub(self.index).div_ceil(self.count)
    }
}

/// When a run stops.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Target {
    /// At the end of the first chunk at which this many positions are in the
    /// folder (a resumed run's included). Which games that takes depends on
    /// every game before, so shards of such a run do not add up to it.
    Positions(u64),
    /// When the shard's share of the games `0..M` is written: a fixed set of
    /// games, each a function of the options and its number, so the shards
    /// `0/N .. N−1/N` add up to the run `0/1`.
    Games(u64),
}

impl Target {
    /// The option's name, as on the command line and in `generate.toml`.
    pub fn option(&self) -> &'static str {
        match self {
            Target::Positions(_) => "positions",
            Target::Games(_) => "games",
        }
    }

    /// The number it holds.
    pub fn value(&self) -> u64 {
        match *self {
            Target::Positions(n) | Target::Games(n) => n,
        }
    }
}

impl fmt::Display for Shard {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

impl FromStr for Shard {
    type Err = String;

    /// `K/N` with `0 ≤ K < N`.
    fn from_str(s: &str) -> Result<Self, String> {
        let bad = || format!("shard {s:?}: expected K/N with 0 <= K < N, e.g. 0/4");
        let (k, n) = s.split_once('/').ok_or_else(bad)?;
        let (index, count): (u64, u64) = (
            k.trim().parse().map_err(|_| bad())?,
            n.trim().parse().map_err(|_| bad())?,
        );
        if count == 0 || index >= count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

/// Search depth of every move when neither a depth nor a node limit is
/// set: `generate --depth`'s default and a recipe's `generate_depth`.
pub const DEFAULT_DEPTH: u32 = 3;

/// The depths `generate --depth` and a recipe's `generate_depth` take
/// (checked by clap, [`GenerateConfig::check`] and the recipe's check).
pub const DEPTHS: DepthRange = DepthRange::new(1, 6);

/// Positions a run is to have written: `generate --positions`'s default
/// and a recipe's `generate_positions`.
pub const DEFAULT_POSITIONS: u64 = 100_000;

/// The options of a run. `GenerateConfig::default()` is the one definition
/// of the defaults: `kifulearn generate`'s flags show and take these, and a
/// recipe's self-play rounds start from them (`Recipe::generate_config`);
/// `cli::generate`'s tests check both.
///
/// | field | meaning |
/// |---|---|
/// | `evaluator` | name recorded in `generate.toml` and the records (the evaluator itself is passed to [`generate`]) |
/// | `openings` | name of the openings, recorded |
/// | `depth` / `nodes` | fixed search limit of every move ([`DEFAULT_DEPTH`] if neither is set; [`DEPTHS`]) |
/// | `target` | positions to have written (counting a resumed run's; [`DEFAULT_POSITIONS`]), or the games `0..M` to play |
/// | `random_plies` | plies after the opening in which random moves may be played |
/// | `random_prob` | probability of a random move in each of those plies |
/// | `skip_plies` | positions before this ply (from the start position) are not written |
/// | `eval_limit` | scores clamped to ±this; a game reaching it is adjudicated |
/// | `max_plies` | plies (opening included) after which a game is drawn |
/// | `seed` | seed of the openings drawn and the random moves |
/// | `format` | position file format |
/// | `shard` | games with index ≡ K (mod N) |
/// | `chunk_games` | games of the shard per position file |
/// | `hash_mb` | megabytes of each side's transposition table |
/// | `jobs` | threads, 0 for all cores; changes no output |
/// | `teacher` | a USI engine whose scores replace our search's in the files written |
#[derive(Clone, Debug, PartialEq)]
pub struct GenerateConfig {
    /// Name of the evaluator (`material` or the model path), recorded.
    pub evaluator: String,
    /// Name of the openings used, recorded.
    pub openings: String,
    /// Search depth of every move.
    pub depth: Option<u32>,
    /// Node limit of every move (counted, so deterministic).
    pub nodes: Option<u64>,
    /// When the run stops: positions written (at a chunk's end), or a number of games.
    pub target: Target,
    /// Plies after the opening during which random moves may be played.
    pub random_plies: u32,
    /// Probability that a move in those plies is a uniformly random legal move.
    pub random_prob: f64,
    /// Positions before this ply (plies from the start position) are not written.
    pub skip_plies: u32,
    /// Scores are clamped to ±`eval_limit`; reaching it adjudicates the game.
    pub eval_limit: i32,
    /// Plies from the start position (opening included) after which a game is drawn.
    pub max_plies: usize,
    /// Seed of every game's generator (mixed with the game index).
    pub seed: u64,
    /// Position file format.
    pub format: PositionFormat,
    /// The games this process plays.
    pub shard: Shard,
    /// Games of the shard per chunk (one position file per chunk).
    pub chunk_games: u64,
    /// Megabytes of each side's transposition table.
    pub hash_mb: usize,
    /// Threads; 0 = all cores. Not an output-changing option.
    pub jobs: usize,
    /// A USI engine that scores every written position instead of our search
    /// (our search still plays the moves and adjudicates); one process per
    /// thread, a fresh one for each chunk. Positions it fails
    /// on twice are left out ([`Summary::teacher`]).
    pub teacher: Option<TeacherSpec>,
}

impl Default for GenerateConfig {
    fn default() -> Self {
        Self {
            evaluator: "material".to_string(),
            openings: BUNDLED_OPENINGS_NAME.to_string(),
            depth: None,
            nodes: None,
            target: Target::Positions(DEFAULT_POSITIONS),
            random_plies: 8,
            random_prob: 0.5,
            skip_plies: 16,
            eval_limit: DEFAULT_EVAL_LIMIT,
            max_plies: 320,
            seed: 1,
            format: PositionFormat::Psv,
            shard: Shard::default(),
            chunk_games: 64,
            hash_mb: 16,
            jobs: 0,
            teacher: None,
        }
    }
}

impl GenerateConfig {
    /// The limits of every search: `depth`/`nodes`, [`DEFAULT_DEPTH`] if
    /// neither is set.
    pub fn limits(&self) -> Limits {
        Limits {
            depth: if self.depth.is_none() && self.nodes.is_none() {
                Some(DEFAULT_DEPTH)
            } else {
                self.depth
            },
            nodes: self.nodes,
            ..Limits::default()
        }
    }

    /// The shard's games of a games target (its local games `0..this`);
    /// `u64::MAX` (no end) for a positions target.
    pub fn shard_games(&self) -> u64 {
        match self.target {
            Target::Games(m) => self.shard.games_of(m),
            Target::Positions(_) => u64::MAX,
        }
    }

    /// Rejects values no run can use, naming the option.
    pub fn check(&self) -> Result<(), GenerateError> {
        let bad = |option: &str, value: String, expected: &str| {
            Err(GenerateError::Config(format!(
                "--{option} {value}: expected {expected}"
            )))
        };
        if let Some(d) = self.depth.filter(|&d| !DEPTHS.contains(d)) {
            return bad("depth", d.to_string(), &DEPTHS.allowed());
        }
        if self.nodes == Some(0) {
            return bad("nodes", "0".into(), "at least 1");
        }
        if !(0.0..=1.0).contains(&self.random_prob) {
            return bad("random-prob", self.random_prob.to_string(), "0 to 1");
        }
        if !EVAL_LIMITS.contains(&self.eval_limit) {
            return bad(
                "eval-limit",
                self.eval_limit.to_string(),
                &format!("{} to {}", EVAL_LIMITS.start(), EVAL_LIMITS.end()),
            );
        }
        if self.chunk_games == 0 {
            return bad("chunk-games", "0".into(), "at least 1");
        }
        if self.target.value() == 0 {
            return bad(self.target.option(), "0".into(), "at least 1");
        }
        if self.shard.count > 1 && matches!(self.target, Target::Positions(_)) {
            return Err(GenerateError::Config(format!(
                "--shard {} needs --games M: the shards of a run add up to it only when its games are fixed up front (a --positions target depends on every game before)",
                self.shard
            )));
        }
        if let Some(t) = &self.teacher {
            t.check()
                .map_err(|e| GenerateError::Config(e.to_string()))?;
        }
        Ok(())
    }

    /// The options that decide the output, as `generate.toml` holds them
    /// (`positions` included but never compared, `games` compared; `jobs`
    /// left out).
    pub fn options_table(&self) -> toml::Table {
        let mut t = toml::Table::new();
        let mut put = |k: &str, v: toml::Value| {
            t.insert(k.to_string(), v);
        };
        let int = |v: u64| toml::Value::Integer(v.min(i64::MAX as u64) as i64);
        put("evaluator", self.evaluator.clone().into());
        put("openings", self.openings.clone().into());
        let limits = self.limits();
        if let Some(d) = limits.depth {
            put("depth", int(d.into()));
        }
        if let Some(n) = limits.nodes {
            put("nodes", int(n));
        }
        put(self.target.option(), int(self.target.value()));
        put("random_plies", int(self.random_plies.into()));
        put("random_prob", self.random_prob.into());
        put("skip_plies", int(self.skip_plies.into()));
        put("eval_limit", int(self.eval_limit as u64));
        put("max_plies", int(self.max_plies as u64));
        put("seed", self.seed.to_string().into());
        put("format", self.format.to_string().into());
        put("shard", self.shard.to_string().into());
        put("chunk_games", int(self.chunk_games));
        put("hash", int(self.hash_mb as u64));
        if let Some(teacher) = &self.teacher {
            t.extend(teacher.options_table());
        }
        t
    }
}

/// Why a run could not go on.
#[derive(Debug, thiserror::Error)]
pub enum GenerateError {
    /// An option value no run can use.
    #[error("{0}")]
    Config(String),
    /// The output folder was written with other options.
    #[error("option --{option} differs from the run in this folder: it was {was}, now {now} (rerun with the same options to resume, or --force to start over)")]
    OptionDiffers {
        /// The option, as on the command line.
        option: String,
        /// Its value in `generate.toml`.
        was: String,
        /// Its value now.
        now: String,
    },
    /// The output folder holds something a run cannot resume from.
    #[error("{0}")]
    Existing(String),
    /// Reading or writing a file failed.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// The error.
        source: std::io::Error,
    },
    /// Shard folders that do not make one run between them.
    #[error("{0}")]
    Shards(String),
    /// A position file could not be read or written.
    #[error("{0}")]
    Position(#[from] PositionError),
    /// The teacher engine could not be started, or failed too often.
    #[error("{0}")]
    Teacher(#[from] TeacherError),
}

/// Where a run stands, after each chunk written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Progress {
    /// Positions in the output folder (a resumed run's included).
    pub positions: u64,
    /// Positions written by this call.
    pub new_positions: u64,
    /// Games played and written by this call.
    pub games: u64,
    /// How far the run is towards its [`Target`], in the target's unit
    /// (positions, or the shard's games; a resumed run's included).
    pub done: u64,
    /// The target in that unit (for games, the shard's share of them).
    pub target: u64,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Summary {
    /// Complete chunks found when the run started.
    pub chunks_before: u64,
    /// Positions found when the run started.
    pub positions_before: u64,
    /// Complete chunks now.
    pub chunks: u64,
    /// Positions now.
    pub positions: u64,
    /// Games written by this call.
    pub games: u64,
    /// Positions of this call's games left out as duplicates.
    pub duplicates: u64,
    /// This call's games by ending (`checkmate`, `adjudicated`, `sennichite`, ...).
    pub endings: BTreeMap<String, u64>,
    /// Plies of this call's games (opening included).
    pub plies: u64,
    /// What the teacher did in this call (all zero without one).
    pub teacher: TeacherStats,
}

/// Runs (or resumes) a generation into `out` with `eval` on both sides, games
/// drawn from `openings`, until `cfg.target` is reached.
///
/// With `force` the run's files already in `out` are removed first; without
/// it a folder written with other options is refused
/// ([`GenerateError::OptionDiffers`]). `progress` is called on the calling
/// thread after each chunk is written. Panics if `openings` is empty.
pub fn generate<E: Evaluator + Sync + ?Sized>(
    eval: &E,
    openings: &[Opening],
    cfg: &GenerateConfig,
    out: &Path,
    force: bool,
    mut progress: impl FnMut(&Progress),
) -> Result<Summary, GenerateError> {
    assert!(
        !openings.is_empty(),
        "generation needs at least one opening"
    );
    cfg.check()?;
    if force {
        files::remove_run(out)?;
    }
    let existing = files::open_existing(out, cfg)?;
    files::start_run(out, cfg)?;
    let mut seen: HashSet<u64> = existing.seen;
    let mut summary = Summary {
        chunks_before: existing.chunks,
        positions_before: existing.positions,
        chunks: existing.chunks,
        positions: existing.positions,
        ..Summary::default()
    };
    let shard_games = cfg.shard_games();
    let last_chunk = shard_games.div_ceil(cfg.chunk_games);
    let reached = |summary: &Summary, chunk: u64| match cfg.target {
        Target::Positions(p) => summary.positions >= p,
        Target::Games(_) => chunk >= last_chunk,
    };
    if reached(&summary, existing.chunks) {
        return Ok(summary);
    }
    let jobs = if cfg.jobs == 0 {
        std::thread::available_parallelism().map_or(1, |n| n.get())
    } else {
        cfg.jobs
    };
    let next_chunk = AtomicU64::new(existing.chunks);
    let stop = AtomicBool::new(false);
    let mut failure = None;
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<(u64, ChunkResult)>();
        for _ in 0..jobs {
            let sender = sender.clone();
            let (next_chunk, stop) = (&next_chunk, &stop);
            scope.spawn(move || {
                let mut tables = [
                    TranspositionTable::new(cfg.hash_mb),
                    TranspositionTable::new(cfg.hash_mb),
                ];
                // Started before the first chunk is taken, so that a teacher
                // that cannot start fails the run at its first chunk.
                let mut teacher = match cfg.teacher.as_ref().map(Teacher::new).transpose() {
                    Ok(t) => t,
                    Err(e) => {
                        let chunk = next_chunk.fetch_add(1, Ordering::Relaxed);
                        let _ = sender.send((chunk, Err(e)));
                        return;
                    }
                };
                while !stop.load(Ordering::Relaxed) {
                    let chunk = next_chunk.fetch_add(1, Ordering::Relaxed);
                    if chunk >= last_chunk {
                        return;
                    }
                    let mut games = Vec::with_capacity(cfg.chunk_games as usize);
                    let mut stats = TeacherStats::default();
                    if let Some(teacher) = teacher.as_mut() {
                        // A fresh process per chunk: a chunk's labels do not
                        // depend on which thread played it.
                        let before = teacher.stats;
                        if let Err(e) = teacher.fresh() {
                            let _ = sender.send((chunk, Err(e)));
                            return;
                        }
                        stats.add(&since(&teacher.stats, &before));
                    }
                    let games_end = ((chunk + 1) * cfg.chunk_games).min(shard_games);
                    for local in chunk * cfg.chunk_games..games_end {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        let g = cfg.shard.game(local);
                        let mut game = play_game(eval, openings, g, cfg, &mut tables);
                        if let Some(teacher) = teacher.as_mut() {
                            let before = teacher.stats;
                            if let Err(e) = label_game(teacher, &mut game, cfg) {
                                let _ = sender.send((chunk, Err(e)));
                                return;
                            }
                            stats.add(&since(&teacher.stats, &before));
                        }
                        games.push(game);
                    }
                    if sender.send((chunk, Ok((games, stats)))).is_err() {
                        return;
                    }
                }
            });
        }
        drop(sender);
        let mut pending: BTreeMap<u64, ChunkResult> = BTreeMap::new();
        let mut chunk = existing.chunks;
        while !reached(&summary, chunk) {
            let played = loop {
                if let Some(played) = pending.remove(&chunk) {
                    break played;
                }
                match receiver.recv() {
                    Ok((i, games)) => {
                        pending.insert(i, games);
                    }
                    Err(_) => unreachable!("every worker stopped before chunk {chunk}"),
                }
            };
            let (games, stats) = match played {
                Ok(played) => played,
                Err(e) => {
                    failure = Some(e.into());
                    break;
                }
            };
            summary.teacher.add(&stats);
            match files::write_chunk(out, chunk, &games, cfg, &mut seen) {
                Ok(written) => {
                    summary.chunks += 1;
                    summary.positions += written.positions;
                    summary.duplicates += written.duplicates;
                    summary.games += games.len() as u64;
                    for g in &games {
                        *summary.endings.entry(g.end_name().to_string()).or_default() += 1;
                        summary.plies += g.moves.len() as u64;
                    }
                    let (done, target) = match cfg.target {
                        Target::Positions(p) => (summary.positions, p),
                        Target::Games(_) => (
                            (summary.chunks * cfg.chunk_games).min(shard_games),
                            shard_games,
                        ),
                    };
                    progress(&Progress {
                        positions: summary.positions,
                        new_positions: summary.positions - summary.positions_before,
                        games: summary.games,
                        done,
                        target,
                    });
                }
                Err(e) => {
                    failure = Some(e);
                    break;
                }
            }
            chunk += 1;
        }
        stop.store(true, Ordering::Relaxed);
        // Dropping the receiver stops workers that finish a chunk after this.
        drop(receiver);
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(summary),
    }
}

/// A chunk's games and what the teacher did for them, or why it failed.
type ChunkResult = Result<(Vec<GeneratedGame>, TeacherStats), TeacherError>;

/// The counts of `now` less those of `before`.
fn since(now: &TeacherStats, before: &TeacherStats) -> TeacherStats {
    TeacherStats {
        labelled: now.labelled - before.labelled,
        retried: now.retried - before.retried,
        skipped: now.skipped - before.skipped,
        restarts: now.restarts - before.restarts,
    }
}

/// Replaces the score of every position of `game` by the teacher's, leaving
/// out the positions the teacher skipped.
fn label_game(
    teacher: &mut Teacher,
    game: &mut GeneratedGame,
    cfg: &GenerateConfig,
) -> Result<(), TeacherError> {
    let spec = cfg.teacher.as_ref().expect("a teacher is configured");
    let mut kept = Vec::with_capacity(game.positions.len());
    for mut rec in std::mem::take(&mut game.positions) {
        if let Some(score) = teacher.label(&rec.position)? {
            rec.score = spec.to_score(score, cfg.eval_limit);
            kept.push(rec);
        }
    }
    game.positions = kept;
    Ok(())
}

#[cfg(test)]
mod tests;
