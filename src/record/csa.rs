//! csa reader (in progress).

use std::path::Path;

use super::{Game, RecordError};

/// Reads every game of a csa text.
pub fn read(_text: &str, path: &Path) -> Vec<Result<Game, RecordError>> {
    vec![Err(RecordError::at_line(
        path,
        1,
        "",
        "a reader for this format (not written yet)",
    ))]
}
