//! The transposition table of the engine mode, and the quiescence table of
//! the capped labelling mode ([`super::Mode::quiescence_table`]).

use crate::shogi::Move;

use super::MATE_BOUND;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Exact,
    Lower,
    Upper,
}

impl Bound {
    /// What a fail-soft value `best` of a node searched with (`alpha`,
    /// `beta`) is: a lower bound at or above beta, an upper bound at or
    /// below alpha, exact between.
    pub(super) fn of(best: i32, alpha: i32, beta: i32) -> Self {
        if best >= beta {
            Bound::Lower
        } else if best > alpha {
            Bound::Exact
        } else {
            Bound::Upper
        }
    }

    /// Does a stored value `v` of this kind decide a node searched with
    /// (`alpha`, `beta`)? Exact, or a bound beyond the window on its side.
    pub(super) fn decides(self, v: i32, alpha: i32, beta: i32) -> bool {
        match self {
            Bound::Exact => true,
            Bound::Lower => v >= beta,
            Bound::Upper => v <= alpha,
        }
    }
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) key: u64,
    pub(super) mv: Option<Move>,
    pub(super) score: i32,
    pub(super) depth: i16,
    pub(super) bound: Bound,
    /// The table's [`TranspositionTable::new_search`] count when stored.
    pub(super) generation: u8,
}

/// Transposition table: one entry per slot, depth-preferred replacement
/// within a search; an entry from an earlier search (of a playing engine
/// that calls [`TranspositionTable::new_search`]) is always replaced, so
/// the table does not silt up with deep entries of positions long gone.
#[derive(Debug)]
pub struct TranspositionTable {
    entries: Vec<Option<Entry>>,
    mask: usize,
    generation: u8,
}

impl TranspositionTable {
    /// A table of at most `megabytes` MB (at least one slot), a power of two slots.
    pub fn new(megabytes: usize) -> Self {
        let slot = std::mem::size_of::<Option<Entry>>();
        let wanted = (megabytes.max(1) * 1024 * 1024 / slot).max(1);
        let slots = if wanted.is_power_of_two() {
            wanted
        } else {
            wanted.next_power_of_two() / 2
        };
        Self {
            entries: vec![None; slots],
            mask: slots - 1,
            generation: 0,
        }
    }

    /// Number of slots.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Always false: a table has at least one slot.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Forgets every entry (a new game).
    pub fn clear(&mut self) {
        self.entries.iter_mut().for_each(|e| *e = None);
    }

    pub(super) fn probe(&self, key: u64) -> Option<Entry> {
        self.entries[key as usize & self.mask].filter(|e| e.key == key)
    }

    /// A new search begins: what is stored from now on replaces the
    /// entries of earlier searches whatever their depth.
    pub fn new_search(&mut self) {
        self.generation = self.generation.wrapping_add(1);
    }

    /// The generation an entry stored now carries.
    pub(super) fn generation(&self) -> u8 {
        self.generation
    }

    pub(super) fn store(&mut self, key: u64, entry: Entry) {
        let slot = &mut self.entries[key as usize & self.mask];
        match slot {
            Some(old)
                if old.key != key
                    && old.depth > entry.depth
                    && old.generation == entry.generation => {}
            _ => *slot = Some(entry),
        }
    }
}

/// A mate score as stored: relative to the node, not the root.
pub(super) fn score_to_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v + ply as i32
    } else if v <= -MATE_BOUND {
        v - ply as i32
    } else {
        v
    }
}

/// A stored score back at `ply` from the root.
pub(super) fn score_from_tt(v: i32, ply: usize) -> i32 {
    if v >= MATE_BOUND {
        v - ply as i32
    } else if v <= -MATE_BOUND {
        v + ply as i32
    } else {
        v
    }
}

/// Quiescence values and bounds by position, kept from search to search.
///
/// Sound where a quiescence node's value depends on its position alone, as
/// in the labelling mode: no repetition, a side in check stands pat unless
/// mated (no evasion plies), no depth left to count. The one other input,
/// the ply cap [`super::MAX_PLY`], is out of reach there: a labelling
/// search is at most 4 full-width plies and its quiescence only captures,
/// of which there can be at most 38 in a row. Mate scores are stored
/// relative to the node. One entry per slot, the newest kept: 8,192 slots,
/// 128 KiB, which keeps it in the L2 cache. Within one sibling's search
/// in a real late middle game, a fifth of the quiescence nodes repeat a
/// position already searched (two captures played in either order).
#[derive(Debug)]
pub struct QuiescenceTable {
    slots: Vec<QuiescenceEntry>,
}

/// A slot: the position's hash (0: empty), its score and the bound it is.
#[derive(Clone, Copy, Debug)]
struct QuiescenceEntry {
    key: u64,
    score: i32,
    bound: Bound,
}

const QUIESCENCE_SLOTS: usize = 8192;

impl Default for QuiescenceTable {
    fn default() -> Self {
        Self::new()
    }
}

impl QuiescenceTable {
    /// An empty table.
    pub fn new() -> Self {
        Self {
            slots: vec![
                QuiescenceEntry {
                    key: 0,
                    score: 0,
                    bound: Bound::Exact,
                };
                QUIESCENCE_SLOTS
            ],
        }
    }

    /// The stored score at `ply` of the position with hash `key`, if it
    /// decides the node searched with (`alpha`, `beta`): exact, or a bound
    /// beyond the window on its side.
    #[inline]
    pub(super) fn probe(&self, key: u64, ply: usize, alpha: i32, beta: i32) -> Option<i32> {
        let e = self.slots[key as usize & (QUIESCENCE_SLOTS - 1)];
        if e.key != key || key == 0 {
            return None;
        }
        let v = score_from_tt(e.score, ply);
        e.bound.decides(v, alpha, beta).then_some(v)
    }

    /// Stores `best`, the fail-soft value at `ply` of the position with hash
    /// `key` searched with (`alpha`, `beta`).
    #[inline]
    pub(super) fn store(&mut self, key: u64, ply: usize, alpha: i32, beta: i32, best: i32) {
        self.slots[key as usize & (QUIESCENCE_SLOTS - 1)] = QuiescenceEntry {
            key,
            score: score_to_tt(best, ply),
            bound: Bound::of(best, alpha, beta),
        };
    }
}
