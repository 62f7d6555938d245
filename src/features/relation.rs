//! The Mecha-Joshi two-piece `relation` set, exactly as `docs/features.md` defines it.

use haitaka::king_attacks;

use super::describe::{kind_text, square_text, FeatureName};
use super::state::{FeatureIndex, PieceState, PIECE_STATES};
use super::{FeatureSet, FeatureSink};
use crate::shogi::{kind_index, piece_value, Color, Effects, Piece, Position, Square};

/// Number of piece states: 28 kinds (14 per side) × 81 squares ([`PIECE_STATES`]).
pub const RELATION_STATES: u32 = PIECE_STATES;

/// Dimension of the `relation` set: one index per ordered pair of piece states.
pub const RELATION_DIMENSION: u32 = RELATION_STATES * RELATION_STATES;

/// The two-piece relation set: for every ordered pair (A, B) of pieces on the
/// board with B's square in A's effect, index `state(A) × 2268 + state(B) + 1`
/// and value the attack code 1..10 of [`attack_code`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Relation;

/// The attack code of A (of `a_color`, kind `a_piece` on `a_square`) on B, given
/// that B's square is in A's effect. `covered` is the coverage of the position.
///
/// Codes: same side 3 (B is the king), 2 (B under enemy effect), 1; check on
/// the enemy king 8 (contact, A undefended), 9 (contact, A defended), 10
/// (distant); attack on another enemy piece 4/5/6 (B defended; A worth
/// more/equal/less than B), 7 (B undefended).
#[inline(always)]
pub fn attack_code(
    effects: &Effects,
    a_color: Color,
    a_piece: Piece,
    a_square: Square,
    b_color: Color,
    b_piece: Piece,
    b_square: Square,
) -> u8 {
    if a_color == b_color {
        if b_piece == Piece::King {
            3
        } else if effects.is_covered(!a_color, b_square) {
            2
        } else {
            1
        }
    } else if b_piece == Piece::King {
        // King steps are symmetric, so "A next to the king" is "A in the king's step set".
        if king_attacks(b_color, b_square).has(a_square) {
            if effects.is_covered(a_color, a_square) {
                9
            } else {
                8
            }
        } else {
            10
        }
    } else if effects.is_covered(b_color, b_square) {
        let (va, vb) = (piece_value(a_piece), piece_value(b_piece));
        if va > vb {
            4
        } else if va == vb {
            5
        } else {
            6
        }
    } else {
        7
    }
}

impl Relation {
    /// Piece state `k × 81 + s` of a piece after normalizing to `view`.
    #[inline(always)]
    pub fn state(view: Color, color: Color, piece: Piece, square: Square) -> PieceState {
        let side = if color == view { 0 } else { 14 };
        let s = square.relative_to(view) as u32;
        PieceState::new(side + kind_index(piece) as u32, s)
    }

    /// The index (1-based) of the pair (A, B): `state(A) × 2268 + state(B) + 1`.
    #[inline(always)]
    pub fn index(a: PieceState, b: PieceState) -> FeatureIndex {
        FeatureIndex(a.0 * RELATION_STATES + b.0 + 1)
    }

    /// The pair `(A, B)` of an index in `1..=RELATION_DIMENSION`.
    #[inline(always)]
    pub fn decode(index: FeatureIndex) -> (PieceState, PieceState) {
        let i = index.get() - 1;
        (
            PieceState(i / RELATION_STATES),
            PieceState(i % RELATION_STATES),
        )
    }

    /// The index of the left–right mirror image: both squares reflected.
    #[inline(always)]
    pub fn mirror(index: FeatureIndex) -> FeatureIndex {
        let (a, b) = Self::decode(index);
        Self::index(a.mirrored(), b.mirrored())
    }

    /// What an index stands for (`own P 4c -> opp G 4b`); `None` outside `1..=RELATION_DIMENSION`.
    pub fn describe(index: FeatureIndex) -> Option<FeatureName> {
        if index.get() == 0 || index.get() > RELATION_DIMENSION {
            return None;
        }
        let (a, b) = Self::decode(index);
        let (piece_a, square_a) = (kind_text(a.kind()), square_text(a.square()));
        let (piece_b, square_b) = (kind_text(b.kind()), square_text(b.square()));
        Some(FeatureName {
            set: "relation",
            name: format!("{piece_a} {square_a} -> {piece_b} {square_b}"),
            piece_a,
            square_a,
            piece_b,
            square_b,
        })
    }
}

