//! `kifulearn positions` on a file of the fixture positions, run as the built binary.

mod positions_common;

use std::path::Path;
use std::process::Command;

use kifulearn::positions::{PositionFormat, PositionRecord, PositionWriter};
use positions_common::fixture_records;

fn write(records: &[PositionRecord], format: PositionFormat) -> Vec<u8> {
    let mut w = PositionWriter::new(Vec::new(), format);
    for rec in records {
        w.write(rec).unwrap();
    }
    w.finish().unwrap()
}

#[test]
fn positions_summarizes_dumps_sfen_and_converts() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("positions_cli");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let records = fixture_records();
    let psv = dir.join("fixtures.bin");
    let mut bytes = write(&records, PositionFormat::Psv);
    bytes.extend([0u8; 40]); // one record that is no position
    bytes.extend([1u8; 7]); // a truncated last record
    std::fs::write(&psv, &bytes).unwrap();
    let (sfen, hcpe) = (dir.join("fixtures.sfen"), dir.join("out.dat"));
    let out = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("positions")
        .arg(&psv)
        .arg("--sfen")
        .arg(&sfen)
        .arg("--convert")
        .arg(&hcpe)
        .args(["--to", "hcpe"])
        .output()
        .unwrap();
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    let n = records.len();
    let byte = n * 40;
    for expected in [
        format!("fixtures.bin: psv, {n} records, 2 errors"),
        format!("  error: {}: record {n} (byte {byte}): bad packed position: both kings on square number 0", psv.display()),
        "the file ends inside a record: 7 of 40 bytes".to_string(),
        format!("positions: {n} ok, 2 failed"),
        "scores: -32768 to 32767".to_string(),
        format!("wrote {n} SFEN lines to {}", sfen.display()),
        format!("wrote {n} hcpe records to {}", hcpe.display()),
    ] {
        assert!(stdout.contains(&expected), "{expected:?} not in\n{stdout}");
    }
    let lines: Vec<String> = std::fs::read_to_string(&sfen)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let expected: Vec<String> = records.iter().map(|r| r.position.to_sfen()).collect();
    assert_eq!(lines, expected);
    assert_eq!(
        std::fs::read(&hcpe).unwrap(),
        write(&records, PositionFormat::Hcpe)
    );
    assert!(!dir.join("out.dat.tmp").exists());
}
