//! The step rule of the learners that descend on a weight vector from
//! per-thread gradient buffers: the ranking learner ([`super::ranking`]:
//! AdaGrad, Adam or sign) and the positions learner in memory and streamed
//! ([`super::positions`], [`super::positions_stream`]: Adam).
//!
//! A step sums each coordinate's gradient over the thread buffers (clearing
//! them) onto what the learner's [`Pull`] starts it at, lets the learner
//! decide whether the coordinate moves and with which gradient, and applies
//! the [`Optimizer`]'s rule. Coordinates are independent, so the blocks of
//! [`BLOCK`] coordinates run in parallel and a step is the same whatever the
//! number of threads. The per-coordinate arithmetic is each learner's as it
//! always was (the order of the sums, ε, where the regularizer enters), so
//! models are byte-identical to the learners' own step rules before.
//!
//! The streaming learner ([`super::streaming`]) does not step here: its rule
//! is Logistello's, `w ← clamp(w + rate · Σ residual·x / n, ±bound)` over the
//! features a batch touched at least `min_frequency` times, one sparse pass
//! with no per-coordinate state.

use rayon::prelude::*;

/// Coordinates updated together by one task.
pub const BLOCK: usize = 1 << 15;

/// The step rule applied to each coordinate's gradient `g` (`fit ranking
/// --optimizer`, a recipe's `[learner] optimizer`: the lowercase name).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Optimizer {
    /// `G += g²; w −= rate · g / (√G + ε)` (Duchi et al. 2011), per coordinate.
    AdaGrad,
    /// Adam (Kingma & Ba 2015) with β₁ = 0.9, β₂ = 0.999 and bias correction:
    /// `w −= rate · m̂ / (√v̂ + ε)`.
    Adam,
    /// Bonanza's step: `w −= rate · sign(g)`.
    Sign,
}

impl Optimizer {
    /// The name on the command line and in `MODEL.meta.toml`.
    pub fn name(self) -> &'static str {
        match self {
            Optimizer::AdaGrad => "adagrad",
            Optimizer::Adam => "adam",
            Optimizer::Sign => "sign",
        }
    }
}

/// How a learner turns a coordinate's summed batch gradient into the gradient
/// it steps with: the regularizer's pull, frozen coordinates, and which
/// coordinates are left alone.
pub trait Pull: Sync {
    /// The value the thread buffers' parts of coordinate `j` (weight `w`) are
    /// added to, in buffer order.
    fn start(&self, j: usize, w: f32) -> f32;
    /// The gradient coordinate `j` steps with, given the sum `g` and the
    /// optimizer's first moment `moment` (0 for [`Optimizer::Sign`]); `None`
    /// leaves the weight and its moments as they are.
    fn finish(&self, j: usize, w: f32, g: f32, moment: f32) -> Option<f32>;
}

/// The optimizer's per-coordinate state and step count.
#[derive(Clone, Debug)]
pub struct Stepper {
    optimizer: Optimizer,
    epsilon: f32,
    /// AdaGrad: Σg². Adam: the first moment. Sign: empty.
    first: Vec<f32>,
    /// Adam: the second moment. Otherwise empty.
    second: Vec<f32>,
    steps: i32,
}

impl Stepper {
    /// State for `n` coordinates; `epsilon` is the ε of AdaGrad's and Adam's
    /// denominators.
    pub fn new(optimizer: Optimizer, n: usize, epsilon: f32) -> Self {
        let (a, b) = match optimizer {
            Optimizer::AdaGrad => (n, 0),
            Optimizer::Adam => (n, n),
            Optimizer::Sign => (0, 0),
        };
        Self {
            optimizer,
            epsilon,
            first: vec![0.0; a],
            second: vec![0.0; b],
            steps: 0,
        }
    }

    /// Steps taken so far.
    pub fn steps(&self) -> usize {
        self.steps as usize
    }

