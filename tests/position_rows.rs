//! `kifulearn positions FILES --rows DIR` on positions `kifulearn generate`
//! wrote: the rows written are the rows the positions learner learns from
//! (`Leaves::build`, as `fit positions` calls it, on the samples
//! it reads from the same files), read back from the libsvm text:
//!
//! - the same features, times the sign that makes `w · row` the learner's
//!   value `v` (the learner's squared score error of a weight vector is the
//!   one the written rows give);
//! - `--target score` with no result in the mix: the teacher's score in
//!   model units, exactly;
//! - `--target sigmoid`: the learner's target rescaled, so the learner's
//!   cross-entropy of a weight vector is the one the written labels give;
//! - `--qid`: one N per game, rising from 1, as many as `dataset.toml`'s games.
//!
//! And `kifulearn extract RECORDS --per-position` on the bundled self-play
//! records: the rows `fit positions` builds from those records (its
//! games, less the test openings', scored by the teacher's search).

mod common;

use std::path::Path;

use kifulearn::eval::Material;
use kifulearn::features::Features;
use kifulearn::libsvm::dataset::DatasetInfo;
use kifulearn::libsvm::{read_paths_with_groups, LibsvmData};
use kifulearn::train::positions::rows::{RowLabels, RowTarget};
use kifulearn::train::positions::{
    loss, material_prior, samples_from_games, samples_from_position_files, split_position_paths,
    Leaves, PositionsParams,
};

const FEATURES: &str = "material,kp";

