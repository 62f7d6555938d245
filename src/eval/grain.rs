//! Rounding an evaluator's values to a grain ([`Grained`]): the engine's
//! reading of a model whose sidecar names one ([`crate::model::ModelMeta::grain`]),
//! and the USI option `EvalGrain`.

use crate::eval::{Accumulator, Evaluator, EVAL_LIMIT};
use crate::shogi::{Move, Position};

/// Forwards the sums of an incremental evaluator (`Evaluator::incremental`)
/// to the wrapped one in field `$inner` (`inner` when not named): the same
/// wrapping for every wrapper (`Grained` here, [`super::DynEvaluator`], the
/// engine's scale and noise in `engine::evaluators`).
macro_rules! forward_sums {
    () => {
        $crate::eval::forward_sums!(inner);
    };
    ($inner:tt) => {
        #[inline]
        fn costly(&self) -> bool {
            self.$inner.costly()
        }

        fn incremental(&self) -> bool {
            self.$inner.incremental()
        }

        fn refresh(&self, pos: &Position, acc: &mut Accumulator) {
            self.$inner.refresh(pos, acc)
        }

        #[inline]
        fn update(
            &self,
            pos: &Position,
            mv: Move,
            child: &Position,
            parent: &Accumulator,
        ) -> Accumulator {
            self.$inner.update(pos, mv, child, parent)
        }
    };
}
pub(crate) use forward_sums;

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
}
