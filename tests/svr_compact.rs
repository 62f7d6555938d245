//! Issue 15 items 1–2: compact rows (`u8` values), the default solver (dual
//! with the duality-gap stop), deterministic threads (`--jobs`), models
//! unchanged where the algorithm is, and the objective against liblinear's.

use std::path::{Path, PathBuf};
use std::process::Command;

use kifulearn::libsvm::{read_bytes, read_bytes_compact, read_paths, read_paths_compact, Values};

struct Weights {
    w: Vec<f64>,
}
use kifulearn::train::{CompactDataset, Solver, SparseDataset, SvrParams};
use linfa::prelude::*;

mod common;
use common::{dir, run_ok};

/// Integer-valued rows (1–10, as the relation features), `n` × `cols`.
fn integer_rows(n: usize, cols: u64, seed: u64) -> String {
    let mut rng = common::Rng(seed);
    let mut text = String::new();
    for _ in 0..n {
        let label = rng.below(2001) as f64 / 1000.0 - 1.0;
        text.push_str(&format!("{label}"));
        let mut j = 0;
        loop {
            j += 1 + rng.below(cols / 8);
            if j > cols {
                break;
            }
            text.push_str(&format!(" {j}:{}", 1 + rng.below(10)));
        }
        text.push('\n');
    }
    text
}

#[test]
fn compact_reader_narrows_to_u8_only_when_every_value_fits() {
    let name = Path::new("a.svm");
    let u8s = read_bytes_compact(name, b"1 1:3 4:255\n-0.5 2:0 3:7.0\n").unwrap();
    assert_eq!(u8s.x.values(), &Values::U8(vec![3, 255, 0, 7]));
    assert_eq!(u8s.x.indptr(), &[0, 2, 4]);
    assert_eq!(u8s.x.indices(), &[0, 3, 1, 2]);
    assert_eq!(u8s.y.to_vec(), vec![1.0, -0.5]);
    // One value that does not fit (fraction, > 255, negative, -0) widens all,
    // wherever it comes in the file (here after many parallel pieces).
    for odd in ["0.5", "256", "-1", "-0", "1e-3"] {
        let mut text = integer_rows(3000, 40, 5);
        text.push_str(&format!("0 1:{odd}\n"));
        text.push_str(&integer_rows(10, 40, 6));
        let compact = read_bytes_compact(name, text.as_bytes()).unwrap();
        let plain = read_bytes(name, text.as_bytes()).unwrap();
        let Values::F32(v) = compact.x.values() else {
            panic!("{odd}: expected f32 values");
        };
        assert_eq!(v.as_slice(), plain.x.data(), "{odd}");
        assert_eq!(compact.x.indices(), plain.x.indices());
        assert_eq!(compact.x.indptr(), plain.x.indptr().raw_storage());
        assert_eq!(compact.x.cols(), plain.x.cols());
    }
    // As strict as the plain reader, with the same messages.
    for bad in [
        "1 1:x\n",
        "1 0:1\n",
        "1 2:1 1:1\n",
        "\n",
        "1 1:1 qid:3\n",
        "1 1:nan\n",
    ] {
        let a = read_bytes_compact(name, bad.as_bytes())
            .unwrap_err()
            .to_string();
        let b = read_bytes(name, bad.as_bytes()).unwrap_err().to_string();
        assert_eq!(a, b);
    }
}

#[test]
fn u8_and_f32_rows_fit_to_the_same_bits() {
    let d = dir("svr-compact-bits");
    let path = d.join("rows.svm");
    std::fs::write(&path, integer_rows(400, 300, 11)).unwrap();
    let compact = read_paths_compact(&[&path]).unwrap();
    assert!(matches!(compact.x.values(), Values::U8(_)));
    let plain = read_paths(&[&path]).unwrap();
    for solver in [Solver::Dual, Solver::Primal] {
        let params = SvrParams::new().c(0.5).p(0.05).bias(1.0).solver(solver);
        let a = params
            .fit(&DatasetBase::new(
                CompactDataset(compact.x.clone()),
                compact.y.clone(),
            ))
            .unwrap();
        let b = params
            .fit(&DatasetBase::new(
                SparseDataset(plain.x.clone()),
                plain.y.clone(),
            ))
            .unwrap();
        let bits = |m: &kifulearn::train::SvrModel| -> Vec<u64> {
            m.model.w.iter().map(|w| w.to_bits()).collect()
        };
        assert_eq!(bits(&a), bits(&b), "{solver:?}");
        assert_eq!(a.objective.to_bits(), b.objective.to_bits());
        assert!(a.iterations > 1, "{solver:?}");
    }
}

