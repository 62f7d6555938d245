//! The KIF reader on the real records of `../shared/kifu/edo-kif` (skipped when the
//! folder is absent), checked against cshogi 1.1's KIF parser: start SFEN, every
//! move in USI and the winner for each game are in `fixtures/kif/edo-kif.cshogi.tsv`
//! (made with `cshogi.KIF.Parser.parse_str`, see `fixtures/README.md`).

use std::path::{Path, PathBuf};

use kifulearn::record::{self, kif, Ending, Format, Game, GameResult};

mod common;

/// `../shared/kifu/edo-kif`, or `None` with a note (a failure in CI).
fn edo_dir() -> Option<PathBuf> {
    common::shared("kifu/edo-kif")
}

fn read_one(path: &Path) -> Game {
    let read = record::read_file(path);
    assert_eq!(read.format, Some(Format::Kif), "{}", path.display());
    assert_eq!(read.games.len(), 1, "{}", path.display());
    read.games.into_iter().next().unwrap().unwrap()
}

#[test]
fn all_23_edo_games_match_cshogi() {
    let Some(dir) = edo_dir() else { return };
    let golden = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/kif/edo-kif.cshogi.tsv"),
    )
    .unwrap();
    let files = record::find_record_files(std::slice::from_ref(&dir)).unwrap();
    assert_eq!(files.len(), 23);
    let mut failures = Vec::new();
    let mut handicap = 0;
    for line in golden.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let read = record::read_file(&dir.join(f[0]));
        let game = match &read.games[..] {
            [Ok(g)] => g,
            other => {
                failures.push(format!("{}: {other:?}", f[0]));
                continue;
            }
        };
        assert_eq!(game.start.to_sfen(), f[1], "{}", f[0]);
        assert_eq!(game.moves_usi(), f[4], "{}", f[0]);
        let winner = match f[2] {
            "1" => GameResult::BlackWin,
            "2" => GameResult::WhiteWin,
            _ => GameResult::Draw,
        };
        assert_eq!(game.result, winner, "{}", f[0]);
        assert_eq!(f[3], "%TORYO");
        assert_eq!(game.ending, Ending::Resign, "{}", f[0]);
        if f[1].contains(" w ") {
            handicap += 1;
        }
        assert!(game.black.is_some() && game.white.is_some(), "{}", f[0]);
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(golden.lines().count(), 23);
    assert_eq!(handicap, 10);
}

#[test]
fn even_game_known_answers() {
    let Some(dir) = edo_dir() else { return };
    let g = read_one(&dir.join("08731.kif"));
    assert_eq!(g.plies(), 143);
    assert_eq!(g.moves[0].to_string(), "7g7f");
    assert_eq!(g.moves[19].to_string(), "P*7c"); // `  20 ７三歩打`
    assert_eq!(g.moves[81].to_string(), "8e7g+"); // `  82 ７七桂成(85)`
    assert_eq!(g.moves[142].to_string(), "N*6f"); // ` 143 ６六桂打`
    assert!(g
        .start
        .same_position(&kifulearn::shogi::Position::startpos()));
    assert_eq!(g.black.as_deref(), Some("伊藤印達"));
    assert_eq!(g.white.as_deref(), Some("六代大橋宗銀"));
    assert_eq!(g.event.as_deref(), Some("その他の棋戦"));
    assert_eq!(
        (g.result, g.ending.clone()),
        (GameResult::BlackWin, Ending::Resign)
    );
    assert!(g.warnings.is_empty(), "{:?}", g.warnings);
}

#[test]
fn bishop_handicap_known_answers() {
    let Some(dir) = edo_dir() else { return };
    // 角落ち, 下手：六代大橋宗銀, 上手：伊藤印達; `まで107手で上手の勝ち`.
    let g = read_one(&dir.join("15733.kif"));
    assert_eq!(
        g.start.to_sfen(),
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    );
    assert_eq!(g.plies(), 107);
    assert_eq!(g.moves[0].to_string(), "7a6b"); // the upper player moves first
    assert_eq!(g.moves[106].to_string(), "S*5h"); // ` 107 ５八銀打`
    assert_eq!(g.black.as_deref(), Some("六代大橋宗銀"));
    assert_eq!(g.white.as_deref(), Some("伊藤印達"));
    assert_eq!(g.result, GameResult::WhiteWin);
}

