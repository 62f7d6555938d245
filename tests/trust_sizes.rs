//! Sizes are checked before they are believed: hostile or damaged libsvm files
//! and models, run through the built binary's commands. Each must exit with a
//! non-zero code (not a signal such as SIGABRT from a failed huge allocation)
//! and a message naming the file and the line or byte offset.

use std::path::{Path, PathBuf};
mod common;
use common::{dir, run};

fn games() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/edo-kif/15732.kif")
}

/// The command failed with an exit code (not a signal) and a message containing `want`.
fn fails_with(args: &[&str], want: &str) {
    let out = run(args);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let code = out.status.code();
    assert!(
        code.is_some() && code != Some(0),
        "{args:?}: status {:?}, stderr {stderr}",
        out.status
    );
    assert!(
        stderr.contains(want),
        "{args:?}: wanted {want:?} in:\n{stderr}"
    );
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

const HUGE_INDEX: &str = "0.5 1:1 4294967295:1\n";

fn huge_nr_feature_model(dir: &Path) -> PathBuf {
    let path = dir.join("huge.model");
    std::fs::write(
        &path,
        "solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 4294967295\nbias -1\nw\n0.5 \n",
    )
    .unwrap();
    std::fs::write(
        dir.join("huge.model.meta.toml"),
        "features = \"relation\"\n",
    )
    .unwrap();
    path
}

fn four_byte_binary(dir: &Path) -> PathBuf {
    let path = dir.join("short.bin");
    std::fs::write(&path, b"KFLM").unwrap();
    path
}

#[test]
fn fit_refuses_a_libsvm_index_beyond_the_limit() {
    let d = dir("trust_fit_index");
    let data = d.join("a.svm");
    std::fs::write(&data, HUGE_INDEX).unwrap();
    let want = format!(
        "{}:1: index 4294967295 is beyond the limit of 134217728 features",
        data.display()
    );
    let model = d.join("m.model");
    fails_with(&["fit", "svr", s(&data), "--out", s(&model)], &want);
    fails_with(&["fit", "streaming", s(&data), "--out", s(&model)], &want);
}

#[test]
fn predict_refuses_a_libsvm_index_beyond_the_limit() {
    let d = dir("trust_predict_index");
    let data = d.join("a.svm");
    std::fs::write(&data, HUGE_INDEX).unwrap();
    let model = d.join("m.model");
    std::fs::write(
        &model,
        "solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 1\nbias -1\nw\n0.5 \n",
    )
    .unwrap();
    let want = format!(
        "{}:1: index 4294967295 is beyond the limit of 134217728 features",
        data.display()
    );
    let pred = d.join("p.txt");
    fails_with(
        &["predict", "--model", s(&model), s(&data), "--out", s(&pred)],
        &want,
    );
}

#[test]
fn a_huge_nr_feature_is_refused_by_predict_evaluate_and_usi() {
    let d = dir("trust_nr_feature");
    let model = huge_nr_feature_model(&d);
    let data = d.join("a.svm");
    std::fs::write(&data, "0.5 1:1\n").unwrap();
    let want = format!(
        "{}: line 3: nr_feature 4294967295 is beyond the limit of 134217728 features",
        model.display()
    );
    let pred = d.join("p.txt");
    fails_with(
        &["predict", "--model", s(&model), s(&data), "--out", s(&pred)],
        &want,
    );
    fails_with(&["evaluate", "--model", s(&model), s(&games())], &want);
    fails_with(&["usi", "--model", s(&model)], &want);
}

#[test]
fn a_four_byte_binary_model_is_refused_by_predict_evaluate_and_usi() {
    let d = dir("trust_short_bin");
    let model = four_byte_binary(&d);
    let data = d.join("a.svm");
    std::fs::write(&data, "0.5 1:1\n").unwrap();
    let want = format!(
        "{}: byte 4: truncated binary model: expected the version, the file ends at byte 4",
        model.display()
    );
    let pred = d.join("p.txt");
    fails_with(
        &["predict", "--model", s(&model), s(&data), "--out", s(&pred)],
        &want,
    );
    fails_with(&["evaluate", "--model", s(&model), s(&games())], &want);
    fails_with(&["usi", "--model", s(&model)], &want);
}

#[test]
fn a_model_whose_sidecar_disagrees_is_refused() {
    let d = dir("trust_meta");
    let model = d.join("m.model");
    // 200 weights, but the material set has 104 features.
    let mut text =
        String::from("solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature 200\nbias -1\nw\n");
    for _ in 0..200 {
        text.push_str("0.001 \n");
    }
    std::fs::write(&model, text).unwrap();
    std::fs::write(d.join("m.model.meta.toml"), "features = \"material\"\n").unwrap();
    let want = "features = \"material\" has dimension 104 but";
    fails_with(&["usi", "--model", s(&model)], want);
    fails_with(&["evaluate", "--model", s(&model), s(&games())], want);
    let data = d.join("a.svm");
    std::fs::write(&data, "0.5 1:1\n").unwrap();
    let pred = d.join("p.txt");
    fails_with(
        &["predict", "--model", s(&model), s(&data), "--out", s(&pred)],
        want,
    );
}
