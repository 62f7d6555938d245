//! Every position of the games in `fixtures/` survives PackedSfenValue and HCPE
//! unchanged (Rust only; `positions_cshogi.rs` checks the files against
//! cshogi), and no bytes make the reader panic.

mod positions_common;

use kifulearn::positions::{PositionFormat, PositionReader, PositionRecord, PositionWriter};
use positions_common::{as_read_back, assert_covers_everything, coverage, fixture_records};
use proptest::prelude::*;

fn write_all(records: &[PositionRecord], format: PositionFormat) -> Vec<u8> {
    let mut writer = PositionWriter::new(Vec::new(), format);
    for rec in records {
        writer.write(rec).unwrap();
    }
    assert_eq!(writer.count(), records.len() as u64);
    writer.finish().unwrap()
}

#[test]
fn fixture_positions_round_trip_through_both_formats() {
    let records = fixture_records();
    assert_covers_everything(&coverage(&records));
    for format in [PositionFormat::Psv, PositionFormat::Hcpe] {
        let bytes = write_all(&records, format);
        assert_eq!(bytes.len(), records.len() * format.record_len());
        let read: Vec<PositionRecord> = PositionReader::new(&bytes[..], format)
            .map(Result::unwrap)
            .collect();
        assert_eq!(read.len(), records.len());
        for (i, (rec, back)) in records.iter().zip(&read).enumerate() {
            let expected = as_read_back(rec, format == PositionFormat::Hcpe);
            assert_eq!(back, &expected, "{format} record {i}: {}", rec.position);
        }
        // Converting what was read to the other format and back changes nothing.
        let other = match format {
            PositionFormat::Psv => PositionFormat::Hcpe,
            PositionFormat::Hcpe => PositionFormat::Psv,
        };
        let again: Vec<PositionRecord> = PositionReader::new(&write_all(&read, other)[..], other)
            .map(Result::unwrap)
            .collect();
        for (a, b) in read.iter().zip(&again) {
            assert!(a.position.same_position(&b.position));
            assert_eq!(
                (a.score, a.best_move, a.result),
                (b.score, b.best_move, b.result)
            );
        }
    }
}

/// A record that reads without error is one that writes back and reads the same.
fn check_no_panic(bytes: &[u8], format: PositionFormat) {
    for rec in PositionReader::new(bytes, format).flatten() {
        let mut out = Vec::new();
        format.encode(&rec, &mut out).unwrap();
        assert_eq!(format.decode(&out).unwrap(), rec);
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
        check_no_panic(&bytes, PositionFormat::Psv);
        check_no_panic(&bytes, PositionFormat::Hcpe);
    }
}

/// Random bytes rarely get past the king squares; flipped bits in real records
/// reach every later check (codes, piece counts, legality, moves, results).
#[test]
fn flipped_bits_in_real_records_never_panic() {
    let records = fixture_records();
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    let (mut ok, mut failed) = (0, 0);
    for format in [PositionFormat::Psv, PositionFormat::Hcpe] {
        let bytes = write_all(&records[..2000], format);
        let len = format.record_len();
        for _ in 0..20_000 {
            let at = (next() % 2000) as usize * len;
            let mut rec = bytes[at..at + len].to_vec();
            for _ in 0..1 + next() % 3 {
                let bit = (next() % (len as u64 * 8)) as usize;
                rec[bit / 8] ^= 1 << (bit % 8);
            }
            match format.decode(&rec) {
                Ok(r) => {
                    ok += 1;
                    let mut out = Vec::new();
                    format.encode(&r, &mut out).unwrap();
                    assert_eq!(format.decode(&out).unwrap(), r);
                }
                Err(_) => failed += 1,
            }
        }
    }
    // Both outcomes must occur, or the mutations test nothing.
    assert!(ok > 100 && failed > 100, "{ok} ok, {failed} failed");
}
