//! Test data for the unit tests in `src/`, all from `fixtures/` (so they run
//! from a clone alone): the bundled floodgate opening lines, the bundled
//! tournament games and liblinear's golden example.

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

/// Every position of the bundled tournament games (played to the end:
/// checks, mates, kings in the fight) and, with `children`, every position
/// one legal move from each.
pub fn tournament_positions(children: bool) -> Vec<Position> {
    let mut positions = Vec::new();
    for file in [
        "040501.csa",
        "olympiad2011-shokidoki-gps.csa",
        "wcsc20-0504-7-gpsshogi-otsukishogi.csa",
        "wcsc22-day3-7-ponanza.csa",
        "wcsc23-day2-4-ponanza.csa",
    ] {
        let path = fixture(&format!("tournament/{file}"));
        let game = crate::record::read_file(&path).games.remove(0).unwrap();
        let mut pos = game.start.clone();
        for &mv in &game.moves {
            positions.push(pos.clone());
            if children {
                pos.for_each_legal_move(|reply| {
                    let mut child = pos.clone();
                    child.play_unchecked(reply);
                    positions.push(child);
                });
            }
            pos.play(mv).unwrap();
        }
        positions.push(pos);
    }
    positions
}
