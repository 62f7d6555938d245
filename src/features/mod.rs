//! Feature sets: one traversal per set, many sinks.
//!
//! A [`FeatureSet`] reports the `(index, value)` pairs of a position, seen from
//! `view`, to a [`FeatureSink`]. Writing a libsvm row ([`RowBuilder`]),
//! evaluating a linear model ([`DotSink`]) and accumulating a gradient
//! ([`GradientSink`]) are three sinks of the same traversal, so they cannot
//! disagree about what a feature is (the GA-Shogi lesson in `STYLE.md`).
//!
//! Indices are 1-based, as in libsvm files. A set may report an index more
//! than once and in any order; the row builder sums duplicates and sorts.
//! The exact definitions are in `docs/features.md`.

mod describe;
mod kp;
mod material;
mod pp;
mod relation;
mod state;

use std::fmt;
use std::str::FromStr;

pub use describe::{
    kind_text, king_table, parse_kind, parse_square, relation_index, square_text, FeatureName,
};
pub use kp::{Kp, KP_DIMENSION};
pub use material::{MaterialSet, MATERIAL_DIMENSION};
pub use pp::{Pp, PP_DIMENSION};
pub use relation::{
    attack_code, Relation, TypedRelation, ATTACK_CODES, RELATION_DIMENSION, RELATION_STATES,
    TYPED_RELATION_DIMENSION,
};
pub use state::{mirror_square, FeatureIndex, PieceState, PIECE_STATES};

use crate::shogi::{Color, Position};

/// Receives the features of one position, one `(index, value)` pair at a time.
pub trait FeatureSink {
    /// One feature: `index` is 1-based; the same index may come more than once (values add).
    fn feature(&mut self, index: FeatureIndex, value: f32);
}

/// A set of features: the only code that knows what its features are.
pub trait FeatureSet {
    /// Reports every feature of `pos` seen from `view` to `sink`.
    fn visit<S: FeatureSink>(&self, pos: &Position, view: Color, sink: &mut S);
    /// Largest index the set can report (indices run 1..=dimension).
    fn dimension(&self) -> u32;
    /// The set's name as written on the command line (`relation`, `relation,material`).
    fn name(&self) -> String;
}

/// Builds a libsvm row: indices sorted strictly ascending, duplicates summed, zeros dropped.
///
/// Reuse one builder for many rows: [`RowBuilder::build`] clears it and keeps
/// its buffer, so no allocation happens once the buffer has grown to the
/// largest row.
#[derive(Clone, Debug, Default)]
pub struct RowBuilder {
    pairs: Vec<(u32, f32)>,
}

impl RowBuilder {
    /// An empty builder.
    pub fn new() -> Self {
        Self::default()
    }

    /// The row of `pos` from `view` under `set`, ready for [`crate::libsvm::write_row`].
    pub fn build<F: FeatureSet>(&mut self, set: &F, pos: &Position, view: Color) -> &[(u32, f32)] {
        self.pairs.clear();
        set.visit(pos, view, self);
        self.finish()
    }

    /// Sorts, merges and drops zeros in what the sink received since the last build.
    fn finish(&mut self) -> &[(u32, f32)] {
        self.pairs.sort_unstable_by_key(|&(i, _)| i);
        let mut out = 0;
        for i in 0..self.pairs.len() {
            let (index, value) = self.pairs[i];
            if out > 0 && self.pairs[out - 1].0 == index {
                self.pairs[out - 1].1 += value;
            } else {
                self.pairs[out] = (index, value);
                out += 1;
            }
        }
        self.pairs.truncate(out);
        self.pairs.retain(|&(_, v)| v != 0.0);
        &self.pairs
    }
}

impl FeatureSink for RowBuilder {
    #[inline(always)]
    fn feature(&mut self, index: FeatureIndex, value: f32) {
        self.pairs.push((index.get(), value));
    }
}

/// Dot product of the features with a weight vector (`weights[index − 1]`);
/// indices beyond the vector have weight 0 (a model trained on fewer features).
#[derive(Clone, Copy, Debug)]
pub struct DotSink<'a> {
    weights: &'a [f32],
    /// The sum so far.
    pub sum: f32,
}

impl<'a> DotSink<'a> {
    /// A dot product starting at 0.
    pub fn new(weights: &'a [f32]) -> Self {
        Self { weights, sum: 0.0 }
    }
}

impl FeatureSink for DotSink<'_> {
    #[inline(always)]
    fn feature(&mut self, index: FeatureIndex, value: f32) {
        if let Some(w) = self.weights.get(index.get() as usize - 1) {
            self.sum += w * value;
        }
    }
}

/// Adds `scale × value` into `gradient[index − 1]` for every feature: the update
/// step of learners that work feature by feature. Indices beyond the vector are ignored.
#[derive(Debug)]
pub struct GradientSink<'a> {
    gradient: &'a mut [f32],
    scale: f32,
}