/// Every ordered pair (A, B) with B's square in A's effect, as
/// `(state(A) × 2268 + state(B), attack code)`: the one traversal of both
/// relation sets.
#[inline(always)]
fn for_each_pair(pos: &Position, view: Color, mut emit: impl FnMut(u32, u8)) {
    let effects = Effects::new(pos);
    let occupied = pos.board().occupied();
    // Per-square state, colour and kind, so that each target is a table look-up.
    let mut on = [(0u32, Color::Black, Piece::Pawn); 81];
    for p in effects.pieces() {
        on[p.square as usize] = (
            Relation::state(view, p.color, p.piece, p.square).0,
            p.color,
            p.piece,
        );
    }
    for a in effects.pieces() {
        let base = on[a.square as usize].0 * RELATION_STATES;
        for b_square in a.effect & occupied {
            let (b_state, b_color, b_piece) = on[b_square as usize];
            let code = attack_code(
                &effects, a.color, a.piece, a.square, b_color, b_piece, b_square,
            );
            emit(base + b_state, code);
        }
    }
}

impl FeatureSet for Relation {
    #[inline]
    fn visit<S: FeatureSink>(&self, pos: &Position, view: Color, sink: &mut S) {
        for_each_pair(pos, view, |pair, code| {
            sink.feature(FeatureIndex(pair + 1), code as f32)
        });
    }

    fn dimension(&self) -> u32 {
        RELATION_DIMENSION
    }

    fn name(&self) -> String {
        "relation".into()
    }
}

/// Attack codes per relation index (1..=10).
pub const ATTACK_CODES: u32 = 10;

/// Dimension of the `relation-typed` set: every relation pair × every attack code.
pub const TYPED_RELATION_DIMENSION: u32 = RELATION_DIMENSION * ATTACK_CODES;

/// The DESIGN variant of the relation set with the attack type folded into
/// the index: the pair (A, B) with attack code c (1..10) is index
/// `(state(A) × 2268 + state(B)) × 10 + c`, value 1. Each (pair, code) gets its
/// own weight, instead of one weight per pair multiplied by a code of 1 to 10
/// (where a hanging piece, code 7, weighs 7 times what a defending one does
/// whatever the weight says).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TypedRelation;

impl TypedRelation {
    /// The index (1-based) of pair (A, B) with attack code `code` (1..=10).
    #[inline(always)]
    pub fn index(a: PieceState, b: PieceState, code: u32) -> FeatureIndex {
        FeatureIndex((Relation::index(a, b).get() - 1) * ATTACK_CODES + code)
    }

    /// The pair and attack code of an index in `1..=TYPED_RELATION_DIMENSION`.
    #[inline(always)]
    pub fn decode(index: FeatureIndex) -> (PieceState, PieceState, u32) {
        let i = index.get() - 1;
        let (a, b) = Relation::decode(FeatureIndex(i / ATTACK_CODES + 1));
        (a, b, i % ATTACK_CODES + 1)
    }

    /// The index of the left–right mirror image: both squares reflected, the same code.
    #[inline(always)]
    pub fn mirror(index: FeatureIndex) -> FeatureIndex {
        let (a, b, code) = Self::decode(index);
        Self::index(a.mirrored(), b.mirrored(), code)
    }

    /// What an index stands for (`own P 4c -> opp G 4b code 5`); `None` outside
    /// `1..=TYPED_RELATION_DIMENSION`.
    pub fn describe(index: FeatureIndex) -> Option<FeatureName> {
        if index.get() == 0 || index.get() > TYPED_RELATION_DIMENSION {
            return None;
        }
        let (a, b, code) = Self::decode(index);
        let mut name = Relation::describe(Relation::index(a, b))?;
        name.set = "relation-typed";
        name.name = format!("{} code {code}", name.name);
        Some(name)
    }
}

impl FeatureSet for TypedRelation {
    #[inline]
    fn visit<S: FeatureSink>(&self, pos: &Position, view: Color, sink: &mut S) {
        for_each_pair(pos, view, |pair, code| {
            sink.feature(FeatureIndex(pair * ATTACK_CODES + code as u32), 1.0)
        });
    }

    fn dimension(&self) -> u32 {
        TYPED_RELATION_DIMENSION
    }

    fn name(&self) -> String {
        "relation-typed".into()
    }
}
