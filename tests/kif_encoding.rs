//! KIF encoding per file (issue 16): "One stray byte makes a whole UTF-8 KIF
//! decode as Shift_JIS and the game is lost, with the error at a later line."
//! A real UTF-8 record (fixtures/edo-kif, from ../shared/kifu) with one byte
//! corrupted stays UTF-8: the game survives a bad byte in a header, and a bad
//! byte in a move fails the game at that byte's line, naming the byte.

mod common;

use std::path::Path;

use kifulearn::record::read_file;

const KIF: &str = "fixtures/edo-kif/15732.kif";

/// The record with `byte` inserted into line `line` (1-based) after `chars` characters.
fn corrupt(name: &str, line: usize, chars: usize, byte: u8) -> (std::path::PathBuf, usize) {
    let text = std::fs::read_to_string(KIF).unwrap();
    let mut offset = 0;
    for (i, l) in text.split_inclusive('\n').enumerate() {
        if i + 1 == line {
            offset += l.char_indices().nth(chars).unwrap().0;
            break;
        }
        offset += l.len();
    }
    let mut bytes = text.into_bytes();
    bytes.insert(offset, byte);
    let dir = common::dir(&format!("kif-encoding-{name}"));
    let path = dir.join(format!("{name}.kif"));
    std::fs::write(&path, bytes).unwrap();
    (path, offset)
}

#[test]
fn a_stray_byte_in_a_header_keeps_the_game() {
    let original = read_file(Path::new(KIF));
    let want = original.games[0].as_ref().unwrap();
    // Line 5 is `先手：伊藤印達`; 0x81 is a Shift_JIS lead byte, not UTF-8.
    let (path, offset) = corrupt("header", 5, 3, 0x81);
    let read = read_file(&path);
    let game = read.games[0].as_ref().expect("the game is read");
    assert_eq!(game.moves, want.moves);
    assert_eq!((game.result, &game.ending), (want.result, &want.ending));
    assert!(game.white == want.white && game.black.as_deref() != want.black.as_deref());
    let warning = format!(
        "invalid UTF-8 at line 5, column 4 (byte offset {offset}): 0x81; \
         read as U+FFFD, the rest of the file is UTF-8"
    );
    assert!(game.warnings.contains(&warning), "{:?}", game.warnings);
    // The command line says so on stderr, even with -q.
    let out = common::run_ok(&["games", path.to_str().unwrap(), "-q"]);
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!("warning: {}: {warning}\n", path.display())
    );
    assert!(String::from_utf8_lossy(&out.stdout).contains("kif, 1 ok, 0 failed"));
}

#[test]
fn a_stray_byte_in_a_move_fails_at_its_line_and_names_it() {
    // Line 18 is `   2 ３四歩(33)   (00:00/00:00:00)`; the byte goes after `３`.
    let (path, offset) = corrupt("move", 18, 6, 0xFF);
    let read = read_file(&path);
    let err = read.games[0].as_ref().unwrap_err().to_string();
    assert!(
        err.starts_with(&format!(
            "{}:line 18: found \"2 ３\u{FFFD}四歩(33)",
            path.display()
        )),
        "{err}"
    );
    assert!(
        err.ends_with(&format!(
            "(invalid UTF-8 here: line 18, column 7 (byte offset {offset}): 0xFF, read as U+FFFD)"
        )),
        "{err}"
    );
}

#[test]
fn shift_jis_files_are_still_read_and_the_fallback_reported() {
    // The same record in Shift_JIS reads as the same game.
    let text = std::fs::read_to_string(KIF).unwrap();
    let (sjis, _, unmappable) = encoding_rs::SHIFT_JIS.encode(&text);
    assert!(!unmappable);
    let dir = common::dir("kif-encoding-sjis");
    let path = dir.join("sjis.kif");
    std::fs::write(&path, &sjis).unwrap();
    let utf8 = read_file(Path::new(KIF));
    let read = read_file(&path);
    let (a, b) = (
        utf8.games[0].as_ref().unwrap(),
        read.games[0].as_ref().unwrap(),
    );
    assert_eq!(
        (&a.moves, &a.black, &a.white),
        (&b.moves, &b.black, &b.white)
    );
    let out = common::run_ok(&["games", path.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(
        err.starts_with(&format!(
            "warning: {}: not UTF-8 (first invalid byte at line 1, column 1 (byte offset 0): 0x8A); \
             read as Shift_JIS",
            path.display()
        )),
        "{err}"
    );
}
