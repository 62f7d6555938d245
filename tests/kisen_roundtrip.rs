//! Kisen records made from real games: every game of `../shared/kifu/edo-kif` that
//! Kisen can hold and every line of `../shared/kifu/floodgate2016-openings.sfen`
//! survive encode → decode unchanged; the fixtures in `fixtures/kisen/` (made the
//! same way, see `fixtures/README.md`) read with known answers.
//!
//! `KIFULEARN_WRITE_FIXTURES=1 cargo test --release --test kisen_roundtrip` rewrites
//! the fixtures from `../shared/kifu`.

use std::path::{Path, PathBuf};

use kifulearn::record::{self, kisen, Format, Game, GameResult, Source};
use kifulearn::shogi::Position;

mod common;

fn manifest(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(rel)
}

/// The edo-kif games in file order, or `None` when `../shared` is absent.
fn edo_games() -> Option<Vec<(String, Game)>> {
    let dir = common::shared("kifu/edo-kif")?;
    let files = record::find_record_files(&[dir]).unwrap();
    Some(
        files
            .iter()
            .map(|p| {
                let name = p.file_name().unwrap().to_string_lossy().into_owned();
                (name, record::read_file(p).games.remove(0).unwrap())
            })
            .collect(),
    )
}

/// The first `n` floodgate opening lines replayed as games.
fn floodgate_games(n: usize) -> Option<Vec<Game>> {
    let path = common::shared("kifu/floodgate2016-openings.sfen")?;
    let text = std::fs::read_to_string(&path).unwrap();
    Some(
        text.lines()
            .take(n)
            .enumerate()
            .map(|(i, line)| {
                let mut pos = Position::startpos();
                let mut game = Game::new(
                    pos.clone(),
                    Source {
                        path: path.clone(),
                        index: i,
                    },
                );
                let moves = line.strip_prefix("startpos moves ").unwrap();
                for mv in moves.split_whitespace() {
                    game.moves.push(pos.play_usi(mv).unwrap());
                }
                game
            })
            .collect(),
    )
}

fn concat(games: &[&Game]) -> Vec<u8> {
    games
        .iter()
        .flat_map(|g| kisen::encode(g).unwrap())
        .collect()
}

#[test]
fn edo_games_round_trip_with_their_idx() {
    let Some(games) = edo_games() else { return };
    let (fit, right_lance): (Vec<_>, Vec<_>) = games
        .iter()
        .partition(|(_, g)| kisen::handicap_code(&g.start).is_some());
    // 右香落ち has no Kisen handicap code.
    assert_eq!(
        right_lance
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>(),
        ["27486.kif", "27584.kif", "27585.kif"]
    );
    for (_, g) in &right_lance {
        assert!(matches!(
            kisen::encode(g),
            Err(kisen::EncodeError::Start(_))
        ));
    }
    let fit: Vec<&Game> = fit.iter().map(|(_, g)| g).collect();
    assert_eq!(fit.len(), 20);
    let bytes = concat(&fit);
    let idx = kisen::encode_index(&fit.iter().map(|g| (*g).clone()).collect::<Vec<_>>()).unwrap();
    let back = kisen::read(&bytes, Some(&idx), Path::new("edo.kif"));
    assert_eq!(back.len(), fit.len());
    let mut handicaps = 0;
    for (orig, back) in fit.iter().zip(&back) {
        let back = back.as_ref().unwrap();
        assert_eq!(back.moves, orig.moves);
        assert_eq!(back.start, orig.start);
        assert_eq!(back.result, orig.result);
        assert!(back.warnings.is_empty(), "{:?}", back.warnings);
        handicaps += usize::from(kisen::handicap_code(&orig.start) != Some(0));
    }
    assert_eq!(handicaps, 7); // 4 角落ち + 3 香落ち
}

#[test]
fn all_floodgate_openings_round_trip() {
    let Some(games) = floodgate_games(usize::MAX) else {
        return;
    };
    assert_eq!(games.len(), 10_831);
    let refs: Vec<&Game> = games.iter().collect();
    let bytes = concat(&refs);
    let back = kisen::read(&bytes, None, Path::new("fg.kif"));
    assert_eq!(back.len(), games.len());
    let mut drops = 0;
    for (orig, back) in games.iter().zip(back) {
        let back = back.unwrap();
        assert_eq!(back.moves, orig.moves);
        drops += back
            .moves
            .iter()
            .filter(|m| m.to_string().contains('*'))
            .count();
    }
    // Drops are in the set, so the hand index is exercised on real games.
    assert!(drops > 1000, "{drops}");
}

