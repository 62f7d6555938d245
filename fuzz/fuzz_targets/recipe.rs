//! Recipe TOML into `Recipe::parse` (deserialisation and every value check).
#![no_main]
use std::path::Path;

use kifulearn::pipeline::recipe::Recipe;
use kifulearn_fuzz::PATH;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Err(e) = Recipe::parse(text, Path::new(PATH)) {
        let _ = e.to_string();
    }
});
