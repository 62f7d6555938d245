//! kifulearn against liblinear 2.3.0 (`liblinear-tools`) and the peer scripts.
//! Skipped, with a printed note, when `liblinear-train` is not on PATH.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

mod common;

/// A script of `../shared/tools`, or `None` (with a note) when `../shared` is absent.
fn shared(name: &str) -> Option<PathBuf> {
    common::shared(&format!("tools/{name}"))
}

fn have_liblinear() -> bool {
    let ok = Command::new("liblinear-train").output().is_ok();
    if !ok {
        eprintln!("note: liblinear-train not on PATH (run .ci/install-peers.sh); skipped");
    }
    ok
}

fn run(cmd: &mut Command) -> Output {
    let out = cmd.output().expect("command starts");
    assert!(
        out.status.success(),
        "{cmd:?} failed: {}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

fn kifulearn() -> Command {
    Command::new(env!("CARGO_BIN_EXE_kifulearn"))
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kifulearn-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

fn read_numbers(path: &Path) -> Vec<f64> {
    std::fs::read_to_string(path)
        .unwrap()
        .lines()
        .map(|l| l.trim().parse().unwrap())
        .collect()
}

#[test]
fn liblinear_predict_reads_our_models_and_gives_our_predictions() {
    if !have_liblinear() {
        return;
    }
    let Some(compare) = shared("predict_compare.sh") else {
        return;
    };
    let dir = tmpdir("ours");
    let data = common::fixture("liblinear/small.svm");
    for (solver, bias) in [("primal", "-1"), ("dual", "1")] {
        let model = dir.join(format!("{solver}.model"));
        let pred = dir.join(format!("{solver}.pred"));
        run(kifulearn()
            .args([
                "fit",
                "--solver",
                solver,
                "-B",
                bias,
                "--features",
                "relation",
                "--out",
            ])
            .arg(&model)
            .arg(&data));
        let meta = std::fs::read_to_string(dir.join(format!("{solver}.model.meta.toml"))).unwrap();
        assert!(meta.starts_with("features = \"relation\"\n"), "{meta}");
        run(kifulearn()
            .args(["predict", "--model"])
            .arg(&model)
            .arg(&data)
            .arg("--out")
            .arg(&pred));
        let out = run(Command::new("bash")
            .arg(&compare)
            .arg(&model)
            .arg(&data)
            .arg(&pred)
            .arg("1e-12"));
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("-> OK"), "{text}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn we_predict_liblinear_models_as_liblinear_predict_does() {
    if !have_liblinear() {
        return;
    }
    let dir = tmpdir("theirs");
    let data = common::fixture("liblinear/small.svm");
    for extra in [&[][..], &["-B", "1"][..]] {
        let model = dir.join("ll.model");
        run(Command::new("liblinear-train")
            .args(["-q", "-s", "11", "-e", "0.001"])
            .args(extra)
            .arg(&data)
            .arg(&model));
        let ll_pred = dir.join("ll.pred");
        let ll_out = run(Command::new("liblinear-predict")
            .arg(&data)
            .arg(&model)
            .arg(&ll_pred));
        let ours = dir.join("ours.pred");
        let our_out = run(kifulearn()
            .args(["predict", "--model"])
            .arg(&model)
            .arg(&data)
            .arg("--out")
            .arg(&ours));
        let (a, b) = (read_numbers(&ll_pred), read_numbers(&ours));
        assert_eq!(a.len(), b.len());
        for (x, y) in a.iter().zip(&b) {
            assert!((x - y).abs() <= 1e-6, "{x} vs {y}");
        }
        assert_eq!(our_out.stdout, ll_out.stdout, "MSE / r² lines");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn our_objective_matches_primal_objective_py() {
    if !have_liblinear() {
        return;
    }
    let Some(objective) = shared("primal_objective.py") else {
        return;
    };
    let dir = tmpdir("objective");
    let data = common::fixture("liblinear/small.svm");
    for solver in ["primal", "dual"] {
        let model = dir.join("m.model");
        run(kifulearn()
            .args(["fit", "--solver", solver, "-c", "2", "-p", "0.05", "--out"])
            .arg(&model)
            .arg(&data));
        let meta = std::fs::read_to_string(dir.join("m.model.meta.toml")).unwrap();
        let ours: f64 = meta
            .lines()
            .find_map(|l| l.strip_prefix("objective = "))
            .unwrap()
            .parse()
            .unwrap();
        let out = run(Command::new("python3")
            .arg(&objective)
            .arg(&model)
            .arg(&data)
            .args(["-c", "2", "-p", "0.05"]));
        let text = String::from_utf8_lossy(&out.stdout);
        let theirs: f64 = text
            .split_whitespace()
            .find_map(|t| t.strip_prefix("objective="))
            .unwrap()
            .parse()
            .unwrap();
        assert!(
            (ours - theirs).abs() <= 1e-6 * theirs,
            "{solver}: {ours} vs {theirs}"
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_options_and_rows_are_reported() {
    let out = kifulearn()
        .args(["fit", "x.svm", "--out", "m", "-c", "-1"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: C must be positive and finite, got -1\n"
    );
    let dir = tmpdir("bad");
    let data = dir.join("a.svm");
    std::fs::write(&data, "0.1 1:1\n0.2 1:1 3:x\n").unwrap();
    let out = kifulearn()
        .args(["fit", "--out"])
        .arg(dir.join("m"))
        .arg(&data)
        .output()
        .unwrap();
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        format!(
            "error: {}:2: found \"3:x\", expected INDEX:VALUE with a positive integer index\n",
            data.display()
        )
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
