//! The transposition table of the engine mode (the labelling mode has none).

use crate::shogi::Move;

use super::MATE_BOUND;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Bound {
    Exact,
    Lower,
    Upper,
}

#[derive(Clone, Copy, Debug)]
pub(super) struct Entry {
    pub(super) key: u64,
    pub(super) mv: Option<Move>,
    pub(super) score: i32,
    pub(super) depth: i16,
    pub(super) bound: Bound,
}

/// Transposition table: one entry per slot, depth-preferred replacement.
#[derive(Debug)]
pub struct TranspositionTable {
    entries: Vec<Option<Entry>>,
    mask: usize,
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

    pub(super) fn store(&mut self, key: u64, entry: Entry) {
        let slot = &mut self.entries[key as usize & self.mask];
        match slot {
            Some(old) if old.key != key && old.depth > entry.depth => {}
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
