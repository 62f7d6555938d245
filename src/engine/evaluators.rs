//! Evaluator wrappers used by the engine: a scale, a grain (`eval::grain`,
//! re-exported here) and random noise.

use crate::eval::{Accumulator, Evaluator, EVAL_LIMIT};
pub use crate::eval::{Grained, GRAIN_RANGE, MAX_GRAIN};
use crate::shogi::{Move, Position};

/// The label scale models are trained with: labels are centipawns / 10000.
pub const DEFAULT_EVAL_SCALE: i32 = crate::model::LABEL_SCALE;

/// Multiplies another evaluator's values by `scale` / [`DEFAULT_EVAL_SCALE`]
/// (USI option `EvalScale`). A model evaluates as `clamp(prediction × 10000)`,
/// so `EvalScale` is the number of centipawns per unit of model output, as the
/// issue defines it; the material evaluator is scaled by the same ratio.
#[derive(Clone, Debug)]
pub struct Scaled<E> {
    inner: E,
    scale: i32,
}

impl<E: Evaluator> Scaled<E> {
    /// `inner` scaled by `scale` / 10000.
    pub fn new(inner: E, scale: i32) -> Self {
        Self { inner, scale }
    }
}

impl<E: Evaluator> Scaled<E> {
    fn scaled(&self, v: i32) -> i32 {
        let v = i64::from(v) * i64::from(self.scale) / i64::from(DEFAULT_EVAL_SCALE);
        v.clamp(-i64::from(EVAL_LIMIT), i64::from(EVAL_LIMIT)) as i32
    }
}

impl<E: Evaluator> Evaluator for Scaled<E> {
    fn evaluate(&self, pos: &Position) -> i32 {
        self.scaled(self.inner.evaluate(pos))
    }

    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        self.scaled(self.inner.evaluate_from(pos, acc))
    }

    crate::eval::forward_sums!();
}

/// Adds uniform noise in ±`amplitude` centipawns to another evaluator, as the
/// Mecha-Joshi engine added random noise so that its games vary.
///
/// The noise is a pseudo-random function of the position's hash and a seed
/// (SplitMix64), not a stream: the same position gets the same noise throughout
/// a search, so the transposition table and repetition checks stay consistent,
/// while another seed (one per game) gives other games.
#[derive(Clone, Debug)]
pub struct EvalNoise<E> {
    inner: E,
    amplitude: i32,
    seed: u64,
}

impl<E: Evaluator> EvalNoise<E> {
    /// `inner` plus noise in ±`amplitude` (0 = no noise), drawn with `seed`.
    pub fn new(inner: E, amplitude: i32, seed: u64) -> Self {
        Self {
            inner,
            amplitude: amplitude.max(0),
            seed,
        }
    }

    /// The noise added to a position with hash `hash`.
    pub fn noise(&self, hash: u64) -> i32 {
        if self.amplitude == 0 {
            return 0;
        }
        let span = 2 * self.amplitude as u64 + 1;
        (crate::rng::SplitMix64(hash ^ self.seed).next() % span) as i32 - self.amplitude
    }
}

impl<E: Evaluator> Evaluator for EvalNoise<E> {
    fn evaluate(&self, pos: &Position) -> i32 {
        (self.inner.evaluate(pos) + self.noise(pos.hash())).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        (self.inner.evaluate_from(pos, acc) + self.noise(pos.hash())).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }

    crate::eval::forward_sums!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Material;

    #[test]
    fn noise_stays_in_range_uses_the_whole_range_and_depends_on_the_seed() {
        let noisy = EvalNoise::new(Material, 30, 7);
        let other = EvalNoise::new(Material, 30, 8);
        let mut seen_low = false;
        let mut seen_high = false;
        let mut differ = 0;
        for h in 0..10_000u64 {
            let n = noisy.noise(h);
            assert!((-30..=30).contains(&n));
            seen_low |= n == -30;
            seen_high |= n == 30;
            differ += usize::from(n != other.noise(h));
        }
        assert!(seen_low && seen_high);
        assert!(differ > 9_000, "{differ}");
        let pos = Position::startpos();
        assert_eq!(noisy.evaluate(&pos), noisy.noise(pos.hash()));
        assert_eq!(EvalNoise::new(Material, 0, 7).evaluate(&pos), 0);
    }

    #[test]
    fn scale_multiplies_and_clamps() {
        let mut pos = Position::startpos();
        for mv in ["7g7f", "3c3d", "8h2b+"] {
            pos.play_usi(mv).unwrap();
        }
        let base = Material.evaluate(&pos);
        assert_eq!(Scaled::new(Material, 5_000).evaluate(&pos), base / 2);
        assert_eq!(Scaled::new(Material, 100_000).evaluate(&pos), -EVAL_LIMIT);
    }
}
