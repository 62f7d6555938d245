//! Binary models (`KFLM` + header + dense or sparse weights; an optional sidecar
//! after `#meta.toml`; an optional META section after the weights) into
//! `Model::from_bytes` and `Model::binary_meta`; an accepted model's binary
//! form, with and without a META section, reads back to the same model.
#![no_main]
use std::path::Path;

use kifulearn::model::Model;
use kifulearn_fuzz::{split_meta, PATH};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let (bytes, meta) = split_meta(data);
    let _ = Model::from_binary(Path::new(PATH), bytes);
    let _ = Model::binary_meta(Path::new(PATH), bytes);
    match Model::from_bytes(Path::new(PATH), bytes, meta) {
        Ok(model) => {
            let again = Model::from_binary(Path::new(PATH), &model.to_binary())
                .expect("a model's own binary form reads back");
            assert_eq!(again.w.len(), model.w.len());
            assert_eq!(again.features, model.features);
            let meta = "features = \"relation\"\n";
            let with = model.to_binary_with_meta(meta);
            let read = Model::binary_meta(Path::new(PATH), &with)
                .expect("a model's own META section reads back");
            assert_eq!(read.as_deref(), Some(meta));
            assert_eq!(
                Model::from_binary(Path::new(PATH), &with).map(|m| m.w.len()).ok(),
                Some(model.w.len())
            );
        }
        Err(e) => {
            let _ = e.to_string();
        }
    }
});
