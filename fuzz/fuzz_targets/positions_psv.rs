//! PackedSfenValue (40 bytes a record) files through `PositionReader`; every record it accepts encodes to the
//! same bytes' meaning: encode, decode again, same record.
#![no_main]
use kifulearn::positions::{PositionFormat, PositionReader};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let format = PositionFormat::Psv;
    for item in PositionReader::new(data, format) {
        match item {
            Ok(record) => {
                let mut bytes = Vec::new();
                format
                    .encode(&record, &mut bytes)
                    .expect("a record read encodes");
                let back = format.decode(&bytes).expect("an encoded record decodes");
                assert_eq!(back, record, "record changed by encode/decode");
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
});
