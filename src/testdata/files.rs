//! The bundled test files, with `std` only: shared by the unit tests
//! (`crate::testdata`) and the integration tests (`tests/common`, which
//! includes this file by path), so both read the same lines the same way.

use std::path::{Path, PathBuf};

/// A file under `fixtures/`.
pub fn fixture(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("fixtures")
        .join(path)
}

/// The first `n` bundled floodgate opening lines (`startpos moves …`, 24
/// plies each): the 30 lines of `fixtures/floodgate-30.sfen` (the first 30
/// of the floodgate-2016 opening set, `fixtures/README.md`), then the 575 of
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
