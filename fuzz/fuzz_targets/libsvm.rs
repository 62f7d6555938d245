//! svmlight text into `libsvm::read_bytes` (the parallel block reader of `fit`
//! and `predict`) and, line by line as `RowReader` does, into
//! `RowBuffer::push_line` (the streaming learner's reader): both must accept
//! the same texts and read the same rows.
#![no_main]
use std::path::Path;

use kifulearn::libsvm::{read_bytes, RowBuffer};
use kifulearn_fuzz::PATH;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let whole = read_bytes(Path::new(PATH), data);
    let mut rows = RowBuffer::new();
    let mut refused = None;
    for (i, line) in data.split_inclusive(|&b| b == b'\n').enumerate() {
        if let Err(e) = rows.push_line(line) {
            refused = Some((i + 1, e));
            break;
        }
    }
    match (&whole, &refused) {
        (Ok(d), None) => {
            assert_eq!(d.y.len(), rows.len(), "row counts differ");
            for (i, (label, indices, values)) in rows.iter().enumerate() {
                let row = d.x.outer_view(i).expect("a row of the matrix");
                assert_eq!(d.y[i].to_bits(), label.to_bits(), "label of row {i}");
                assert_eq!(row.indices(), indices, "indices of row {i}");
                assert_eq!(row.data(), values, "values of row {i}");
            }
        }
        (Err(e), Some(_)) => {
            let _ = e.to_string();
        }
        (Ok(_), Some((line, e))) => panic!("read_bytes accepted line {line}, push_line: {e}"),
        (Err(e), None) => panic!("push_line accepted every line, read_bytes: {e}"),
    }
});
