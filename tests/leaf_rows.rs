//! Rows at the leaf describe what their labels describe (issue: learn from the
//! positions the labels describe).
//!
//! With the material labeller and the `material` set, the value of a sibling is
//! the material balance at the end of its search line. Rows taken there
//! (`extract --rows-at leaf`) are therefore explained exactly by the
//! labeller's own piece values: a least-squares fit recovers them. Rows taken
//! at the raw sibling (`--rows-at sibling`, the Mecha-Joshi recipe) describe the
//! position before the replies and recaptures the value already counts, and the
//! same fit does not.

use std::process::Command;

use kifulearn::shogi::{piece_value, Piece, KIND_ORDER};

const SCALE: f64 = 10_000.0;

/// Extracts the fixtures' self-play games with the material labeller and set,
/// margin 1, and returns the rows whose label is the sibling's own value
/// (the label rule leaves them unclamped; the game move's row carries the margin).
fn rows(rows_at: &str) -> Vec<(Vec<(usize, f64)>, f64)> {
    let out = std::env::temp_dir().join(format!(
        "kifulearn-leaf-rows-{rows_at}-{}",
        std::process::id()
    ));
    let _ = std::fs::remove_dir_all(&out);
    let fixtures = concat!(env!("CARGO_MANIFEST_DIR"), "/fixtures/selfplay");
    let status = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .args([
            "extract",
            fixtures,
            "--features",
            "material",
            "--margin",
            "1",
            "--rows-at",
            rows_at,
            "--out",
        ])
        .arg(&out)
        .output()
        .expect("runs kifulearn");
    assert!(
        status.status.success(),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    let mut kept = Vec::new();
    for entry in std::fs::read_dir(out.join("rows")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("svm") {
            continue;
        }
        let svm = std::fs::read_to_string(&path).unwrap();
        let name = path.file_stem().unwrap().to_string_lossy().into_owned();
        let csv_path = out.join("reports").join(format!("{name}.rows.csv"));
        let csv = std::fs::read_to_string(csv_path).unwrap();
        for (row, report) in svm.lines().zip(csv.lines().skip(1)) {
            let f: Vec<&str> = report.split(',').collect();
            // A sibling capped at the game's move has no value: its label is the cap.
            let Ok(value) = f[3].parse::<f64>() else {
                continue;
            };
            let label: f64 = f[4].parse().unwrap();
            if (label * SCALE - value).abs() > 0.5 || value.abs() >= 9_000.0 {
                continue; // clamped by the label rule, or a mate
            }
            let mut parts = row.split(' ');
            let y: f64 = parts.next().unwrap().parse().unwrap();
            let x = parts
                .map(|p| {
                    let (i, v) = p.split_once(':').unwrap();
                    (i.parse::<usize>().unwrap() - 1, v.parse::<f64>().unwrap())
                })
                .collect();
            kept.push((x, y));
        }
    }
    std::fs::remove_dir_all(&out).unwrap();
    assert!(kept.len() > 20_000, "{} rows", kept.len());
    kept
}

/// Least squares with a vanishing ridge (the solution of smallest norm where
/// piece conservation makes the board and hand counts collinear), by Cholesky.
fn least_squares(rows: &[(Vec<(usize, f64)>, f64)], n: usize) -> Vec<f64> {
    let mut a = vec![0.0; n * n];
    let mut b = vec![0.0; n];
    for (x, y) in rows {
        for &(i, vi) in x {
            b[i] += vi * y;
            for &(j, vj) in x {
                a[i * n + j] += vi * vj;
            }
        }
    }
    let trace: f64 = (0..n).map(|i| a[i * n + i]).sum();
    for i in 0..n {
        a[i * n + i] += 1e-9 * trace / n as f64 + 1e-12;
    }
    // Cholesky: a = L Lᵀ.
    for j in 0..n {
        let mut d = a[j * n + j];
        for k in 0..j {
            d -= a[j * n + k] * a[j * n + k];
        }
        let d = d.sqrt();
        a[j * n + j] = d;
        for i in j + 1..n {
            let mut s = a[i * n + j];
            for k in 0..j {
                s -= a[i * n + k] * a[j * n + k];
            }
            a[i * n + j] = s / d;
        }
    }
    let mut z = b;
    for i in 0..n {
        for k in 0..i {
            z[i] -= a[i * n + k] * z[k];
        }
        z[i] /= a[i * n + i];
    }
    for i in (0..n).rev() {
        for k in i + 1..n {
            z[i] -= a[k * n + i] * z[k];
        }
        z[i] /= a[i * n + i];
    }
    z
}

/// The fitted worth of each unpromoted board kind P…R in centipawns: half the
/// difference of the view side's and the other side's weights (the part that
/// piece conservation leaves identified), and its relative error.
fn board_values(w: &[f64]) -> Vec<(Piece, f64, f64)> {
    KIND_ORDER[..7]
        .iter()
        .enumerate()
        .map(|(k, &piece)| {
            let fitted = (w[k] - w[14 + k]) / 2.0 * SCALE;
            let truth = f64::from(piece_value(piece));
            (piece, fitted, (fitted - truth).abs() / truth)
        })
        .collect()
}

#[test]
fn a_fit_on_leaf_rows_recovers_the_labellers_piece_values_and_one_on_sibling_rows_does_not() {
    let leaf = board_values(&least_squares(&rows("leaf"), 104));
    let sibling = board_values(&least_squares(&rows("sibling"), 104));
    eprintln!("kind  leaf (error)  sibling (error)");
    for (l, s) in leaf.iter().zip(&sibling) {
        eprintln!(
            "{:?}  {:.1} ({:.4})  {:.1} ({:.4})",
            l.0, l.1, l.2, s.1, s.2
        );
    }
    for &(piece, fitted, error) in &leaf {
        assert!(
            error < 0.01,
            "leaf rows: {piece:?} fitted {fitted:.1} cp, {:.2}% off",
            error * 100.0
        );
    }
    let worst = sibling.iter().map(|s| s.2).fold(0.0, f64::max);
    assert!(
        worst > 0.05,
        "sibling rows fit the piece values within {:.2}%",
        worst * 100.0
    );
}
