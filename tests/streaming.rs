//! The streaming learner (`fit streaming`): the update rule on a
//! hand-made set, learning on rows extracted from fixture games (and the model
//! read back by `predict`), and bounded memory on a corpus larger than a cap.

use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use kifulearn::libsvm::{expand_paths, read_paths};
use kifulearn::train::{Quiet, StreamingFit, StreamingParams};
use linfa::ParamGuard;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kifulearn-st-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&dir);
    fs::create_dir_all(&dir).unwrap();
    dir
}

mod common;

fn kifulearn(args: &[&str]) -> (bool, String, String) {
    let out = common::run_with(args, &[], 600);
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn train(params: StreamingParams, files: &[PathBuf], dimension: usize) -> StreamingFit {
    params
        .check()
        .unwrap()
        .fit(files, dimension, &Quiet)
        .unwrap()
}

fn assert_close(got: &[f32], want: &[f64]) {
    assert_eq!(got.len(), want.len(), "{got:?} vs {want:?}");
    for (g, w) in got.iter().zip(want) {
        assert!((*g as f64 - w).abs() < 1e-7, "{got:?} vs {want:?}");
    }
}

/// Two games: a.svm (two rows), b.svm (one row).
fn tiny_set() -> (PathBuf, Vec<PathBuf>) {
    let dir = scratch("tiny");
    let a = dir.join("a.svm");
    let b = dir.join("b.svm");
    fs::write(&a, "0.5 1:1 2:2\n-0.25 2:1 3:4\n").unwrap();
    fs::write(&b, "1 1:2 4:1\n").unwrap();
    // Listed out of order: the learner sorts.
    (dir, vec![b, a])
}

#[test]
fn one_batch_follows_the_rule_with_frequency_filter_and_clamp() {
    let (dir, files) = tiny_set();
    // One batch over both games, w = 0 so every residual is the label:
    // n1 = 2, s1 = 0.5·1 + 1·2 = 2.5   → 0.05·2.5/2 = 0.0625 → clamped to 0.06
    // n2 = 2, s2 = 0.5·2 − 0.25·1 = 0.75 → 0.05·0.75/2 = 0.01875
    // n3 = n4 = 1 < min_frequency 2    → not updated
    let params = StreamingParams::new()
        .rate(0.05)
        .bound(0.06)
        .min_frequency(2)
        .batch_games(2);
    let fit = train(params.clone(), &files, 0);
    assert_close(&fit.weights, &[0.06, 0.01875, 0.0, 0.0]);
    let s = fit.epochs[0];
    assert_eq!(
        (s.epoch, s.rows, s.batches, s.features_updated),
        (1, 3, 1, 2)
    );
    assert!((s.mse - (0.25 + 0.0625 + 1.0) / 3.0).abs() < 1e-12);
    // The dimension given is allocated even beyond the indices read.
    assert_eq!(train(params, &files, 10).weights.len(), 10);

    // One batch per game; the second game is predicted with the first's update.
    // Batch a: w1 = 0.05·0.5 = 0.025, w2 = 0.01875, w3 = 0.05·(−1) = −0.05.
    // Batch b: p = 0.025·2 = 0.05, r = 0.95: w1 = 0.025 + 0.05·1.9 = 0.12 → 0.06,
    //          w4 = 0.05·0.95 = 0.0475.
    let params = StreamingParams::new()
        .rate(0.05)
        .bound(0.06)
        .min_frequency(1)
        .batch_games(1);
    let fit = train(params.clone(), &files, 0);
    assert_close(&fit.weights, &[0.06, 0.01875, -0.05, 0.0475]);
    let s = fit.epochs[0];
    assert_eq!((s.rows, s.batches, s.features_updated), (3, 2, 5));
    assert!((s.mse - (0.25 + 0.0625 + 0.95 * 0.95) / 3.0).abs() < 1e-9);

    // A seed shuffles reproducibly; two epochs report twice.
    let seeded = params.epochs(2).seed(Some(7));
    let (x, y) = (train(seeded.clone(), &files, 0), train(seeded, &files, 0));
    assert_eq!(x.weights, y.weights);
    assert_eq!(x.epochs.len(), 2);
    let _ = fs::remove_dir_all(&dir);
}

#[test]
fn bad_parameters_are_named() {
    let err = |p: StreamingParams| p.check().unwrap_err().to_string();
    let p = StreamingParams::new;
    assert_eq!(
        err(p().rate(0.0)),
        "rate must be positive and finite, got 0"
    );
    assert_eq!(
        err(p().rate(f32::NAN)),
        "rate must be positive and finite, got NaN"
    );
    assert_eq!(
        err(p().bound(-1.0)),
        "bound must be positive and finite, got -1"
    );
    assert_eq!(
        err(p().min_frequency(0)),
        "min_frequency must be at least 1, got 0"
    );
    assert_eq!(
        err(p().batch_games(0)),
        "batch_games must be at least 1, got 0"
    );
    assert_eq!(err(p().epochs(0)), "epochs must be at least 1, got 0");
    let (ok, _, e) = kifulearn(&["fit", "svr", "x.svm", "--out", "m", "--rate", "0.1"]);
    assert!(!ok);
    assert_eq!(
        e.trim(),
        "error: --rate does not apply to fit svr \
         (it is an option of fit ranking, fit streaming, fit positions)"
    );
    let (ok, _, e) = kifulearn(&["fit", "ranking", "x.kif", "--out", "m", "--bound", "1"]);
    assert!(!ok);
    assert_eq!(
        e.trim(),
        "error: --bound does not apply to fit ranking (it is an option of fit streaming)"
    );
    let (ok, _, e) = kifulearn(&["fit", "streaming", "x.svm", "--out", "m", "--window", "1"]);
    assert!(!ok);
    assert_eq!(
        e.trim(),
        "error: --window does not apply to fit streaming (it is an option of fit ranking)"
    );
    let (ok, _, e) = kifulearn(&["fit", "streaming", "x.svm", "--out", "m", "--bound", "0"]);
    assert!(!ok);
    assert_eq!(e.trim(), "error: bound must be positive and finite, got 0");
}

/// Rows of two fixture games (40 plies each), extracted once per test run.
fn fixture_rows() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        // Kept between runs (extract resumes complete games), under cargo's
        // scratch folder for integration tests.
        let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("streaming-fixture-rows");
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/selfplay");
        let (ok, _, e) = kifulearn(&[
            "extract",
            root.join("fsf_selfplay_w1_00234.csa").to_str().unwrap(),
            root.join("fsf_selfplay_w2_00049.csa").to_str().unwrap(),
            "--out",
            dir.join("rows").to_str().unwrap(),
            "--max-plies",
            "40",
        ]);
        assert!(ok, "{e}");
        dir
    })
}

