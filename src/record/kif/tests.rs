use super::start::HANDICAPS;
use super::*;

const HEAD: &str =
    "開始日時：2024/01/01\n先手：A\n後手：B\n手合割：平手\n手数----指手---------消費時間--\n";

fn one(text: &str) -> Result<Game, RecordError> {
    let mut games = read(text, Path::new("t.kif"));
    assert_eq!(games.len(), 1);
    games.remove(0)
}

#[test]
fn final_words_decide_result_by_who_is_to_move() {
    let cases = [
        ("投了", GameResult::WhiteWin, Ending::Resign),
        ("詰み", GameResult::WhiteWin, Ending::Checkmate),
        ("切れ負け", GameResult::WhiteWin, Ending::TimeUp),
        ("反則負け", GameResult::WhiteWin, Ending::IllegalMove),
        ("反則勝ち", GameResult::BlackWin, Ending::IllegalMove),
        ("入玉勝ち", GameResult::BlackWin, Ending::EnteringKingWin),
        (
            "不戦勝",
            GameResult::BlackWin,
            Ending::Other("不戦勝".into()),
        ),
        (
            "不戦敗",
            GameResult::WhiteWin,
            Ending::Other("不戦敗".into()),
        ),
        ("千日手", GameResult::Draw, Ending::Repetition),
        ("持将棋", GameResult::Draw, Ending::Impasse),
        ("中断", GameResult::Unknown, Ending::Interrupted),
    ];
    for (word, result, ending) in cases {
        // Move 3 is Black's turn: the word is written for Black.
        let text = format!(
            "{HEAD}   1 ７六歩(77)   ( 0:01/00:00:01)\n   2 ３四歩(33)   ( 0:02/00:00:02)\n   3 {word}   ( 0:03/00:00:04)\n"
        );
        let g = one(&text).unwrap();
        assert_eq!((g.result, g.ending.clone()), (result, ending), "{word}");
        assert_eq!(g.plies(), 2);
        assert_eq!(g.ending_word.as_deref(), Some(word));
        assert_eq!(
            (g.black.as_deref(), g.white.as_deref()),
            (Some("A"), Some("B"))
        );
    }
}

#[test]
fn summary_names_the_winner_over_the_final_word() {
    let text =
        format!("{HEAD}   1 ７六歩(77)\n   2 ３四歩(33)\n   3 千日手\nまで2手で後手の勝ち\n");
    let g = one(&text).unwrap();
    assert_eq!(
        (g.result, g.ending.clone()),
        (GameResult::WhiteWin, Ending::Repetition)
    );
    assert_eq!(
        g.warnings,
        vec!["the summary says white, the final move word says draw; kept white"]
    );
    // No final word: the summary alone.
    let g = one(&format!("{HEAD}   1 ７六歩(77)\nまで1手で先手の勝ち\n")).unwrap();
    assert_eq!((g.result, g.ending), (GameResult::BlackWin, Ending::Resign));
    let g = one(&format!("{HEAD}   1 ７六歩(77)\n")).unwrap();
    assert_eq!(
        (g.result, g.ending),
        (GameResult::Unknown, Ending::Unfinished)
    );
}

#[test]
fn ki2_style_moves_resolve_with_their_words() {
    let text = format!(
        "{HEAD}   1 ７六歩\n   2 3四歩\n   3 ２二角成\n   4 同　銀\n   5 ４五角\n   6 ５二金\n"
    );
    let err = one(&text).unwrap_err();
    assert_eq!(
        err.to_string(),
        "t.kif:line 11: found \"6 ５二金\", expected one 金 picked out by 右, 左, 直, 上, 引 or 寄: 2 金 (from 41, 61) can move to ５二"
    );
    let ok = text.replace("   6 ５二金\n", "   6 ５二金右\n");
    assert_eq!(
        one(&ok).unwrap().moves_usi(),
        "7g7f 3c3d 8h2b+ 3a2b B*4e 6a5b"
    );
}

