//! The rooms of `src/` import each other in one direction only (issue 14: no
//! import circle; learning does not import the engine).
//!
//! Reads the sources as text: every `crate::ROOM` path outside comments and
//! test code (`tests.rs` files, `tests/` folders, an inline `#[cfg(test)] mod
//! NAME { … }`, which the crate keeps at the end of a file) is an edge from the
//! room the file is in to `ROOM`. Each edge must point down [`ORDER`], the
//! room order of `docs/architecture.md`; so there is no circle. `train`
//! must not reach `engine`, directly or through other rooms. (`super::`
//! paths stay inside a room and are not read; `cli` is the binary's, outside
//! the library, and imports it as `kifulearn::`.)

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

/// The library's rooms, lowest first: a room may import only rooms before it.
const ORDER: &[&str] = &[
    "files",
    "rng",
    "shogi",
    "record",
    "positions",
    "features",
    "libsvm",
    "model",
    "eval",
    "search",
    "label",
    "engine",
    "usi_client",
    "arena",
    "teacher",
    "generate",
    "extract",
    "train",
    "pipeline",
];

/// Rooms compiled only for tests (`crate::testdata`): not part of the order.
const TEST_ONLY: &[&str] = &["testdata"];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The `.rs` files of `dir`, recursively, less test files.
fn sources(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        let name = path.file_name().unwrap().to_str().unwrap().to_string();
        if path.is_dir() {
            if name != "tests" {
                sources(&path, out);
            }
        } else if name.ends_with(".rs") && name != "tests.rs" {
            out.push(path);
        }
    }
}

/// The rooms `text` names as `crate::ROOM`, outside comments and the inline
/// test module.
fn imports(text: &str) -> BTreeSet<String> {
    let lines: Vec<&str> = text.lines().collect();
    let end = (0..lines.len())
        .find(|&i| {
            lines[i].trim() == "#[cfg(test)]"
                && lines
                    .get(i + 1)
                    .is_some_and(|l| l.starts_with("mod ") && l.trim_end().ends_with('{'))
        })
        .unwrap_or(lines.len());
    let mut rooms = BTreeSet::new();
    for line in &lines[..end] {
        let code = line.split("//").next().unwrap();
        for (at, _) in code.match_indices("crate::") {
            let rest = &code[at + "crate::".len()..];
            let room: String = rest
                .chars()
                .take_while(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || *c == '_')
                .collect();
            // `kifulearn_crate::x` or `some_crate::x` is not this crate.
            let before = code[..at].chars().next_back();
            if !room.is_empty() && !before.is_some_and(|c| c.is_alphanumeric() || c == '_') {
                rooms.insert(room);
            }
        }
    }
    rooms
}

/// Every edge `(from room, to room, file)` of the library.
fn edges() -> Vec<(String, String, PathBuf)> {
    let src = src();
    let mut out = Vec::new();
    for entry in std::fs::read_dir(&src).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap().to_string();
        if matches!(stem.as_str(), "lib" | "main" | "cli") || TEST_ONLY.contains(&stem.as_str()) {
            continue;
        }
        let mut files = Vec::new();
        if path.is_dir() {
            sources(&path, &mut files);
        } else {
            files.push(path.clone());
        }
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for to in imports(&text) {
                if to != stem {
                    out.push((
                        stem.clone(),
                        to,
                        file.strip_prefix(&src).unwrap().to_path_buf(),
                    ));
                }
            }
        }
    }
    out
}

#[test]
fn every_room_is_in_the_order() {
    for entry in std::fs::read_dir(src()).unwrap() {
        let path = entry.unwrap().path();
        let stem = path.file_stem().unwrap().to_str().unwrap();
        if matches!(stem, "lib" | "main" | "cli") || TEST_ONLY.contains(&stem) {
            continue;
        }
        assert!(
            ORDER.contains(&stem),
            "src/{stem} is not in tests/module_graph.rs's ORDER (and docs/architecture.md's room order): place it"
        );
    }
}

#[test]
fn imports_point_down_the_room_order() {
    let position = |room: &str| ORDER.iter().position(|r| *r == room);
    let edges = edges();
    // The reading is real: the rooms import each other a lot.
    assert!(edges.len() > 40, "only {} edges read", edges.len());
    let mut wrong = Vec::new();
    for (from, to, file) in &edges {
        if TEST_ONLY.contains(&to.as_str()) {
            wrong.push(format!(
                "{}: {from} -> {to} outside #[cfg(test)]",
                file.display()
            ));
            continue;
        }
        match (position(from), position(to)) {
            (Some(f), Some(t)) if t < f => {}
            (_, None) => wrong.push(format!("{}: crate::{to} is not a room", file.display())),
            _ => wrong.push(format!(
                "{}: {from} imports {to}, which comes after it in the room order",
                file.display()
            )),
        }
    }
    assert!(
        wrong.is_empty(),
        "imports against the room order:\n{}",
        wrong.join("\n")
    );
}

#[test]
fn learning_does_not_reach_the_engine() {
    // Not directly, and not through another room: the rooms `train` imports,
    // and theirs, and so on.
    let edges = edges();
    let mut reached = BTreeSet::from(["train".to_string()]);
    let mut via = Vec::new();
    loop {
        let next: Vec<_> = edges
            .iter()
            .filter(|(from, to, _)| reached.contains(from) && !reached.contains(to))
            .cloned()
            .collect();
        if next.is_empty() {
            break;
        }
        for (from, to, file) in next {
            via.push(format!("{from} -> {to} ({})", file.display()));
            reached.insert(to);
        }
    }
    assert!(
        reached.contains("search") && reached.contains("features"),
        "{reached:?}"
    );
    for room in ["engine", "cli"] {
        assert!(
            !reached.contains(room),
            "train reaches {room}:\n{}",
            via.join("\n")
        );
    }
}

#[test]
fn the_reader_sees_imports_and_skips_comments_and_tests() {
    let text = "use crate::shogi::Position;\n\
                // crate::engine in a comment\n\
                fn f() { crate::eval::Material::default(); } // crate::arena\n\
                #[cfg(test)]\nmod tests;\n\
                use crate::model::Model;\n\
                #[cfg(test)]\nmod tests {\n    use crate::engine::search;\n}\n";
    let got: Vec<_> = imports(text).into_iter().collect();
    assert_eq!(got, ["eval", "model", "shogi"]);
}
