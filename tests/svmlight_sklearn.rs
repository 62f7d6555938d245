//! The libsvm reader on svmlight as scikit-learn writes and reads it: its own
//! test file `svmlight_classification.txt` (comments, inline comments, tabs),
//! and files written by `dump_svmlight_file` with a comment and `query_id`,
//! compared number by number with `load_svmlight_file`.
//!
//! Skipped with a printed note when python3 or scikit-learn is missing
//! (`.ci/install-peers.sh` installs it); fails instead when `CI` is set.

mod common;

use std::path::{Path, PathBuf};

use kifulearn::libsvm::{read_paths, read_paths_with_groups};

fn have_sklearn() -> bool {
    common::have_python("sklearn", "scikit-learn")
}

fn python(script: &str, args: &[&Path]) -> String {
    common::python(script, args)
}

/// Prints what `load_svmlight_file` reads: per row `label qid j:value ...`
/// (0-based columns, values in `repr`, qid -1 when the file has none).
const LOAD: &str = r#"
import sys
from sklearn.datasets import load_svmlight_file
path = sys.argv[1]
X, y, q = load_svmlight_file(path, zero_based=False, query_id=True)
if len(q) == 0:
    q = [-1] * len(y)
X = X.tocsr()
for i in range(X.shape[0]):
    row = X.getrow(i)
    cells = ' '.join('%d:%r' % (j, float(v)) for j, v in zip(row.indices, row.data))
    print(repr(float(y[i])), int(q[i]), cells)
"#;

/// Compares our reading of `path` with scikit-learn's, row by row.
fn same_numbers(path: &Path) -> usize {
    let theirs = python(LOAD, &[path]);
    let (ours, groups) = read_paths_with_groups(&[path]).unwrap();
    let rows: Vec<&str> = theirs.lines().collect();
    assert_eq!(rows.len(), ours.y.len(), "{}", path.display());
    for (i, line) in rows.iter().enumerate() {
        let mut words = line.split_whitespace();
        let label: f64 = words.next().unwrap().parse().unwrap();
        let qid: i64 = words.next().unwrap().parse().unwrap();
        assert_eq!(ours.y[i], label, "row {i}");
        let group = groups.as_ref().and_then(|g| g[i]).map_or(-1, |g| g as i64);
        assert_eq!(group, qid, "row {i}");
        let row = ours.x.outer_view(i).unwrap();
        // Explicit zeros are kept as stored zeros, by both readers.
        let ours_cells: Vec<(usize, f32)> = row.iter().map(|(j, &v)| (j, v)).collect();
        let theirs_cells: Vec<(usize, f32)> = words
            .map(|c| {
                let (j, v) = c.split_once(':').unwrap();
                (j.parse().unwrap(), v.parse::<f64>().unwrap() as f32)
            })
            .collect();
        assert_eq!(ours_cells, theirs_cells, "row {i} of {}", path.display());
    }
    rows.len()
}

fn tmpdir(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("kifulearn-{name}-{}", std::process::id()));
    std::fs::create_dir_all(&d).unwrap();
    d
}

#[test]
fn sklearn_own_test_file_reads_with_the_same_numbers() {
    if !have_sklearn() {
        return;
    }
    let dir = python(
        "import os, sklearn.datasets.tests as t; print(os.path.join(os.path.dirname(t.__file__), 'data'))",
        &[],
    );
    let file = Path::new(dir.trim()).join("svmlight_classification.txt");
    if !file.exists() {
        eprintln!(
            "note: {} not shipped by this scikit-learn; skipped",
            file.display()
        );
        return;
    }
    assert_eq!(same_numbers(&file), 6);
    // Its invalid files stay invalid, with located errors.
    for (name, message) in [
        ("svmlight_invalid.txt", "svmlight_invalid.txt:"),
        (
            "svmlight_invalid_order.txt",
            "indices must be strictly ascending",
        ),
    ] {
        let e = read_paths(&[Path::new(dir.trim()).join(name)])
            .unwrap_err()
            .to_string();
        assert!(e.contains(message), "{name}: {e}");
    }
}

#[test]
fn dump_svmlight_file_with_comment_and_query_id_reads_with_the_same_numbers() {
    if !have_sklearn() {
        return;
    }
    let dir = tmpdir("sklearn-dump");
    let (plain, ranked) = (dir.join("plain.svm"), dir.join("ranked.svm"));
    python(
        r#"
import sys
import numpy as np
import scipy.sparse as sp
from sklearn.datasets import dump_svmlight_file
rng = np.random.RandomState(7)
X = sp.random(40, 30, density=0.2, random_state=rng, format='csr') * 100 - 0.0
X.data = np.round(X.data - 50, 6)
y = np.round(rng.randn(40), 9)
q = np.repeat(np.arange(1, 11), 4)
dump_svmlight_file(X, y, sys.argv[1], zero_based=False, comment='made by kifulearn tests\nsecond line')
dump_svmlight_file(X, y, sys.argv[2], zero_based=False, query_id=q, comment='ranked')
"#,
        &[&plain, &ranked],
    );
    let text = std::fs::read_to_string(&plain).unwrap();
    assert!(text.starts_with("# "), "{text}");
    assert_eq!(same_numbers(&plain), 40);
    assert_eq!(same_numbers(&ranked), 40);
    let (_, groups) = read_paths_with_groups(&[&ranked]).unwrap();
    let groups = groups.unwrap();
    assert_eq!((groups[0], groups[39]), (Some(1), Some(10)));
    let _ = std::fs::remove_dir_all(&dir);
}
