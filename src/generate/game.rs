//! One self-play game: the arena's referee with two recording players.
//!
//! Both sides are `GenPlayer`s sharing one `GameLog` (the game's random
//! generator, the positions searched so far and a pending win claim), so the
//! referee's rules (checkmate, declaration, sennichite, perpetual check, ply
//! limit) are the arena's, unchanged. Score adjudication needs no referee
//! hook: a side whose score is ≤ −limit resigns at once; a side whose score
//! is ≥ +limit plays its move and the opponent resigns on its next turn
//! without searching. Either way the loser is to move and resigns, which is
//! what a CSA record (`%TORYO`) can say.

use std::cell::RefCell;

use super::GenerateConfig;
use crate::arena::{referee, GameEnd, Opening, Player, Reply, Rules, Turn};
use crate::eval::Evaluator;
use crate::positions::{GameResult, PositionRecord};
use crate::record::{Game, Source};
use crate::rng::SplitMix64;
use crate::search::{Control, Score, Searcher, TranspositionTable};
use crate::shogi::{Color, Move, Position};

/// A finished self-play game and the positions it yields.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GeneratedGame {
    /// Game index (global, whatever the shard).
    pub game: u64,
    /// 1-based line of the opening in its file (0 when not read from a file).
    pub opening_line: usize,
    /// The opening's start position.
    pub start: Position,
    /// How many of [`GeneratedGame::moves`] are the opening's.
    pub opening_plies: usize,
    /// Every move from `start`, the opening's included.
    pub moves: Vec<Move>,
    /// How the referee ended the game ([`GameEnd::Resign`] for a score adjudication).
    pub end: GameEnd,
    /// Whether the ending is a score adjudication (|score| ≥ eval limit).
    pub adjudicated: bool,
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// The positions to write, in game order: searched (not random) moves
    /// from ply `skip_plies` on, each with its score, best move and the
    /// game's result for its side to move. Not yet de-duplicated.
    pub positions: Vec<PositionRecord>,
}

impl GeneratedGame {
    /// The game as a record for the CSA writer; both sides are named `name`.
    pub fn to_record(&self, name: &str) -> Game {
        let mut game = Game::new(
            self.start.clone(),
            Source {
                path: format!("game {}", self.game).into(),
                index: self.game as usize,
            },
        );
        game.moves = self.moves.clone();
        game.black = Some(name.to_string());
        game.white = Some(name.to_string());
        game.event = Some(format!("kifulearn generate game {}", self.game));
        game.ending = self.end.ending();
        game.result = GameEnd::result(self.winner);
        game
    }

    /// `adjudicated` for a score adjudication, else the referee's ending name.
    pub fn end_name(&self) -> &'static str {
        if self.adjudicated {
            "adjudicated"
        } else {
            self.end.name()
        }
    }
}

/// The generator of game `game`: SplitMix64 seeded from the run's seed and the
/// game index, so a game does not depend on which thread plays it.
pub(crate) fn game_rng(seed: u64, game: u64) -> SplitMix64 {
    let mut mix = SplitMix64(seed ^ game.wrapping_mul(0xD1B5_4A32_D192_ED03));
    SplitMix64(mix.next())
}

/// A uniform number in [0, 1) from 53 random bits.
fn unit(rng: &mut SplitMix64) -> f64 {
    (rng.next() >> 11) as f64 / (1u64 << 53) as f64
}

/// What both players of a game share.
pub(crate) struct GameLog {
    rng: SplitMix64,
    /// Plies of the opening: random moves start after them.
    opening_plies: usize,
    /// Positions searched, with the side to move, not yet given a result.
    positions: Vec<PositionRecord>,
    /// A side that claimed the win by score: the other side resigns next turn.
    claim: Option<Color>,
    /// Set when the game ended by a score adjudication.
    adjudicated: bool,
}

/// One side of a self-play game: searches like [`crate::arena::SearchPlayer`],
/// plays random moves early, records each searched position and adjudicates by score.
pub(crate) struct GenPlayer<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    table: &'a mut TranspositionTable,
    cfg: &'a GenerateConfig,
    log: &'a RefCell<GameLog>,
}

impl<E: Evaluator + ?Sized> Player for GenPlayer<'_, E> {
    fn choose(&mut self, turn: &Turn<'_>) -> Reply {
        let (pos, history) = (turn.pos, turn.history);
        let mut log = self.log.borrow_mut();
        if log.claim.is_some() {
            log.adjudicated = true;
            return Reply::Resign; // the opponent's score passed the limit on its last move
        }
        let ply = history.len();
        if ply < log.opening_plies + self.cfg.random_plies as usize
            && unit(&mut log.rng) < self.cfg.random_prob
        {
            let legal = pos.legal_moves();
            let k = log.rng.below(legal.len());
            return legal.get(k).map_or(Reply::Resign, |&mv| Reply::Move(mv));
        }
        let control = Control::new();
        let result = Searcher::new(self.eval, self.table, &control, self.cfg.limits()).search(
            pos,
            history,
            |_| {},
        );
        let limit = self.cfg.eval_limit;
        let score = match result.score {
            Score::Cp(v) => v.clamp(-limit, limit),
            Score::Mate(n) if n > 0 => limit,
            Score::Mate(_) => -limit,
        };
        if ply >= self.cfg.skip_plies as usize {
            log.positions.push(PositionRecord {
                position: pos.clone(),
                score: score as i16,
                best_move: result.best,
                ply: pos.move_number(),
                result: GameResult::Unknown,
            });
        }
        if score <= -limit {
            log.adjudicated = true;
            return Reply::Resign;
        }
        if score >= limit {
            log.claim = Some(pos.side_to_move());
        }
        result.best.map_or(Reply::Resign, Reply::Move)
    }
}

/// Plays game `game` from `openings` (the opening drawn by the game's
/// generator) with `eval` on both sides, each with one of `tables` (cleared
/// here), under `cfg`.
///
/// Panics if `openings` is empty.
pub fn play_game<E: Evaluator + ?Sized>(
    eval: &E,
    openings: &[Opening],
    game: u64,
    cfg: &GenerateConfig,
    tables: &mut [TranspositionTable; 2],
) -> GeneratedGame {
    assert!(
        !openings.is_empty(),
        "generation needs at least one opening"
    );
    let mut rng = game_rng(cfg.seed, game);
    let opening = &openings[rng.below(openings.len())];
    let log = RefCell::new(GameLog {
        rng,
        opening_plies: opening.moves.len(),
        positions: Vec::new(),
        claim: None,
        adjudicated: false,
    });
    let [black_table, white_table] = tables;
    black_table.clear();
    white_table.clear();
    let mut black = GenPlayer {
        eval,
        table: black_table,
        cfg,
        log: &log,
    };
    let mut white = GenPlayer {
        eval,
        table: white_table,
        cfg,
        log: &log,
    };
    let r = referee(
        &opening.start,
        &opening.moves,
        &mut black,
        &mut white,
        &Rules::untimed(cfg.max_plies),
    );
    let log = log.into_inner();
    let adjudicated = log.adjudicated && r.end == GameEnd::Resign;
    let result = GameEnd::result(r.winner);
    let positions = log
        .positions
        .into_iter()
        .map(|mut p| {
            p.result = GameResult::for_side(result, p.position.side_to_move());
            p
        })
        .collect();
    GeneratedGame {
        game,
        opening_line: opening.line,
        start: opening.start.clone(),
        opening_plies: opening.moves.len(),
        moves: r.moves,
        end: r.end,
        adjudicated,
        winner: r.winner,
        positions,
    }
}
