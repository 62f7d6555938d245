//! The two sides of a match: an evaluator searched in-process, or another
//! USI engine run as a child process (`usi_client`), and what each needs on
//! a game thread ([`Seat`]: a transposition table, or an engine process).
//!
//! An external engine ([`UsiPlayer`]) is told the game from its start
//! (`position sfen START moves ...`) and `go` with the clock (`go movetime
//! T`, `go btime B wtime W byoyomi Y` or `binc/winc`), or `go depth D` /
//! `go nodes N` in an untimed match. Every read has a deadline: the clock's
//! allowance plus the tolerance, or [`search_timeout`] without a clock.
//! A crash, no answer, or an answer that is no legal move here loses the
//! game (the referee's rules) and kills the process; the next game starts
//! another. Without a clock every game gets a fresh process, so that a game
//! does not depend on what the engine searched before (Fairy-Stockfish keeps
//! state across `usinewgame`) nor, with it, on `--jobs`; on a clock the
//! process is kept from game to game (the games depend on timing anyway).

use std::time::{Duration, Instant};

use super::referee::{Player, Reply, SearchPlayer, Turn};
use super::{MatchConfig, SideStats, Thinking};
use crate::eval::Evaluator;
use crate::search::TranspositionTable;
use crate::usi_client::{position_command, search_timeout, UsiClient, UsiError, UsiSpec};

/// One side of a match.
pub enum Side<'a, E: Evaluator + ?Sized> {
    /// This evaluator, searched in-process with our search.
    Search(&'a E),
    /// Another USI engine, one process per game thread.
    Usi(UsiSpec),
}

/// What a side needs on one game thread.
pub enum Seat {
    /// Its transposition table (cleared before every game).
    Table(TranspositionTable),
    /// Its engine process (started when first needed).
    Usi(UsiClient),
}

impl<E: Evaluator + ?Sized> Side<'_, E> {
    /// A seat for this side on a new game thread.
    pub fn seat(&self, cfg: &MatchConfig) -> Seat {
        match self {
            Side::Search(_) => Seat::Table(TranspositionTable::new(cfg.hash_mb)),
            Side::Usi(spec) => Seat::Usi(UsiClient::new(spec.clone())),
        }
    }

    /// A player for one game, in `seat` (made by [`Side::seat`]).
    pub fn player<'s>(&'s self, seat: &'s mut Seat, cfg: &MatchConfig) -> Box<dyn Player + 's> {
        match (self, seat) {
            (Side::Search(eval), Seat::Table(table)) => {
                table.clear();
                Box::new(SearchPlayer::new(*eval, table, cfg.limits()))
            }
            (Side::Usi(_), Seat::Usi(client)) => Box::new(UsiPlayer::new(client, cfg)),
            _ => panic!("a seat made for another side"),
        }
    }
}

/// An external USI engine playing one game.
pub struct UsiPlayer<'a> {
    client: &'a mut UsiClient,
    /// `go depth D` / `go nodes N` when the game has no clock.
    untimed_go: String,
    /// The wait for `bestmove` when the game has no clock.
    untimed_wait: Duration,
    /// Why the engine could not start the game, told at its first turn.
    unready: Option<String>,
    /// What it reported searching over the game.
    pub stats: SideStats,
}

impl<'a> UsiPlayer<'a> {
    /// A player for a new game with the engine of `client`: a fresh process
    /// without a clock, the running one (after `usinewgame`) on a clock.
    pub fn new(client: &'a mut UsiClient, cfg: &MatchConfig) -> Self {
        let limits = cfg.limits();
        let mut untimed_go = "go".to_string();
        if let Some(d) = limits.depth {
            untimed_go.push_str(&format!(" depth {d}"));
        }
        if let Some(n) = limits.nodes {
            untimed_go.push_str(&format!(" nodes {n}"));
        }
        let ready = if cfg.time.is_none() {
            client.fresh()
        } else {
            client.process().and_then(|p| p.new_game())
        };
        let unready = ready.err().map(|e| {
            client.fail();
            e.to_string()
        });
        Self {
            client,
            untimed_go,
            untimed_wait: search_timeout(limits.depth, limits.nodes),
            unready,
            stats: SideStats::default(),
        }
    }

    fn ask(&mut self, turn: &Turn<'_>) -> Result<Reply, UsiError> {
        let process = self.client.process()?;
        let (go, deadline) = match turn.clock {
            Some(clock) => (
                clock.go_command(),
                turn.deadline.unwrap_or_else(Instant::now),
            ),
            None => (self.untimed_go.clone(), Instant::now() + self.untimed_wait),
        };
        let answer = process.go(&position_command(turn.start, turn.moves), &go, deadline)?;
        self.stats.add(&SideStats {
            moves: 1,
            depth: u64::from(answer.info.depth.unwrap_or(0)),
            nodes: answer.info.nodes.unwrap_or(0),
            time: Thinking(answer.info.time.unwrap_or(answer.elapsed)),
        });
        Ok(match answer.best.as_str() {
            "resign" => Reply::Resign,
            best => match turn.pos.parse_move(best) {
                Ok(mv) => Reply::Move(mv),
                Err(_) => Reply::Illegal(format!("bestmove {best}")),
            },
        })
    }
}

impl Player for UsiPlayer<'_> {
    fn choose(&mut self, turn: &Turn<'_>) -> Reply {
        if let Some(why) = self.unready.take() {
            return Reply::Crashed(why);
        }
        let reply = match self.ask(turn) {
            Ok(reply) => reply,
            Err(e @ UsiError::Timeout { .. }) => Reply::NoAnswer(e.to_string()),
            Err(e) => Reply::Crashed(e.to_string()),
        };
        if !matches!(reply, Reply::Move(_) | Reply::Resign) {
            // Whatever state it is in, the next game gets a new process.
            self.client.fail();
        }
        reply
    }

    fn game_over(&mut self, won: Option<bool>) {
        if let Some(p) = self.client.running() {
            if p.game_over(won).is_err() {
                self.client.fail();
            }
        }
    }

    fn stats(&self) -> SideStats {
        self.stats
    }
}
