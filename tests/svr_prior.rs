//! `fit svr --prior`: ½‖w − w0‖² + C·Σ loss(y − w·x), fitted as a
//! shift of the labels (y − w0·x) with w0 added back.
//!
//! Checked three ways on real rows (one fixture game, `relation,material`,
//! material labeller): with a vanishing C the prior model *is* the prior
//! (the built-in piece values on the material part) while the plain model is
//! near 0; and at C = 0.01 the prior fit equals, weight for weight, a plain fit on
//! rows whose labels were shifted by hand, plus w0.

mod common;

use std::path::Path;

use kifulearn::features::{FeatureSet, Features, MaterialSet};
use kifulearn::model::Model;
use kifulearn::train::positions::material_prior;

const SET: &str = "relation,material";

fn fit(rows: &Path, model: &Path, c: &str, prior: Option<&str>) -> Model {
    let mut args = vec![
        "fit",
        "svr",
        rows.to_str().unwrap(),
        "--features",
        SET,
        "--solver",
        "dual",
        "-p",
        "0",
        "-c",
        c,
        "--out",
        model.to_str().unwrap(),
    ];
    if let Some(p) = prior {
        args.extend(["--prior", p]);
    }
    common::run_ok(&args);
    Model::load(model).unwrap()
}

#[test]
fn the_svr_prior_is_a_pull_toward_the_piece_values() {
    let dir = common::dir("svr-prior");
    let game = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/fixtures/selfplay/fsf_selfplay_w1_00119.csa"
    );
    let rows = dir.join("rows");
    common::run_ok(&[
        "extract",
        game,
        "--features",
        SET,
        "--out",
        rows.to_str().unwrap(),
    ]);

    let features: Features = SET.parse().unwrap();
    let offset = features
        .offset_of(kifulearn::features::BaseSet::Material)
        .unwrap() as usize;
    let pieces = offset..offset + MaterialSet.dimension() as usize;
    let w0: Vec<f64> = material_prior(&features)
        .iter()
        .map(|&w| f64::from(w) / 10_000.0)
        .collect();

    // A vanishing C: the regularizer decides.
    let plain = fit(&rows, &dir.join("plain.txt"), "1e-9", None);
    let pulled = fit(&rows, &dir.join("pulled.txt"), "1e-9", Some("material"));
    let weight = |m: &Model, j: usize| m.w.get(j).copied().unwrap_or(0.0);
    let (mut plain_max, mut pulled_err) = (0.0f64, 0.0f64);
    for j in pieces.clone() {
        plain_max = plain_max.max(weight(&plain, j).abs());
        pulled_err = pulled_err.max((weight(&pulled, j) - w0[j]).abs());
    }
    let pawn = w0[pieces.start];
    assert!(
        pawn > 0.005,
        "the prior's first piece value is a pawn's: {pawn}"
    );
    assert!(
        plain_max < 1e-4,
        "no prior: piece weights near 0, max {plain_max}"
    );
    assert!(
        pulled_err < 1e-4,
        "prior: piece weights at material, max error {pulled_err}"
    );

    // C = 0.01: the prior fit is the plain fit of the shifted labels, plus w0.
    let with_prior = fit(&rows, &dir.join("prior.txt"), "0.01", Some("material"));
    let shifted = dir.join("shifted.svm");
    let mut text = String::new();
    for entry in std::fs::read_dir(rows.join("rows")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("svm") {
            continue;
        }
        for line in std::fs::read_to_string(&path).unwrap().lines() {
            let mut parts = line.split(' ');
            let y: f64 = parts.next().unwrap().parse().unwrap();
            let pairs: Vec<&str> = parts.collect();
            let dot: f64 = pairs
                .iter()
                .map(|p| {
                    let (i, v) = p.split_once(':').unwrap();
                    w0[i.parse::<usize>().unwrap() - 1] * v.parse::<f64>().unwrap()
                })
                .sum();
            text.push_str(&format!("{:?} {}\n", y - dot, pairs.join(" ")));
        }
    }
    assert!(
        text.lines().count() > 1_000,
        "{} rows",
        text.lines().count()
    );
    std::fs::write(&shifted, text).unwrap();
    let by_hand = fit(&shifted, &dir.join("by-hand.txt"), "0.01", None);
    let mut worst = 0.0f64;
    let mut moved = 0.0f64;
    for j in 0..with_prior.w.len().max(by_hand.w.len()) {
        let expected = weight(&by_hand, j) + w0.get(j).copied().unwrap_or(0.0);
        worst = worst.max((weight(&with_prior, j) - expected).abs());
        moved = moved.max((weight(&with_prior, j) - w0.get(j).copied().unwrap_or(0.0)).abs());
    }
    assert!(
        worst < 1e-6,
        "prior fit vs shifted-label fit + w0: max difference {worst}"
    );
    assert!(
        moved > 1e-4,
        "at C = 0.01 the data moves the weights off the prior ({moved})"
    );
}