    /// One step of size `rate` on `weights`: each coordinate's gradient is
    /// `pull.start` plus the parts of `buffers` (which are cleared), then
    /// `pull.finish`.
    pub fn apply(
        &mut self,
        weights: &mut [f32],
        buffers: &mut [Vec<f32>],
        rate: f32,
        pull: &impl Pull,
    ) {
        self.steps += 1;
        let (optimizer, epsilon) = (self.optimizer, self.epsilon);
        let (c1, c2) = (
            1.0 - 0.9f32.powi(self.steps),
            1.0 - 0.999f32.powi(self.steps),
        );
        let blocks = weights.len().div_ceil(BLOCK);
        let mut grads: Vec<Vec<&mut [f32]>> = (0..blocks).map(|_| Vec::new()).collect();
        for buffer in buffers.iter_mut() {
            for (b, chunk) in buffer.chunks_mut(BLOCK).enumerate() {
                grads[b].push(chunk);
            }
        }
        let first = blocks_of(&mut self.first, blocks);
        let second = blocks_of(&mut self.second, blocks);
        weights
            .par_chunks_mut(BLOCK)
            .zip(grads)
            .zip(first)
            .zip(second)
            .enumerate()
            .for_each(|(b, (((w, mut parts), s1), s2))| {
                let base = b * BLOCK;
                for j in 0..w.len() {
                    let mut g = pull.start(base + j, w[j]);
                    for part in parts.iter_mut() {
                        g += std::mem::take(&mut part[j]);
                    }
                    let moment = s1.get(j).copied().unwrap_or(0.0);
                    let Some(g) = pull.finish(base + j, w[j], g, moment) else {
                        continue;
                    };
                    match optimizer {
                        Optimizer::AdaGrad => {
                            s1[j] += g * g;
                            w[j] -= rate * g / (s1[j].sqrt() + epsilon);
                        }
                        Optimizer::Adam => {
                            s1[j] = 0.9 * s1[j] + 0.1 * g;
                            s2[j] = 0.999 * s2[j] + 0.001 * g * g;
                            w[j] -= rate * (s1[j] / c1) / ((s2[j] / c2).sqrt() + epsilon);
                        }
                        Optimizer::Sign => w[j] -= rate * g.signum(),
                    }
                }
            });
    }
}

/// `v` cut into `blocks` chunks of [`BLOCK`], or `blocks` empty slices when `v` is empty.
fn blocks_of(v: &mut [f32], blocks: usize) -> Vec<&mut [f32]> {
    if v.is_empty() {
        (0..blocks).map(|_| <&mut [f32]>::default()).collect()
    } else {
        v.chunks_mut(BLOCK).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Plain gradient; a coordinate without one stays (the sign rule would
    /// move it: `0f32.signum()` is 1).
    struct Free;

    impl Pull for Free {
        fn start(&self, _: usize, _: f32) -> f32 {
            0.0
        }
        fn finish(&self, _: usize, _: f32, g: f32, _: f32) -> Option<f32> {
            (g != 0.0).then_some(g)
        }
    }

    /// Each rule's first steps on known gradients, by hand; the buffers are
    /// summed in order and cleared, across a block boundary.
    #[test]
    fn known_steps_of_each_rule() {
        let n = BLOCK + 2;
        let j = BLOCK + 1;
        for optimizer in [Optimizer::AdaGrad, Optimizer::Adam, Optimizer::Sign] {
            let mut w = vec![0.0f32; n];
            let mut s = Stepper::new(optimizer, n, 1e-8);
            for step in 1..=2 {
                let mut buffers = vec![vec![0.0f32; n], vec![0.0f32; n]];
                buffers[0][j] = 0.5;
                buffers[1][j] = 0.25;
                buffers[0][0] = -1.0;
                s.apply(&mut w, &mut buffers, 0.1, &Free);
                assert!(buffers.iter().all(|b| b.iter().all(|&x| x == 0.0)));
                assert_eq!(s.steps(), step);
            }
            let expected = match optimizer {
                // G = g², then 2g²: w = −0.1·g/(g) − 0.1·g/(√2 g).
                Optimizer::AdaGrad => -0.1 - 0.1 / 2f32.sqrt(),
                // With bias correction m̂ = g and v̂ = g² at every step: −0.1 each.
                Optimizer::Adam => -0.2,
                Optimizer::Sign => -0.2,
            };
            assert!((w[j] - expected).abs() < 1e-5, "{optimizer:?} {}", w[j]);
            assert!(w[0] > 0.0 && w[1] == 0.0, "{optimizer:?}");
        }
    }

    /// `finish` returning `None` leaves the weight and its moments alone.
    #[test]
    fn a_coordinate_left_alone_keeps_its_state() {
        struct Skip;
        impl Pull for Skip {
            fn start(&self, _: usize, _: f32) -> f32 {
                0.0
            }
            fn finish(&self, j: usize, _: f32, g: f32, _: f32) -> Option<f32> {
                (j != 1).then_some(g)
            }
        }
        let mut w = vec![1.0f32; 2];
        let mut s = Stepper::new(Optimizer::Adam, 2, 1e-8);
        let mut buffers = vec![vec![1.0f32; 2]];
        s.apply(&mut w, &mut buffers, 0.5, &Skip);
        assert_eq!(w[1], 1.0);
        assert!(w[0] < 1.0);
        assert_eq!(buffers[0], vec![0.0, 0.0]);
    }
}
