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
    // Indices and the integer values the feature sets mostly report (attack
    // codes, counts, ones) are written digit by digit: the same text as `{}`
    // gives them, without the formatting machinery, which took a fifth of
    // extraction's time. Other values go through `{}`. The line is gathered
    // in a buffer and written in a few calls: a call per feature cost more
    // than the digits (the writer below hashes what it is given).
    let mut line = [0u8; 1024];
    let mut n = 0;
    for &(index, value) in row {
        if n + 32 > line.len() {
            out.write_all(&line[..n])?;
            n = 0;
        }
        line[n] = b' ';
        n += 1;
        n += put_u32(&mut line[n..], index);
        line[n] = b':';
        n += 1;
        if value != 0.0 && value.fract() == 0.0 && value.abs() < 16_777_216.0 {
            if value < 0.0 {
                line[n] = b'-';
                n += 1;
            }
            n += put_u32(&mut line[n..], value.abs() as u32);
        } else {
            out.write_all(&line[..n])?;
            n = 0;
            write!(out, "{value}")?;
        }
    }
    line[n] = b'\n';
    out.write_all(&line[..=n])
}

/// Writes `n` in decimal at the start of `buf`; returns the number of digits.
#[inline]
fn put_u32(buf: &mut [u8], n: u32) -> usize {
    let len = n.checked_ilog10().unwrap_or(0) as usize + 1;
    let mut n = n;
    for d in buf[..len].iter_mut().rev() {
        *d = b'0' + (n % 10) as u8;
        n /= 10;
    }
    len
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
        // The digit-by-digit path writes what `{}` writes, on either side of it.
        let values = [
            1.0f32,
            10.0,
            -3.0,
            0.5,
            -0.25,
            16_777_215.0,
            16_777_216.0,
            3e9,
            1e-7,
        ];
        let row: Vec<(u32, f32)> = values
            .iter()
            .enumerate()
            .map(|(i, &v)| (i as u32 * 999_983 + 1, v))
            .collect();
        let mut out = Vec::new();
        write_row(&mut out, 0.5, &row).unwrap();
        let mut expected = "0.5".to_string();
        for (i, v) in &row {
            expected += &format!(" {i}:{v}");
        }
        assert_eq!(String::from_utf8(out).unwrap(), expected + "\n");
        let x = 0.1f64 + 0.2;
        let mut out = Vec::new();
        write_row(&mut out, x, &[]).unwrap();
        let back: f64 = std::str::from_utf8(&out).unwrap().trim().parse().unwrap();
        assert_eq!(back, x);
    }
}
