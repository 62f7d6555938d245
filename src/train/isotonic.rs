//! Hand-piece monotonicity: the learned worth of the k-th piece of a kind in
//! hand made non-increasing in k, by weighted isotonic regression.
//!
//! The `material` set gives the 1st, 2nd, … pawn in hand a weight each, so rare
//! counts (a tenth pawn) keep whatever few rows, or none, left them at. After
//! fitting, each run of per-count weights is replaced by its closest
//! non-increasing sequence (least squares, weighted by how often each count was
//! seen): pool adjacent violators. Written here rather than taken from
//! `linfa_linear::IsotonicRegression`, which chooses increasing or decreasing
//! from the sign of the data's Pearson correlation and so cannot impose a
//! fixed direction, and which works on a dense one-column dataset per run.

use crate::features::{BaseSet, Features, MaterialSet};

/// Replaces `values` by the non-increasing sequence closest to them in
/// `Σ weights[i] (values[i] − fitted[i])²` (pool adjacent violators; weights
/// ≤ 0 are treated as a tiny positive weight so an unseen count follows its
/// neighbours). Returns how many values changed.
pub fn non_increasing(values: &mut [f64], weights: &[f64]) -> usize {
    assert_eq!(values.len(), weights.len());
    // Blocks of (mean, weight, length), each mean below the previous one.
    let mut blocks: Vec<(f64, f64, usize)> = Vec::with_capacity(values.len());
    for (&v, &w) in values.iter().zip(weights) {
        let mut block = (v, if w > 0.0 { w } else { 1e-9 }, 1);
        while let Some(&(m, bw, n)) = blocks.last() {
            if m >= block.0 {
                break;
            }
            blocks.pop();
            let total = bw + block.1;
            block = ((m * bw + block.0 * block.1) / total, total, n + block.2);
        }
        blocks.push(block);
    }
    let mut changed = 0;
    let mut i = 0;
    for (mean, _, n) in blocks {
        for v in &mut values[i..i + n] {
            changed += usize::from(*v != mean);
            *v = mean;
        }
        i += n;
    }
    changed
}

/// Makes the worth of the k-th held piece non-increasing in k, for every kind
/// and both sides of the `material` part of `features` (0-based weight vector,
/// `w[index − 1]`). The view side's pieces are worth `w`, the other side's
/// `−w` (a piece the opponent holds counts against the view side), so the
/// other side's runs are made non-decreasing in `w`. `counts[index − 1]`, if
/// given, weighs each slot by how often it was seen. Returns how many weights
/// changed, or `None` if the set has no `material` part.
pub fn monotone_hand(features: &Features, w: &mut [f64], counts: Option<&[f64]>) -> Option<usize> {
    let offset = features.offset_of(BaseSet::Material)? as usize;
    let mut changed = 0;
    for (first, len, own) in MaterialSet::hand_runs() {
        let lo = offset + first as usize - 1;
        let range = lo..lo + len as usize;
        if range.end > w.len() {
            continue;
        }
        let weights: Vec<f64> = match counts {
            Some(c) => c[range.clone()].to_vec(),
            None => vec![1.0; range.len()],
        };
        let sign = if own { 1.0 } else { -1.0 };
        let mut worth: Vec<f64> = w[range.clone()].iter().map(|v| sign * v).collect();
        changed += non_increasing(&mut worth, &weights);
        for (dst, v) in w[range].iter_mut().zip(worth) {
            *dst = sign * v;
        }
    }
    Some(changed)
}