/// `fit_owned` (what `fit` and the recipes call) numbers the used columns in
/// place instead of in a copy: on real rows, where a few thousand of 5.1M
/// columns occur, every solver gives the weights of the borrowed-rows fit,
/// bit for bit, widened back to every column.
#[test]
fn rows_fitted_in_place_give_the_same_model() {
    let d = dir("svr-compact-owned");
    let rows = read_paths_compact(&[real_rows(&d).join("rows")]).unwrap();
    let cols = rows.x.cols();
    let used = kifulearn::libsvm::UsedColumns::of(rows.x.indices(), cols)
        .unwrap()
        .columns();
    assert!(used.len() * 100 < cols, "{} of {cols} columns", used.len());
    for (solver, bias) in [
        (Solver::Auto, -1.0),
        (Solver::Primal, 1.0),
        (Solver::Dual, -1.0),
    ] {
        let params = SvrParams::new()
            .c(0.1)
            .p(0.01)
            .bias(bias)
            .solver(solver)
            .check()
            .unwrap();
        let borrowed = params
            .fit(&DatasetBase::new(
                CompactDataset(rows.x.clone()),
                rows.y.clone(),
            ))
            .unwrap();
        let owned = params.fit_owned(rows.x.clone(), rows.y.clone()).unwrap();
        assert_eq!(owned.model.w.len(), cols, "{solver:?}");
        let bits = |w: &[f64]| -> Vec<u64> { w.iter().map(|w| w.to_bits()).collect() };
        assert_eq!(bits(&owned.model.w), bits(&borrowed.model.w), "{solver:?}");
        assert_eq!(
            owned.model.bias_weight.to_bits(),
            borrowed.model.bias_weight.to_bits()
        );
        assert_eq!(owned.objective.to_bits(), borrowed.objective.to_bits());
        assert!(owned.model.w.iter().filter(|&&w| w != 0.0).count() > 100);
    }
}

fn model_hash(model: &Path) -> String {
    let meta = std::fs::read_to_string(format!("{}.meta.toml", model.display())).unwrap();
    meta.lines()
        .find_map(|l| l.strip_prefix("model_hash = "))
        .unwrap()
        .trim_matches('"')
        .to_string()
}

fn fit(args: &[&str], data: &Path, out: &Path) -> String {
    let mut all = vec!["fit", "svr"];
    all.extend_from_slice(args);
    all.extend_from_slice(&["--out", out.to_str().unwrap(), data.to_str().unwrap()]);
    run_ok(&all);
    model_hash(out)
}

/// Real rows: `extract` on two bundled tournament games.
fn real_rows(d: &Path) -> PathBuf {
    let games = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/tournament");
    let out = d.join("ds");
    run_ok(&[
        "extract",
        games.join("040501.csa").to_str().unwrap(),
        games.join("wcsc22-day3-7-ponanza.csa").to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--jobs",
        "1",
    ]);
    out
}

/// The models of the build before compact rows, for the runs whose algorithm
/// did not change (the dual with an explicit tolerance; it reads the same
/// numbers and is sequential), as `model_hash` in the sidecar (FNV-1a 64 of
/// the model file), pinned from that build (`main` at 20f442d).
#[test]
fn dual_models_are_the_same_bytes_as_before_whatever_jobs() {
    let d = dir("svr-compact-pinned");
    let small = common::fixture("liblinear/small.svm");
    let rows = real_rows(&d);
    let cases: [(&Path, &[&str], &str); 4] = [
        (&small, &["--solver", "dual", "-e", "0.1"], PINNED[0]),
        (
            &small,
            &["--solver", "dual", "-e", "0.001", "-B", "1"],
            PINNED[1],
        ),
        (
            &rows,
            &["--solver", "dual", "-e", "0.1", "-c", "0.01", "-p", "0"],
            PINNED[2],
        ),
        (
            &rows,
            &[
                "--solver",
                "dual",
                "-e",
                "0.01",
                "-p",
                "0.01",
                "--max-iter",
                "50",
            ],
            PINNED[3],
        ),
    ];
    for (k, (data, args, want)) in cases.iter().enumerate() {
        for jobs in ["1", "2"] {
            let mut a = args.to_vec();
            a.extend_from_slice(&["--jobs", jobs]);
            let got = fit(&a, data, &d.join(format!("m{k}-{jobs}.model")));
            assert_eq!(&got, want, "{args:?} --jobs {jobs}");
        }
    }
}

const PINNED: [&str; 4] = [
    "66bebb06cccf8795",
    "35ff867e45679e25",
    "fdaa4097b806e733",
    "7f6c22033a6f0998",
];

