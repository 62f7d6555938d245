//! How every learner reports while it fits: one [`Event`] type and one
//! [`Observer`] (issue 14: the SVR, ranking, streaming and positions learners
//! had four mechanisms — a callback in the SVR's parameters, a trait, and two
//! `FnMut` closures with their own event enums).
//!
//! A learner takes `&dyn Observer` (the SVR, behind linfa's `Fit`, holds one
//! in its parameters: [`crate::train::SvrParams::observer`]) and calls
//! [`Observer::event`] with what it has just done. Each learner's figures stay
//! its own type ([`Progress`], [`super::ranking::EpochReport`], [`EpochStats`],
//! [`super::positions::EpochReport`]); the event says which learner and which moment.
//! Any `Fn(&Event) + Sync` closure is an observer, and [`Quiet`] ignores all.
//!
//! Observers must be `Sync`: the ranking learner reports a finished game from
//! its worker threads. Events are reported in the order the learner does the
//! work; figures are the learner's, so an observer changes nothing it computes.

use super::positions::EpochReport as PositionsEpoch;
use super::ranking::EpochReport as RankingEpoch;
use super::streaming::EpochStats;
use super::svr::Progress;

/// What a learner has just done.
#[derive(Debug, Clone, Copy)]
pub enum Event<'a> {
    /// The SVR: one solver iteration (a Newton step or a dual epoch).
    Iteration(&'a Progress),
    /// The ranking learner: an epoch starts over `games` games.
    EpochStart {
        /// 1-based epoch.
        epoch: usize,
        /// Games of the epoch.
        games: usize,
    },
    /// The ranking learner: one more game of the epoch is done (reported
    /// from a worker thread).
    Game,
    /// The streaming learner: a file was learned from (and its batch updated,
    /// if it closed one).
    File {
        /// 1-based epoch.
        epoch: usize,
        /// Files done in this epoch, counting this one.
        done: usize,
    },
    /// The positions learner, streamed: a chunk's leaves are built or read,
    /// and about to be used.
    Chunk(Chunk),
    /// An epoch ended, with the learner's figures.
    Epoch(Epoch<'a>),
}

/// A chunk of the streamed positions learner ([`Event::Chunk`]).
#[derive(Debug, Clone, Copy)]
pub struct Chunk {
    /// 1-based epoch.
    pub epoch: usize,
    /// A held-out chunk (measured, not trained on).
    pub held_out: bool,
    /// Positions held now (the chunk's leaves).
    pub positions: usize,
    /// Nominal positions of this pass so far, this chunk included.
    pub done: u64,
    /// Nominal positions of the pass.
    pub total: u64,
    /// Read from the leaf cache (not decoded and searched).
    pub cached: bool,
}

/// An epoch's figures, by learner ([`Event::Epoch`]).
#[derive(Debug, Clone, Copy)]
pub enum Epoch<'a> {
    /// The ranking learner's epoch.
    Ranking(&'a RankingEpoch),
    /// The streaming learner's epoch.
    Streaming(&'a EpochStats),
    /// The positions learner's epoch (in memory or streamed; epoch 0 is the
    /// prior, before any step).
    Positions(&'a PositionsEpoch),
}

/// Watches a fit. Called from worker threads (so `Sync`), in the order the
/// learner does the work.
pub trait Observer: Sync {
    /// `event` happened.
    fn event(&self, event: &Event<'_>);
}

impl<F: Fn(&Event<'_>) + Sync> Observer for F {
    fn event(&self, event: &Event<'_>) {
        self(event)
    }
}

/// An observer that ignores everything.
#[derive(Clone, Copy, Debug, Default)]
pub struct Quiet;

impl Observer for Quiet {
    fn event(&self, _: &Event<'_>) {}
}
