//! What the benches read: the records bundled in `fixtures/`, or, when
//! `KIFULEARN_SHARED` names the development collection (the folder holding
//! `kifu/` and `tools/`, kept beside the repository and not shipped), its
//! records, on which the figures of `docs/speed.md` were measured:
//! `KIFULEARN_SHARED=DIR cargo bench --bench speed`.

// Each bench uses part of it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// `$KIFULEARN_SHARED/kifu/SHARED` when the variable is set, else
/// `fixtures/BUNDLED`; with the name to print.
pub fn records(shared: &str, bundled: &str) -> (PathBuf, String) {
    match std::env::var_os("KIFULEARN_SHARED") {
        Some(dir) => (
            Path::new(&dir).join("kifu").join(shared),
            format!("the development collection's kifu/{shared}"),
        ),
        None => (
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("fixtures")
                .join(bundled),
            format!("fixtures/{bundled}"),
        ),
    }
}

/// The opening lines (`startpos moves …`, 24 plies each) the engine and
/// extraction benches start from: the floodgate-2016 set of the development
/// collection, else the 575 bundled lines of `fixtures/openings/match.sfen`
/// (the matches' test openings; a bench learns nothing from them).
pub fn opening_lines() -> (PathBuf, Vec<String>, String) {
    let (path, name) = records("floodgate2016-openings.sfen", "openings/match.sfen");
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let lines = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(String::from)
        .collect();
    (path, lines, name)
}