#[test]
fn learns_from_fixture_games_and_predict_reads_the_model() {
    let dir = fixture_rows();
    let rows = dir.join("rows");
    let model = dir.join("stream.model");
    let pred = dir.join("stream.pred");
    let (ok, _, e) = kifulearn(&[
        "fit",
        "streaming",
        rows.to_str().unwrap(),
        "--out",
        model.to_str().unwrap(),
        "--features",
        "relation",
        "--epochs",
        "3",
        "--batch-games",
        "1",
    ]);
    assert!(ok, "{e}");
    assert!(e.contains("epoch 3:"), "{e}");
    let meta = fs::read_to_string(format!("{}.meta.toml", model.display())).unwrap();
    assert!(meta.starts_with("features = \"relation\"\nmethod = \"streaming\"\n"));

    // The same training through the library gives the learner's own predictions.
    let files = expand_paths(&[&rows]).unwrap();
    let params = StreamingParams::new().epochs(3).batch_games(1);
    let fit = train(params, &files, 0);
    let data = read_paths(&[&rows]).unwrap();
    let indptr = data.x.indptr().into_raw_storage();
    let (idx, val) = (data.x.indices(), data.x.data());
    let own: Vec<f64> = (0..data.x.rows())
        .map(|i| {
            let (a, b) = (indptr[i] as usize, indptr[i + 1] as usize);
            fit.predict_row(&idx[a..b], &val[a..b])
        })
        .collect();
    let (ok, _, e) = kifulearn(&[
        "predict",
        "--model",
        model.to_str().unwrap(),
        rows.to_str().unwrap(),
        "--out",
        pred.to_str().unwrap(),
    ]);
    assert!(ok, "{e}");
    let predicted: Vec<f64> = fs::read_to_string(&pred)
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    assert_eq!(predicted, own, "predict must read the weights exactly");

    let y = data.y.as_slice().unwrap();
    let mse = |p: &dyn Fn(usize) -> f64| {
        y.iter()
            .enumerate()
            .map(|(i, t)| (t - p(i)).powi(2))
            .sum::<f64>()
            / y.len() as f64
    };
    let (zero, trained) = (mse(&|_| 0.0), mse(&|i| own[i]));
    eprintln!(
        "{} rows: MSE zero model {zero:.6}, streaming {trained:.6}",
        y.len()
    );
    assert!(trained < 0.8 * zero, "{trained} vs zero model {zero}");
    // The per-epoch MSE (before each update) falls as well.
    assert!(fit.epochs[2].mse < fit.epochs[0].mse);
}

