//! What one search hands to the next search with the same evaluator.
//!
//! A player searches once per move, and the searches of one game meet the
//! same positions and the same good quiet moves again: the evaluation cache
//! of a costly evaluator ([`EvalCache`]) and the selective search's history
//! table ([`History`], step 9 in `docs/search.md`) are worth keeping from
//! one search to the next. Both have the same lifetime (they are valid for
//! one evaluator; the USI engine drops them at `usinewgame` or when an
//! option changes the evaluation, a match's player at the end of its game),
//! so they travel together: [`Searcher::with_memory`] hands a memory to a
//! searcher and [`Searcher::take_memory`] takes it back, and the USI engine,
//! `match`'s players and the agreement ranker each keep one
//! `SearchMemory`.

use super::{EvalCache, History, Searcher};
use crate::eval::Evaluator;

/// The evaluation cache and the history table, kept between searches with
/// one evaluator. A value cached with one evaluator is taken as the value by
/// the next search, so a memory must not outlive its evaluator.
#[derive(Debug, Default)]
pub struct SearchMemory {
    /// Values already computed, when the evaluator is
    /// [`Evaluator::costly`].
    pub(super) eval_cache: Option<Box<EvalCache>>,
    /// The history table of the last selective search (empty before one,
    /// and for the exact modes, which never keep one).
    pub(super) history: History,
}

impl SearchMemory {
    /// An empty memory for searches with `eval`: with an evaluation cache
    /// from the first evaluation on if the evaluator is costly. (A searcher
    /// handed no cache makes one itself only after its first
    /// `eval_cache::UNCACHED` evaluations, which short searches, such as
    /// the agreement ranker's, never reach.)
    pub fn for_evaluator<E: Evaluator + ?Sized>(eval: &E) -> Self {
        Self {
            eval_cache: eval.costly().then(|| Box::new(EvalCache::new())),
            history: History::default(),
        }
    }
}

impl<E: Evaluator + ?Sized> Searcher<'_, E> {
    /// This searcher with what the previous search with the same evaluator
    /// left ([`Searcher::take_memory`]): its evaluation cache is used from
    /// the first evaluation on, and, in the selective search, its history
    /// table orders quiet moves from the first iteration on instead of
    /// being learnt again each move (Stockfish clears its history only at
    /// `ucinewgame`). The exact modes ignore the history table.
    pub fn with_memory(mut self, memory: SearchMemory) -> Self {
        let SearchMemory {
            eval_cache,
            history,
        } = memory;
        if eval_cache.is_some() {
            self.eval_cache = eval_cache;
        }
        if self.mode.selective && !history.is_empty() {
            self.history = history;
        }
        self
    }

    /// What this searcher leaves for the next search with the same
    /// evaluator (it is left without cache or history table).
    pub fn take_memory(&mut self) -> SearchMemory {
        SearchMemory {
            eval_cache: self.eval_cache.take(),
            history: std::mem::take(&mut self.history),
        }
    }
}