#[test]
fn primal_models_are_the_same_bytes_for_the_same_jobs() {
    let d = dir("svr-compact-jobs");
    let rows = real_rows(&d);
    for jobs in ["1", "2", "3"] {
        let args = [
            "--solver", "primal", "-c", "0.01", "-p", "0", "--jobs", jobs,
        ];
        let a = fit(&args, &rows, &d.join(format!("a{jobs}.model")));
        let b = fit(&args, &rows, &d.join(format!("b{jobs}.model")));
        assert_eq!(a, b, "--jobs {jobs}");
    }
    // The default (auto) hands these correlated rows over to the primal
    // solver: the same --jobs, the same bits.
    let a = fit(&["--jobs", "2"], &rows, &d.join("d1.model"));
    let b = fit(&["--jobs", "2"], &rows, &d.join("d2.model"));
    assert_eq!(a, b);
    let meta = std::fs::read_to_string(d.join("d1.model.meta.toml")).unwrap();
    assert!(meta.contains("solver = \"L2R_L2LOSS_SVR\""), "{meta}");
    // The dual's weights ignore --jobs.
    let dual = ["--solver", "dual", "-c", "0.01", "-p", "0", "-e", "0.01"];
    let one = fit(
        &[&dual[..], &["--jobs", "1"]].concat(),
        &rows,
        &d.join("e1.model"),
    );
    let two = fit(
        &[&dual[..], &["--jobs", "2"]].concat(),
        &rows,
        &d.join("e2.model"),
    );
    assert_eq!(one, two);
}

/// `½‖w‖² + C Σ max(0, |y − w·x| − p)²` of a model on rows, computed here.
fn objective(model: &Path, data: &kifulearn::libsvm::LibsvmData, c: f64, p: f64) -> f64 {
    // liblinear's text model, read here (no sidecar: not a kifulearn model).
    let text = std::fs::read_to_string(model).unwrap();
    let mut lines = text.lines();
    assert!(lines.any(|l| l.contains("bias -1")), "{}", model.display());
    lines.next(); // "w"
    let w: Vec<f64> = lines.map(|l| l.trim().parse().unwrap()).collect();
    let model = Weights { w };
    let mut loss = 0.0;
    for (row, y) in data.x.outer_iterator().zip(data.y.iter()) {
        let z: f64 = row
            .iter()
            .map(|(j, &v)| model.w.get(j).copied().unwrap_or(0.0) * f64::from(v))
            .sum();
        let e = ((z - y).abs() - p).max(0.0);
        loss += e * e;
    }
    0.5 * model.w.iter().map(|w| w * w).sum::<f64>() + c * loss
}

/// The regression test of issue 15 item 1: on rows shaped like the ones that
/// stalled TRON (integer values, far more columns than rows, most rows at
/// the tube's edge at the optimum), both solvers at their default stop reach
/// liblinear `-s 12 -e 0.001`'s objective within 0.1%, the primal in a
/// bounded number of Newton steps and the dual in a bounded number of epochs.
#[test]
fn default_stops_reach_liblinear_within_a_tenth_of_a_percent() {
    let have = Command::new("liblinear-train").output().is_ok();
    if !common::peer(have, "liblinear-train") {
        return;
    }
    let Some(script) = common::shared("tools/gen_synthetic.py") else {
        return;
    };
    if !common::have_python("numpy", "gen_synthetic.py") {
        return;
    }
    let d = dir("svr-compact-regression");
    let data = d.join("synth.svm");
    let ok = Command::new("python3")
        .arg(script)
        .arg(&data)
        .args([
            "--rows", "4000", "--dim", "400000", "--hot", "4000", "--seed", "2",
        ])
        .status()
        .unwrap()
        .success();
    assert!(ok, "gen_synthetic.py failed");
    let ll = d.join("ll.model");
    let out = Command::new("liblinear-train")
        .args(["-s", "12", "-e", "0.001"])
        .arg(&data)
        .arg(&ll)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let rows = read_paths(&[&data]).unwrap();
    let theirs = objective(&ll, &rows, 1.0, 0.1);
    // Measured: default (the dual) 6 epochs, primal 26 Newton steps, both
    // +0.02% over liblinear -s 12 -e 0.001; liblinear -s 11 -e 0.001 stops
    // after 3 steps 52% above it (the stall of issue 15).
    for (solver, cap) in [("default", 15), ("primal", 40)] {
        let m = d.join(format!("{solver}.model"));
        let mut args = vec![];
        if solver != "default" {
            args.extend_from_slice(&["--solver", solver]);
        }
        fit(&args, &data, &m);
        let ours = objective(&m, &rows, 1.0, 0.1);
        let meta = std::fs::read_to_string(format!("{}.meta.toml", m.display())).unwrap();
        let steps: usize = meta
            .lines()
            .find_map(|l| l.strip_prefix("iterations = "))
            .unwrap()
            .parse()
            .unwrap();
        eprintln!("{solver}: objective {ours} (liblinear -s 12: {theirs}), {steps} iterations");
        assert!(
            ours <= theirs * 1.001,
            "{solver}: {ours} vs liblinear {theirs}"
        );
        assert!(
            steps <= cap,
            "{solver}: {steps} iterations, more than {cap}"
        );
    }
}
