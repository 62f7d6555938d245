//! PackedSfenValue (40 bytes a record) files through `PositionReader`; every record it accepts encodes to the
//! same bytes' meaning: encode, decode again, same record (`kifulearn_fuzz::check_positions`).
#![no_main]
use kifulearn::positions::PositionFormat;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    kifulearn_fuzz::check_positions(data, PositionFormat::Psv);
});
