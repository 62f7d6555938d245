//! KI2 text (UTF-8 or Shift_JIS) into `record::ki2::read`; every accepted game
//! round-trips through the KI2 writer.
#![no_main]
use std::path::Path;

use kifulearn::record::{decode_text, ki2, ki2_writer};
use kifulearn_fuzz::{check_games, round_trip, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = decode_text(data);
    for game in check_games(ki2::read(&text, Path::new(PATH))) {
        round_trip(
            &game,
            &ki2_writer::write_ki2(&game),
            ki2::read,
            "the KI2 writer",
        );
    }
});
