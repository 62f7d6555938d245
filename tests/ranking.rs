//! `kifulearn fit ranking` end to end: records in, a model out that
//! the evaluator loader and `kifulearn evaluate` read unchanged.

use std::fs;
use std::path::PathBuf;

use kifulearn::eval::{load_evaluator, load_linear, EvalChoice};

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kifulearn-ranking-{}-{name}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

/// Exit code, stdout, stderr.
mod common;

fn kifulearn(args: &[&str]) -> (i32, String, String) {
    let out = common::run_with(args, &[], 600);
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `J/position X` of each epoch line.
fn objectives(stderr: &str) -> Vec<f64> {
    stderr
        .lines()
        .filter(|l| l.starts_with("epoch"))
        .map(|l| {
            let rest = l.split("J/position ").nth(1).unwrap();
            rest.split_whitespace().next().unwrap().parse().unwrap()
        })
        .collect()
}

#[test]
fn fit_ranking_writes_a_model_that_evaluate_plays() {
    let dir = scratch("fit");
    let model = dir.join("m.txt");
    let m = model.to_str().unwrap();
    let (code, _, err) = kifulearn(&[
        "fit",
        "ranking",
        "fixtures/selfplay/fsf_selfplay_w2_00152.csa",
        "fixtures/selfplay/fsf_selfplay_w1_00119.csa",
        "fixtures/tournament/040501.csa",
        "--features",
        "relation",
        "--out",
        m,
        "--epochs",
        "3",
        "--batch-games",
        "1",
        "--max-plies",
        "50",
        "--jobs",
        "2",
        "--held-out",
        "fixtures/selfplay/fsf_selfplay_w2_00049.csa",
        "-v",
    ]);
    assert_eq!(code, 0, "{err}");
    let j = objectives(&err);
    assert_eq!(j.len(), 3, "{err}");
    assert!(j[2] < j[0], "{err}");
    assert!(err.contains("held-out loss/position"), "{err}");
    let meta = fs::read_to_string(dir.join("m.txt.meta.toml")).unwrap();
    assert!(meta.starts_with("features = \"relation\"\n"), "{meta}");
    assert!(meta.contains("method = \"ranking\""), "{meta}");
    let linear = load_linear(&model).unwrap();
    assert!(linear.weights.iter().any(|&w| w != 0.0));
    load_evaluator(&EvalChoice::Model(model.clone())).unwrap();
    let (code, out, err) = kifulearn(&["evaluate", "--model", m, "fixtures/floodgate-30.sfen"]);
    assert_eq!(code, 0, "{err}");
    assert!(
        out.starts_with("30 games, static evaluation of each sibling\n"),
        "{out}"
    );
    assert!(out.contains(" all "), "{out}");
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn every_optimizer_runs_from_the_command_line() {
    let dir = scratch("optimizers");
    for optimizer in ["adagrad", "adam", "sign"] {
        let model = dir.join(format!("{optimizer}.bin"));
        let (code, _, err) = kifulearn(&[
            "fit",
            "ranking",
            "fixtures/selfplay/fsf_selfplay_w1_00301.csa",
            "--features",
            "material",
            "--out",
            model.to_str().unwrap(),
            "--binary",
            "--optimizer",
            optimizer,
            "--epochs",
            "2",
            "--max-plies",
            "30",
            "-v",
        ]);
        assert_eq!(code, 0, "{optimizer}: {err}");
        assert_eq!(objectives(&err).len(), 2, "{err}");
        load_linear(&model).unwrap();
    }
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn ranking_options_are_checked() {
    let dir = scratch("errors");
    let model = dir.join("m.txt");
    let m = model.to_str().unwrap();
    let game = "fixtures/selfplay/fsf_selfplay_w1_00301.csa";
    let (code, _, err) = kifulearn(&[
        "fit",
        "ranking",
        game,
        "--features",
        "material",
        "--out",
        m,
        "--window",
        "0",
    ]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: window must be positive and finite, got 0"
    );
    let (code, _, err) = kifulearn(&["fit", "svr", game, "--out", m, "--epochs", "3"]);
    assert_eq!(code, 2);
    assert_eq!(
        err.trim(),
        "error: --epochs does not apply to fit svr \
         (it is an option of fit ranking, fit streaming, fit positions)"
    );
    assert!(!model.exists());
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn mirror_tied_ranking_and_monotone_hand_constrain_the_written_model() {
    use kifulearn::features::Features;
    use kifulearn::model::Model;
    use kifulearn::train::isotonic::hand_is_monotone;
    let dir = scratch("mirror");
    let model = dir.join("m.bin");
    let m = model.to_str().unwrap();
    let set = "relation,material,mirror";
    let (code, _, err) = kifulearn(&[
        "fit",
        "ranking",
        "fixtures/selfplay",
        "--features",
        set,
        "--out",
        m,
        "--epochs",
        "2",
        "--monotone-hand",
        "--binary",
    ]);
    assert_eq!(code, 0, "{err}");
    let fitted = Model::load(&model).unwrap();
    assert_eq!(fitted.features, set);
    let features: Features = set.parse().unwrap();
    // Only the representative of each mirror pair is ever touched.
    let mut learned = 0;
    for (j, &w) in fitted.w.iter().enumerate() {
        let index = j as u32 + 1;
        if w != 0.0 {
            learned += 1;
            assert_eq!(
                features.canonical(index),
                index,
                "weight on a tied index {index}"
            );
        }
    }
    assert!(learned > 1000, "{learned} weights learned");
    assert!(hand_is_monotone(&features, &fitted.w));
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn fit_leaves_out_the_games_through_a_test_opening_unless_told() {
    // The matches' own openings given as records: the 575 lines end in test
    // openings, the 30 floodgate games do not pass through one.
    let dir = scratch("test-openings");
    let out = dir.join("m.txt");
    let out = out.to_str().unwrap();
    let (openings, games) = ("fixtures/openings/match.sfen", "fixtures/floodgate-30.sfen");
    let left_out = "left out of training: 575 game(s) through a test opening's position \
                    (fixtures/openings/match.sfen, the matches' openings), first fixtures/openings/match.sfen#0";
    let common = ["--features", "material", "--epochs", "1", "--out", out];
    let fit = |method: &str, records: &[&str], extra: &[&str]| {
        let args: Vec<&str> = ["fit", method]
            .iter()
            .chain(records)
            .chain(&common)
            .chain(extra)
            .copied()
            .collect();
        kifulearn(&args)
    };
    let (code, _, err) = fit("ranking", &[openings, games], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(left_out), "{err}");
    assert!(err.contains("ranking: 30 training games"), "{err}");
    let (code, _, err) = fit("ranking", &[openings, games], &["--keep-test-openings"]);
    assert_eq!(code, 0, "{err}");
    assert!(!err.contains("left out of training"), "{err}");
    assert!(err.contains("ranking: 605 training games"), "{err}");
    let (code, _, err) = fit("positions", &[openings, games], &[]);
    assert_eq!(code, 0, "{err}");
    assert!(err.contains(left_out), "{err}");
    assert!(err.contains("from 30 games"), "{err}");
    let (code, _, err) = fit("positions", &[openings], &[]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("none is left to train on (--keep-test-openings trains on them)"),
        "{err}"
    );
    let (code, _, err) = kifulearn(&["fit", "svr", games, "--keep-test-openings", "--out", out]);
    assert_eq!(code, 2, "{err}");
    assert!(
        err.contains("--keep-test-openings does not apply to fit svr"),
        "{err}"
    );
    let _ = fs::remove_dir_all(&dir);
}
