//! No input makes the KIF or Kisen reader panic, and every game they accept
//! replays legally from its start: random input and mutated real records.

use std::path::Path;

use kifulearn::record::{kif, kisen, Game};
use proptest::prelude::*;

mod common;

/// A real record: edo-kif 08731 of the development collection
/// (`common::shared`), else the bundled edo-kif 15732.
fn real_kif() -> String {
    static TEXT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    TEXT.get_or_init(|| {
        let path = common::shared("kifu/edo-kif/08731.kif")
            .unwrap_or_else(|| common::fixture("edo-kif/15732.kif"));
        std::fs::read_to_string(path).unwrap()
    })
    .clone()
}

/// Kisen bytes of the real record above.
fn real_kisen() -> Vec<u8> {
    let game = kif::read(&real_kif(), Path::new("r.kif"))
        .remove(0)
        .unwrap();
    kisen::encode(&game).unwrap().to_vec()
}

fn check_replay(game: &Game) {
    let mut pos = game.start.clone();
    for &mv in &game.moves {
        pos.play(mv).expect("an accepted game replays legally");
    }
}

/// Characters KIF records are made of, so random text reaches the move parser.
fn kif_char() -> impl Strategy<Value = char> {
    prop::sample::select(
        "０１２３４５６７８９123456789一二三四五六七八九歩香桂銀金角飛玉王と杏圭全馬龍竜成不打同　 ()/:：*&|v・\n手数変化まで投了詰み先後手合割平香落ち角"
            .chars()
            .collect::<Vec<_>>(),
    )
}

#[derive(Clone, Debug)]
enum Edit {
    Delete(usize, usize),
    Insert(usize, String),
    Replace(usize, char),
    SwapLines(usize, usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    prop_oneof![
        (any::<usize>(), 1usize..20).prop_map(|(a, n)| Edit::Delete(a, n)),
        (any::<usize>(), prop::collection::vec(kif_char(), 1..10))
            .prop_map(|(a, s)| Edit::Insert(a, s.into_iter().collect())),
        (any::<usize>(), kif_char()).prop_map(|(a, c)| Edit::Replace(a, c)),
        (any::<usize>(), any::<usize>()).prop_map(|(a, b)| Edit::SwapLines(a, b)),
    ]
}

fn apply(text: &str, edits: &[Edit]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for e in edits {
        let n = chars.len().max(1);
        match e {
            Edit::Delete(a, k) => {
                let a = a % n;
                let b = (a + k).min(chars.len());
                if a < b {
                    chars.drain(a..b);
                }
            }
            Edit::Insert(a, s) => {
                let a = a % (chars.len() + 1);
                chars.splice(a..a, s.chars());
            }
            Edit::Replace(a, c) => {
                if !chars.is_empty() {
                    chars[a % n] = *c;
                }
            }
            Edit::SwapLines(a, b) => {
                let s: String = chars.iter().collect();
                let mut lines: Vec<&str> = s.lines().collect();
                if !lines.is_empty() {
                    let (a, b) = (a % lines.len(), b % lines.len());
                    lines.swap(a, b);
                }
                chars = lines.join("\n").chars().collect();
            }
        }
    }
    chars.into_iter().collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn kif_random_text_never_panics(s in ".{0,400}") {
        for g in kif::read(&s, Path::new("f.kif")).iter().flatten() {
            check_replay(g);
        }
    }

    #[test]
    fn kif_random_kif_like_text_never_panics(s in prop::collection::vec(kif_char(), 0..600)) {
        let s: String = s.into_iter().collect();
        for g in kif::read(&s, Path::new("f.kif")).iter().flatten() {
            check_replay(g);
        }
    }

    #[test]
    fn kif_mutated_real_record_never_panics(edits in prop::collection::vec(edit(), 1..6)) {
        let text = apply(&real_kif(), &edits);
        let games = kif::read(&text, Path::new("f.kif"));
        prop_assert!(!games.is_empty());
        for g in games.iter().flatten() {
            check_replay(g);
        }
    }

    #[test]
    fn kisen_random_bytes_never_panic(
        bytes in prop::collection::vec(any::<u8>(), 0..2100),
        idx in prop::option::of(prop::collection::vec(any::<u8>(), 0..200)),
    ) {
        for g in kisen::read(&bytes, idx.as_deref(), Path::new("f.kif")).iter().flatten() {
            check_replay(g);
        }
    }

    #[test]
    fn kisen_mutated_real_record_never_panics(
        flips in prop::collection::vec((0usize..512, any::<u8>()), 1..8),
        idx in prop::option::of(prop::collection::vec(any::<u8>(), 64..65)),
    ) {
        let mut bytes = real_kisen();
        for (at, b) in flips {
            bytes[at] = b;
        }
        let games = kisen::read(&bytes, idx.as_deref(), Path::new("f.kif"));
        prop_assert!(games.len() <= 1);
        for g in games.iter().flatten() {
            check_replay(g);
        }
    }
}
