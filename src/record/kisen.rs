//! Kisen reader (in progress).

use std::path::Path;

use super::{Game, RecordError};

/// Reads every game of a Kisen file, with its optional `.idx` companion.
pub fn read(_bytes: &[u8], _idx: Option<&[u8]>, path: &Path) -> Vec<Result<Game, RecordError>> {
    vec![Err(RecordError::at_byte(
        path,
        0,
        "",
        "a reader for this format (not written yet)",
    ))]
}