impl<'a> GradientSink<'a> {
    /// Accumulates into `gradient` with factor `scale` (e.g. the loss derivative of one row).
    pub fn new(gradient: &'a mut [f32], scale: f32) -> Self {
        Self { gradient, scale }
    }
}

impl FeatureSink for GradientSink<'_> {
    #[inline(always)]
    fn feature(&mut self, index: FeatureIndex, value: f32) {
        if let Some(g) = self.gradient.get_mut(index.get() as usize - 1) {
            *g += self.scale * value;
        }
    }
}

/// Shifts every index by `offset`: how combined sets give each part its own range.
struct Offset<'a, S> {
    inner: &'a mut S,
    offset: u32,
}

impl<S: FeatureSink> FeatureSink for Offset<'_, S> {
    #[inline(always)]
    fn feature(&mut self, index: FeatureIndex, value: f32) {
        self.inner
            .feature(FeatureIndex(index.get() + self.offset), value);
    }
}

/// Maps every index of a part to its canonical left–right mirror class, then
/// adds the part's offset: how `mirror` tying pools a feature with its mirror image.
struct Mirrored<'a, S> {
    inner: &'a mut S,
    set: BaseSet,
    offset: u32,
}

impl<S: FeatureSink> FeatureSink for Mirrored<'_, S> {
    #[inline(always)]
    fn feature(&mut self, index: FeatureIndex, value: f32) {
        let canonical = self.set.canonical(index).get();
        self.inner
            .feature(FeatureIndex(canonical + self.offset), value);
    }
}

/// One of the named feature sets.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BaseSet {
    /// The Mecha-Joshi two-piece relation set.
    Relation,
    /// Piece counts on the board and one feature per held piece.
    Material,
    /// Every piece's state relative to each king.
    Kp,
    /// The relation set with the attack type folded into the index, value 1.
    TypedRelation,
    /// Every unordered pair of pieces on the board, by where each stands.
    Pp,
}

impl BaseSet {
    /// Every base set, as named on the command line.
    pub const ALL: [BaseSet; 5] = [
        BaseSet::Relation,
        BaseSet::Material,
        BaseSet::Kp,
        BaseSet::TypedRelation,
        BaseSet::Pp,
    ];

    /// The name on the command line.
    pub fn name(self) -> &'static str {
        match self {
            BaseSet::Relation => "relation",
            BaseSet::Material => "material",
            BaseSet::Kp => "kp",
            BaseSet::TypedRelation => "relation-typed",
            BaseSet::Pp => "pp",
        }
    }

    fn dimension(self) -> u32 {
        match self {
            BaseSet::Relation => Relation.dimension(),
            BaseSet::Material => MaterialSet.dimension(),
            BaseSet::Kp => Kp.dimension(),
            BaseSet::TypedRelation => TypedRelation.dimension(),
            BaseSet::Pp => Pp.dimension(),
        }
    }

    /// Runs this set's own (monomorphized) traversal.
    #[inline(always)]
    fn visit<S: FeatureSink>(self, pos: &Position, view: Color, sink: &mut S) {
        match self {
            BaseSet::Relation => Relation.visit(pos, view, sink),
            BaseSet::Material => MaterialSet.visit(pos, view, sink),
            BaseSet::Kp => Kp.visit(pos, view, sink),
            BaseSet::TypedRelation => TypedRelation.visit(pos, view, sink),
            BaseSet::Pp => Pp.visit(pos, view, sink),
        }
    }

    /// Reports this set's features of `pos` from `view` to `sink`, each
    /// index shifted by `offset` and never mirror-tied: the raw index of a
    /// part of a [`Features`] combination. The engine's integer reading of a
    /// model (`eval::incremental`) resolves the tying once in its weights and
    /// reads every part this way.
    #[inline]
    pub fn visit_raw<S: FeatureSink>(self, pos: &Position, view: Color, offset: u32, sink: &mut S) {
        let mut shifted = Offset {
            inner: sink,
            offset,
        };
        self.visit(pos, view, &mut shifted);
    }

    /// The index (1-based, the part's own range) of the left–right mirror image
    /// of feature `index`: file f ↔ 10 − f for every square in it. Each set
    /// owns its layout (`Relation::mirror`, `MaterialSet::mirror`, `Kp::mirror`).
    #[inline(always)]
    pub fn mirror(self, index: FeatureIndex) -> FeatureIndex {
        match self {
            BaseSet::Relation => Relation::mirror(index),
            BaseSet::Material => MaterialSet::mirror(index),
            BaseSet::Kp => Kp::mirror(index),
            BaseSet::TypedRelation => TypedRelation::mirror(index),
            BaseSet::Pp => Pp::mirror(index),
        }
    }

    /// What feature `index` (1-based, the part's own range) stands for; each
    /// set decodes its own layout.
    pub fn describe(self, index: FeatureIndex) -> Option<FeatureName> {
        match self {
            BaseSet::Relation => Relation::describe(index),
            BaseSet::Material => MaterialSet::describe(index),
            BaseSet::Kp => Kp::describe(index),
            BaseSet::TypedRelation => TypedRelation::describe(index),
            BaseSet::Pp => Pp::describe(index),
        }
    }

    /// The representative of `index`'s mirror pair: the smaller of the two.
    #[inline(always)]
    pub fn canonical(self, index: FeatureIndex) -> FeatureIndex {
        index.min(self.mirror(index))
    }
}

