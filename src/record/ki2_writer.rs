//! Writing a [`Game`] as KI2 (moves without origins) or KIF (numbered moves with origins).
//!
//! The start position is written as `手合割：` when it is the even game or a
//! standard handicap, else as a board diagram (`後手の持駒：`, nine `|…|`
//! rows, `先手の持駒：`, `後手番` when White moves first), as Kifu for
//! Windows writes it. KI2 moves carry the words [`super::ki2::relative_words`]
//! chooses (right/left/straight, up/back/sideways, 打, 成/不成), so that
//! [`super::ki2::read`] finds the same moves; the game ends with a `まで…`
//! line. Both texts are UTF-8 (save them as `.ki2u`/`.kifu`, or `.ki2`/`.kif`:
//! the readers accept UTF-8 under any of these names).

use std::fmt::Write;

use super::ki2::{move_text, origin_digits, square_name};
use super::kif::{handicap_name, piece_name};
use super::{Ending, Game, GameResult};
use crate::shogi::{Color, Move, Position, Square, HAND_PIECES};

/// The game as KI2 text: header, start position, moves six to a line, `まで…`.
pub fn write_ki2(game: &Game) -> String {
    let mut out = header(game);
    let mut pos = game.start.clone();
    let mut last_to: Option<Square> = None;
    let mut line = String::new();
    for (i, &mv) in game.moves.iter().enumerate() {
        let mark = if pos.side_to_move() == Color::Black {
            '▲'
        } else {
            '△'
        };
        if i % 6 != 0 {
            line.push_str("    ");
        }
        line.push(mark);
        line.push_str(&move_text(&pos, mv, last_to));
        if i % 6 == 5 {
            out.push_str(&line);
            out.push('\n');
            line.clear();
        }
        last_to = Some(destination(mv));
        pos.play_unchecked(mv);
    }
    if !line.is_empty() {
        out.push_str(&line);
        out.push('\n');
    }
    out.push_str(&summary(game));
    out
}

/// The game as KIF text: header, start position, the move table with origins, `まで…`.
pub fn write_kif(game: &Game) -> String {
    let mut out = header(game);
    out.push_str("手数----指手---------消費時間--\n");
    let mut pos = game.start.clone();
    let mut last_to: Option<Square> = None;
    for (i, &mv) in game.moves.iter().enumerate() {
        let to = destination(mv);
        let dest = if last_to == Some(to) {
            "同　".to_string()
        } else {
            square_name(to)
        };
        let text = match mv {
            Move::Drop { piece, .. } => format!("{dest}{}打", piece_name(piece)),
            Move::BoardMove {
                from, promotion, ..
            } => {
                let piece = pos.piece_on(from).map_or("歩", |(_, p)| piece_name(p));
                let promo = if promotion { "成" } else { "" };
                format!("{dest}{piece}{promo}({})", origin_digits(from))
            }
        };
        let _ = writeln!(out, "{:>4} {text}", i + 1);
        last_to = Some(to);
        pos.play_unchecked(mv);
    }
    out.push_str(&summary(game));
    out
}

fn destination(mv: Move) -> Square {
    match mv {
        Move::BoardMove { to, .. } | Move::Drop { to, .. } => to,
    }
}

fn header(game: &Game) -> String {
    let mut out = String::new();
    if let Some(e) = &game.event {
        let _ = writeln!(out, "棋戦：{e}");
    }
    match handicap_name(&game.start) {
        Some(name) => {
            let _ = writeln!(out, "手合割：{name}");
        }
        None => out.push_str(&diagram(&game.start)),
    }
    if let Some(b) = &game.black {
        let _ = writeln!(out, "先手：{b}");
    }
    if let Some(w) = &game.white {
        let _ = writeln!(out, "後手：{w}");
    }
    out
}

