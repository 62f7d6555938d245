//! Readable names of feature indices, for weight reports. Each set decodes its
//! own layout (`Relation::describe`, `MaterialSet::describe`, `Kp::describe`;
//! the layouts are defined in `docs/features.md`); this file holds the shared
//! words (kinds, squares) and the combination's dispatch.

use super::{BaseSet, FeatureIndex, Features, PieceState, Relation};

/// Kind codes in the order of the piece-kind numbers of `docs/features.md`.
const KIND_CODES: [&str; 14] = [
    "P", "L", "N", "S", "G", "B", "R", "K", "+P", "+L", "+N", "+S", "+B", "+R",
];

/// What one feature index stands for, in the view side's frame.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FeatureName {
    /// The base set the index belongs to (`relation`, `material`).
    pub set: &'static str,
    /// Relation: the piece whose effect reaches B (`own G`); material: the counted piece.
    pub piece_a: String,
    /// Relation: A's square (`5h`); material: empty.
    pub square_a: String,
    /// Relation: the piece on the reached square; material: empty.
    pub piece_b: String,
    /// Relation: B's square; material: empty.
    pub square_b: String,
    /// One readable phrase (`own G 5h -> own K 5i`, `hand opp P #3`).
    pub name: String,
}

/// Text of a piece kind number 0..28: `own P` … `own +R`, `opp P` … `opp +R`.
pub fn kind_text(kind: u32) -> String {
    let side = if kind < 14 { "own" } else { "opp" };
    format!("{side} {}", KIND_CODES[(kind % 14) as usize])
}

/// The kind number (0..28) of a kind code (`G`, `+R`) of the view side, or of its opponent.
pub fn parse_kind(code: &str, opponent: bool) -> Option<u32> {
    let k = KIND_CODES.iter().position(|&c| c == code.trim())? as u32;
    Some(if opponent { k + 14 } else { k })
}

/// Text of a square number `(file − 1) × 9 + (rank − 1)`: file digit, rank letter (`5h`).
pub fn square_text(square: u32) -> String {
    format!("{}{}", square / 9 + 1, (b'a' + (square % 9) as u8) as char)
}

/// The square number of a text like `5h` (also `5H` and `58`, rank as a digit).
pub fn parse_square(text: &str) -> Option<u32> {
    let b = text.trim().as_bytes();
    if b.len() != 2 {
        return None;
    }
    let file = b[0].checked_sub(b'0').filter(|f| (1..=9).contains(f))?;
    let rank = match b[1] {
        c @ b'a'..=b'i' => c - b'a' + 1,
        c @ b'A'..=b'I' => c - b'A' + 1,
        c @ b'1'..=b'9' => c - b'0',
        _ => return None,
    };
    Some((file as u32 - 1) * 9 + (rank as u32 - 1))
}

/// The 1-based `relation` index of the pair (A: kind `a_kind` on `a_square`, B: `b_kind` on `b_square`).
pub fn relation_index(a_kind: u32, a_square: u32, b_kind: u32, b_square: u32) -> u32 {
    Relation::index(
        PieceState::new(a_kind, a_square),
        PieceState::new(b_kind, b_square),
    )
    .get()
}

impl Features {
    /// What feature `index` (1-based, in this combination's index space) stands for.
    pub fn describe(&self, index: u32) -> Option<FeatureName> {
        let &(set, offset) = self
            .parts()
            .iter()
            .rev()
            .find(|&&(_, offset)| index > offset)?;
        set.describe(FeatureIndex(index - offset))
    }

    /// The index offset of the `relation` part, if the combination has one.
    pub fn relation_offset(&self) -> Option<u32> {
        self.offset_of(BaseSet::Relation)
    }
}