#[test]
fn every_final_word_and_the_sealed_move() {
    // Words not covered by `final_words_decide_result_by_who_is_to_move`.
    for (word, ending) in [
        ("封じ手", Ending::Sealed),
        ("不詰", Ending::Other("不詰".into())),
    ] {
        let text = format!("{HEAD}   1 ７六歩(77)\n   2 {word}\n");
        let g = one(&text).unwrap();
        assert_eq!(
            (g.result, g.ending, g.ending_word.as_deref()),
            (GameResult::Unknown, ending, Some(word))
        );
    }
    // A Meijin-sen record: the sealed move ends it, the summary agrees.
    let text = format!(
        "{HEAD}   1 ７六歩(77)   ( 0:05/00:00:05)\n   2 ３四歩(33)   ( 1:00/00:01:00)\n   3 封じ手   (25:00/04:07:00)\nまで2手で封じ手\n"
    );
    let g = one(&text).unwrap();
    assert_eq!(g.moves_usi(), "7g7f 3c3d");
    assert_eq!(
        (g.result, &g.ending),
        (GameResult::Unknown, &Ending::Sealed)
    );
    assert_eq!(g.ending_word.as_deref(), Some("封じ手"));
    // The summary alone says so too (KI2 records have no final word).
    let g = one(&format!("{HEAD}   1 ７六歩(77)\nまで1手で封じ手\n")).unwrap();
    assert_eq!((g.result, g.ending), (GameResult::Unknown, Ending::Sealed));
}

#[test]
fn a_diagram_with_one_king_is_a_problem_position() {
    let text = "\
後手の持駒：なし
  ９ ８ ７ ６ ５ ４ ３ ２ １
+---------------------------+
| ・ ・ ・ ・ ・ ・ ・ ・v玉|一
| ・ ・ ・ ・ ・ ・ ・ ・ ・|二
| ・ ・ ・ ・ ・ ・ ・ 歩 ・|三
| ・ ・ ・ ・ ・ ・ ・ ・ ・|四
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五
| ・ ・ ・ ・ ・ ・ ・ ・ ・|六
| ・ ・ ・ ・ ・ ・ ・ ・ ・|七
| ・ ・ ・ ・ ・ ・ ・ ・ ・|八
| ・ ・ ・ ・ ・ ・ ・ ・ ・|九
+---------------------------+
先手の持駒：金
手数----指手---------消費時間--
   1 １二金打
";
    let e = one(text).unwrap_err();
    assert!(e.is_problem_position());
    assert_eq!(
        e.to_string(),
        "t.kif:line 15: found \"手数----指手---------消費時間--\", expected two kings (one king: a problem position, not a game: no black king)"
    );
}

#[test]
fn board_diagram_gives_the_start_position() {
    let text = "\
# ---- Kifu for Windows ----
手合割：平手
後手の持駒：角
  ９ ８ ７ ６ ５ ４ ３ ２ １
+---------------------------+
|v香v桂v銀v金v玉v金 ・v桂v香|一
| ・v飛 ・ ・ ・ ・ ・v銀 ・|二
|v歩v歩v歩v歩v歩v歩 ・v歩v歩|三
| ・ ・ ・ ・ ・ ・v歩 ・ ・|四
| ・ ・ ・ ・ ・ ・ ・ ・ ・|五
| ・ ・ 歩 ・ ・ ・ ・ ・ ・|六
| 歩 歩 ・ 歩 歩 歩 歩 歩 歩|七
| ・ ・ ・ ・ ・ ・ ・ 飛 ・|八
| 香 桂 銀 金 玉 金 銀 桂 香|九
+---------------------------+
先手の持駒：角
先手：A
後手：B
手数----指手---------消費時間--
   1 ５五角打
   2 ４四角打
   3 同　角(55)
";
    let g = one(text).unwrap();
    let mut expected = Position::startpos();
    for mv in ["7g7f", "3c3d", "8h2b+", "3a2b"] {
        expected.play_usi(mv).unwrap();
    }
    assert!(g.start.same_position(&expected), "{}", g.start.to_sfen());
    assert_eq!(g.moves_usi(), "B*5e B*4d 5e4d");
}

