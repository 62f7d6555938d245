//! Issue 18, "files the world writes": KI2, sealed moves, floodgate's doubled
//! ending and one-king problem positions, on the files of `fixtures/formats/`
//! (hand-written, see `fixtures/README.md`), and the KI2/KIF writers' round
//! trip on every real game of `fixtures/` and `../shared/kifu/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use kifulearn::record::ki2_writer::{write_ki2, write_kif};
use kifulearn::record::{find_record_files, ki2, kif, read_file, Ending, Format, Game, GameResult};

mod common;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn one(path: &str) -> Game {
    let read = read_file(&root().join(path));
    assert_eq!(read.games.len(), 1, "{path}");
    read.games.into_iter().next().unwrap().unwrap()
}

const WORDS_GAME: &str = "7g7f 3c3d 8h2b+ 3a2b B*4e 6a5b 4e3d 2b3c 4i5h 3c3d 7i6h 5a4b 5g5f 4a3b 3i4h 7a6b 6h5g 5c5d 5h6h 6b5c 6i5h";

#[test]
fn ki2_with_every_word_in_utf8_and_shift_jis() {
    for path in [
        "fixtures/formats/words.ki2u",
        "fixtures/formats/words-sjis.ki2",
    ] {
        assert_eq!(read_file(&root().join(path)).format, Some(Format::Ki2));
        let g = one(path);
        // 右 (both sides), 左, 寄, 上, 同, 打, 成; the branch after move 19 is not read.
        assert_eq!(g.moves_usi(), WORDS_GAME, "{path}");
        assert_eq!(
            (g.result, &g.ending),
            (GameResult::BlackWin, &Ending::Resign)
        );
        assert_eq!(g.ending_word.as_deref(), Some("先手の勝ち"));
        assert_eq!(
            (g.black.as_deref(), g.white.as_deref(), g.event.as_deref()),
            (Some("甲"), Some("乙"), Some("手書きの試験棋譜"))
        );
    }
}

/// The pieces the handicap giver (White) leaves off, as USI squares, for each
/// file of `fixtures/handicaps/` (named by json-kifu-format's preset codes)
/// and its `手合割`. Left and right are White's own: `左` pieces stand on the
/// 1 side (1a lance, 2a knight, 3a silver), `右` ones on the 9 side; written
/// here piece by piece from Shogi.js's presets, apart from the reader's table.
const HANDICAPS: [(&str, &str, &[&str]); 16] = [
    ("HIRATE", "平手", &[]),
    ("KY", "香落ち", &["1a"]),
    ("KY_R", "右香落ち", &["9a"]),
    ("KA", "角落ち", &["2b"]),
    ("HI", "飛車落ち", &["8b"]),
    ("HIKY", "飛香落ち", &["8b", "1a"]),
    ("2", "二枚落ち", &["8b", "2b"]),
    ("3", "三枚落ち", &["8b", "2b", "1a"]),
    ("4", "四枚落ち", &["8b", "2b", "1a", "9a"]),
    ("5", "五枚落ち", &["8b", "2b", "1a", "9a", "8a"]),
    ("5_L", "左五枚落ち", &["8b", "2b", "1a", "9a", "2a"]),
    ("6", "六枚落ち", &["8b", "2b", "1a", "9a", "8a", "2a"]),
    (
        "7_L",
        "左七枚落ち",
        &["8b", "2b", "1a", "9a", "8a", "2a", "3a"],
    ),
    (
        "7_R",
        "右七枚落ち",
        &["8b", "2b", "1a", "9a", "8a", "2a", "7a"],
    ),
    (
        "8",
        "八枚落ち",
        &["8b", "2b", "1a", "9a", "8a", "2a", "3a", "7a"],
    ),
    (
        "10",
        "十枚落ち",
        &["8b", "2b", "1a", "9a", "8a", "2a", "3a", "7a", "4a", "6a"],
    ),
];

/// The even game's SFEN with the pieces on `removed` taken off, White to
/// move when any is.
fn even_without(removed: &[&str]) -> String {
    let even = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL";
    let mut rows: Vec<Vec<char>> = even
        .split('/')
        .map(|row| {
            row.chars()
                .flat_map(|c| match c.to_digit(10) {
                    Some(n) => vec!['.'; n as usize],
                    None => vec![c],
                })
                .collect()
        })
        .collect();
    for sq in removed {
        let (file, rank) = (sq.as_bytes()[0] - b'0', sq.as_bytes()[1] - b'a');
        let cell = &mut rows[rank as usize][9 - file as usize];
        assert!(cell.is_ascii_lowercase(), "{sq} holds no White piece");
        *cell = '.';
    }
    let board: Vec<String> = rows
        .iter()
        .map(|row| {
            let mut out = String::new();
            for chunk in row.chunk_by(|a, b| (*a == '.') == (*b == '.')) {
                match chunk[0] {
                    '.' => out.push_str(&chunk.len().to_string()),
                    _ => out.extend(chunk),
                }
            }
            out
        })
        .collect();
    let side = if removed.is_empty() { "b" } else { "w" };
    format!("{} {side} - 1", board.join("/"))
}