/// A 9×9 board of `relation` weights of the pairs (piece `kind` on each square →
/// the view side's king on `king`), in the Bonanza king-table layout: rows ranks
/// a..i, columns files 9..1. The king's own square is `None`; indices beyond
/// `weights` (a model trained on fewer features) weigh 0.
pub fn king_table(
    features: &Features,
    weights: &[f64],
    king: u32,
    kind: u32,
) -> Option<[[Option<f64>; 9]; 9]> {
    let offset = features.relation_offset()?;
    let own_king = 7;
    let mut table = [[None; 9]; 9];
    for (r, row) in table.iter_mut().enumerate() {
        for (c, cell) in row.iter_mut().enumerate() {
            let square = (8 - c as u32) * 9 + r as u32;
            if square == king {
                continue;
            }
            let index = features.canonical(offset + relation_index(kind, square, own_king, king));
            *cell = Some(weights.get(index as usize - 1).copied().unwrap_or(0.0));
        }
    }
    Some(table)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::features::{MaterialSet, RELATION_DIMENSION};

    fn parts(n: &FeatureName) -> [&str; 5] {
        [&n.piece_a, &n.square_a, &n.piece_b, &n.square_b, &n.name]
    }

    #[test]
    fn relation_indices_of_the_worked_example_decode_to_their_pieces() {
        // docs/features.md, worked example, Black's view.
        let n = Relation::describe(FeatureIndex(67_259)).unwrap();
        assert_eq!(
            parts(&n),
            ["own P", "4c", "opp G", "4b", "own P 4c -> opp G 4b"]
        );
        assert_eq!(n.set, "relation");
        let n = Relation::describe(FeatureIndex(1_200_945)).unwrap();
        assert_eq!(parts(&n)[..4], ["own R", "5h", "opp P", "5c"]);
        let n = Relation::describe(FeatureIndex(3_165_347)).unwrap();
        assert_eq!(parts(&n)[..4], ["opp S", "3a", "opp G", "4b"]);
        // White's view of the same position: P 4c → 6g (opponent's), g 4b → 6h (own).
        let n = Relation::describe(FeatureIndex(2_687_957)).unwrap();
        assert_eq!(parts(&n)[..4], ["opp P", "6g", "own G", "6h"]);
        // The extremes: 1 is own P 1a → own P 1a, the last index opp +R 9i twice.
        assert_eq!(
            parts(&Relation::describe(FeatureIndex(1)).unwrap())[..2],
            ["own P", "1a"]
        );
        let last = Relation::describe(FeatureIndex(RELATION_DIMENSION)).unwrap();
        assert_eq!(parts(&last)[..4], ["opp +R", "9i", "opp +R", "9i"]);
        assert_eq!(Relation::describe(FeatureIndex(0)), None);
        assert_eq!(
            Relation::describe(FeatureIndex(RELATION_DIMENSION + 1)),
            None
        );
        assert_eq!(
            relation_index(
                parse_kind("P", false).unwrap(),
                parse_square("4c").unwrap(),
                parse_kind("G", true).unwrap(),
                parse_square("4b").unwrap()
            ),
            67_259
        );
    }

    #[test]
    fn material_indices_have_readable_names() {
        let name = |i| MaterialSet::describe(FeatureIndex(i)).unwrap().name;
        assert_eq!(name(1), "board own P");
        assert_eq!(name(8), "board own K");
        assert_eq!(name(22), "board opp K");
        assert_eq!(name(28), "board opp +R");
        assert_eq!(name(31), "hand own P #3");
        assert_eq!(name(47), "hand own L #1");
        assert_eq!(name(65), "hand own R #1");
        assert_eq!(name(66), "hand own R #2");
        assert_eq!(name(67), "hand opp P #1");
        assert_eq!(name(104), "hand opp R #2");
        assert_eq!(MaterialSet::describe(FeatureIndex(105)), None);
        assert_eq!(
            MaterialSet::describe(FeatureIndex(31)).unwrap().piece_a,
            "own P"
        );
    }

    #[test]
    fn combined_sets_decode_each_part_in_its_range() {
        let f: Features = "relation,material".parse().unwrap();
        assert_eq!(f.describe(67_259).unwrap().name, "own P 4c -> opp G 4b");
        let m = f.describe(RELATION_DIMENSION + 65).unwrap();
        assert_eq!((m.set, m.name.as_str()), ("material", "hand own R #1"));
        let f: Features = "material,relation".parse().unwrap();
        assert_eq!(f.describe(22).unwrap().name, "board opp K");
        assert_eq!(f.describe(104 + 67_259).unwrap().piece_b, "opp G");
        assert_eq!(f.relation_offset(), Some(104));
        let m: Features = "material".parse().unwrap();
        assert_eq!(m.relation_offset(), None);
        assert!(king_table(&m, &[], 44, 4).is_none());
    }

    #[test]
    fn squares_and_kinds_parse_and_print() {
        assert_eq!(parse_square("1a"), Some(0));
        assert_eq!(parse_square("9i"), Some(80));
        assert_eq!(parse_square("5H"), Some(43));
        assert_eq!(parse_square("58"), Some(43));
        assert_eq!(square_text(43), "5h");
        for bad in ["0a", "5j", "5", "55a", "", "a5"] {
            assert_eq!(parse_square(bad), None, "{bad}");
        }
        assert_eq!(parse_kind("+R", true), Some(27));
        assert_eq!(parse_kind("K", false), Some(7));
        assert_eq!(parse_kind("Q", false), None);
    }

    #[test]
    fn king_table_places_each_pair_on_its_square() {
        let f: Features = "relation".parse().unwrap();
        let king = parse_square("5i").unwrap();
        let gold = parse_kind("G", false).unwrap();
        let mut w = vec![0.0; relation_index(gold, 80, 7, king) as usize];
        // own G 4h → own K 5i, and own G 6h → own K 5i.
        w[relation_index(gold, parse_square("4h").unwrap(), 7, king) as usize - 1] = 0.5;
        w[relation_index(gold, parse_square("6h").unwrap(), 7, king) as usize - 1] = -0.25;
        // A silver on 4h must not show in the gold table.
        w[relation_index(3, parse_square("4h").unwrap(), 7, king) as usize - 1] = 9.0;
        let t = king_table(&f, &w, king, gold).unwrap();
        // Row h (index 7); columns are files 9..1, so file 4 is column 5 and file 6 column 3.
        assert_eq!(t[7][5], Some(0.5));
        assert_eq!(t[7][3], Some(-0.25));
        assert_eq!(t[8][4], None, "the king's own square");
        let nonzero = t.iter().flatten().filter(|c| c.is_some_and(|v| v != 0.0));
        assert_eq!(nonzero.count(), 2);
        // Beyond the model's weights: zero, not a panic.
        let t = king_table(&f, &w[..10], king, gold).unwrap();
        assert_eq!(t[7][5], Some(0.0));
    }
}
