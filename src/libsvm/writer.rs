//! Writing libsvm rows.

use std::io::{self, Write};

/// Writes one libsvm line: `label idx:val ...\n`.
///
/// `row` must be sorted by index, strictly ascending, 1-based, with no zero
/// values (the feature traversal's row builder guarantees it; debug builds
/// check it). Numbers are printed in Rust's shortest round-trip form, so the
/// label read back is the same `f64` and each value the same `f32`.
pub fn write_row<W: Write>(out: &mut W, label: f64, row: &[(u32, f32)]) -> io::Result<()> {
    write_row_qid(out, label, None, row)
}

/// As [`write_row`], with svmlight's `qid:N` after the label when `qid` is
/// given (`label qid:N idx:val ...`): the rows of one group (one position's
/// moves) share N. liblinear does not read `qid`; `docs/dataset.md` shows how
/// to strip it.
pub fn write_row_qid<W: Write>(
    out: &mut W,
    label: f64,
    qid: Option<u64>,
    row: &[(u32, f32)],
) -> io::Result<()> {
    debug_assert!(
        row.windows(2).all(|w| w[0].0 < w[1].0),
        "indices must ascend"
    );
    debug_assert!(
        row.iter().all(|&(i, v)| i >= 1 && v != 0.0),
        "1-based, no zeros"
    );
    write!(out, "{label}")?;
    if let Some(q) = qid {
        write!(out, " qid:{q}")?;
    }
    for &(index, value) in row {
        write!(out, " {index}:{value}")?;
    }
    out.write_all(b"\n")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn writes_round_trip_numbers() {
        let mut out = Vec::new();
        write_row(
            &mut out,
            -0.0123,
            &[(1, 3.0), (5_143_824, 10.0), (5_143_825, 0.25)],
        )
        .unwrap();
        write_row(&mut out, 1.0, &[]).unwrap();
        write_row_qid(&mut out, -1.0, Some(42), &[(3, 1.0)]).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "-0.0123 1:3 5143824:10 5143825:0.25\n1\n-1 qid:42 3:1\n"
        );
        let x = 0.1f64 + 0.2;
        let mut out = Vec::new();
        write_row(&mut out, x, &[]).unwrap();
        let back: f64 = std::str::from_utf8(&out).unwrap().trim().parse().unwrap();
        assert_eq!(back, x);
    }
}