#[test]
fn every_handicap_kakinoki_writes_is_read_with_its_start_position() {
    let mut files: Vec<String> = std::fs::read_dir(root().join("fixtures/handicaps"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    files.sort();
    let mut named: Vec<String> = HANDICAPS
        .iter()
        .map(|(f, ..)| format!("{f}.ki2u"))
        .collect();
    named.sort();
    assert_eq!(files, named);
    for (file, name, removed) in HANDICAPS {
        let path = format!("fixtures/handicaps/{file}.ki2u");
        let text = std::fs::read_to_string(root().join(&path)).unwrap();
        assert!(text.contains(&format!("\n手合割：{name}\n")), "{path}");
        let g = one(&path);
        let sfen = even_without(removed);
        assert_eq!(g.start.to_sfen(), sfen, "{path}");
        let moves = if removed.is_empty() {
            "7g7f 3c3d 2g2f"
        } else {
            "3c3d 7g7f 5a4b"
        };
        assert_eq!(g.moves_usi(), moves, "{path}");
        // The writers name it again, and the KIF reader reads that back.
        assert_eq!(kif::handicap_name(&g.start), Some(name), "{path}");
        let kif_text = write_kif(&g);
        assert!(
            kif_text.contains(&format!("手合割：{name}\n")),
            "{kif_text}"
        );
        let back = kif::read(&kif_text, Path::new("h.kif")).remove(0).unwrap();
        assert_eq!(back.start.to_sfen(), sfen, "{path} as KIF");
    }
}

#[test]
fn ki2_handicap_with_unicode_marks() {
    let g = one("fixtures/formats/lance-handicap.ki2u");
    assert_eq!(
        g.to_usi(),
        "sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d 7g7f 4c4d 2g2f 8b4b 3i4h 5a6b 5i6h"
    );
    assert_eq!(
        (g.result, &g.ending),
        (GameResult::Unknown, &Ending::Interrupted)
    );
}

#[test]
fn ki2_errors_name_the_line_and_the_candidates() {
    let text = std::fs::read_to_string(root().join("fixtures/formats/words.ki2u")).unwrap();
    let games = ki2::read(&text.replace("△５二金右", "△５二金"), Path::new("w.ki2"));
    assert_eq!(
        games[0].as_ref().unwrap_err().to_string(),
        "w.ki2:line 7: found \"△５二金\", expected one 金 picked out by 右, 左, 直, 上, 引 or 寄: 2 金 (from 41, 61) can move to ５二"
    );
    let games = ki2::read(&text.replace("▲６八金寄", "▲６八金引"), Path::new("w.ki2"));
    assert_eq!(
        games[0].as_ref().unwrap_err().to_string(),
        "w.ki2:line 11: found \"▲６八金引\", expected a 金 that the words pick out: none of the 2 金 from 58, 69 moves so to ６八"
    );
    let games = ki2::read(&text.replace("▲７六歩", "△７六歩"), Path::new("w.ki2"));
    assert_eq!(
        games[0].as_ref().unwrap_err().to_string(),
        "w.ki2:line 7: found \"△７六歩\", expected a move by black (▲)"
    );
}

#[test]
fn sealed_move_ends_the_game_unfinished() {
    let g = one("fixtures/formats/sealed-move.kif");
    assert_eq!(g.moves_usi(), "7g7f 8c8d 7i6h 3c3d");
    assert_eq!(
        (g.result, &g.ending),
        (GameResult::Unknown, &Ending::Sealed)
    );
    assert_eq!(g.ending_word.as_deref(), Some("封じ手"));
}

#[test]
fn floodgate_doubled_declaration_is_one_ending() {
    let g = one("fixtures/formats/floodgate-kachi.csa");
    assert_eq!(g.moves_usi(), "7g7f 3c3d 2g2f");
    assert_eq!(
        (g.result, &g.ending, g.ending_word.as_deref()),
        (
            GameResult::WhiteWin,
            &Ending::EnteringKingWin,
            Some("%KACHI")
        )
    );
}

#[test]
fn one_king_positions_are_problem_positions_in_csa_and_kif() {
    for path in [
        "fixtures/formats/tsume-one-king.csa",
        "fixtures/formats/tsume-one-king.kif",
    ] {
        let read = read_file(&root().join(path));
        let e = read.games[0].as_ref().unwrap_err();
        assert!(e.is_problem_position(), "{path}");
        assert!(
            e.expected
                .contains("one king: a problem position, not a game: no black king"),
            "{e}"
        );
    }
}

/// Every game readable under `dir`.
fn games_under(dir: &Path) -> Vec<Game> {
    let files = find_record_files(&[dir.to_path_buf()]).unwrap();
    files
        .iter()
        .flat_map(|f| read_file(f).games.into_iter().flatten())
        .collect()
}

fn assert_round_trip(g: &Game) {
    let name = g.source.to_string();
    for (text, what) in [(write_ki2(g), "ki2"), (write_kif(g), "kif")] {
        let back = match what {
            "ki2" => ki2::read(&text, Path::new("w.ki2")),
            _ => kif::read(&text, Path::new("w.kif")),
        };
        assert_eq!(back.len(), 1, "{name} {what}");
        let back = back[0]
            .as_ref()
            .unwrap_or_else(|e| panic!("{name} as {what}: {e}\n{text}"));
        assert!(back.start.same_position(&g.start), "{name} {what}");
        assert_eq!(back.moves, g.moves, "{name} {what}");
    }
}

#[test]
fn every_fixture_game_reads_back_from_our_ki2_and_kif() {
    let games = games_under(&root().join("fixtures"));
    assert!(games.len() >= 70, "{}", games.len());
    for g in &games {
        assert_round_trip(g);
    }
}

#[test]
fn every_shared_game_reads_back_from_our_ki2_and_kif() {
    let Some(kifu) = common::shared("kifu") else {
        return;
    };
    let games = games_under(&kifu);
    // 47 tournament + 10 pro + 23 edo-kif + 625 self-play + 10,831 opening lines.
    assert!(games.len() >= 11_500, "{}", games.len());
    for g in &games {
        assert_round_trip(g);
    }
}

#[test]
fn games_gives_the_same_usi_for_csa_kif_and_ki2_versions() {
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR")).join("same_games");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // The real CSA records (even, P1 lance handicap, two games in a file are skipped:
    // one game per file keeps the versions side by side) and the real KIF ones.
    let mut n = 0;
    for sub in ["pro", "selfplay", "tournament", "edo-kif"] {
        for file in find_record_files(&[root().join("fixtures").join(sub)]).unwrap() {
            let read = read_file(&file);
            let [Ok(g)] = read.games.as_slice() else {
                continue;
            };
            let stem = format!("{sub}-{}", file.file_stem().unwrap().to_str().unwrap());
            let ext = file.extension().unwrap().to_str().unwrap();
            std::fs::copy(&file, dir.join(format!("{stem}.{ext}"))).unwrap();
            std::fs::write(dir.join(format!("{stem}.ki2")), write_ki2(g)).unwrap();
            if ext != "kif" {
                std::fs::write(dir.join(format!("{stem}.kif")), write_kif(g)).unwrap();
            }
            n += 1;
        }
    }
    let (usi, csv) = (dir.join("all.usi"), dir.join("all.csv"));
    let out = Command::new(env!("CARGO_BIN_EXE_kifulearn"))
        .arg("games")
        .arg(&dir)
        .arg("--usi")
        .arg(&usi)
        .arg("--csv")
        .arg(&csv)
        .output()
        .unwrap();
    assert!(out.status.success());
    let stdout = String::from_utf8(out.stdout).unwrap();
    let csa_games = n - 3; // the three edo-kif games have no CSA version
    let total = csa_games * 3 + 3 * 2;
    assert_eq!(
        stdout.lines().last().unwrap(),
        format!("games: {total} ok, 0 failed, 0 problem positions (one king)")
    );
    // One game per file, all read: the i-th USI line is the i-th CSV row's game.
    let lines: Vec<String> = std::fs::read_to_string(&usi)
        .unwrap()
        .lines()
        .map(String::from)
        .collect();
    let rows: Vec<(String, String)> = csv::Reader::from_path(&csv)
        .unwrap()
        .records()
        .map(|r| {
            let r = r.unwrap();
            let path = PathBuf::from(&r[0]);
            (
                path.file_stem().unwrap().to_str().unwrap().to_string(),
                r[2].to_string(),
            )
        })
        .collect();
    assert_eq!(lines.len(), total);
    let mut by_game: std::collections::BTreeMap<&str, Vec<(&str, &str)>> = Default::default();
    for ((stem, format), line) in rows.iter().zip(&lines) {
        by_game.entry(stem).or_default().push((format, line));
    }
    assert_eq!(by_game.len(), n);
    for (stem, versions) in &by_game {
        let formats: Vec<&str> = versions.iter().map(|v| v.0).collect();
        let expected: &[&str] = if stem.starts_with("edo-kif") {
            &["ki2", "kif"]
        } else {
            &["csa", "ki2", "kif"]
        };
        assert_eq!(formats, expected, "{stem}");
        for v in versions {
            assert_eq!(v.1, versions[0].1, "{stem}: {} differs", v.0);
        }
    }
}
