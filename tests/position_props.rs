//! Properties of `Position` on real positions: the first 400 floodgate
//! opening lines of the development collection (`common::shared`), else the
//! 605 bundled ones, followed by random legal playouts.

mod common;

use std::sync::OnceLock;

use kifulearn::shogi::{parse_usi_move, Move, Position, Square, HAND_PIECES};
use proptest::prelude::*;

fn opening_lines() -> &'static [String] {
    static LINES: OnceLock<Vec<String>> = OnceLock::new();
    LINES.get_or_init(
        || match common::shared("kifu/floodgate2016-openings.sfen") {
            Some(path) => std::fs::read_to_string(path)
                .unwrap()
                .lines()
                .take(400)
                .map(str::to_string)
                .collect(),
            None => common::floodgate_lines(605),
        },
    )
}

fn replay(line: &str) -> Position {
    let mut pos = Position::startpos();
    for mv in line
        .split_whitespace()
        .skip_while(|t| *t != "moves")
        .skip(1)
    {
        pos.play_usi(mv).unwrap();
    }
    pos
}

/// Every move text a user could type for a square pair or a drop, legal or not.
fn any_move() -> impl Strategy<Value = Move> {
    let sq = (0usize..81).prop_map(Square::index);
    // The pieces a hand can hold (and so a drop can name).
    let drop_piece = prop::sample::select(HAND_PIECES.to_vec());
    prop_oneof![
        (sq.clone(), sq.clone(), any::<bool>()).prop_filter_map(
            "distinct squares",
            |(from, to, promotion)| {
                (from != to).then_some(Move::BoardMove {
                    from,
                    to,
                    promotion,
                })
            }
        ),
        (drop_piece, sq).prop_map(|(piece, to)| Move::Drop { piece, to }),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    /// `is_legal` agrees with the move generator on arbitrary moves, along random playouts.
    #[test]
    fn is_legal_agrees_with_generator(line in 0usize..400, seed in any::<u64>(), probes in prop::collection::vec(any_move(), 40)) {
        let lines = opening_lines();
        let mut pos = replay(&lines[line % lines.len()]);
        let mut rng = seed;
        for probe in probes {
            let legal = pos.legal_moves();
            prop_assert_eq!(pos.is_legal(probe), legal.contains(&probe), "{} in {}", probe, pos);
            // USI text round-trips.
            prop_assert_eq!(parse_usi_move(&probe.to_string()).unwrap(), probe);
            if legal.is_empty() { break; }
            rng = rng.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            let mv = legal[(rng >> 33) as usize % legal.len()];
            pos.play(mv).unwrap();
            // SFEN round-trips at every step.
            let back = Position::from_sfen(&pos.to_sfen()).unwrap();
            prop_assert!(back.same_position(&pos));
        }
    }

    /// No text makes SFEN or move parsing panic.
    #[test]
    fn parsers_never_panic(text in ".{0,120}") {
        let _ = Position::from_sfen(&text);
        let _ = Position::startpos().parse_move(&text);
    }

    /// Mutated real SFENs are accepted or rejected, never panic, and round-trip when accepted.
    #[test]
    fn mutated_sfens_never_panic(line in 0usize..400, at in 0usize..200, byte in any::<u8>()) {
        let lines = opening_lines();
        let mut sfen = replay(&lines[line % lines.len()]).to_sfen().into_bytes();
        let i = at % sfen.len();
        sfen[i] = byte;
        if let Ok(text) = String::from_utf8(sfen) {
            if let Ok(pos) = Position::from_sfen(&text) {
                prop_assert!(Position::from_sfen(&pos.to_sfen()).unwrap().same_position(&pos));
            }
        }
    }
}
