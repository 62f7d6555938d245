//! Known-answer tests of the feature sets (hand-checked positions) and the
//! agreement of the sinks on real positions.

use super::*;
use crate::shogi::Position;
use proptest::prelude::*;

/// Index of a piece state straight from the text of `docs/features.md`, written
/// independently of `Relation::state`: kinds by letter, squares by name.
fn state(view: Color, color: Color, kind: &str, square: &str) -> u32 {
    let kinds = [
        "P", "L", "N", "S", "G", "B", "R", "K", "+P", "+L", "+N", "+S", "+B", "+R",
    ];
    let k = kinds.iter().position(|&x| x == kind).unwrap() as u32;
    let k = if color == view { k } else { 14 + k };
    let b = square.as_bytes();
    let (mut file, mut rank) = ((b[0] - b'0') as u32, (b[1] - b'a' + 1) as u32);
    if view == Color::White {
        file = 10 - file;
        rank = 10 - rank;
    }
    k * 81 + (file - 1) * 9 + (rank - 1)
}

type Pair = (
    Color,
    &'static str,
    &'static str,
    Color,
    &'static str,
    &'static str,
    u8,
);

const B: Color = Color::Black;
const W: Color = Color::White;

/// Checks the full relation row of `sfen` from both views against hand-listed pairs.
fn check_relation(sfen: &str, pairs: &[Pair]) {
    let pos = Position::from_sfen(sfen).unwrap();
    let mut builder = RowBuilder::new();
    for view in [B, W] {
        let mut expected: Vec<(u32, f32)> = pairs
            .iter()
            .map(|&(ac, ak, asq, bc, bk, bsq, code)| {
                let i = state(view, ac, ak, asq) * 2268 + state(view, bc, bk, bsq) + 1;
                (i, code as f32)
            })
            .collect();
        expected.sort_by_key(|p| p.0);
        let row = builder.build(&Relation, &pos, view);
        assert_eq!(row, &expected[..], "{sfen} view {view:?}");
    }
}

#[test]
fn relation_codes_1_2_3_5_7() {
    // Black king 9i guarded by its gold 9h; black silver 5f behind its pawn 5e,
    // which faces White's pawn 5d.
    check_relation(
        "k8/9/9/4p4/4P4/4S4/9/G8/K8 b - 1",
        &[
            (B, "K", "9i", B, "G", "9h", 1),
            (B, "G", "9h", B, "K", "9i", 3),
            (B, "S", "5f", B, "P", "5e", 2),
            (B, "P", "5e", W, "P", "5d", 7),
            (W, "P", "5d", B, "P", "5e", 5),
        ],
    );
}

#[test]
fn relation_codes_4_6() {
    // Black rook 5h hits White's pawn 5c (defended by the gold 4b, code 4);
    // Black pawn 4c hits the gold 4b (defended by the silver 3a, code 6).
    check_relation(
        "6s1k/5g3/4pP3/9/9/9/9/4R4/K8 b - 1",
        &[
            (B, "R", "5h", W, "P", "5c", 4),
            (W, "G", "4b", W, "P", "5c", 2),
            (W, "G", "4b", B, "P", "4c", 7),
            (W, "S", "3a", W, "G", "4b", 2),
            (B, "P", "4c", W, "G", "4b", 6),
        ],
    );
}

#[test]
fn relation_codes_9_10_double_check() {
    // White to move in double check: the gold 5b (defended by the pawn 5c) in
    // contact and the bishop 9e from afar; the bishop also guards its king 5i.
    check_relation(
        "4k4/4G4/4P4/9/B8/9/9/9/4K4 w - 1",
        &[
            (B, "G", "5b", W, "K", "5a", 9),
            (B, "G", "5b", B, "P", "5c", 1),
            (B, "P", "5c", B, "G", "5b", 2),
            (W, "K", "5a", B, "G", "5b", 4),
            (B, "B", "9e", W, "K", "5a", 10),
            (B, "B", "9e", B, "K", "5i", 3),
        ],
    );
}

