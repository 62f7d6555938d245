//! The referee: plays one game between two [`Player`]s and decides how it ended.
//!
//! Only moves from [`Position::for_each_legal_move`] are ever played; a player
//! that returns no move, or a move outside that list, loses on the spot
//! (the move is not played). At each turn, in this order:
//!
//! 1. the side to move has no legal move: it loses ([`GameEnd::Checkmate`]);
//! 2. it may declare an entering-king win ([`can_declare_win`], the 27-point
//!    rule): it does, and wins ([`GameEnd::Declaration`]);
//! 3. `max_plies` moves have been played since the start position (opening
//!    moves included): draw ([`GameEnd::MaxPlies`]);
//! 4. otherwise the player moves. If the position after the move (board, hands
//!    and side to move: [`Position::hash`]) has now occurred four times, the
//!    game ends in sennichite: a draw ([`GameEnd::Repetition`]), unless one side
//!    gave check with every one of its moves since the first occurrence
//!    (連続王手の千日手): that side loses ([`GameEnd::PerpetualCheck`]).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use crate::eval::Evaluator;
use crate::search::{Control, EvalCache, Limits, PathEntry, Searcher, TranspositionTable};
use crate::shogi::declaration::can_declare_win;
use crate::shogi::{Color, Move, Position};

/// Chooses moves for one side.
pub trait Player {
    /// The move to play in `pos`; `history` holds the repetition entries of the
    /// game's positions before `pos` (oldest first). `None` resigns.
    fn choose(&mut self, pos: &Position, history: &[PathEntry]) -> Option<Move>;
}

/// A player that searches with an evaluator: [`Searcher::search`] under fixed
/// limits, its own transposition table, the game's history for repetitions.
pub struct SearchPlayer<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    table: &'a mut TranspositionTable,
    limits: Limits,
    /// Nodes searched over every move so far.
    pub nodes: u64,
    /// Time spent searching over every move so far.
    pub thinking: Duration,
    /// The evaluation cache of a costly evaluator, kept from move to move:
    /// each search meets again many positions that the one before evaluated.
    cache: Option<Box<EvalCache>>,
}

impl<'a, E: Evaluator + ?Sized> SearchPlayer<'a, E> {
    /// A player searching with `eval` and `table` (not cleared here) under `limits`.
    pub fn new(eval: &'a E, table: &'a mut TranspositionTable, limits: Limits) -> Self {
        Self {
            eval,
            table,
            limits,
            nodes: 0,
            thinking: Duration::ZERO,
            cache: eval.costly().then(|| Box::new(EvalCache::new())),
        }
    }
}

impl<E: Evaluator + ?Sized> Player for SearchPlayer<'_, E> {
    fn choose(&mut self, pos: &Position, history: &[PathEntry]) -> Option<Move> {
        let control = Control::new();
        let start = Instant::now();
        let mut searcher = Searcher::new(self.eval, self.table, &control, self.limits.clone());
        if let Some(cache) = self.cache.take() {
            searcher = searcher.with_eval_cache(cache);
        }
        let result = searcher.search(pos, history, |_| {});
        self.cache = searcher.take_eval_cache();
        self.thinking += start.elapsed();
        self.nodes += result.nodes;
        result.best
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    /// The side to move had no legal move and lost.
    Checkmate,
    /// The side to move gave no legal move (none, or one not in the legal list) and lost.
    Resign,
    /// Sennichite: the same position for the fourth time; a draw.
    Repetition,
    /// Sennichite in which this side checked on every one of its moves; it lost.
    PerpetualCheck {
        /// The side that gave the checks (the loser).
        checker: Color,
    },
    /// The side to move declared an entering-king win (入玉宣言) and won.
    Declaration,
    /// The ply limit was reached; a draw.
    MaxPlies,
}

impl GameEnd {
    /// The record's ending for this end, as the CSA writer codes it: mate and
    /// resignation as `%TORYO`, perpetual check as the checker's illegal action,
    /// the ply limit as `%JISHOGI`.
    pub fn ending(self) -> crate::record::Ending {
        use crate::record::Ending;
        match self {
            GameEnd::Checkmate | GameEnd::Resign => Ending::Resign,
            GameEnd::Repetition => Ending::Repetition,
            GameEnd::PerpetualCheck { checker } => Ending::IllegalAction(checker),
            GameEnd::Declaration => Ending::EnteringKingWin,
            GameEnd::MaxPlies => Ending::Impasse,
        }
    }