#[test]
fn shift_jis_copy_reads_the_same() {
    let Some(dir) = edo_dir() else { return };
    for name in ["08731.kif", "27486.kif"] {
        let path = dir.join(name);
        let utf8 = std::fs::read_to_string(&path).unwrap();
        let (sjis, _, unmappable) = encoding_rs::SHIFT_JIS.encode(&utf8);
        assert!(!unmappable, "{name} has characters outside Shift_JIS");
        assert!(std::str::from_utf8(&sjis).is_err(), "not really Shift_JIS");
        let tmp =
            std::env::temp_dir().join(format!("kifulearn-sjis-{}-{name}", std::process::id()));
        std::fs::write(&tmp, &sjis).unwrap();
        let from_sjis = read_one(&tmp);
        std::fs::remove_file(&tmp).unwrap();
        let from_utf8 = read_one(&path);
        assert_eq!(from_sjis.moves, from_utf8.moves);
        assert_eq!(from_sjis.start, from_utf8.start);
        assert_eq!(from_sjis.black, from_utf8.black);
        assert_eq!(from_sjis.result, from_utf8.result);
        assert!(
            from_sjis.black.as_deref().unwrap().contains("大橋")
                || from_sjis.black.as_deref().unwrap().contains("伊藤")
        );
    }
}

#[test]
fn branches_keep_the_main_line() {
    let Some(dir) = edo_dir() else { return };
    let path = dir.join("08731.kif");
    let text = std::fs::read_to_string(&path).unwrap();
    let main = read_one(&path);
    // Mark move 3 as branched and append a variation from move 3 (`７五歩` → `２六歩`)
    // and one nested from move 5, the way Kifu for Windows writes them.
    let mut with_branches = text.replacen(
        "   3 ７五歩(76)   (00:00/00:00:00)",
        "   3 ７五歩(76)   (00:00/00:00:00)+",
        1,
    );
    with_branches.push_str(
        "\n変化：3手\n   3 ２六歩(27)   ( 0:00/00:00:00)\n   4 ８四歩(83)   ( 0:00/00:00:00)\n   5 投了\n\n変化：5手\n   5 ２五歩(26)\n",
    );
    let games = kif::read(&with_branches, &path);
    assert_eq!(games.len(), 1);
    let g = games.into_iter().next().unwrap().unwrap();
    assert_eq!(g.moves, main.moves);
    assert_eq!(g.result, GameResult::BlackWin);
}

#[test]
fn two_games_in_one_text_are_split() {
    let Some(dir) = edo_dir() else { return };
    let a = std::fs::read_to_string(dir.join("08731.kif")).unwrap();
    let b = std::fs::read_to_string(dir.join("15733.kif")).unwrap();
    let path = Path::new("two.kif");
    let games = kif::read(&format!("{a}\n{b}"), path);
    assert_eq!(games.len(), 2);
    let (ga, gb) = (games[0].as_ref().unwrap(), games[1].as_ref().unwrap());
    assert_eq!((ga.plies(), gb.plies()), (143, 107));
    assert_eq!((ga.source.index, gb.source.index), (0, 1));
    assert!(gb.start.to_sfen().contains(" w "));
}

#[test]
fn an_illegal_move_in_a_real_record_names_the_line() {
    let Some(dir) = edo_dir() else { return };
    let path = dir.join("08731.kif");
    let text = std::fs::read_to_string(&path).unwrap();
    // Move 3 `７五歩(76)` becomes `７四歩(76)`: a pawn cannot go two squares.
    let bad = text.replacen("   3 ７五歩(76)", "   3 ７四歩(76)", 1);
    let err = kif::read(&bad, &path).remove(0).unwrap_err();
    let line = text.lines().position(|l| l.starts_with("   3 ")).unwrap() + 1;
    assert_eq!(
        err.to_string(),
        format!(
            "{}:line {line}: found \"3 ７四歩(76)   (00:00/00:00:00)\", expected a legal move (illegal move 7f7d in position lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3)",
            path.display()
        )
    );
}
