//! Kisen (棋泉) binaries into `record::kisen::read`. The first byte chooses the
//! `.idx` companion: even, none; odd, the last `data[1]` × 4 bytes of the input
//! (results and handicaps). Every accepted game that Kisen can encode (with its
//! `.idx` record) reads back.
#![no_main]
use std::path::Path;

use kifulearn::record::kisen;
use kifulearn_fuzz::{check_games, same_game, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    let (bytes, idx) = if mode & 1 == 1 && !rest.is_empty() {
        let n = (usize::from(rest[0]) * 4).min(rest.len() - 1);
        let rest = &rest[1..];
        let (games, idx) = rest.split_at(rest.len() - n);
        (games, Some(idx))
    } else {
        (rest, None)
    };
    for game in check_games(kisen::read(bytes, idx, Path::new(PATH))) {
        // A handicap lives in the .idx, which cannot hold an unknown result:
        // such a game has no Kisen form to read back.
        let idx = kisen::encode_index(std::slice::from_ref(&game)).ok();
        let handicap = kisen::handicap_code(&game.start) != Some(0);
        if let (Ok(record), false) = (kisen::encode(&game), handicap && idx.is_none()) {
            if record.iter().all(|&b| b == 0) {
                continue; // an even game of no move: Kisen's empty slot, read as no game
            }
            let back = kisen::read(&record, idx.as_deref(), Path::new(PATH));
            assert_eq!(back.len(), 1, "an encoded game is one Kisen record");
            match &back[0] {
                Ok(b) => same_game(&game, b, "the Kisen encoder"),
                Err(e) => panic!("an encoded game does not read back: {e}"),
            }
        }
    }
});