    /// The record's result for a game won by `winner` (`None`: a draw).
    pub fn result(winner: Option<Color>) -> crate::record::GameResult {
        use crate::record::GameResult;
        match winner {
            None => GameResult::Draw,
            Some(Color::Black) => GameResult::BlackWin,
            Some(Color::White) => GameResult::WhiteWin,
        }
    }

    /// A short name for reports: `checkmate`, `resign`, `sennichite`,
    /// `oute_sennichite`, `kachi`, `max_plies`.
    pub fn name(&self) -> &'static str {
        match self {
            GameEnd::Checkmate => "checkmate",
            GameEnd::Resign => "resign",
            GameEnd::Repetition => "sennichite",
            GameEnd::PerpetualCheck { .. } => "oute_sennichite",
            GameEnd::Declaration => "kachi",
            GameEnd::MaxPlies => "max_plies",
        }
    }
}

/// A refereed game: every move from the start position and how it ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Refereed {
    /// Every move from the start position, the opening's included.
    pub moves: Vec<Move>,
    /// How the game ended.
    pub end: GameEnd,
    /// The winner; `None` for a draw.
    pub winner: Option<Color>,
    /// The position after the last move.
    pub final_position: Position,
}

/// Plays a game from `start` after the `opening` moves (each must be legal),
/// `black` and `white` choosing the moves, under the rules of the module docs.
pub fn referee(
    start: &Position,
    opening: &[Move],
    black: &mut dyn Player,
    white: &mut dyn Player,
    max_plies: usize,
) -> Refereed {
    let mut pos = start.clone();
    let mut moves: Vec<Move> = Vec::new();
    let mut path = vec![PathEntry::of(&pos)];
    // Per position hash: how often it occurred and the path index of its first occurrence.
    let mut seen: HashMap<u64, (u32, usize)> = HashMap::new();
    seen.insert(pos.hash(), (1, 0));
    for &mv in opening {
        assert!(pos.is_legal(mv), "opening move {mv} is illegal");
        pos.play_unchecked(mv);
        moves.push(mv);
        path.push(PathEntry::of(&pos));
        seen.entry(pos.hash())
            .and_modify(|e| e.0 += 1)
            .or_insert((1, path.len() - 1));
    }
    let mut legal = Vec::new();
    let end = |end: GameEnd, winner: Option<Color>, moves: Vec<Move>, pos: Position| Refereed {
        moves,
        end,
        winner,
        final_position: pos,
    };
    loop {
        let side = pos.side_to_move();
        pos.legal_moves_into(&mut legal);
        if legal.is_empty() {
            return end(GameEnd::Checkmate, Some(!side), moves, pos);
        }
        if can_declare_win(&pos) {
            return end(GameEnd::Declaration, Some(side), moves, pos);
        }
        if moves.len() >= max_plies {
            return end(GameEnd::MaxPlies, None, moves, pos);
        }
        let player: &mut dyn Player = if side == Color::Black {
            &mut *black
        } else {
            &mut *white
        };
        let chosen = player.choose(&pos, &path[..path.len() - 1]);
        let Some(mv) = chosen.filter(|mv| legal.contains(mv)) else {
            return end(GameEnd::Resign, Some(!side), moves, pos);
        };
        pos.play_unchecked(mv);
        moves.push(mv);
        path.push(PathEntry::of(&pos));
        let now = path.len() - 1;
        let entry = seen.entry(pos.hash()).or_insert((0, now));
        entry.0 += 1;
        if entry.0 >= 4 {
            let first = entry.1;
            return match perpetual_checker(&path[first..], pos.side_to_move()) {
                Some(checker) => end(
                    GameEnd::PerpetualCheck { checker },
                    Some(!checker),
                    moves,
                    pos,
                ),
                None => end(GameEnd::Repetition, None, moves, pos),
            };
        }
    }
}

/// The side that gave check with every one of its moves over `span` (the path
/// from the first occurrence of the repeated position to its last, whose side
/// to move is `to_move`), if exactly one side did.
fn perpetual_checker(span: &[PathEntry], to_move: Color) -> Option<Color> {
    // span[k] for k ≥ 1 is the position after a move; `in_check` there says that
    // move gave check. The last move was made by `!to_move`, and moves alternate.
    let last = span.len() - 1;
    let all_checks = |mover: Color| {
        (1..=last)
            .filter(|&k| {
                let by_last_mover = (last - k).is_multiple_of(2);
                (if by_last_mover { !to_move } else { to_move }) == mover
            })
            .all(|k| span[k].in_check)
    };
    match (all_checks(Color::Black), all_checks(Color::White)) {
        (true, false) => Some(Color::Black),
        (false, true) => Some(Color::White),
        _ => None,
    }
}
