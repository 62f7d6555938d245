//! Repetition (千日手): the positions of the game and of the search path.

use crate::shogi::{Move, Position};

/// A position of the game or search path, as repetition detection needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PathEntry {
    /// [`Position::hash`] of the position.
    pub hash: u64,
    /// Is the side to move in check there (was the move leading to it a check)?
    pub in_check: bool,
}

impl PathEntry {
    /// The entry for `pos`.
    pub fn of(pos: &Position) -> Self {
        Self {
            hash: pos.hash(),
            in_check: pos.in_check(),
        }
    }
}

/// The repetition entries of every position of a game: its start and after each move.
pub fn game_path(start: &Position, moves: &[Move]) -> Vec<PathEntry> {
    let mut pos = start.clone();
    let mut path = vec![PathEntry::of(&pos)];
    for &mv in moves {
        pos.play_unchecked(mv);
        path.push(PathEntry::of(&pos));
    }
    path
}

/// How a repetition ends, for the side to move in the repeated position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Repetition {
    /// Ordinary sennichite.
    Draw,
    /// The opponent checked on every move of the cycle: the side to move wins.
    Win,
    /// The side to move checked on every move of the cycle: it loses.
    Loss,
}

/// Looks for an earlier occurrence of the last position of `path` (same side to
/// move, so an even distance) and classifies the cycle. `None` if it is new.
pub fn find_repetition(path: &[PathEntry]) -> Option<Repetition> {
    let n = path.len();
    let last = *path.last()?;
    let mut j = n.checked_sub(5)?;
    loop {
        if path[j].hash == last.hash {
            let cycle = &path[j + 1..n];
            // cycle[k] is the position after the (k+1)-th move of the cycle. The side
            // to move at `last` made the moves leading to even k, its opponent those
            // leading to odd k; `in_check` there says the move gave check.
            let opponent_checked = cycle.iter().skip(1).step_by(2).all(|e| e.in_check);
            let we_checked = cycle.iter().step_by(2).all(|e| e.in_check);
            return Some(match (opponent_checked, we_checked) {
                (true, false) => Repetition::Win,
                (false, true) => Repetition::Loss,
                _ => Repetition::Draw,
            });
        }
        if j < 2 {
            return None;
        }
        j -= 2;
    }
}
