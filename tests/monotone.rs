//! Hand-piece monotonicity on real games: a `material` SVR fitted on bundled
//! self-play rows values some k-th piece in hand above the (k−1)-th; with
//! `--monotone-hand` every run is non-increasing and the rest is untouched.

use std::path::{Path, PathBuf};

use kifulearn::features::Features;
use kifulearn::model::Model;
use kifulearn::train::isotonic::hand_is_monotone;

/// Runs on one thread: the solver's parallel sums then have one order, so two
/// fits of the same rows give the same board weights.
mod common;

fn kifulearn(args: &[&str]) -> String {
    let out = common::run_with(args, &[("RAYON_NUM_THREADS", "1")], 600);
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "kifulearn {args:?}: {err}");
    err
}

fn scratch(name: &str) -> PathBuf {
    common::dir(name)
}

#[test]
fn monotone_hand_makes_every_hand_run_non_increasing() {
    let dir = scratch("monotone-hand");
    let ex = dir.join("ex");
    let games = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/selfplay");
    let s = |p: &Path| p.to_str().unwrap().to_string();
    kifulearn(&["extract", games, "--features", "material", "--out", &s(&ex)]);
    let fit = |name: &str, extra: &[&str]| -> Model {
        let model = dir.join(name);
        let mut args = vec![
            "fit".to_string(),
            "svr".to_string(),
            s(&ex),
            "--features".into(),
            "material".into(),
            "-e".into(),
            "0.01".into(),
            "--out".into(),
            s(&model),
        ];
        args.extend(extra.iter().map(|a| a.to_string()));
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        kifulearn(&args);
        Model::load(&model).unwrap()
    };
    let features: Features = "material".parse().unwrap();
    let free = fit("free.txt", &[]);
    let tied = fit("tied.txt", &["--monotone-hand"]);
    // The data leaves the free fit non-monotone somewhere, so the option has work to do.
    assert!(!hand_is_monotone(&features, &free.w));
    assert!(hand_is_monotone(&features, &tied.w));
    // Board counts (indices 1–28) are not touched.
    assert_eq!(free.w[..28], tied.w[..28]);
    let meta = std::fs::read_to_string(dir.join("tied.txt.meta.toml")).unwrap();
    assert!(meta.contains("monotone_hand = true"), "{meta}");
    // A set without material cannot be constrained: an error, not a silent no-op.
    // (The rows folder, not the dataset folder, whose dataset.toml would refuse
    // `--features relation` first.)
    let out = common::run(&[
        "fit",
        "svr",
        &s(&ex.join("rows")),
        "--features",
        "relation",
        "--monotone-hand",
        "--out",
        &s(&dir.join("bad.txt")),
    ]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("needs a material part"));
    let _ = std::fs::remove_dir_all(&dir);
}
