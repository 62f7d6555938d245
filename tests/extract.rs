//! `extract` against the peers: every file passes `check_libsvm.py` (strict scan
//! plus scikit-learn's loader) and `liblinear-train -s 11` trains on their
//! concatenation. Runs when the tools are installed, prints a skip note
//! otherwise (a failure in CI: `common::peer`).
//! Also the command line's error messages.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use kifulearn::eval::Material;
use kifulearn::extract::{self, ExtractOptions, GameJob};
use kifulearn::features::{FeatureSet, Features};
use kifulearn::record::{usi, Source};

mod common;

/// The bundled floodgate opening lines (the first 30 of `../shared/kifu/floodgate2016-openings.sfen`).
fn floodgate() -> PathBuf {
    common::fixture("floodgate-30.sfen")
}

/// Games from the bundled floodgate opening lines, read by the USI-line reader.
fn floodgate_jobs(skip: usize, n: usize) -> Vec<GameJob> {
    let text = fs::read_to_string(floodgate()).unwrap();
    text.lines()
        .enumerate()
        .skip(skip)
        .take(n)
        .map(|(index, line)| {
            let source = Source {
                path: floodgate(),
                index,
            };
            // The USI-line reader replays and checks every move.
            let mut game = usi::read(line, &source.path).remove(0).unwrap();
            game.source = source.clone();
            GameJob {
                name: extract::game_name("floodgate", index),
                source: source.to_string(),
                game: Ok(game),
            }
        })
        .collect()
}

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kifulearn-it-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    dir
}

#[test]
fn outputs_pass_check_libsvm_and_train_in_liblinear() {
    if !common::have_python("sklearn, numpy", "scikit-learn and numpy")
        || !common::peer(
            Path::new("/usr/bin/liblinear-train").exists(),
            "liblinear-train (apt-get install liblinear-tools)",
        )
    {
        return;
    }
    let Some(checker) = common::shared("tools/check_libsvm.py") else {
        return;
    };
    let dir = scratch("peers");
    let features: Features = "relation,material".parse().unwrap();
    // The last six bundled games, from ply 6.
    let jobs = floodgate_jobs(24, 6);
    let options = ExtractOptions {
        skip_opening: 6,
        ..ExtractOptions::default()
    };
    let summary = extract::run(&jobs, &dir, &features, &Material, &options, |_, _| {}).unwrap();
    assert!(summary.reports.iter().all(|r| r.is_ok()));
    let mut all = Vec::new();
    for job in &jobs {
        let svm = extract::rows_path(&dir, &job.name);
        let out = Command::new("python3")
            .arg(&checker)
            .arg(&svm)
            .args([
                "--no-zeros",
                "--label-min",
                "-1",
                "--label-max",
                "1",
                "--dim",
            ])
            .arg(features.dimension().to_string())
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}: {}{}",
            svm.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        all.extend(fs::read(&svm).unwrap());
    }
    let data = dir.join("all.svm");
    fs::write(&data, &all).unwrap();
    let model = dir.join("all.model");
    let out = Command::new("liblinear-train")
        .args(["-s", "11", "-q"])
        .arg(&data)
        .arg(&model)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = fs::read_to_string(&model).unwrap();
    assert!(
        text.starts_with("solver_type L2R_L2LOSS_SVR\n"),
        "{text:.200}"
    );
    let nr_feature: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("nr_feature "))
        .unwrap()
        .parse()
        .unwrap();
    // liblinear sizes the model by the largest index seen: a material feature
    // (offset past the relation range) must be among them.
    assert!(nr_feature > 5_143_824 && nr_feature <= features.dimension());
    let _ = fs::remove_dir_all(&dir);
}

