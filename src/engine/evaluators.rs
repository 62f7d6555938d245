//! Evaluator wrappers used by the engine: a scale, a grain and random noise.

use crate::eval::{Accumulator, Evaluator, EVAL_LIMIT};
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

/// Forwards the sums of an incremental evaluator (`Evaluator::incremental`):
/// the same wrapping for both wrappers.
macro_rules! forward_sums {
    () => {
        fn costly(&self) -> bool {
            self.inner.costly()
        }

        fn incremental(&self) -> bool {
            self.inner.incremental()
        }

        fn refresh(&self, pos: &Position, acc: &mut Accumulator) {
            self.inner.refresh(pos, acc)
        }

        #[inline]
        fn update(
            &self,
            pos: &Position,
            mv: Move,
            child: &Position,
            parent: &Accumulator,
        ) -> Accumulator {
            self.inner.update(pos, mv, child, parent)
        }
    };
}

impl<E: Evaluator> Evaluator for Scaled<E> {
    fn evaluate(&self, pos: &Position) -> i32 {
        self.scaled(self.inner.evaluate(pos))
    }

    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        self.scaled(self.inner.evaluate_from(pos, acc))
    }

    forward_sums!();
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

    forward_sums!();
}

/// The largest grain (USI `EvalGrain`, a recipe's `[match] grain`).
pub const MAX_GRAIN: u32 = 1000;
/// The grains a recipe takes, as its error says (a test keeps it to [`MAX_GRAIN`]).
pub const GRAIN_RANGE: &str = "centipawns from 1 to 1000";

/// Rounds another evaluator's values to the nearest multiple of `grain`
/// centipawns (USI option `EvalGrain`; 1 = unchanged). Coarser values tie
/// more often, and the playing search's null move and bounds end tied nodes
/// at once (`docs/search.md`, "Ties"). Measured: a `material,kp` model
/// learned with a weak pull (μ = 1e-8) gained Elo +112 [+41, +194] at
/// 200 ms with a grain of 16 against itself unrounded; a model whose
/// positional weights are pulled near 0 loses its gain at that grain
/// (`docs/results.md`, "The evaluation's grain").
#[derive(Clone, Debug)]
pub struct Grained<E> {
    inner: E,
    grain: i32,
}

impl<E: Evaluator> Grained<E> {
    /// `inner` rounded to multiples of `grain` (≤ 1: not rounded).
    pub fn new(inner: E, grain: i32) -> Self {
        Self {
            inner,
            grain: grain.max(1),
        }
    }

    /// `v` rounded to the nearest multiple of the grain (halves up).
    #[inline]
    fn rounded(&self, v: i32) -> i32 {
        let g = self.grain;
        if g == 1 {
            return v;
        }
        ((v + g / 2).div_euclid(g) * g).clamp(-EVAL_LIMIT, EVAL_LIMIT)
    }
}

impl<E: Evaluator> Evaluator for Grained<E> {
    fn evaluate(&self, pos: &Position) -> i32 {
        self.rounded(self.inner.evaluate(pos))
    }

    fn evaluate_from(&self, pos: &Position, acc: &Accumulator) -> i32 {
        self.rounded(self.inner.evaluate_from(pos, acc))
    }

    forward_sums!();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Material;

    #[test]
    fn the_grain_range_text_names_the_largest_grain() {
        assert!(GRAIN_RANGE.ends_with(&format!(" 1 to {MAX_GRAIN}")));
    }

    #[test]
    fn a_grain_rounds_to_the_nearest_multiple_and_one_changes_nothing() {
        let pos = Position::startpos();
        // Material values are multiples of 45; a grain of 16 moves them.
        let cases = [
            (0, 0),
            (7, 0),
            (8, 16),
            (-8, 0),
            (-9, -16),
            (90, 96),
            (-90, -96),
        ];
        for (v, want) in cases {
            assert_eq!(Grained::new(Material, 16).rounded(v), want, "value {v}");
            assert_eq!(Grained::new(Material, 1).rounded(v), v);
        }
        assert_eq!(Grained::new(Material, 0).rounded(13), 13);
        assert_eq!(Grained::new(Material, 45).evaluate(&pos), 0);
    }

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
