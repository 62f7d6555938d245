//! [`Linear`]: a learned linear evaluation, `clamp((w · x + bias) × scale)`.

use super::{Evaluator, EVAL_LIMIT};
use crate::features::{DotSink, FeatureSet};
use crate::model::LABEL_SCALE;
use crate::shogi::{Color, Position};

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
    /// Centipawns per unit of model output ([`LABEL_SCALE`] by default).
    pub scale: f32,
}

impl<F: FeatureSet> Linear<F> {
    /// A model with the given weights, no bias and the default label scale
    /// ([`LABEL_SCALE`]).
    pub fn new(features: F, weights: Vec<f32>) -> Self {
        Self {
            features,
            weights,
            bias: 0.0,
            scale: LABEL_SCALE as f32,
        }
    }

    /// The raw model output `w · x + bias` for `pos` seen from `view`.
    pub fn output(&self, pos: &Position, view: Color) -> f32 {
        dot(&self.features, &self.weights, pos, view) + self.bias
    }
}

/// `w · x` of `pos` seen from `view`: the one traversal behind [`Linear`]
/// and [`LinearView`], so the two evaluate alike.
fn dot<F: FeatureSet>(features: &F, weights: &[f32], pos: &Position, view: Color) -> f32 {
    // The `material` part counts pieces with 128-bit population counts,
    // a long instruction sequence without `popcnt` (not in the x86-64
    // baseline): where the CPU has it, run the traversal compiled with it.
    // The features and the order of the sum are the same either way.
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU supports `popcnt`, checked just above.
        return unsafe { dot_popcnt(features, weights, pos, view) };
    }
    dot_baseline(features, weights, pos, view)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
unsafe fn dot_popcnt<F: FeatureSet>(
    features: &F,
    weights: &[f32],
    pos: &Position,
    view: Color,
) -> f32 {
    dot_baseline(features, weights, pos, view)
}

#[inline(always)]
fn dot_baseline<F: FeatureSet>(features: &F, weights: &[f32], pos: &Position, view: Color) -> f32 {
    let mut sink = DotSink::new(weights);
    features.visit(pos, view, &mut sink);
    sink.sum
}

impl Linear<crate::features::Features> {
    /// A deterministic stand-in for a learned model, for benchmarks and the
    /// output-identity tests (`tests/speed_identical.rs`, `benches/speed.rs`):
    /// the `material` part, if the set has one, carries the built-in piece
    /// values (as a learned model anchored at material does), every other index
    /// a pseudo-random weight in ±`amplitude` drawn from the index and `seed`
    /// (SplitMix64), so every feature counts and no two weigh alike.
    pub fn hashed(features: crate::features::Features, amplitude: f32, seed: u64) -> Self {
        let dimension = features.dimension() as usize;
        let mut weights: Vec<f32> = (0..dimension as u64)
            .map(|i| {
                let mut rng = crate::rng::SplitMix64(seed ^ i.wrapping_mul(0x9E37_79B9));
                let unit = (rng.next() >> 40) as f32 / (1u64 << 24) as f32;
                (2.0 * unit - 1.0) * amplitude
            })
            .collect();
        if let Some(offset) = features.offset_of(crate::features::BaseSet::Material) {
            for (i, v) in crate::features::MaterialSet::piece_values()
                .iter()
                .enumerate()
            {
                weights[offset as usize + i] = v / LABEL_SCALE as f32;
            }
        }
        Self::new(features, weights)
    }
}

/// The value for the side to move is minus the model's value for the side that
/// just moved.
///
/// Every training row is a position right after its `view` side moved, labelled
/// with how good that move was for it; so the model answers "how good is this
/// for the side that just moved, the opponent to move". Asking it from the side
/// to move's view instead would feed it positions of a kind it never saw (the
/// view side to move), and with the `relation` features, which are not
/// antisymmetric under swapping colours, the two readings differ: on the bundled
/// games the trained reading ranks the game move first about twice as often.
/// Reading it this way also makes the depth-1 ranking of moves (`evaluate`,
/// minus the evaluation of each sibling) exactly the model's prediction for the
/// training row of that sibling.
impl<F: FeatureSet + Sync> Evaluator for Linear<F> {
    fn evaluate(&self, pos: &Position) -> i32 {
        centipawns(-self.output(pos, !pos.side_to_move()) * self.scale)
    }

