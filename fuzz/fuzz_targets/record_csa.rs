//! CSA text (as `read_file` decodes it: UTF-8 or Shift_JIS) into `record::csa::read`;
//! every accepted game round-trips through the CSA writer.
#![no_main]
use std::path::Path;

use kifulearn::record::{csa, csa_writer, decode_text};
use kifulearn_fuzz::{check_games, round_trip, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = decode_text(data);
    for game in check_games(csa::read(&text, Path::new(PATH))) {
        round_trip(
            &game,
            &csa_writer::to_csa(&game, &[]),
            csa::read,
            "the CSA writer",
        );
    }
});
