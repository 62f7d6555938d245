//! KIF text (UTF-8 or Shift_JIS) into `record::kif::read`; every accepted game
//! round-trips through the KIF writer.
#![no_main]
use std::path::Path;

use kifulearn::record::{decode_text, ki2_writer, kif};
use kifulearn_fuzz::{check_games, round_trip, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = decode_text(data);
    for game in check_games(kif::read(&text, Path::new(PATH))) {
        round_trip(
            &game,
            &ki2_writer::write_kif(&game),
            kif::read,
            "the KIF writer",
        );
    }
});