/// True when every run of hand weights is monotone as [`monotone_hand`] makes it.
pub fn hand_is_monotone(features: &Features, w: &[f64]) -> bool {
    let Some(offset) = features.offset_of(BaseSet::Material) else {
        return true;
    };
    MaterialSet::hand_runs().all(|(first, len, own)| {
        let lo = offset as usize + first as usize - 1;
        let run = &w[lo..(lo + len as usize).min(w.len())];
        let sign = if own { 1.0 } else { -1.0 };
        run.windows(2).all(|p| sign * p[0] >= sign * p[1])
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Brute force: the best non-increasing fit among sequences whose values
    /// are averages of contiguous blocks is the PAV answer; check optimality
    /// by comparing with every block partition of a short sequence.
    fn brute(values: &[f64], weights: &[f64]) -> f64 {
        let n = values.len();
        let mut best = f64::INFINITY;
        for mask in 0..(1u32 << (n - 1)) {
            let mut fitted = Vec::new();
            let mut start = 0;
            for end in 1..=n {
                if end == n || mask & (1 << (end - 1)) != 0 {
                    let w: f64 = weights[start..end].iter().sum();
                    let m = (start..end).map(|i| values[i] * weights[i]).sum::<f64>() / w;
                    fitted.extend(std::iter::repeat_n(m, end - start));
                    start = end;
                }
            }
            if fitted.windows(2).all(|p| p[0] >= p[1] - 1e-12) {
                let cost: f64 = (0..n)
                    .map(|i| weights[i] * (values[i] - fitted[i]).powi(2))
                    .sum();
                best = best.min(cost);
            }
        }
        best
    }

    #[test]
    fn pooling_gives_the_least_squares_non_increasing_fit() {
        let cases: [(&[f64], &[f64]); 4] = [
            (&[3.0, 1.0, 2.0, 0.0], &[1.0, 1.0, 1.0, 1.0]),
            (&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0]),
            (
                &[0.05, 0.04, 0.06, -0.01, 0.0, 0.0],
                &[900.0, 400.0, 30.0, 5.0, 0.0, 0.0],
            ),
            (&[5.0, 4.0, 3.0], &[1.0, 1.0, 1.0]),
        ];
        for (values, weights) in cases {
            let mut fitted = values.to_vec();
            non_increasing(&mut fitted, weights);
            assert!(fitted.windows(2).all(|p| p[0] >= p[1]), "{fitted:?}");
            let w: Vec<f64> = weights
                .iter()
                .map(|&w| if w > 0.0 { w } else { 1e-9 })
                .collect();
            let cost: f64 = (0..values.len())
                .map(|i| w[i] * (values[i] - fitted[i]).powi(2))
                .sum();
            assert!(
                (cost - brute(values, &w)).abs() <= 1e-12 * (1.0 + cost),
                "{values:?}"
            );
        }
        let mut v = [3.0, 1.0, 2.0, 0.0];
        assert_eq!(non_increasing(&mut v, &[1.0; 4]), 2);
        assert_eq!(v, [3.0, 1.5, 1.5, 0.0]);
        // Weighted: a frequent 2nd piece keeps its value, a rare 3rd is pooled into it.
        let mut v = [0.05, 0.04, 0.06];
        non_increasing(&mut v, &[900.0, 400.0, 4.0]);
        assert!((v[1] - (0.04 * 400.0 + 0.06 * 4.0) / 404.0).abs() < 1e-15);
    }

    #[test]
    fn hand_runs_cover_the_hand_indices_once_in_order() {
        let runs: Vec<(u32, u32, bool)> = MaterialSet::hand_runs().collect();
        assert_eq!(runs.len(), 14);
        let mut next = 29;
        for &(first, len, _) in &runs {
            assert_eq!(first, next);
            next += len;
        }
        assert_eq!(next, 105);
        assert_eq!(runs[0], (29, 18, true));
        assert_eq!(runs[7], (67, 18, false));
        assert_eq!(runs[13], (103, 2, false));
    }

    #[test]
    fn the_other_sides_hand_is_made_non_decreasing_in_weight() {
        let f: Features = "relation,material".parse().unwrap();
        let offset = 5_143_824;
        let mut w = vec![0.0; offset + 104];
        // Own 1st/2nd rook (103, 104 of the own side: 65, 66) and the other side's (103, 104).
        w[offset + 64] = 0.1;
        w[offset + 65] = 0.3;
        // The other side's: worth 0.1 then 0.3 (weights −0.1, −0.3) is a violation too.
        w[offset + 102] = -0.1;
        w[offset + 103] = -0.3;
        assert!(!hand_is_monotone(&f, &w));
        assert_eq!(monotone_hand(&f, &mut w, None), Some(4));
        assert_eq!(&w[offset + 64..offset + 66], &[0.2, 0.2]);
        assert_eq!(&w[offset + 102..offset + 104], &[-0.2, -0.2]);
        assert!(hand_is_monotone(&f, &w));
        assert_eq!(
            monotone_hand(&"relation".parse().unwrap(), &mut w, None),
            None
        );
    }
}
