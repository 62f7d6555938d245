//! The small coordinates every square-based set is built from: a square
//! number and a piece state; and what a set's layout maps them to, a
//! [`FeatureIndex`]. Each set's layout (`relation`, `kp`) is written
//! in these, so encoding, decoding, mirroring and describing an index agree
//! by construction (`docs/features.md`).

/// A feature's 1-based index in one set's own range (as in libsvm rows, and
/// `weights[index − 1]`): what a set's `index` returns and its `decode`,
/// `mirror` and `describe` take, so an index is not confused with the square
/// numbers, piece states and king slots it is built from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct FeatureIndex(pub u32);

impl FeatureIndex {
    /// The index as a number (1-based).
    #[inline(always)]
    pub const fn get(self) -> u32 {
        self.0
    }
}

/// Number of piece states: 28 kinds (14 per side) × 81 squares.
pub const PIECE_STATES: u32 = 28 * 81;

/// The square `file ↔ 10 − file` of square number `s` (`(file − 1) × 9 + rank − 1`).
#[inline(always)]
pub fn mirror_square(s: u32) -> u32 {
    (8 - s / 9) * 9 + s % 9
}

/// A piece state `kind × 81 + square`, in the view side's frame: kinds 0..14
/// are the view side's P…+R (`shogi::KIND_ORDER`), 14..28 the other side's;
/// squares are numbered `(file − 1) × 9 + rank − 1` after the perspective
/// normalization.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct PieceState(pub u32);

impl PieceState {
    /// The state of piece kind `kind` (0..28) on square number `square` (0..81).
    #[inline(always)]
    pub const fn new(kind: u32, square: u32) -> Self {
        Self(kind * 81 + square)
    }

    /// The kind number, 0..28.
    #[inline(always)]
    pub const fn kind(self) -> u32 {
        self.0 / 81
    }

    /// The square number, 0..81.
    #[inline(always)]
    pub const fn square(self) -> u32 {
        self.0 % 81
    }

    /// The same piece on the left–right mirror square.
    #[inline(always)]
    pub fn mirrored(self) -> Self {
        Self::new(self.kind(), mirror_square(self.square()))
    }
}
