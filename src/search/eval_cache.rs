//! The values a search has already computed, for a costly evaluator.
//!
//! About a quarter of the static evaluations of an engine search are of
//! positions evaluated before in the same search (transpositions, and the
//! leaves of one iteration met again in the quiescence of the next: 25–30% at
//! depths 3 and 4 on the floodgate openings). For a model, whose evaluation is
//! a few hundred weight look-ups, remembering them is cheaper than
//! recomputing; for material it is not, so only evaluators that say they are
//! [`crate::eval::Evaluator::costly`] get a cache, and only searchers that evaluate more
//! than [`UNCACHED`] positions (a whole engine search, a labeller's). A value
//! is a function of the position alone, so a cached value is the value:
//! searches, node counts and moves are the same with the cache as without it
//! (`tests/speed_identical.rs`).
//!
//! Direct-mapped on the position's 64-bit hash, always replacing, checked on
//! the whole hash (as Stockfish's and YaneuraOu's evaluation hashes are).

use crate::shogi::Position;

/// Evaluations a searcher makes without a cache: the short searches that
/// learners and `evaluate --depth` make by the thousand (one quiescence, a few
/// dozen nodes) would pay more for a fresh table than they gain from it.
pub(super) const UNCACHED: u32 = 1024;

/// Entries: 2^14 of 16 bytes, 256 KB, which stays in the L2 cache beside the
/// model's hot weights.
const BITS: u32 = 14;

/// A direct-mapped table of `(hash, value)` of one evaluator.
#[derive(Clone, Debug)]
pub struct EvalCache {
    entries: Vec<Slot>,
}

#[derive(Clone, Copy, Debug, Default)]
struct Slot {
    key: u64,
    value: i32,
    filled: bool,
}

impl Default for EvalCache {
    fn default() -> Self {
        Self::new()
    }
}

impl EvalCache {
    /// An empty cache.
    pub fn new() -> Self {
        Self {
            entries: vec![Slot::default(); 1 << BITS],
        }
    }

    /// The value of `pos` under the searcher's evaluator: the remembered one
    /// if `pos` was evaluated before and its entry kept, otherwise the value
    /// `compute()` gives, remembered.
    #[inline]
    pub(super) fn value(&mut self, pos: &Position, compute: impl FnOnce() -> i32) -> i32 {
        let key = pos.hash();
        let slot = &mut self.entries[(key & ((1 << BITS) - 1)) as usize];
        if slot.filled && slot.key == key {
            return slot.value;
        }
        let value = compute();
        *slot = Slot {
            key,
            value,
            filled: true,
        };
        value
    }
}