/// Peak RSS of `kifulearn ARGS` run under an RLIMIT_DATA of `cap` bytes, in
/// bytes (GNU time's %M), and whether it succeeded.
fn run_capped(cap: u64, args: &[&str]) -> (bool, u64, String) {
    let out = Command::new("/usr/bin/time")
        .args(["-f", "peak-rss-kb %M", "prlimit"])
        .arg(format!("--data={cap}"))
        .arg(env!("CARGO_BIN_EXE_kifulearn"))
        .args(args)
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr).into_owned();
    let kb: u64 = err
        .lines()
        .find_map(|l| l.strip_prefix("peak-rss-kb "))
        .and_then(|v| v.trim().parse().ok())
        .unwrap_or_else(|| panic!("no peak RSS in: {err}"));
    (out.status.success(), kb * 1024, err)
}

#[test]
fn memory_stays_below_a_cap_smaller_than_the_corpus() {
    if !Path::new("/usr/bin/time").exists() || !Path::new("/usr/bin/prlimit").exists() {
        eprintln!("skipped: needs GNU time (.ci/install-peers.sh) and prlimit (util-linux)");
        return;
    }
    const CAP: u64 = 160 << 20;
    let source = fixture_rows().join("rows");
    let games = expand_paths(&[&source]).unwrap();
    let sizes: Vec<(u64, u64)> = games
        .iter()
        .map(|g| {
            let text = fs::read(g).unwrap();
            let nnz = text.iter().filter(|&&b| b == b':').count() as u64;
            (text.len() as u64, nnz)
        })
        .collect();
    // Hard links (copies where links fail) of the games until the corpus is
    // larger than the cap both as text and as the in-memory matrix that
    // `fit` must build (8 bytes a nonzero: u32 index + f32 value).
    let corpus = scratch("corpus");
    let (mut bytes, mut nnz, mut n) = (0u64, 0u64, 0usize);
    while bytes <= CAP || nnz * 8 <= CAP * 5 / 4 {
        let k = n % games.len();
        let copy = corpus.join(format!("g{n:05}.svm"));
        if fs::hard_link(&games[k], &copy).is_err() {
            fs::copy(&games[k], &copy).unwrap();
        }
        bytes += sizes[k].0;
        nnz += sizes[k].1;
        n += 1;
    }
    let model = corpus.join("m.model");
    let (ok, peak, err) = run_capped(
        CAP,
        &[
            "fit",
            "streaming",
            corpus.to_str().unwrap(),
            "--out",
            model.to_str().unwrap(),
            "--features",
            "relation",
        ],
    );
    eprintln!(
        "corpus: {n} files, {:.0} MB text, {nnz} nonzeros ({:.0} MB as a matrix); \
         cap {} MB; streaming peak RSS {:.0} MB",
        bytes as f64 / 1e6,
        nnz as f64 * 8.0 / 1e6,
        CAP >> 20,
        peak as f64 / 1e6
    );
    assert!(ok, "{err}");
    assert!(peak < CAP, "peak RSS {peak} ≥ cap {CAP}");
    assert!(err.contains(&format!("{n} file(s)")), "{err}");

    // The in-memory fit cannot read the same corpus under the same cap.
    let (ok, peak_fit, err_fit) = run_capped(
        CAP,
        &[
            "fit",
            "svr",
            corpus.to_str().unwrap(),
            "--out",
            corpus.join("svr.model").to_str().unwrap(),
            "--max-iter",
            "1",
        ],
    );
    eprintln!(
        "in-memory fit under the cap: success {ok}, peak RSS {:.0} MB",
        peak_fit as f64 / 1e6
    );
    assert!(!ok, "fit succeeded under the cap: {err_fit}");
    assert!(err_fit.contains("memory allocation"), "{err_fit}");
    let _ = fs::remove_dir_all(&corpus);
}