#[test]
fn hand_counts_in_kanji() {
    assert_eq!(parse_hand("なし").unwrap(), [0; 7]);
    assert_eq!(
        parse_hand("飛　歩十八　香二").unwrap(),
        [1, 0, 0, 0, 0, 2, 18]
    );
    assert_eq!(
        parse_hand("歩百").unwrap_err(),
        "a hand like `歩四　香二` or `なし`, not \"歩百\""
    );
}

#[test]
fn every_handicap_name_has_a_valid_start() {
    for (name, _) in HANDICAPS {
        let p = handicap_start(name).unwrap();
        assert_eq!(p.side_to_move() == Color::Black, name == "平手", "{name}");
    }
    let g = one("手合割：八枚落ち\n手数----指手--\n   1 ５二玉(51)\n").unwrap();
    assert_eq!(
        g.start.to_sfen(),
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
    );
    assert_eq!(g.moves_usi(), "5a5b");
}

#[test]
fn errors_name_the_line_the_text_and_what_was_expected() {
    let err = |text: &str| one(text).unwrap_err().to_string();
    assert_eq!(
        err(&format!("{HEAD}   1 ７X歩(77)\n")),
        "t.kif:line 6: found \"1 ７X歩(77)\", expected a move like `７六歩(77)`, `同　歩(77)`, `５五角打` or `７七桂成(85)`, or a final word like `投了`"
    );
    assert_eq!(
        err(&format!("{HEAD}   1 ７六歩(77)\n   3 ３四歩(33)\n")),
        "t.kif:line 7: found \"3 ３四歩(33)\", expected move number 2"
    );
    assert_eq!(
        err(&format!("{HEAD}   1 ７六歩(77)\nこんにちは\n")),
        "t.kif:line 7: found \"こんにちは\", expected a numbered move line like `   1 ７六歩(77)`, a comment (`*`) or `まで…`"
    );
    assert_eq!(
        err(&format!("{HEAD}   1 同　歩(77)\n")),
        "t.kif:line 6: found \"1 同　歩(77)\", expected a previous move for `同` to refer to"
    );
    assert_eq!(
        err(&format!("{HEAD}   1 投了\n   2 ７六歩(77)\n")),
        "t.kif:line 7: found \"2 ７六歩(77)\", expected no move after the game-ending word"
    );
    assert_eq!(
        err("手合割：九枚落ち\n"),
        "t.kif:line 1: found \"手合割：九枚落ち\", expected a handicap of 平手, 香落ち, 右香落ち, 角落ち, 飛車落ち, 飛香落ち, 二枚落ち, 三枚落ち, 四枚落ち, 五枚落ち, 左五枚落ち, 六枚落ち, 左七枚落ち, 右七枚落ち, 八枚落ち, 十枚落ち or その他 with a board diagram"
    );
    assert_eq!(
        err("後手の持駒：なし\n|v香v桂|一\n"),
        "t.kif:line 2: found \"|v香v桂|一\", expected a board row of 9 cells like `|v香v桂v銀v金v玉v金v銀v桂v香|一`"
    );
    assert_eq!(
        err(""),
        "t.kif:line 1: found \"\", expected a KIF game record (header lines and a move table)"
    );
}

#[test]
fn a_bad_game_does_not_stop_the_next() {
    let text = format!("{HEAD}   1 ７四歩(77)\n{HEAD}   1 ７六歩(77)\n");
    let games = read(&text, Path::new("t.kif"));
    assert_eq!(games.len(), 2);
    assert!(games[0].is_err());
    assert_eq!(games[1].as_ref().unwrap().moves_usi(), "7g7f");
    assert_eq!(games[1].as_ref().unwrap().source.index, 1);
}
