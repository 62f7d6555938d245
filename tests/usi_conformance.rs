//! Runs the shared USI conformance script (`../shared/tools/usi_conformance.py`,
//! refereed by cshogi) on the built `kifulearn usi`. Skipped, with a note, when
//! python3 with cshogi or the script is not available.

use std::process::Command;

mod common;

#[test]
fn usi_conformance_script_passes() {
    let Some(script) = common::shared("tools/usi_conformance.py") else {
        return;
    };
    let has_cshogi = Command::new("python3")
        .args(["-c", "import cshogi"])
        .status()
        .map(|s| s.success())
        .unwrap_or(false);
    if !has_cshogi {
        eprintln!("skipped: python3 with cshogi not available (python3 -m pip install cshogi)");
        return;
    }
    let engine = format!("{} usi", env!("CARGO_BIN_EXE_kifulearn"));
    let out = Command::new("python3")
        .arg(&script)
        .arg(&engine)
        .args(["--depth", "3", "--byoyomi", "500"])
        .output()
        .expect("python3 runs");
    let text = String::from_utf8_lossy(&out.stdout);
    println!("{text}");
    let last = text.lines().last().unwrap_or("");
    assert!(last.ends_with(" 0 failed"), "conformance: {last}\n{text}");
    assert!(out.status.success(), "exit status {:?}", out.status);
    // Every check is reported; a FAIL line would also have failed the count above.
    assert!(!text.lines().any(|l| l.starts_with("FAIL")), "{text}");
}
