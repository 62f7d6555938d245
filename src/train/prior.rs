//! Priors: the weights a learner starts from and is pulled towards
//! (`fit --prior`, a recipe's `prior`), in centipawns over a
//! feature set, and the SVR's fit around one (a shift of the labels).

use crate::features::{BaseSet, FeatureSet, Features, MaterialSet};
use crate::libsvm::CompactCsr;
use crate::model::Model;

/// The material evaluator as a prior over `features`: its piece values on the
/// `material` part (if any), 0 elsewhere, in centipawns.
pub fn material_prior(features: &Features) -> Vec<f32> {
    let mut w = vec![0.0f32; features.dimension() as usize];
    if let Some(offset) = features.offset_of(BaseSet::Material) {
        let values = MaterialSet::piece_values();
        w[offset as usize..offset as usize + values.len()].copy_from_slice(&values);
    }
    w
}

/// A prior from a model file's weights (model units → centipawns), sized to `features`.
pub fn model_prior(features: &Features, model: &Model) -> Vec<f32> {
    let mut w = vec![0.0f32; features.dimension() as usize];
    for (d, &m) in w.iter_mut().zip(&model.w) {
        *d = (m * f64::from(crate::model::LABEL_SCALE)) as f32;
    }
    w
}

/// A prior named on the command line or in a recipe, in centipawns over
/// `features`: `material` ([`material_prior`]), `zero`, or a model file's path
/// ([`model_prior`]). One reader for every learner that takes `--prior`.
pub fn named_prior(features: &Features, name: &str) -> Result<Vec<f32>, crate::model::ModelError> {
    Ok(match name {
        "material" => material_prior(features),
        "zero" => vec![0.0; features.dimension() as usize],
        path => model_prior(features, &Model::load(std::path::Path::new(path))?),
    })
}

/// [`named_prior`] in model units (centipawns / 10000, the default label
/// scale): the `w0` of [`shift_labels`], [`residual_label`] and
/// [`add_prior`], which `fit svr --prior` and `fit streaming --prior` fit
/// around.
pub fn named_prior_model_units(
    features: &Features,
    name: &str,
) -> Result<Vec<f64>, crate::model::ModelError> {
    Ok(named_prior(features, name)?
        .into_iter()
        .map(|w| f64::from(w) / f64::from(crate::model::LABEL_SCALE))
        .collect())
}

/// Fits ½‖w − w0‖² + C·Σ loss(y − w·x) with an unchanged SVR solver: with
/// v = w − w0 it is ½‖v‖² + C·Σ loss((y − w0·x) − v·x), so the labels are
/// shifted by `w0·x` here ([`shift_labels`]) and `w0` added back to the
/// solution ([`add_prior`]). `w0` is in model units (centipawns / 10000).
///
/// Subtracts `w0·x` from each row's label ([`residual_label`]). Rows should
/// be no wider than `w0` (the caller names the mismatch).
pub fn shift_labels(x: &CompactCsr, y: &mut [f64], w0: &[f64]) {
    for (i, y) in y.iter_mut().enumerate() {
        let (idx, val) = x.row_f64(i);
        *y = residual_label(*y, w0, idx, val);
    }
}

/// One row's label minus the prior's value of it, `y − w0·x`: the label a
/// learner fits to learn the correction to `w0` ([`shift_labels`] for rows
/// in memory, the streaming learner row by row). `indices` are 0-based; a
/// feature past `w0`'s length has prior 0 (the callers name a row wider
/// than their feature set).
pub fn residual_label(
    y: f64,
    w0: &[f64],
    indices: &[u32],
    values: impl IntoIterator<Item = f64>,
) -> f64 {
    y - indices
        .iter()
        .zip(values)
        .map(|(&j, v)| v * w0.get(j as usize).copied().unwrap_or(0.0))
        .sum::<f64>()
}

/// Adds `w0` back to weights fitted on [`shift_labels`]' labels (widening
/// `w` to `w0`'s length).
pub fn add_prior(w: &mut Vec<f64>, w0: &[f64]) {
    if w.len() < w0.len() {
        w.resize(w0.len(), 0.0);
    }
    for (w, p) in w.iter_mut().zip(w0) {
        *w += p;
    }
}

/// How many rows each column of `x` occurs in (the weights of an isotonic
/// fit over the data, `--monotone-hand`).
pub fn column_counts(x: &CompactCsr) -> Vec<f64> {
    let mut c = vec![0.0; x.cols()];
    x.indices().iter().for_each(|&j| c[j as usize] += 1.0);
    c
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::libsvm::read_paths;

    #[test]
    fn shifted_labels_are_the_residuals_of_the_prior_and_it_adds_back() {
        let data = read_paths(&[crate::testdata::fixture("liblinear/small.svm")]).unwrap();
        let w0: Vec<f64> = (0..data.x.cols()).map(|j| 0.25 * j as f64 - 1.0).collect();
        let mut y = data.y.to_vec();
        shift_labels(&data.x.clone().into(), &mut y, &w0);
        for (i, row) in data.x.outer_iterator().enumerate() {
            let dot: f64 = row.iter().map(|(j, &v)| f64::from(v) * w0[j]).sum();
            assert_eq!(y[i], data.y[i] - dot);
        }
        // Weights fitted on the shifted labels are a correction to w0.
        let mut w = vec![1.0; 2];
        add_prior(&mut w, &w0);
        assert_eq!(w.len(), w0.len());
        assert_eq!(w[0], 1.0 + w0[0]);
        assert_eq!(w[w0.len() - 1], w0[w0.len() - 1]);
        let counts = column_counts(&data.x.clone().into());
        assert_eq!(counts.iter().sum::<f64>(), data.x.nnz() as f64);
    }

    #[test]
    fn a_named_prior_is_material_zero_or_a_model() {
        let features: Features = "relation,material".parse().unwrap();
        let m = named_prior(&features, "material").unwrap();
        let offset = features.offset_of(BaseSet::Material).unwrap() as usize;
        let values = MaterialSet::piece_values();
        assert_eq!(&m[offset..offset + values.len()], &values[..]);
        assert!(m[..offset].iter().all(|&w| w == 0.0));
        assert!(named_prior(&features, "zero")
            .unwrap()
            .iter()
            .all(|&w| w == 0.0));
        assert!(named_prior(&features, "no/such/model").is_err());
    }
}