fn rows(gen: &Path, out: &Path, extra: &[&str]) -> (LibsvmData, Option<Vec<Option<u64>>>) {
    let mut args = vec![
        "positions",
        gen.to_str().unwrap(),
        "--rows",
        out.to_str().unwrap(),
        "--features",
        FEATURES,
    ];
    args.extend_from_slice(extra);
    let o = common::run(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    read_paths_with_groups(&[out]).unwrap()
}

/// `w · row i` of the read rows (0-based columns).
fn dot(data: &LibsvmData, i: usize, w: &[f32]) -> f64 {
    let row = data.x.outer_view(i).unwrap();
    let sum: f32 = row.iter().map(|(j, &v)| w[j] * v).sum();
    f64::from(sum)
}

#[test]
fn position_rows_are_the_rows_the_positions_learner_learns_from() {
    let dir = common::dir("position_rows");
    let gen = dir.join("gen");
    let o = common::run(&[
        "generate",
        "--out",
        gen.to_str().unwrap(),
        "--positions",
        "400",
        "--depth",
        "1",
        "--chunk-games",
        "2",
        "--jobs",
        "1",
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));

    // What the learner reads and builds from the same paths.
    let features: Features = FEATURES.parse().unwrap();
    let (files, records) = split_position_paths(std::slice::from_ref(&gen)).unwrap();
    assert!(records.is_empty() && files.len() >= 2, "{files:?}");
    let (samples, bad) = samples_from_position_files(&files).unwrap();
    assert_eq!(bad, 0);
    let leaves = Leaves::build(&features, &Material, &samples);
    assert!(leaves.len() >= 400);

    let score_dir = dir.join("score");
    let (score, groups) = rows(&gen, &score_dir, &["--result-weight", "0", "--qid"]);
    assert_eq!(score.x.rows(), leaves.len());
    let mut row = Vec::new();
    for i in 0..leaves.len() {
        leaves.signed_row(i, &mut row);
        let read = score.x.outer_view(i).unwrap();
        let read: Vec<(u32, f32)> = read.iter().map(|(j, &v)| (j as u32 + 1, v)).collect();
        assert_eq!(read, row, "row {i}");
        assert!(!row.is_empty());
    }
    // A weight vector away from the prior: the learner's squared score error
    // is the one of the written rows against their labels (scores, clamped
    // as the learner clamps them).
    let params = PositionsParams {
        lambda: 0.0,
        ..Default::default()
    };
    let mut w = material_prior(&features);
    for (j, w) in w.iter_mut().enumerate() {
        *w += ((j * 7919) % 13) as f32 - 6.0;
    }
    let n = leaves.len() as f64;
    let mse: f64 = (0..leaves.len())
        .map(|i| {
            let label = (score.y[i] * 10_000.0).round();
            assert!(
                (score.y[i] * 10_000.0 - label).abs() < 1e-9,
                "a score in model units"
            );
            let d = dot(&score, i, &w) - label.clamp(-3000.0, 3000.0);
            d * d
        })
        .sum::<f64>()
        / n;
    let learner = loss(&w, &leaves, &params);
    assert!(
        (mse - learner.score_mse).abs() <= 1e-6 * learner.score_mse,
        "{mse} vs {}",
        learner.score_mse
    );
    let labels = RowLabels::of(RowTarget::Score, &params);
    for i in 0..leaves.len() {
        assert_eq!(score.y[i], labels.label(&leaves, i));
    }

    // linfa's SVR fits the folder around the material prior; the default
    // tube is named as the wrong one for these rows.
    let model = dir.join("svr.model");
    let fit = |extra: &[&str]| {
        let mut args = vec![
            "fit",
            "svr",
            score_dir.to_str().unwrap(),
            "--prior",
            "material",
            "-c",
            "1",
            "--out",
            model.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        let o = common::run(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stderr).unwrap()
    };
    let note = "p = 0.1 ignores every error under 1000 cp: fit them with -p 0";
    assert!(fit(&[]).contains(note));
    assert!(!fit(&["-p", "0"]).contains(note));
    let fitted = kifulearn::model::Model::load(&model).unwrap();
    assert_eq!(fitted.features, "material,kp");
    let prior: Vec<f64> = material_prior(&features)
        .iter()
        .map(|&w| f64::from(w) / 10_000.0)
        .collect();
    let moved = fitted.w.iter().zip(&prior).filter(|(a, b)| a != b).count();
    assert!(moved > 100, "{moved} weights moved from the prior");
    // The fit lowers the squared error of the prior on its rows.
    let sse = |w: &[f64]| -> f64 {
        (0..score.x.rows())
            .map(|i| {
                let row = score.x.outer_view(i).unwrap();
                let v: f64 = row.iter().map(|(j, &x)| w[j] * f64::from(x)).sum();
                (v - score.y[i]).powi(2)
            })
            .sum()
    };
    assert!(
        sse(&fitted.w) < 0.9 * sse(&prior),
        "{} vs {}",
        sse(&fitted.w),
        sse(&prior)
    );

    // One qid per game, numbered from 1 in file order.
    let info = DatasetInfo::read(&score_dir).unwrap();
    assert_eq!(info.rows_at, "position");
    assert_eq!(info.features, "material,kp");
    assert_eq!(info.rows, leaves.len() as u64);
    assert_eq!(info.target.as_ref().unwrap().target, "score");
    let groups: Vec<u64> = groups.unwrap().into_iter().map(Option::unwrap).collect();
    assert_eq!(groups[0], 1);
    assert!(groups.windows(2).all(|g| g[1] == g[0] || g[1] == g[0] + 1));
    assert_eq!(*groups.last().unwrap(), info.games);
    let csa = std::fs::read_dir(gen.join("games")).unwrap().count() as u64;
    assert!(
        info.games <= csa && info.games * 10 >= csa * 9,
        "{} of {csa}",
        info.games
    );

    // σ-space labels with the result mixed in: the learner's cross-entropy
    // is the one the written rows and labels give.
    let (sigmoid, none) = rows(
        &gen,
        &dir.join("sigmoid"),
        &["--result-weight", "0.5", "--target", "sigmoid"],
    );
    assert!(none.is_none());
    let params = PositionsParams {
        lambda: 0.5,
        ..Default::default()
    };
    let k = params.eval_k;
    let ce: f64 = (0..leaves.len())
        .map(|i| {
            let t = sigmoid.y[i] * 10_000.0 / (4.0 * k) + 0.5;
            assert!((0.0..=1.0).contains(&t), "{t}");
            let p = 1.0 / (1.0 + (-dot(&sigmoid, i, &w) / k).exp());
            let p = p.clamp(1e-12, 1.0 - 1e-12);
            -(t * p.ln() + (1.0 - t) * (1.0 - p).ln())
        })
        .sum::<f64>()
        / n;
    let learner = loss(&w, &leaves, &params);
    assert!(
        (ce - learner.cross_entropy).abs() <= 1e-6,
        "{ce} vs {}",
        learner.cross_entropy
    );
}

#[test]
fn per_position_rows_of_records_are_the_learners_rows_of_those_records() {
    let dir = common::dir("position_rows_records");
    let records = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/selfplay");
    let out = dir.join("rows");
    let o = common::run(&[
        "extract",
        records.to_str().unwrap(),
        "--per-position",
        "--out",
        out.to_str().unwrap(),
        "--features",
        FEATURES,
        "--teacher-depth",
        "1",
        "--skip-opening",
        "16",
        "--result-weight",
        "0",
        "--qid",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // What `fit positions RECORDS --teacher-depth 1` learns from.
    let games = kifulearn::record::read_games(&[records]).unwrap();
    let (games, _) = kifulearn::arena::TestOpenings::bundled().leave_out(
        games,
        |g| Some(g),
        |g| g.source.to_string(),
    );
    let samples = samples_from_games(&games, &Material, 1, 16, || {});
    let features: Features = FEATURES.parse().unwrap();
    let leaves = Leaves::build(&features, &Material, &samples);
    let (data, groups) = read_paths_with_groups(&[&out]).unwrap();
    assert_eq!(data.x.rows(), leaves.len());
    assert!(leaves.len() > 500, "{}", leaves.len());
    let labels = RowLabels::of(
        RowTarget::Score,
        &PositionsParams {
            lambda: 0.0,
            ..Default::default()
        },
    );
    let mut row = Vec::new();
    for i in 0..leaves.len() {
        leaves.signed_row(i, &mut row);
        let read: Vec<(u32, f32)> = data
            .x
            .outer_view(i)
            .unwrap()
            .iter()
            .map(|(j, &v)| (j as u32 + 1, v))
            .collect();
        assert_eq!(read, row, "row {i}");
        assert_eq!(data.y[i], labels.label(&leaves, i));
    }
    let groups: Vec<u64> = groups.unwrap().into_iter().map(Option::unwrap).collect();
    let mut distinct = groups.clone();
    distinct.dedup();
    assert_eq!(distinct, (1..=games.len() as u64).collect::<Vec<_>>());
    let info = DatasetInfo::read(&out).unwrap();
    assert_eq!(info.games, games.len() as u64);
    let target = info.target.unwrap();
    assert_eq!(
        (target.teacher.as_str(), target.teacher_depth),
        ("material", Some(1))
    );
}
