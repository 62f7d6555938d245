//! SplitMix64 (Steele, Lea & Flood 2014): the one small seeded generator of
//! the crate — permutations in the learners (the dual solver's row order, the
//! ranking, streaming and positions learners' order), the arena's opening
//! shuffle, the generator's games — and its finalizer [`mix`], the hash of the
//! noisy evaluator and of the pipeline's split. Written here because nothing
//! more is needed, and a fixed generator keeps runs reproducible across crate
//! versions.

/// SplitMix64's output function: a bijective 64-bit mixer.
pub(crate) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A SplitMix64 state; `SplitMix64(seed)` starts it.
pub(crate) struct SplitMix64(pub(crate) u64);

impl SplitMix64 {
    /// The next 64 random bits.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix(self.0)
    }

    /// A number in `0..n` from the high 32 bits (multiply-shift, no division).
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (((self.next() >> 32) * n as u64) >> 32) as usize
    }

    /// Fisher–Yates.
    pub(crate) fn shuffle<T>(&mut self, items: &mut [T]) {
        for i in (1..items.len()).rev() {
            let k = (self.next() % (i as u64 + 1)) as usize;
            items.swap(i, k);
        }
    }
}
