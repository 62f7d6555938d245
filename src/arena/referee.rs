//! The referee: plays one game between two [`Player`]s and decides how it ended.
//!
//! Only moves from [`Position::for_each_legal_move`] are ever played. At each
//! turn, in this order:
//!
//! 1. the side to move has no legal move: it loses ([`GameEnd::Checkmate`]);
//! 2. it may declare an entering-king win ([`can_declare_win`], the 27-point
//!    rule): it does, and wins ([`GameEnd::Declaration`]);
//! 3. `max_plies` moves have been played since the start position (opening
//!    moves included): draw ([`GameEnd::MaxPlies`]);
//! 4. otherwise the player moves. A player that fails loses on the spot,
//!    nothing played: it crashed ([`GameEnd::Crash`]), gave no answer by its
//!    deadline or answered later than its time allows plus the tolerance
//!    ([`GameEnd::TimeUp`]), resigned ([`GameEnd::Resign`]) or answered a
//!    move that is not legal here, a false `win` or no move
//!    ([`GameEnd::IllegalMove`]). The referee times every answer itself, for
//!    every kind of player, and says why in [`Refereed::detail`];
//! 5. if the position after the move (board, hands and side to move:
//!    [`Position::hash`]) has now occurred four times, the game ends in
//!    sennichite: a draw ([`GameEnd::Repetition`]), unless one side gave check
//!    with every one of its moves since the first occurrence (連続王手の千日手):
//!    that side loses ([`GameEnd::PerpetualCheck`]).

use std::collections::HashMap;
use std::time::{Duration, Instant};

use super::clock::{GameClock, TimeControl};
use super::SideStats;
use crate::eval::Evaluator;
use crate::search::{Control, Limits, PathEntry, SearchMemory, Searcher, TranspositionTable};
use crate::shogi::declaration::can_declare_win;
use crate::shogi::{Color, Move, Position};

/// What a player is told at its turn.
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a> {
    /// The game's start position.
    pub start: &'a Position,
    /// Every move from `start` so far, the opening's included.
    pub moves: &'a [Move],
    /// The position to move in.
    pub pos: &'a Position,
    /// The repetition entries of the game's positions before `pos` (oldest first).
    pub history: &'a [PathEntry],
    /// Both sides' clocks, when the game is played on time.
    pub clock: Option<&'a GameClock>,
    /// When an answer not yet given loses on time (the clock's allowance
    /// plus the tolerance); a player that waits for one stops waiting then.
    pub deadline: Option<Instant>,
}

/// A player's answer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Reply {
    /// This move (the referee checks that it is legal).
    Move(Move),
    /// It resigns.
    Resign,
    /// It answered something that is no move of the position (shown as given).
    Illegal(String),
    /// It failed: crashed, or its answer could not be read (why).
    Crashed(String),
    /// It gave no answer by the deadline (why).
    NoAnswer(String),
}

/// Chooses moves for one side.
pub trait Player {
    /// The answer for `turn`.
    fn choose(&mut self, turn: &Turn<'_>) -> Reply;

    /// The game is over: won (`Some(true)`), lost or drawn (`None`).
    fn game_over(&mut self, _won: Option<bool>) {}

    /// What it searched over the game so far.
    fn stats(&self) -> SideStats {
        SideStats::default()
    }
}

/// What a game is played under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rules {
    /// Plies from the start position (opening moves included) after which
    /// the game is drawn.
    pub max_plies: usize,
    /// The time control, if the game is played on time.
    pub time: Option<TimeControl>,
    /// Added to the time a move is allowed before it is lost on time.
    pub tolerance: Duration,
}

impl Rules {
    /// No clock: only `max_plies`.
    pub fn untimed(max_plies: usize) -> Self {
        Self {
            max_plies,
            time: None,
            tolerance: Duration::ZERO,
        }
    }
}

/// A player that searches with an evaluator: [`Searcher::search`] under the
/// match's limits (and the clock, when the game is timed), its own
/// transposition table, the game's history for repetitions.
pub struct SearchPlayer<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    table: &'a mut TranspositionTable,
    limits: Limits,
    /// What it searched over every move so far.
    pub stats: SideStats,
    /// The evaluation cache and the history table, kept from move to move
    /// of its game ([`SearchMemory`]): each search meets again many
    /// positions and good quiet moves that the one before met.
    memory: SearchMemory,
}

