//! Position files checked against cshogi (`tests/positions_cshogi.py`): what
//! kifulearn writes, cshogi reads as written; what cshogi writes, kifulearn
//! reads as cshogi meant it. Every position of the fixture games (handicaps,
//! promotions, hands, both sides to move) in both formats.
//!
//! Skipped with a note when python3 with cshogi and numpy is missing; a
//! failure when the environment variable `CI` is set (`.ci/install-peers.sh`
//! installs cshogi there).

mod positions_common;

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::Command;

use kifulearn::positions::{read_positions, PositionFormat, PositionRecord, PositionWriter};
use positions_common::{as_read_back, assert_covers_everything, coverage, fixture_records};

fn cshogi_available() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import cshogi, numpy"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but python3 cannot import cshogi and numpy (run .ci/install-peers.sh)"
        );
        eprintln!("skipped: python3 with cshogi and numpy not found (pip install cshogi numpy)");
    }
    ok
}

fn out_dir(name: &str) -> PathBuf {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn write_tsv(records: &[PositionRecord], path: &Path) {
    let mut w = std::io::BufWriter::new(std::fs::File::create(path).unwrap());
    for rec in records {
        let mv = rec.best_move.map_or("-".to_string(), |m| m.to_string());
        writeln!(
            w,
            "{}\t{}\t{mv}\t{}\t{}",
            rec.position.to_sfen(),
            rec.score,
            rec.ply,
            rec.result
        )
        .unwrap();
    }
    w.flush().unwrap();
}

fn python(args: &[&Path]) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/positions_cshogi.py");
    let out = Command::new("python3")
        .arg(script)
        .args(args)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stdout}\n{stderr}");
    eprint!("{stdout}");
}

#[test]
fn files_written_by_kifulearn_read_the_same_in_cshogi() {
    if !cshogi_available() {
        return;
    }
    let records = fixture_records();
    assert_covers_everything(&coverage(&records));
    let dir = out_dir("positions_cshogi_kifulearn");
    let (tsv, psv, hcpe) = (
        dir.join("kifulearn.tsv"),
        dir.join("kifulearn.psv"),
        dir.join("kifulearn.hcpe"),
    );
    write_tsv(&records, &tsv);
    for (path, format) in [(&psv, PositionFormat::Psv), (&hcpe, PositionFormat::Hcpe)] {
        let mut writer = PositionWriter::create(path, format).unwrap();
        for rec in &records {
            writer.write(rec).unwrap();
        }
        writer.finish().unwrap();
    }
    python(&[Path::new("check"), &tsv, &psv, &hcpe]);
}

#[test]
fn files_written_by_cshogi_read_the_same_in_kifulearn() {
    if !cshogi_available() {
        return;
    }
    let records = fixture_records();
    let dir = out_dir("positions_cshogi_cshogi");
    let (tsv, psv, hcpe) = (
        dir.join("cshogi.tsv"),
        dir.join("cshogi.psv"),
        dir.join("cshogi.hcpe"),
    );
    write_tsv(&records, &tsv);
    python(&[Path::new("write"), &tsv, &psv, &hcpe]);
    for path in [&psv, &hcpe] {
        let hcpe = PositionFormat::from_path(path) == Some(PositionFormat::Hcpe);
        let read: Vec<PositionRecord> = read_positions(path)
            .unwrap()
            .map(|r| r.unwrap_or_else(|e| panic!("{e}")))
            .collect();
        assert_eq!(read.len(), records.len());
        for (i, (rec, back)) in records.iter().zip(&read).enumerate() {
            assert_eq!(
                back,
                &as_read_back(rec, hcpe),
                "{} record {i}",
                path.display()
            );
        }
    }
}