/// A Kifu-for-Windows board diagram of `pos`, hands and side to move included.
fn diagram(pos: &Position) -> String {
    const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    let mut out = String::from("手合割：その他\n");
    let _ = writeln!(out, "後手の持駒：{}", hand(pos, Color::White));
    out.push_str("  ９ ８ ７ ６ ５ ４ ３ ２ １\n+---------------------------+\n");
    for (rank, rank_name) in RANKS.iter().enumerate() {
        out.push('|');
        for file in (0..9).rev() {
            let sq = Square::index(file * 9 + rank);
            match pos.piece_on(sq) {
                None => out.push_str(" ・"),
                Some((color, piece)) => {
                    out.push(if color == Color::White { 'v' } else { ' ' });
                    out.push(diagram_char(piece_name(piece)));
                }
            }
        }
        let _ = writeln!(out, "|{rank_name}");
    }
    out.push_str("+---------------------------+\n");
    let _ = writeln!(out, "先手の持駒：{}", hand(pos, Color::Black));
    if pos.side_to_move() == Color::White {
        out.push_str("後手番\n");
    }
    out
}

/// One character per piece in a diagram: 成香 成桂 成銀 become 杏 圭 全.
fn diagram_char(name: &str) -> char {
    match name {
        "成香" => '杏',
        "成桂" => '圭',
        "成銀" => '全',
        _ => name.chars().next().unwrap_or('・'),
    }
}

fn hand(pos: &Position, color: Color) -> String {
    const COUNTS: [&str; 18] = [
        "", "二", "三", "四", "五", "六", "七", "八", "九", "十", "十一", "十二", "十三", "十四",
        "十五", "十六", "十七", "十八",
    ];
    let items: Vec<String> = HAND_PIECES
        .iter()
        .filter_map(|&p| {
            let n = pos.hand_count(color, p) as usize;
            (n > 0).then(|| format!("{}{}", piece_name(p), COUNTS[(n - 1).min(17)]))
        })
        .collect();
    if items.is_empty() {
        "なし".to_string()
    } else {
        items.join("　")
    }
}

/// The `まで…` line: who won, or the ending when nobody did.
fn summary(game: &Game) -> String {
    let n = game.plies();
    let tail = match (&game.ending, game.result) {
        (Ending::Sealed, _) => "封じ手",
        (Ending::Repetition, GameResult::Draw) => "千日手",
        (Ending::Impasse, GameResult::Draw) => "持将棋",
        (Ending::Interrupted, _) => "中断",
        (_, GameResult::BlackWin) => "先手の勝ち",
        (_, GameResult::WhiteWin) => "後手の勝ち",
        _ => return String::new(),
    };
    format!("まで{n}手で{tail}\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{kif, Source};
    use std::path::Path;

    fn game(start: Position, usi: &str) -> Game {
        let mut g = Game::new(
            start,
            Source {
                path: "t".into(),
                index: 0,
            },
        );
        let mut p = g.start.clone();
        for m in usi.split_whitespace() {
            g.moves.push(p.play_usi(m).unwrap());
        }
        g
    }

    #[test]
    fn ki2_text_of_an_opening() {
        let mut g = game(Position::startpos(), "7g7f 3c3d 8h2b+ 3a2b B*4e 6a5b 4e3d");
        g.result = GameResult::BlackWin;
        g.black = Some("A".into());
        assert_eq!(
            write_ki2(&g),
            "手合割：平手\n先手：A\n▲７六歩    △３四歩    ▲２二角成    △同　銀    ▲４五角    △５二金右\n▲３四角\nまで7手で先手の勝ち\n"
        );
        let back = kif::read(&write_ki2(&g), Path::new("t.ki2"))
            .remove(0)
            .unwrap();
        assert_eq!(back.moves, g.moves);
        assert_eq!(back.result, GameResult::BlackWin);
        let back = kif::read(&write_kif(&g), Path::new("t.kif"))
            .remove(0)
            .unwrap();
        assert_eq!(back.moves, g.moves);
    }

    #[test]
    fn diagram_start_reads_back() {
        let start = Position::from_sfen(
            "ln1gk2nl/1r1s2g2/p1pppp1pp/6p2/1p7/2P6/PPSPPPPPP/7R1/LN1GKGSNL w BSb 1",
        )
        .unwrap();
        let g = game(start.clone(), "3b3a");
        let text = write_ki2(&g);
        assert!(text.contains("後手番\n"), "{text}");
        assert!(text.contains("先手の持駒：角　銀\n"), "{text}");
        let back = kif::read(&text, Path::new("t.ki2")).remove(0).unwrap();
        assert!(back.start.same_position(&start));
        assert_eq!(back.moves, g.moves);
    }
}