    fn costly(&self) -> bool {
        true
    }
}

/// A model output times its scale, as the engine's integer centipawns.
fn centipawns(v: f32) -> i32 {
    // `as` saturates (and maps NaN to 0), so a wild model cannot panic here.
    (v.round() as i32).clamp(-EVAL_LIMIT, EVAL_LIMIT)
}

/// A weight vector being learned, evaluated exactly as [`Linear`] plays it
/// (no bias, the default scale [`LABEL_SCALE`]), without copying the weights: the
/// ranking learner's re-search (`train::ranking`, Bonanza's comparison
/// training) searches each sibling's quiescence with the current weights.
#[derive(Clone, Copy, Debug)]
pub struct LinearView<'a, F: FeatureSet> {
    /// The feature set the weights index.
    pub features: &'a F,
    /// Weight of feature index `i + 1` at `i`.
    pub weights: &'a [f32],
}

impl<F: FeatureSet + Sync> Evaluator for LinearView<'_, F> {
    fn evaluate(&self, pos: &Position) -> i32 {
        centipawns(-dot(self.features, self.weights, pos, !pos.side_to_move()) * LABEL_SCALE as f32)
    }

    fn costly(&self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{Features, MaterialSet, RowBuilder};

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
        // Evaluated for White (to move) as minus the model for Black, who just moved.
        let dot_black: f32 = b
            .build(&MaterialSet, &pos, Color::Black)
            .iter()
            .map(|&(i, v)| model.weights[i as usize - 1] * v)
            .sum();
        assert_eq!(model.output(&pos, Color::Black), dot_black);
        assert_eq!(model.output(&pos, pos.side_to_move()), dot);
        assert_eq!(model.evaluate(&pos), -(dot_black * 10_000.0).round() as i32);
        model.bias = 5.0;
        assert_eq!(model.evaluate(&pos), -EVAL_LIMIT);
        model.bias = f32::NAN;
        assert_eq!(model.evaluate(&pos), 0);
    }

    #[test]
    fn a_mirror_tied_model_values_a_position_and_its_reflection_alike() {
        use crate::features::tests::{floodgate_positions, mirror_sfen};
        // Pseudo-random weights on every index: only tying can make reflections agree.
        let weights = |set: &Features| -> Vec<f32> {
            (0..set.dimension())
                .map(|i| ((i.wrapping_mul(2_654_435_761) >> 16) % 2001) as f32 * 1e-6 - 1e-3)
                .collect()
        };
        let tied: Features = "relation,material,mirror".parse().unwrap();
        let plain: Features = "relation,material".parse().unwrap();
        let tied = Linear::new(tied.clone(), weights(&tied));
        let plain = Linear::new(plain.clone(), weights(&plain));
        let mut differ = 0;
        for pos in floodgate_positions(20) {
            let reflected = Position::from_sfen(&mirror_sfen(&pos.to_sfen())).unwrap();
            assert_eq!(tied.evaluate(&pos), tied.evaluate(&reflected));
            differ += usize::from(plain.evaluate(&pos) != plain.evaluate(&reflected));
        }
        assert!(differ > 15, "{differ}");
    }

    #[test]
    fn a_linear_model_with_the_material_values_evaluates_as_material() {
        // The learned-model path (features, view = side that just moved, sign,
        // scale) reproduces the built-in evaluator exactly when given its values:
        // a learned model that plays badly does so because of its weights.
        use crate::eval::Material;
        use crate::features::tests::floodgate_positions;
        let w: Vec<f32> = crate::features::MaterialSet::piece_values();
        let model = Linear {
            features: "material".parse::<Features>().unwrap(),
            weights: w.iter().map(|v| v / 10_000.0).collect(),
            bias: 0.0,
            scale: 10_000.0,
        };
        let mut checked = 0;
        for pos in floodgate_positions(50) {
            assert_eq!(
                model.evaluate(&pos),
                Material.evaluate(&pos),
                "{}",
                pos.to_sfen()
            );
            checked += usize::from(Material.evaluate(&pos) != 0);
        }
        assert!(checked > 20, "{checked} unbalanced positions");
    }
}
