//! Opening lines: where each game of a match starts.

use std::path::Path;

use crate::record::{usi, Location, RecordError};
use crate::shogi::{Move, Position};

/// The bundled test openings, `fixtures/openings/match.sfen`: the last 600
/// lines (10232–10831) of the floodgate-2016 opening set, less the 25 that open
/// games of the development self-play records (training data). Position
/// generation refuses them, and no training input of the bundled recipes
/// contains them.
const MATCH_OPENINGS: &str = include_str!("../../fixtures/openings/match.sfen");

/// Name under which the bundled openings are reported.
pub const DEFAULT_OPENINGS_NAME: &str = "fixtures/openings/match.sfen";

/// A start position and the moves played from it before the players take over.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Opening {
    /// 1-based line of the opening in its file (0 when not read from a file).
    pub line: usize,
    /// The start position (usually the even-game start).
    pub start: Position,
    /// The opening moves, each legal where it is played.
    pub moves: Vec<Move>,
}

impl Opening {
    /// The position after the opening moves.
    pub fn position(&self) -> Position {
        let mut pos = self.start.clone();
        for &mv in &self.moves {
            pos.play_unchecked(mv);
        }
        pos
    }
}

/// Reads USI position lines (`startpos moves ...`, `sfen ... moves ...`, with or
/// without `position `; blank and `#` lines skipped), one opening a line.
/// The first bad line is an error naming `path` and the line.
pub fn read_openings(text: &str, path: &Path) -> Result<Vec<Opening>, RecordError> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let game = usi::read(line, path)
            .pop()
            .ok_or_else(|| RecordError::at_line(path, i + 1, line, "a USI position line"))?;
        let game = game.map_err(|mut e| {
            e.location = Location::Line(i + 1);
            e
        })?;
        out.push(Opening {
            line: i + 1,
            start: game.start,
            moves: game.moves,
        });
    }
    if out.is_empty() {
        return Err(RecordError::at_line(
            path,
            1,
            "no opening line",
            "at least one USI position line",
        ));
    }
    Ok(out)
}

/// The bundled test openings ([`DEFAULT_OPENINGS_NAME`]), 575 lines.
pub fn default_openings() -> Vec<Opening> {
    read_openings(MATCH_OPENINGS, Path::new(DEFAULT_OPENINGS_NAME))
        .expect("the bundled openings are valid")
}

/// The final positions of the bundled test openings, to keep them out of
/// anything a model is trained on: a model that learned from games through a
/// test opening's position would be judged on what it learned from.
///
/// A position matches on its hash (board, hands, side to move), then on its
/// SFEN without the move number, ruling out a hash collision.
pub struct TestOpenings {
    ends: std::collections::HashMap<u64, Vec<String>>,
}

impl TestOpenings {
    /// The final positions of [`default_openings`].
    pub fn bundled() -> Self {
        let mut ends: std::collections::HashMap<u64, Vec<String>> = Default::default();
        for o in default_openings() {
            let pos = o.position();
            ends.entry(pos.hash()).or_default().push(board_sfen(&pos));
        }
        Self { ends }
    }

    /// `pos` is a test opening's final position.
    pub fn ends_in(&self, pos: &Position) -> bool {
        self.ends
            .get(&pos.hash())
            .is_some_and(|s| s.contains(&board_sfen(pos)))
    }

    /// Some position of `game` (its start included) is a test opening's
    /// final position.
    pub fn passed_by(&self, game: &crate::record::Game) -> bool {
        game.positions().any(|(pos, _)| self.ends_in(&pos))
    }

    /// `items` without those whose game [`TestOpenings::passed_by`] names
    /// (`game` gives an item's game, if it has one), and the sources
    /// (`source`, `path#index`) of the items left out, in order.
    pub fn leave_out<T>(
        &self,
        mut items: Vec<T>,
        game: impl Fn(&T) -> Option<&crate::record::Game>,
        source: impl Fn(&T) -> String,
    ) -> (Vec<T>, Vec<String>) {
        let mut left_out = Vec::new();
        items.retain(|item| {
            let through = game(item).is_some_and(|g| self.passed_by(g));
            if through {
                left_out.push(source(item));
            }
            !through
        });
        (items, left_out)
    }
}

/// What a learner says of the games it left out of training because they pass
/// through a test opening (`sources` as [`TestOpenings::leave_out`] gives
/// them); `None` when there are none.
pub fn left_out_line(sources: &[String]) -> Option<String> {
    sources.first().map(|first| {
        format!(
            "left out of training: {} game(s) through a test opening's position \
             (fixtures/openings/match.sfen, the matches' openings), first {first}",
            sources.len()
        )
    })
}

/// The board, hands and side to move of a position as SFEN (no move number).
fn board_sfen(pos: &Position) -> String {
    let sfen = pos.to_sfen();
    sfen.rsplit_once(' ')
        .map_or(sfen.as_str(), |(s, _)| s)
        .to_string()
}

/// The openings a match uses, in order: with a `seed`, `openings` shuffled by
/// that seed (SplitMix64, Fisher–Yates), otherwise in file order; then the
/// first `skip` dropped (wrapping around, so every line stays available).
pub fn select_openings(mut openings: Vec<Opening>, skip: usize, seed: Option<u64>) -> Vec<Opening> {
    if let Some(seed) = seed {
        crate::rng::SplitMix64(seed).shuffle(&mut openings);
    }
    if !openings.is_empty() {
        let k = skip % openings.len();
        openings.rotate_left(k);
    }
    openings
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bundled_openings_are_575_distinct_lines_of_24_plies() {
        let openings = default_openings();
        assert_eq!(openings.len(), 575);
        assert!(openings.iter().all(|o| o.moves.len() == 24));
        let mut finals: Vec<u64> = openings.iter().map(|o| o.position().hash()).collect();
        finals.sort_unstable();
        finals.dedup();
        assert_eq!(finals.len(), 575);
    }

    #[test]
    fn selection_is_a_seeded_rotation_of_the_same_lines() {
        let openings = default_openings();
        let skipped = select_openings(openings.clone(), 3, None);
        assert_eq!(skipped[0].line, 4);
        assert_eq!(skipped[574].line, 3);
        let a = select_openings(openings.clone(), 0, Some(7));
        let b = select_openings(openings.clone(), 0, Some(7));
        let c = select_openings(openings.clone(), 0, Some(8));
        assert_eq!(a, b);
        assert_ne!(a, c);
        let mut lines: Vec<usize> = a.iter().map(|o| o.line).collect();
        lines.sort_unstable();
        assert_eq!(lines, (1..=575).collect::<Vec<_>>());
    }

    #[test]
    fn a_bad_line_names_its_line() {
        let text = "startpos moves 7g7f\n\n# note\nstartpos moves 7g7f 7g7f\n";
        let e = read_openings(text, Path::new("o.sfen")).unwrap_err();
        assert_eq!(e.location, Location::Line(4), "{e}");
    }
}
