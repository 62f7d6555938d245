//! Lazy evaluation in the playing search's quiescence, for a model whose
//! `relation` part is summed in full at every evaluation
//! ([`Evaluator::partial_from`]).
//!
//! A stand-pat only has to say on which side of the window the value lies
//! when it lies far from it: at or above beta the node is cut, at or below
//! alpha the captures are searched and the stand-pat is only their floor.
//! The parts the search keeps in its sums (`material`, `kp`, the bias) give
//! the value without the `relation` part in a few additions; how far the
//! full value lies from that is learned as the search goes ([`LazyStats`]:
//! the mean and spread of `full − partial` over the stand-pats evaluated in
//! full). When the partial value, moved by that mean, lies more than
//! [`SPREADS`] spreads outside the window, the stand-pat is that estimate
//! and the `relation` part is not summed; otherwise the full value is
//! computed (through the evaluation cache) and feeds the statistics.
//!
//! The old chess engines' lazy evaluation (a fixed margin, above beta only)
//! was tried here first and gave 1.04× the nodes/s (`docs/search.md`);
//! centred on the learned mean and deciding below alpha as well, this one
//! gave 1.13× with the quick-start model, +0.12 ply, and +20 Elo [−10, +51]
//! at 100 ms: not shown to gain, so it was reverted (`docs/search.md`,
//! "A lazy stand-pat centred on a learned mean"). Only the selective search
//! used it: the labelling and exact modes, and so rows and labels, never did.

/// Stand-pats evaluated in full before the statistics are trusted.
const WARM_UP: u32 = 1024;

/// Spreads (standard deviations) of `full − partial` between the estimate
/// and the window for a stand-pat to be decided without the full value.
pub(super) const SPREADS: f64 = 6.0;

/// The smallest margin, centipawns: a part that hardly varies still gets
/// this much room (a grain's rounding, the clamp at the limits).
const MIN_MARGIN: i32 = 16;

/// The running mean and mean square of `full − partial` (the value's part
/// summed in full), weighted towards the last [`WARM_UP`] observations.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct LazyStats {
    n: u32,
    mean: f64,
    mean_square: f64,
}

impl LazyStats {
    /// Adds one stand-pat's `full − partial`.
    #[inline]
    pub(super) fn observe(&mut self, difference: i32) {
        self.n = self.n.saturating_add(1);
        let w = 1.0 / f64::from(self.n.min(WARM_UP));
        let d = f64::from(difference);
        self.mean += w * (d - self.mean);
        self.mean_square += w * (d * d - self.mean_square);
    }

    /// The offset to add to a partial value and the margin around it, once
    /// [`WARM_UP`] stand-pats were observed.
    #[inline]
    pub(super) fn window(&self) -> Option<(i32, i32)> {
        if self.n < WARM_UP {
            return None;
        }
        let variance = (self.mean_square - self.mean * self.mean).max(0.0);
        let margin = (SPREADS * variance.sqrt()).ceil() as i32;
        Some((self.mean.round() as i32, margin.max(MIN_MARGIN)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_waits_for_the_warm_up_then_centres_on_the_mean_with_the_spread() {
        let mut s = LazyStats::default();
        for i in 0..WARM_UP - 1 {
            s.observe(if i % 2 == 0 { 40 } else { 80 });
        }
        assert_eq!(s.window(), None);
        s.observe(40);
        let (offset, margin) = s.window().unwrap();
        assert_eq!(offset, 60);
        // Standard deviation 20, six of them.
        assert_eq!(margin, 120);
        let mut flat = LazyStats::default();
        for _ in 0..WARM_UP {
            flat.observe(-7);
        }
        assert_eq!(flat.window(), Some((-7, MIN_MARGIN)));
    }
}
