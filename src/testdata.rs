//! Test data for the unit tests in `src/`, all from `fixtures/` (so they run
//! without `../shared`): the bundled floodgate opening lines and liblinear's
//! golden example.

use std::path::{Path, PathBuf};

use crate::shogi::Position;

/// A file under `fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path)
}

/// The first `n` bundled floodgate opening lines (`startpos moves …`, 24
/// plies each): the 30 lines of `fixtures/floodgate-30.sfen` (the first 30
/// of `../shared/kifu/floodgate2016-openings.sfen`), then the 575 of
/// `fixtures/openings/match.sfen`. Panics if `n` is more than 605.
pub fn floodgate_lines(n: usize) -> Vec<String> {
    let mut lines = Vec::new();
    for file in ["floodgate-30.sfen", "openings/match.sfen"] {
        let path = fixture(file);
        let text =
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        lines.extend(
            text.lines()
                .filter(|l| !l.trim().is_empty())
                .map(String::from),
        );
    }
    assert!(n <= lines.len(), "only {} bundled lines", lines.len());
    lines.truncate(n);
    lines
}

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