#[test]
fn relation_code_8_and_promoted_kinds() {
    // An undefended silver 4b gives contact check (8); White's horse 1i and
    // dragon 9a are promoted kinds; the horse's step effect reaches 1h's tokin.
    check_relation(
        "+r3k4/5S3/9/9/9/9/9/8+P/4K3+b w - 1",
        &[
            (B, "S", "4b", W, "K", "5a", 8),
            (W, "K", "5a", B, "S", "4b", 7),
            // The dragon runs along rank a to the king (guards it, 3).
            (W, "+R", "9a", W, "K", "5a", 3),
            // Horse 1i: king step 1h holds Black's tokin (undefended: 7).
            (W, "+B", "1i", B, "+P", "1h", 7),
            // Its long diagonal runs 2h…8b up to the dragon on 9a (undefended by Black: 1).
            (W, "+B", "1i", W, "+R", "9a", 1),
            // The tokin (a gold mover) covers 1i behind it; nothing of White covers the horse: 7.
            (B, "+P", "1h", W, "+B", "1i", 7),
        ],
    );
}

#[test]
fn relation_hand_pieces_give_nothing() {
    let bare = Position::from_sfen("k8/9/9/9/9/9/9/9/K8 b - 1").unwrap();
    let held = Position::from_sfen("k8/9/9/9/9/9/9/9/K8 b RB2G4P3p 1").unwrap();
    let mut b = RowBuilder::new();
    assert!(b.build(&Relation, &bare, B).is_empty());
    assert!(b.build(&Relation, &held, B).is_empty());
}

#[test]
fn material_counts_and_hand_slots() {
    // Black: K, 2 pawns on board, 3 pawns and a rook in hand; White: K, gold, 1 pawn in hand.
    let pos = Position::from_sfen("k8/1g7/9/9/9/9/PP7/9/K8 b R3Pp 1").unwrap();
    let mut b = RowBuilder::new();
    let row = b.build(&MaterialSet, &pos, B).to_vec();
    assert_eq!(
        row,
        vec![
            (1, 2.0),  // view side's pawns on the board
            (8, 1.0),  // view side's king
            (19, 1.0), // other side's gold (14 + 4 + 1)
            (22, 1.0), // other side's king
            (29, 1.0), // 1st, 2nd, 3rd pawn in hand
            (30, 1.0),
            (31, 1.0),
            (65, 1.0), // 1st rook in hand (29 + 36)
            (67, 1.0), // other side's 1st pawn in hand (29 + 38)
        ]
    );
    let row = b.build(&MaterialSet, &pos, W).to_vec();
    assert_eq!(
        row,
        vec![
            (5, 1.0),
            (8, 1.0),
            (15, 2.0),
            (22, 1.0),
            (29, 1.0),
            (67, 1.0),
            (68, 1.0),
            (69, 1.0),
            (103, 1.0)
        ]
    );
}

#[test]
fn combined_sets_use_offsets_in_named_order() {
    let both: Features = "relation,material".parse().unwrap();
    assert_eq!(both.dimension(), 5_143_824 + 104);
    assert_eq!(both.name(), "relation,material");
    let flipped: Features = "material, relation".parse().unwrap();
    assert_eq!(
        flipped.parts(),
        &[(BaseSet::Material, 0), (BaseSet::Relation, 104)]
    );
    let pos = Position::startpos();
    let mut b = RowBuilder::new();
    let rel = b.build(&Relation, &pos, B).to_vec();
    let mat = b.build(&MaterialSet, &pos, B).to_vec();
    let row = b.build(&both, &pos, B).to_vec();
    let mut expected = rel.clone();
    expected.extend(mat.iter().map(|&(i, v)| (i + 5_143_824, v)));
    assert_eq!(row, expected);
    assert_eq!(
        "relation,kpp".parse::<Features>().unwrap_err().to_string(),
        "invalid feature set \"relation,kpp\": unknown set \"kpp\" (known sets: relation, material, kp, relation-typed, pp; combine with commas; add `mirror` to tie left-right mirror images)"
    );
    assert_eq!(
        "material,material".parse::<Features>().unwrap_err().to_string(),
        "invalid feature set \"material,material\": \"material\" named twice (known sets: relation, material, kp, relation-typed, pp; combine with commas; add `mirror` to tie left-right mirror images)"
    );
}