#[test]
fn encoded_file_is_detected_as_kisen_and_read_with_its_idx() {
    let Some(games) = edo_games() else { return };
    let games: Vec<Game> = games
        .into_iter()
        .map(|(_, g)| g)
        .filter(|g| kisen::handicap_code(&g.start).is_some())
        .take(3)
        .collect();
    let dir = std::env::temp_dir().join(format!("kifulearn-kisen-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let kif = dir.join("three.kif");
    std::fs::write(&kif, concat(&games.iter().collect::<Vec<_>>())).unwrap();
    std::fs::write(dir.join("three.idx"), kisen::encode_index(&games).unwrap()).unwrap();
    let read = record::read_file(&kif);
    std::fs::remove_dir_all(&dir).unwrap();
    assert_eq!(read.format, Some(Format::Kisen));
    let back: Vec<Game> = read.games.into_iter().map(Result::unwrap).collect();
    assert_eq!(back.len(), 3);
    for (a, b) in games.iter().zip(&back) {
        assert_eq!((&a.moves, a.result), (&b.moves, b.result));
    }
}

/// The fixture bytes, made from `../shared/kifu`.
fn fixture_bytes() -> Option<[(&'static str, Vec<u8>); 3]> {
    let edo = edo_games()?;
    let pick = [
        "08731.kif",
        "15732.kif",
        "15733.kif",
        "16020.kif",
        "16216.kif",
        "27488.kif",
        "27637.kif",
        "39801.kif",
    ];
    let edo: Vec<Game> = pick
        .iter()
        .map(|n| edo.iter().find(|(name, _)| name == n).unwrap().1.clone())
        .collect();
    let fg = floodgate_games(8)?;
    Some([
        (
            "fixtures/kisen/edo-8.kif",
            concat(&edo.iter().collect::<Vec<_>>()),
        ),
        (
            "fixtures/kisen/edo-8.idx",
            kisen::encode_index(&edo).unwrap(),
        ),
        (
            "fixtures/kisen/floodgate-8.kif",
            concat(&fg.iter().collect::<Vec<_>>()),
        ),
    ])
}

#[test]
fn fixtures_are_the_encoding_of_their_sources() {
    let Some(files) = fixture_bytes() else { return };
    for (rel, bytes) in files {
        if std::env::var_os("KIFULEARN_WRITE_FIXTURES").is_some() {
            std::fs::write(manifest(rel), &bytes).unwrap();
        }
        assert_eq!(std::fs::read(manifest(rel)).unwrap(), bytes, "{rel}");
    }
}

#[test]
fn edo_fixture_known_answers() {
    let read = record::read_file(&manifest("fixtures/kisen/edo-8.kif"));
    assert_eq!(read.format, Some(Format::Kisen));
    let games: Vec<Game> = read.games.into_iter().map(Result::unwrap).collect();
    // Plies and winners from the `まで` lines of 08731 15732 15733 16020 16216 27488 27637 39801.
    let plies: Vec<usize> = games.iter().map(Game::plies).collect();
    assert_eq!(plies, [143, 87, 107, 103, 192, 97, 86, 136]);
    use GameResult::{BlackWin as B, WhiteWin as W};
    let results: Vec<GameResult> = games.iter().map(|g| g.result).collect();
    assert_eq!(results, [B, B, W, W, W, W, B, W]);
    assert_eq!(games[0].moves[0].to_string(), "7g7f");
    assert_eq!(games[0].moves[142].to_string(), "N*6f");
    assert_eq!(games[2].moves[0].to_string(), "7a6b");
    assert_eq!(
        games[2].start.to_sfen(),
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    );
    assert_eq!(
        games[5].start.to_sfen(),
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    );
}

#[test]
fn floodgate_fixture_known_answers() {
    let read = record::read_file(&manifest("fixtures/kisen/floodgate-8.kif"));
    assert_eq!(read.format, Some(Format::Kisen));
    let games: Vec<Game> = read.games.into_iter().map(Result::unwrap).collect();
    assert_eq!(games.len(), 8);
    assert!(games
        .iter()
        .all(|g| g.plies() == 24 && g.result == GameResult::Unknown));
    // First line of floodgate2016-openings.sfen.
    assert_eq!(
        games[0].to_usi(),
        "startpos moves 7g7f 8c8d 7i6h 3c3d 6g6f 7a6b 5g5f 5c5d 3i4h 3a4b 4i5h 4a3b 6i7h 5a4a 5i6i 7c7d 5h6g 6b5c 2g2f 8d8e 6h7g 5d5e 5f5e 2b5e"
    );
}
