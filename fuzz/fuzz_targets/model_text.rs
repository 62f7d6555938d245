//! liblinear text models (with an optional sidecar after `#meta.toml`) into
//! `Model::from_bytes`, the checks of `Model::load`; an accepted text model
//! prints and reads back to the same weights.
#![no_main]
use std::path::Path;

use kifulearn::model::Model;
use kifulearn_fuzz::{split_meta, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (bytes, meta) = split_meta(data);
    match Model::from_bytes(Path::new(PATH), bytes, meta) {
        Ok(model) => {
            let again = Model::from_text(Path::new(PATH), &model.to_text())
                .expect("a model's own text reads back");
            assert_eq!(again.w.len(), model.w.len());
            for (a, b) in again.w.iter().zip(&model.w) {
                assert!(a == b || (a.is_nan() && b.is_nan()), "{a} read back as {b}");
            }
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