#[test]
fn row_builder_sums_duplicates_and_drops_zeros() {
    struct Raw;
    impl FeatureSet for Raw {
        fn visit<S: FeatureSink>(&self, _: &Position, _: Color, sink: &mut S) {
            for (i, v) in [(9, 1.0), (3, 2.0), (9, 4.0), (5, 1.0), (5, -1.0), (1, 0.0)] {
                sink.feature(FeatureIndex(i), v);
            }
        }
        fn dimension(&self) -> u32 {
            9
        }
        fn name(&self) -> String {
            "raw".into()
        }
    }
    let mut b = RowBuilder::new();
    assert_eq!(
        b.build(&Raw, &Position::startpos(), B),
        &[(3, 2.0), (9, 5.0)]
    );
    let mut g = vec![0.0f32; 9];
    Raw.visit(
        &Position::startpos(),
        B,
        &mut GradientSink::new(&mut g, 0.5),
    );
    assert_eq!(g, [0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 2.5]);
}

/// Positions of the first `games` bundled floodgate openings, every ply (`crate::testdata`).
pub(crate) use crate::testdata::floodgate_positions;

/// Weights that are multiples of 1/64 below 16 in magnitude: every partial sum of
/// up to a few hundred products with values ≤ 10 is exact in `f32`, so the dot
/// product of the row and the traversal's dot product must agree to the bit.
fn exact_weights(seed: u64, n: usize) -> Vec<f32> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            ((x % 2048) as i64 - 1024) as f32 / 64.0
        })
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]

    #[test]
    fn dot_of_row_equals_traversal_dot(seed in any::<u64>(), pick in 0usize..10_000, white in any::<bool>()) {
        thread_local! {
            static POSITIONS: Vec<Position> = floodgate_positions(400);
        }
        let set: Features = "relation,material".parse().unwrap();
        let weights = exact_weights(seed, set.dimension() as usize);
        let view = if white { W } else { B };
        POSITIONS.with(|positions| {
            let pos = &positions[pick % positions.len()];
            let mut b = RowBuilder::new();
            let row = b.build(&set, pos, view);
            let from_row: f32 = row.iter().map(|&(i, v)| weights[i as usize - 1] * v).sum();
            prop_assert_eq!(from_row, dot(&set, &weights, pos, view));
            prop_assert!(row.windows(2).all(|w| w[0].0 < w[1].0));
            prop_assert!(row.iter().all(|&(i, v)| i >= 1 && i <= set.dimension() && v != 0.0));
            Ok(())
        })?;
    }
}

#[test]
fn both_views_agree_after_rotation() {
    // Rotating the board and swapping colours must give the same row from the other view.
    for pos in floodgate_positions(30) {
        let sfen = pos.to_sfen();
        let flipped = Position::from_sfen(&rotate_sfen(&sfen)).unwrap();
        let mut a = RowBuilder::new();
        let mut b = RowBuilder::new();
        let set: Features = "relation,material".parse().unwrap();
        assert_eq!(a.build(&set, &pos, B), b.build(&set, &flipped, W), "{sfen}");
    }
}

/// The 81 cells of an SFEN board, rank a first, file 9 first (`""` = empty, `"+p"` promoted).
fn board_cells(board: &str) -> Vec<String> {
    let mut cells: Vec<String> = Vec::new();
    for rank in board.split('/') {
        let mut promoted = false;
        for c in rank.chars() {
            if c == '+' {
                promoted = true;
            } else if let Some(n) = c.to_digit(10) {
                cells.extend((0..n).map(|_| String::new()));
            } else {
                cells.push(format!("{}{c}", if promoted { "+" } else { "" }));
                promoted = false;
            }
        }
    }
    cells
}