impl<'a, E: Evaluator + ?Sized> SearchPlayer<'a, E> {
    /// A player searching with `eval` and `table` (not cleared here) under `limits`.
    pub fn new(eval: &'a E, table: &'a mut TranspositionTable, limits: Limits) -> Self {
        Self {
            eval,
            table,
            limits,
            stats: SideStats::default(),
            memory: SearchMemory::for_evaluator(eval),
        }
    }
}

impl<E: Evaluator + ?Sized> Player for SearchPlayer<'_, E> {
    fn choose(&mut self, turn: &Turn<'_>) -> Reply {
        let control = Control::new();
        let start = Instant::now();
        let limits = match turn.clock {
            Some(clock) => clock
                .move_clock(turn.pos.side_to_move())
                .limits(self.limits.clone()),
            None => self.limits.clone(),
        };
        let mut searcher = Searcher::player(self.eval, self.table, &control, limits)
            .with_memory(std::mem::take(&mut self.memory));
        let result = searcher.search(turn.pos, turn.history, |_| {});
        self.memory = searcher.take_memory();
        self.stats.add(&SideStats {
            moves: 1,
            depth: u64::from(result.depth),
            nodes: result.nodes,
            time: super::Thinking(start.elapsed()),
        });
        match result.best {
            Some(mv) => Reply::Move(mv),
            None => Reply::Resign,
        }
    }

    fn stats(&self) -> SideStats {
        self.stats
    }
}

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameEnd {
    /// The side to move had no legal move and lost.
    Checkmate,
    /// The side to move resigned (`bestmove resign`; a search with no move).
    Resign,
    /// The side to move answered a move that is not legal here (or a false
    /// `win`, or nothing) and lost; the move was not played.
    IllegalMove,
    /// The side to move answered too late, or not at all, and lost.
    TimeUp,
    /// This side (to move) crashed or could not be read, and lost.
    Crash {
        /// The side that failed (the loser).
        side: Color,
    },
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
    /// resignation as `%TORYO`, an illegal move `%ILLEGAL_MOVE` and a time
    /// loss `%TIME_UP` (the side to move lost), a crash and perpetual check
    /// as the failing side's `%±ILLEGAL_ACTION`, the ply limit as `%JISHOGI`.
    pub fn ending(self) -> crate::record::Ending {
        use crate::record::Ending;
        match self {
            GameEnd::Checkmate | GameEnd::Resign => Ending::Resign,
            GameEnd::IllegalMove => Ending::IllegalMove,
            GameEnd::TimeUp => Ending::TimeUp,
            GameEnd::Crash { side } => Ending::IllegalAction(side),
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

    /// A short name for reports: `checkmate`, `resign`, `illegal_move`,
    /// `time_up`, `crash`, `sennichite`, `oute_sennichite`, `kachi`, `max_plies`.
    pub fn name(&self) -> &'static str {
        match self {
            GameEnd::Checkmate => "checkmate",
            GameEnd::Resign => "resign",
            GameEnd::IllegalMove => "illegal_move",
            GameEnd::TimeUp => "time_up",
            GameEnd::Crash { .. } => "crash",
            GameEnd::Repetition => "sennichite",
            GameEnd::PerpetualCheck { .. } => "oute_sennichite",
            GameEnd::Declaration => "kachi",
            GameEnd::MaxPlies => "max_plies",
        }
    }

    /// The end named `name` ([`GameEnd::name`]) of a game won by `winner`
    /// (`None`: a draw); `None` for an unknown name, or a name that does not
    /// fit the result (a crash or a perpetual check names its loser).
    pub fn from_name(name: &str, winner: Option<Color>) -> Option<GameEnd> {
        let end = match name {
            "checkmate" => GameEnd::Checkmate,
            "resign" => GameEnd::Resign,
            "illegal_move" => GameEnd::IllegalMove,
            "time_up" => GameEnd::TimeUp,
            "crash" => GameEnd::Crash { side: !winner? },
            "sennichite" => GameEnd::Repetition,
            "oute_sennichite" => GameEnd::PerpetualCheck { checker: !winner? },
            "kachi" => GameEnd::Declaration,
            "max_plies" => GameEnd::MaxPlies,
            _ => return None,
        };
        let drawn = matches!(end, GameEnd::Repetition | GameEnd::MaxPlies);
        (drawn == winner.is_none()).then_some(end)
    }

    /// Whether a player failed (crash, time, illegal move): a fault, not a
    /// result of the play.
    pub fn is_fault(&self) -> bool {
        matches!(
            self,
            GameEnd::IllegalMove | GameEnd::TimeUp | GameEnd::Crash { .. }
        )
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
    /// Why a player failed, when one did ([`GameEnd::is_fault`]).
    pub detail: Option<String>,
}

/// Plays a game from `start` after the `opening` moves (each must be legal),
/// `black` and `white` choosing the moves, under `rules` and the rules of
/// the module docs. Both players are told the result at the end.
pub fn referee(
    start: &Position,
    opening: &[Move],
    black: &mut dyn Player,
    white: &mut dyn Player,
    rules: &Rules,
) -> Refereed {
    let r = play(start, opening, black, white, rules);
    black.game_over(r.winner.map(|w| w == Color::Black));
    white.game_over(r.winner.map(|w| w == Color::White));
    r
}

fn play(
    start: &Position,
    opening: &[Move],
    black: &mut dyn Player,
    white: &mut dyn Player,
    rules: &Rules,
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
    let mut clock = rules.time.map(GameClock::new);
    let mut legal = Vec::new();
    let end = |end: GameEnd, winner: Option<Color>, moves: Vec<Move>, pos: Position| Refereed {
        moves,
        end,
        winner,
        final_position: pos,
        detail: None,
    };
    let fault = |end: GameEnd, detail: String, moves: Vec<Move>, pos: Position| {
        let loser = pos.side_to_move();
        Refereed {
            moves,
            end,
            winner: Some(!loser),
            final_position: pos,
            detail: Some(detail),
        }
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
        if moves.len() >= rules.max_plies {
            return end(GameEnd::MaxPlies, None, moves, pos);
        }
        let player: &mut dyn Player = if side == Color::Black {
            &mut *black
        } else {
            &mut *white
        };
        if let Some(c) = clock.as_mut() {
            c.start_turn(side);
        }
        let allowed = clock.as_ref().map(|c| c.allowed(side));
        let asked = Instant::now();
        let reply = player.choose(&Turn {
            start,
            moves: &moves,
            pos: &pos,
            history: &path[..path.len() - 1],
            clock: clock.as_ref(),
            deadline: allowed.map(|a| asked + a + rules.tolerance),
        });
        let used = asked.elapsed();
        let late = allowed.filter(|&a| used > a + rules.tolerance);
        let mv = match reply {
            Reply::Crashed(why) => return fault(GameEnd::Crash { side }, why, moves, pos),
            Reply::NoAnswer(why) => return fault(GameEnd::TimeUp, why, moves, pos),
            _ if late.is_some() => {
                let why = format!(
                    "answered after {} ms; {} ms allowed + {} ms tolerance",
                    used.as_millis(),
                    late.unwrap_or_default().as_millis(),
                    rules.tolerance.as_millis()
                );
                return fault(GameEnd::TimeUp, why, moves, pos);
            }
            Reply::Resign => return end(GameEnd::Resign, Some(!side), moves, pos),
            Reply::Illegal(what) => {
                let why = format!("answered {what:?}, not a legal move here");
                return fault(GameEnd::IllegalMove, why, moves, pos);
            }
            Reply::Move(mv) if !legal.contains(&mv) => {
                let why = format!("answered {mv}, not a legal move here");
                return fault(GameEnd::IllegalMove, why, moves, pos);
            }
            Reply::Move(mv) => mv,
        };
        if let Some(c) = clock.as_mut() {
            c.spend(side, used);
        }
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
