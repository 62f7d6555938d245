//! [`Linear`]: a learned linear evaluation, `clamp((w · x + bias) × scale)`.

use super::{Evaluator, EVAL_LIMIT};
use crate::features::{DotSink, FeatureSet};
use crate::shogi::Position;

/// A linear model over a feature set, evaluated from the side to move's view.
///
/// `weights[i]` is the weight of feature index `i + 1` (libsvm indices are
/// 1-based); features beyond the vector weigh 0. The traversal feeds a
/// [`DotSink`] directly, so no row is built.
#[derive(Clone, Debug)]
pub struct Linear<F: FeatureSet> {
    /// The feature set the weights were learned on.
    pub features: F,
    /// Weight of feature index `i + 1` at `i`.
    pub weights: Vec<f32>,
    /// Added to the dot product (liblinear's bias term times its `-B` value).
    pub bias: f32,
    /// Centipawns per unit of model output (the label scale, 10000 by default).
    pub scale: f32,
}

impl<F: FeatureSet> Linear<F> {
    /// A model with the given weights, no bias and the default label scale of 10000.
    pub fn new(features: F, weights: Vec<f32>) -> Self {
        Self {
            features,
            weights,
            bias: 0.0,
            scale: 10_000.0,
        }
    }

    /// The raw model output `w · x + bias` for `pos` from the side to move's view.
    pub fn output(&self, pos: &Position) -> f32 {
        let mut sink = DotSink::new(&self.weights);
        self.features.visit(pos, pos.side_to_move(), &mut sink);
        sink.sum + self.bias
    }
}

impl<F: FeatureSet + Sync> Evaluator for Linear<F> {
    fn evaluate(&self, pos: &Position) -> i32 {
        let v = self.output(pos) * self.scale;
        // `as` saturates (and maps NaN to 0), so a wild model cannot panic here.
        (v.round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{Features, Material as MaterialSet, RowBuilder};

    #[test]
    fn evaluates_the_row_dot_product_from_the_side_to_move() {
        let set: Features = "material".parse().unwrap();
        // Weight only "view side's pawns on the board" (index 1) and "other side's pawns" (15).
        let mut weights = vec![0.0; 104];
        weights[0] = 0.001;
        weights[14] = -0.001;
        let mut model = Linear::new(set, weights);
        let mut pos = Position::startpos();
        assert_eq!(model.evaluate(&pos), 0);
        for mv in ["7g7f", "3c3d", "8h2b+", "3a2b", "B*4e", "2b3c", "4e3d"] {
            pos.play_usi(mv).unwrap();
        }
        // White to move, a pawn down: 8 − 9 pawns at 0.001 × 10000 = −10.
        assert_eq!(model.evaluate(&pos), -10);
        let mut b = RowBuilder::new();
        let row = b.build(&MaterialSet, &pos, pos.side_to_move()).to_vec();
        let dot: f32 = row
            .iter()
            .map(|&(i, v)| model.weights[i as usize - 1] * v)
            .sum();
        assert_eq!(model.output(&pos), dot);
        model.bias = 5.0;
        assert_eq!(model.evaluate(&pos), EVAL_LIMIT);
        model.bias = f32::NAN;
        assert_eq!(model.evaluate(&pos), 0);
    }
}