/// The SFEN board of 81 cells.
fn board_text(cells: &[String]) -> String {
    let mut board = String::new();
    for (r, rank) in cells.chunks(9).enumerate() {
        let mut empty = 0;
        for c in rank {
            if c.is_empty() {
                empty += 1;
            } else {
                if empty > 0 {
                    board.push_str(&empty.to_string());
                    empty = 0;
                }
                board.push_str(c);
            }
        }
        if empty > 0 {
            board.push_str(&empty.to_string());
        }
        if r < 8 {
            board.push('/');
        }
    }
    board
}

fn swap_case(c: char) -> char {
    if c.is_ascii_uppercase() {
        c.to_ascii_lowercase()
    } else {
        c.to_ascii_uppercase()
    }
}

/// The same position with the board rotated 180° and colours swapped (hands swapped too).
fn rotate_sfen(sfen: &str) -> String {
    let f: Vec<&str> = sfen.split(' ').collect();
    let mut cells: Vec<String> = board_cells(f[0])
        .iter()
        .map(|c| c.chars().map(swap_case).collect())
        .collect();
    cells.reverse();
    let side = if f[1] == "b" { "w" } else { "b" };
    let hands: String = if f[2] == "-" {
        "-".into()
    } else {
        f[2].chars().map(swap_case).collect()
    };
    format!("{} {side} {hands} {}", board_text(&cells), f[3])
}

/// The same position reflected left–right (file f ↔ 10 − f), same side to move and hands.
pub(crate) fn mirror_sfen(sfen: &str) -> String {
    let f: Vec<&str> = sfen.split(' ').collect();
    let mut cells = board_cells(f[0]);
    cells.chunks_mut(9).for_each(|rank| rank.reverse());
    format!("{} {} {} {}", board_text(&cells), f[1], f[2], f[3])
}

#[test]
fn mirror_maps_relation_pairs_onto_each_other() {
    // Decoded names: both squares reflected, pieces kept; an involution.
    let set = BaseSet::Relation;
    for index in [
        1,
        67_259,
        1_200_945,
        2_687_957,
        3_165_347,
        RELATION_DIMENSION,
    ]
    .map(FeatureIndex)
    {
        let m = set.mirror(index);
        assert_eq!(set.mirror(m), index);
        let (a, b) = (
            Relation::describe(index).unwrap(),
            Relation::describe(m).unwrap(),
        );
        assert_eq!(
            (a.piece_a.as_str(), a.piece_b.as_str()),
            (b.piece_a.as_str(), b.piece_b.as_str())
        );
        let reflect = |sq: &str| {
            let file = sq.as_bytes()[0] - b'0';
            format!("{}{}", 10 - file, &sq[1..])
        };
        assert_eq!(b.square_a, reflect(&a.square_a), "{index:?}");
        assert_eq!(b.square_b, reflect(&a.square_b), "{index:?}");
    }
    // The worked example's own P 4c -> opp G 4b pairs with own P 6c -> opp G 6b.
    assert_eq!(
        Relation::describe(set.mirror(FeatureIndex(67_259)))
            .unwrap()
            .name,
        "own P 6c -> opp G 6b"
    );
    // Pieces on the centre file are their own mirror image.
    let centre =
        FeatureIndex(state(B, B, "P", "5g") * RELATION_STATES + state(B, B, "K", "5i") + 1);
    assert_eq!(set.mirror(centre), centre);
    for index in [1, 105, 104].map(FeatureIndex) {
        assert_eq!(BaseSet::Material.mirror(index), index);
    }
}