fn kifulearn(args: &[&str]) -> (i32, String) {
    let out = common::run(args);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn command_line_errors_name_the_bad_value() {
    let out = scratch("cli-errors");
    let out = out.to_str().unwrap();
    let games = floodgate();
    let games = games.to_str().unwrap();
    let (code, err) = kifulearn(&["extract", games, "--out", out, "--features", "relation,kpp"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: invalid feature set \"relation,kpp\": unknown set \"kpp\" (known sets: relation, material, kp, relation-typed, pp; combine with commas; add `mirror` to tie left-right mirror images)"
    );
    let (code, err) = kifulearn(&["extract", games, "--out", out, "--margin", "0"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: margin 0 is out of range: expected 1 to 10000 centipawns"
    );
    let empty = scratch("cli-empty");
    fs::create_dir_all(&empty).unwrap();
    let (code, err) = kifulearn(&["extract", empty.to_str().unwrap(), "--out", out]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: no record files found (.csa, .kif, .kifu, .usi, .sfen, .kis)"
    );
    let _ = fs::remove_dir_all(&empty);
}

#[test]
fn command_line_extracts_usi_lines_and_resumes() {
    let dir = scratch("cli-run");
    fs::create_dir_all(&dir).unwrap();
    let input = dir.join("openings.sfen");
    let text = fs::read_to_string(floodgate()).unwrap();
    let lines: Vec<&str> = text.lines().take(3).collect();
    fs::write(&input, lines.join("\n") + "\n").unwrap();
    let out = dir.join("out");
    let args = [
        "extract",
        input.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "2",
        "--max-plies",
        "10",
    ];
    let (code, err) = kifulearn(&args);
    assert_eq!(code, 0, "{err}");
    let manifest = fs::read_to_string(out.join("manifest.csv")).unwrap();
    assert_eq!(manifest.lines().count(), 4, "{manifest}");
    for i in 0..3 {
        let csv =
            fs::read_to_string(out.join(format!("reports/openings-0000{i}.rows.csv"))).unwrap();
        assert_eq!(
            csv.lines()
                .skip(1)
                .filter(|l| l.split(',').nth(2) == Some("1"))
                .count(),
            10,
            "one game move per labelled position (plies 0..10)"
        );
    }
    let (code, err) = kifulearn(&args);
    assert_eq!(code, 0);
    assert!(err.contains("3 games (3 resumed, 0 failed)"), "{err}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn extraction_leaves_out_the_games_through_a_test_opening_unless_told() {
    // The matches' openings given as records: all 575 lines end in a test
    // opening; the 30 floodgate games do not pass through one.
    let out = scratch("test-openings");
    let out = out.to_str().unwrap();
    let openings = common::fixture("openings/match.sfen");
    let (openings, games) = (openings.to_str().unwrap(), floodgate());
    let games = games.to_str().unwrap();
    let svm_files = || fs::read_dir(Path::new(out).join("rows")).unwrap().count();
    let (code, err) = kifulearn(&["extract", openings, games, "--out", out]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("left out of training: 575 game(s) through a test opening's position"),
        "{err}"
    );
    assert!(err.contains("\n30 games (0 resumed"), "{err}");
    assert_eq!(svm_files(), 30);
    let (code, err) = kifulearn(&[
        "extract",
        openings,
        games,
        "--out",
        out,
        "--keep-test-openings",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("left out"), "{err}");
    assert!(err.contains("605 games (30 resumed"), "{err}");
    assert_eq!(svm_files(), 605);
    // Run again without the flag: the rows of the games now left out go.
    let (code, err) = kifulearn(&["extract", openings, games, "--out", out]);
    assert_eq!(code, 0, "{err}");
    assert!(
        err.contains("removed 1150 file(s) of games not in this run"),
        "{err}"
    );
    assert!(err.contains("30 games (30 resumed"), "{err}");
    assert_eq!(svm_files(), 30);
    let empty = scratch("test-openings-only");
    let (code, err) = kifulearn(&["extract", openings, "--out", empty.to_str().unwrap()]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("none is left to extract (--keep-test-openings extracts them)"),
        "{err}"
    );
    assert!(!empty.exists());
    let _ = fs::remove_dir_all(out);
}
