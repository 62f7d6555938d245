//! USI position lines (`startpos moves ...`, `sfen ... moves ...`) into
//! `record::usi::read`, and format sniffing of the same bytes.
#![no_main]
use std::path::Path;

use kifulearn::record::{decode_text, detect_format, usi};
use kifulearn_fuzz::{check_games, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = detect_format(Path::new(PATH), data);
    let text = decode_text(data);
    check_games(usi::read(&text, Path::new(PATH)));
});