#[test]
fn mirror_tied_rows_are_the_same_for_a_position_and_its_reflection() {
    let plain: Features = "relation,material".parse().unwrap();
    let tied: Features = "relation,material,mirror".parse().unwrap();
    assert_eq!(tied.to_string(), "relation,material,mirror");
    assert_eq!(tied.dimension(), plain.dimension());
    let (mut a, mut b, mut c) = (RowBuilder::new(), RowBuilder::new(), RowBuilder::new());
    let mut asymmetric = 0;
    for pos in floodgate_positions(40) {
        let sfen = pos.to_sfen();
        let reflected = Position::from_sfen(&mirror_sfen(&sfen)).unwrap();
        for view in [B, W] {
            let row = a.build(&tied, &pos, view).to_vec();
            assert_eq!(row, b.build(&tied, &reflected, view), "{sfen}");
            // The tied row is the plain row with each index sent to its pair's representative.
            let mut mapped: Vec<(u32, f32)> = c
                .build(&plain, &pos, view)
                .iter()
                .map(|&(i, v)| (tied.canonical(i), v))
                .collect();
            mapped.sort_by_key(|p| p.0);
            let mut merged: Vec<(u32, f32)> = Vec::new();
            for (i, v) in mapped {
                match merged.last_mut() {
                    Some(last) if last.0 == i => last.1 += v,
                    _ => merged.push((i, v)),
                }
            }
            assert_eq!(row, merged);
            assert!(row.iter().all(|&(i, _)| tied.canonical(i) == i));
            if c.build(&plain, &pos, view).to_vec() != b.build(&plain, &reflected, view) {
                asymmetric += 1;
            }
        }
    }
    // Without tying a position and its reflection differ, so the test means something.
    assert!(asymmetric > 70, "{asymmetric}");
}

#[test]
fn mirror_option_parses_once_and_needs_a_set() {
    assert!("relation,mirror,mirror".parse::<Features>().is_err());
    assert!("mirror".parse::<Features>().is_err());
    let f: Features = " mirror , material".parse().unwrap();
    assert_eq!(f.to_string(), "material,mirror");
    assert!(f.mirrored());
}

#[test]
fn typed_relation_folds_each_attack_code_into_the_index() {
    // Row by row, `relation-typed` is `relation` with (pair i, code c) sent to
    // ((i − 1) × 10 + c, 1): the same pairs, one index per code.
    let (mut a, mut b) = (RowBuilder::new(), RowBuilder::new());
    let mut codes = [0usize; 11];
    for pos in floodgate_positions(40) {
        for view in [B, W] {
            let plain = a.build(&Relation, &pos, view).to_vec();
            let typed = b.build(&TypedRelation, &pos, view).to_vec();
            let folded: Vec<(u32, f32)> = plain
                .iter()
                .map(|&(i, c)| ((i - 1) * ATTACK_CODES + c as u32, 1.0))
                .collect();
            assert_eq!(typed, folded, "{}", pos.to_sfen());
            for &(i, _) in &typed {
                let i = FeatureIndex(i);
                let (s_a, s_b, code) = TypedRelation::decode(i);
                assert_eq!(TypedRelation::index(s_a, s_b, code), i);
                codes[code as usize] += 1;
                let m = TypedRelation::mirror(i);
                assert_eq!(TypedRelation::mirror(m), i);
                assert_eq!(TypedRelation::decode(m).2, code);
                assert_eq!(
                    Relation::mirror(Relation::index(s_a, s_b)),
                    Relation::index(TypedRelation::decode(m).0, TypedRelation::decode(m).1)
                );
            }
        }
    }
    // The common codes all occur in 40 opening positions (a check is rarer).
    assert!(
        [1, 2, 3, 4, 5, 7].iter().all(|&c| codes[c] > 0),
        "{codes:?}"
    );
    let named = TypedRelation::describe(TypedRelation::index(
        Relation::decode(FeatureIndex(67_259)).0,
        Relation::decode(FeatureIndex(67_259)).1,
        7,
    ))
    .unwrap();
    assert_eq!(named.name, "own P 4c -> opp G 4b code 7");
    assert_eq!(named.set, "relation-typed");
    assert_eq!(
        TypedRelation::describe(FeatureIndex(TYPED_RELATION_DIMENSION + 1)),
        None
    );
    let f: Features = "relation-typed,material".parse().unwrap();
    assert_eq!(f.dimension(), TYPED_RELATION_DIMENSION + MATERIAL_DIMENSION);
}
