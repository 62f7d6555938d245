//! Test data for the unit tests in `src/`, all from `fixtures/` (so they run
//! without `../shared`): the bundled floodgate opening lines and liblinear's
//! golden example.

use crate::shogi::Position;

mod files;

pub use files::{fixture, floodgate_lines};

/// Every position (from the start, each ply) of the first `games` bundled
/// floodgate lines, replayed with `Position::play_usi`.
pub fn floodgate_positions(games: usize) -> Vec<Position> {
    let mut out = Vec::new();
    for line in floodgate_lines(games) {
        let mut pos = Position::startpos();
        out.push(pos.clone());
        let moves = line.split_once(" moves ").map_or("", |(_, m)| m);
        for mv in moves.split_whitespace() {
            pos.play_usi(mv).unwrap();
            out.push(pos.clone());
        }
    }
    out
}
