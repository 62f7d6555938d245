//! No input may make the CSA or USI-line reader panic: random bytes, and real
//! records with lines deleted, duplicated or swapped and bytes flipped. Whatever
//! is read must replay legally, and every error must point inside the text.

use std::path::Path;

use kifulearn::record::{csa, decode_text, usi, Game, Location, RecordError};
use proptest::prelude::*;

fn fixture(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name),
    )
    .unwrap()
}

fn check(games: &[Result<Game, RecordError>], text: &str) {
    let lines = text.lines().count().max(1);
    for game in games {
        match game {
            Ok(g) => {
                let mut pos = g.start.clone();
                for &mv in &g.moves {
                    pos.play(mv).unwrap();
                }
            }
            Err(e) => match e.location {
                Location::Line(n) => assert!((1..=lines).contains(&n), "{e} ({lines} lines)"),
                Location::Byte(_) => panic!("text readers report lines: {e}"),
            },
        }
    }
}

fn read_both(bytes: &[u8]) {
    let text = decode_text(bytes);
    check(&csa::read(&text, Path::new("f.csa")), &text);
    check(&usi::read(&text, Path::new("f.sfen")), &text);
}

#[derive(Debug, Clone)]
enum Mutation {
    Delete(usize),
    Duplicate(usize),
    Swap(usize, usize),
    Flip(usize, u8),
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<usize>().prop_map(Mutation::Delete),
        any::<usize>().prop_map(Mutation::Duplicate),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Mutation::Swap(a, b)),
        (any::<usize>(), 1u8..=255).prop_map(|(at, mask)| Mutation::Flip(at, mask)),
    ]
}

fn mutate(bytes: &[u8], mutations: &[Mutation]) -> Vec<u8> {
    let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
    for m in mutations {
        let n = lines.len();
        match *m {
            Mutation::Delete(i) if n > 1 => {
                lines.remove(i % n);
            }
            Mutation::Duplicate(i) => {
                let line = lines[i % n].clone();
                lines.insert(i % n, line);
            }
            Mutation::Swap(a, b) => lines.swap(a % n, b % n),
            Mutation::Flip(at, mask) => {
                let line = &mut lines[at % n];
                if !line.is_empty() {
                    let k = (at / n) % line.len();
                    line[k] ^= mask;
                }
            }
            Mutation::Delete(_) => {}
        }
    }
    lines.join(&b'\n')
}

const REAL: [&str; 4] = [
    "assembled/selfplay-two-games.csa",
    "assembled/kifu25654-v3-pi.csa",
    "tournament/wcsc23-day2-4-ponanza.csa",
    "floodgate-30.sfen",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..400)) {
        read_both(&bytes);
    }

    #[test]
    fn csa_like_noise_never_panics(
        lines in proptest::collection::vec("[PNV+\\-T%$'/,0-9A-Z* I:]{0,30}", 0..30)
    ) {
        read_both(lines.join("\n").as_bytes());
    }

    #[test]
    fn mutated_real_records_never_panic(
        which in 0..REAL.len(),
        mutations in proptest::collection::vec(mutation(), 1..6),
    ) {
        let bytes = mutate(&fixture(REAL[which]), &mutations);
        read_both(&bytes);
    }
}
