//! `kifulearn match` refereed again by cshogi: every CSA record replays with
//! legal moves only, and every ending and result agrees with cshogi's own
//! judgement of the final position (`tests/match_cshogi.py`).
//!
//! Skipped with a note when python3 cannot import cshogi, unless the `CI`
//! environment variable is set: then a missing cshogi is a failure.

use std::path::{Path, PathBuf};
use std::process::Command;

fn have_cshogi() -> bool {
    let ok = Command::new("python3")
        .args(["-c", "import cshogi"])
        .output()
        .is_ok_and(|o| o.status.success());
    if !ok {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI is set but python3 cannot import cshogi (run .ci/install-peers.sh)"
        );
        eprintln!(
            "note: python3 cannot import cshogi (run .ci/install-peers.sh); match_cshogi skipped"
        );
    }
    ok
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kifulearn-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&d);
    d
}

fn play(out: &Path, extra: &[&str]) -> String {
    let o = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args(["match", "--engine-a", "material", "--engine-b", "material"])
        .args(["--depth", "1", "--games", "8", "-q", "--out"])
        .arg(out)
        .args(extra)
        .output()
        .expect("kifulearn starts");
    let stdout = String::from_utf8_lossy(&o.stdout).to_string();
    assert!(
        o.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    stdout
}

fn referee_with_cshogi(out: &Path, max_plies: usize) {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/match_cshogi.py");
    let o = Command::new("python3")
        .arg(&script)
        .arg(out)
        .arg(max_plies.to_string())
        .output()
        .expect("python3 starts");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    eprintln!("{text}");
    assert!(o.status.success(), "{text}");
    assert!(text.contains("8 games checked"), "{text}");
}

#[test]
fn every_game_replays_in_cshogi_and_its_result_agrees() {
    if !have_cshogi() {
        return;
    }
    let out = tmpdir("match-cshogi");
    let stdout = play(&out, &[]);
    assert!(stdout.starts_with("material vs material: +"), "{stdout}");
    assert!(stdout.contains("score 0.500"), "{stdout}");
    let summary = std::fs::read_to_string(out.join("summary.txt")).unwrap();
    assert_eq!(summary.lines().next(), stdout.lines().next());
    for g in 0..8 {
        assert!(out.join(format!("games/{g:04}.csa")).is_file());
    }
    referee_with_cshogi(&out, 320);

    // A short ply limit: games end drawn at the limit, which cshogi must see as
    // neither mate, repetition nor declaration. Later openings, shuffled.
    let out = tmpdir("match-cshogi-short");
    play(
        &out,
        &["--max-plies", "70", "--seed", "5", "--openings-skip", "100"],
    );
    let results = std::fs::read_to_string(out.join("results.csv")).unwrap();
    assert!(results.contains(",max_plies,70,"), "{results}");
    referee_with_cshogi(&out, 70);
    std::fs::remove_dir_all(&out).ok();
}
