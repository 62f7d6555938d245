//! Binary models (`KFLM` + header + dense or sparse weights; an optional sidecar
//! after `#meta.toml`) into `Model::from_bytes`; an accepted model's binary
//! form reads back to the same model.
#![no_main]
use std::path::Path;

use kifulearn::model::Model;
use kifulearn_fuzz::{split_meta, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (bytes, meta) = split_meta(data);
    let _ = Model::from_binary(Path::new(PATH), bytes);
    match Model::from_bytes(Path::new(PATH), bytes, meta) {
        Ok(model) => {
            let again = Model::from_binary(Path::new(PATH), &model.to_binary())
                .expect("a model's own binary form reads back");
            assert_eq!(again.w.len(), model.w.len());
            assert_eq!(again.features, model.features);
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
