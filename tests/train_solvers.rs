//! The two sparse solvers reach the same optimum, and agree with linfa-linear.

use std::path::{Path, PathBuf};
use std::process::Command;

use kifulearn::libsvm::{read_paths, LibsvmData};
use kifulearn::train::{Solver, SparseDataset, SvrParams};
use linfa::prelude::*;
use ndarray::{Array1, Array2};

fn shared() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/tools")
}

fn fit(data: &LibsvmData, params: SvrParams) -> kifulearn::train::SvrModel {
    let ds = DatasetBase::new(SparseDataset(data.x.clone()), data.y.clone());
    params.fit(&ds).unwrap()
}

fn assert_same_objective(data: &LibsvmData, c: f64, p: f64, bias: f64) {
    let base = SvrParams::new().c(c).p(p).bias(bias);
    let primal = fit(
        data,
        base.clone()
            .solver(Solver::Primal)
            .tolerance(1e-6)
            .max_iterations(100_000),
    );
    let dual = fit(
        data,
        base.solver(Solver::Dual)
            .tolerance(1e-4)
            .max_iterations(100_000),
    );
    let rel = (primal.objective - dual.objective).abs() / primal.objective;
    assert!(
        rel < 1e-4,
        "primal {} dual {} rel {rel:e}",
        primal.objective,
        dual.objective
    );
    assert!(primal.iterations > 1 && dual.iterations > 1);
}

#[test]
fn primal_and_dual_agree_on_the_golden_example() {
    let data = read_paths(&[shared().join("examples/small.svm")]).unwrap();
    assert_same_objective(&data, 1.0, 0.1, -1.0);
    assert_same_objective(&data, 1.0, 0.1, 1.0);
    // liblinear -s 11 -e 0.0001 reached 0.1068518395 (examples/README.md);
    // a tighter primal run must not be worse than that.
    let primal = fit(
        &data,
        SvrParams::new().tolerance(1e-8).max_iterations(100_000),
    );
    assert!(
        primal.objective <= 0.1068518395 * (1.0 + 1e-9),
        "{}",
        primal.objective
    );
    assert!(
        primal.objective > 0.1068518395 * 0.95,
        "{}",
        primal.objective
    );
}

#[test]
fn primal_and_dual_agree_on_synthetic_data() {
    let out = std::env::temp_dir().join(format!("kifulearn-synth-{}.svm", std::process::id()));
    let status = Command::new("python3")
        .arg(shared().join("gen_synthetic.py"))
        .arg(&out)
        .args(["--rows", "2000", "--dim", "20000", "--seed", "7"])
        .status();
    match status {
        Ok(s) if s.success() => {}
        _ => {
            eprintln!("note: gen_synthetic.py did not run (python3 + numpy needed); skipped");
            return;
        }
    }
    let data = read_paths(&[&out]).unwrap();
    std::fs::remove_file(&out).unwrap();
    assert_eq!(data.x.rows(), 2000);
    assert_same_objective(&data, 1.0, 0.1, -1.0);
}

#[test]
fn with_large_c_and_no_tube_all_solvers_match_least_squares() {
    // y = 0.5 + 2 x1 - x2 + 0.25 x3 + noise, 200 rows, dense.
    let mut x = Array2::<f64>::zeros((200, 3));
    let mut y = Array1::<f64>::zeros(200);
    let mut state = 12345u64;
    let mut rnd = || {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((state >> 33) as f64 / (1u64 << 31) as f64) - 0.5
    };
    for i in 0..200 {
        for j in 0..3 {
            x[[i, j]] = (rnd() * 8.0).round() / 2.0 + 0.5;
        }
        y[i] = 0.5 + 2.0 * x[[i, 0]] - x[[i, 1]] + 0.25 * x[[i, 2]] + 0.1 * rnd();
    }
    let ols = linfa_linear::LinearRegression::new()
        .fit(&Dataset::new(x.clone(), y.clone()))
        .unwrap();
    let csr = sprs::CsMatI::<f32, u32>::csr_from_dense(x.mapv(|v| v as f32).view(), 0.0);
    let data = LibsvmData { x: csr, y };
    for solver in [Solver::Primal, Solver::Dual, Solver::Dense] {
        let m = fit(
            &data,
            SvrParams::new()
                .c(100.0)
                .p(0.0)
                .bias(1.0)
                .solver(solver)
                .tolerance(1e-8)
                .max_iterations(100_000),
        );
        for j in 0..3 {
            assert!(
                (m.model.w[j] - ols.params()[j]).abs() < 2e-3,
                "{solver:?} w{j} {} vs {}",
                m.model.w[j],
                ols.params()[j]
            );
        }
        assert!(
            (m.model.bias_weight - ols.intercept()).abs() < 2e-3,
            "{solver:?} bias {} vs {}",
            m.model.bias_weight,
            ols.intercept()
        );
    }
}

#[test]
fn invalid_parameters_are_rejected_before_work() {
    use linfa::ParamGuard;
    let e = |p: SvrParams| p.check().unwrap_err().to_string();
    assert_eq!(
        e(SvrParams::new().c(-1.0)),
        "C must be positive and finite, got -1"
    );
    assert_eq!(
        e(SvrParams::new().c(f64::INFINITY)),
        "C must be positive and finite, got inf"
    );
    assert_eq!(
        e(SvrParams::new().p(-0.5)),
        "p must be non-negative and finite, got -0.5"
    );
    assert_eq!(
        e(SvrParams::new().tolerance(0.0)),
        "tolerance must be positive and finite, got 0"
    );
    assert_eq!(
        e(SvrParams::new().max_iterations(0)),
        "max_iterations must be at least 1, got 0"
    );
    assert_eq!(
        e(SvrParams::new().bias(f64::NAN)),
        "bias must be finite, got NaN"
    );
}