/// The feature sets rows are extracted with when none are named (`extract
/// --features`, `positions --rows --features`, a recipe's `[features] set`):
/// the Mecha-Joshi relation set.
pub const DEFAULT_SET: &str = "relation";

/// A combination of named sets chosen at run time (`relation,material`): each
/// part gets its own index range, in the order named. Dispatches once per part
/// per position, then runs the part's monomorphized traversal.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Features {
    parts: Vec<(BaseSet, u32)>,
    dimension: u32,
    mirror: bool,
}

/// A feature-set name that is not known, empty, or repeated.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid feature set {text:?}: {reason} (known sets: relation, material, kp, relation-typed, pp; combine with commas; add `mirror` to tie left-right mirror images)"
)]
pub struct FeaturesError {
    /// The text given.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl Features {
    /// The parts with their index offsets (part index = offset + the part's own index).
    pub fn parts(&self) -> &[(BaseSet, u32)] {
        &self.parts
    }

    /// The index offset of part `set`, if the combination has it.
    pub fn offset_of(&self, set: BaseSet) -> Option<u32> {
        self.parts.iter().find(|(s, _)| *s == set).map(|&(_, o)| o)
    }

    /// True when left–right mirror images share one index (`…,mirror`).
    pub fn mirrored(&self) -> bool {
        self.mirror
    }

    /// The index a feature is reported under: itself, or with mirror tying the
    /// canonical member of its mirror pair. Indices outside every part are returned as given.
    pub fn canonical(&self, index: u32) -> u32 {
        if !self.mirror {
            return index;
        }
        for &(set, offset) in &self.parts {
            if index > offset && index <= offset + set.dimension() {
                return set.canonical(FeatureIndex(index - offset)).get() + offset;
            }
        }
        index
    }
}

impl FromStr for Features {
    type Err = FeaturesError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let err = |reason: String| FeaturesError {
            text: text.to_string(),
            reason,
        };
        let mut parts = Vec::new();
        let mut offset = 0u32;
        let mut mirror = false;
        for name in text.split(',').map(str::trim) {
            if name == "mirror" {
                if mirror {
                    return Err(err("\"mirror\" named twice".into()));
                }
                mirror = true;
                continue;
            }
            let set = BaseSet::ALL
                .into_iter()
                .find(|s| s.name() == name)
                .ok_or_else(|| err(format!("unknown set {name:?}")))?;
            if parts.iter().any(|&(s, _)| s == set) {
                return Err(err(format!("{name:?} named twice")));
            }
            parts.push((set, offset));
            offset += set.dimension();
        }
        if parts.is_empty() {
            return Err(err("no set named".into()));
        }
        Ok(Self {
            parts,
            dimension: offset,
            mirror,
        })
    }
}

impl fmt::Display for Features {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

impl FeatureSet for Features {
    #[inline]
    fn visit<S: FeatureSink>(&self, pos: &Position, view: Color, sink: &mut S) {
        for &(set, offset) in &self.parts {
            if self.mirror {
                let mut tied = Mirrored {
                    inner: &mut *sink,
                    set,
                    offset,
                };
                set.visit(pos, view, &mut tied);
            } else {
                let mut shifted = Offset {
                    inner: &mut *sink,
                    offset,
                };
                set.visit(pos, view, &mut shifted);
            }
        }
    }

    fn dimension(&self) -> u32 {
        self.dimension
    }

    fn name(&self) -> String {
        let mut names: Vec<&str> = self.parts.iter().map(|(s, _)| s.name()).collect();
        if self.mirror {
            names.push("mirror");
        }
        names.join(",")
    }
}

/// Calls `f` with every piece on the board of `pos` (colour, kind, square):
/// Black's then White's, each in [`crate::shogi::KIND_ORDER`]. The one walk
/// over the board of the piece-placement sets (`kp`, `pp`) and of the
/// engine's `pp` update, so their sums add the same terms in the same order.
#[inline(always)]
pub fn board_pieces(
    pos: &Position,
    mut f: impl FnMut(Color, crate::shogi::Piece, crate::shogi::Square),
) {
    let board = pos.board();
    for color in [Color::Black, Color::White] {
        for piece in crate::shogi::KIND_ORDER {
            for square in board.pieces(piece) & board.colors(color) {
                f(color, piece, square);
            }
        }
    }
}

/// `Σ weights[index − 1] × value` over the features of `pos` from `view`.
pub fn dot<F: FeatureSet>(set: &F, weights: &[f32], pos: &Position, view: Color) -> f32 {
    let mut sink = DotSink::new(weights);
    set.visit(pos, view, &mut sink);
    sink.sum
}

#[cfg(test)]
pub(crate) mod tests;
