//! Where generated games start: the bundled training openings, plus a file,
//! never a test opening.
//!
//! Matches judge models from `fixtures/openings/match.sfen` (the last 600
//! lines of the floodgate-2016 set); a model trained on games from those
//! positions would be judged on what it learned from. So every opening line
//! whose final position (board, hands, side to move:
//! [`Position::hash`](crate::shogi::Position::hash), then the SFEN without
//! move number to rule out a hash collision) is the final position of a
//! match opening is refused and counted.

use std::path::Path;

use crate::arena::{read_openings, Opening, TestOpenings};
use crate::record::RecordError;

/// The bundled training openings: 30 floodgate-2016 lines from the training
/// part (lines 1–10231) of the set.
const BUNDLED: &str = include_str!("../../fixtures/floodgate-30.sfen");

/// Name under which the bundled training openings are reported.
pub const BUNDLED_OPENINGS_NAME: &str = "fixtures/floodgate-30.sfen";

/// The openings of a run and how many lines were refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OpeningSet {
    /// The openings games are drawn from: the bundled ones, then the file's.
    pub openings: Vec<Opening>,
    /// Lines refused because they end in a test (match) opening's position:
    /// the file's name and the 1-based line.
    pub refused: Vec<(String, usize)>,
}

/// The bundled openings ([`BUNDLED_OPENINGS_NAME`]) plus, when given, the lines
/// of `extra` (its text and path), without any line that ends in a test
/// opening's position (listed in [`OpeningSet::refused`]).
pub fn generation_openings(extra: Option<(&str, &Path)>) -> Result<OpeningSet, RecordError> {
    let test = TestOpenings::bundled();
    let mut set = OpeningSet {
        openings: Vec::new(),
        refused: Vec::new(),
    };
    let bundled = read_openings(BUNDLED, Path::new(BUNDLED_OPENINGS_NAME))?;
    let mut sources = vec![(BUNDLED_OPENINGS_NAME.to_string(), bundled)];
    if let Some((text, path)) = extra {
        sources.push((path.display().to_string(), read_openings(text, path)?));
    }
    for (name, openings) in sources {
        for o in openings {
            if test.ends_in(&o.position()) {
                set.refused.push((name.clone(), o.line));
            } else {
                set.openings.push(o);
            }
        }
    }
    Ok(set)
}
