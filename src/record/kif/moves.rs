//! KIF and KI2 move lines: the final words (`投了`, ...), the `まで…` summary,
//! the KI2 runs of marked moves, and one move's text against a position.

use super::super::{ki2, Ending, GameResult};
use super::start::piece_char;
use crate::shogi::{Move, Piece, Position, Square};

/// A final move word (`投了`, `詰み`, ...) as read.
#[derive(Clone, Debug)]
pub(crate) struct FinalWord {
    /// The ending it names.
    pub ending: Ending,
    /// The side to move at that line wins (`Some(true)`), loses
    /// (`Some(false)`) or neither (`None`: a draw or no result).
    pub mover_wins: Option<bool>,
    /// The word means a draw.
    pub draw: bool,
    /// The word as written.
    pub word: &'static str,
}

/// The final move word `body` starts with, if any.
pub(crate) fn final_word(body: &str) -> Option<FinalWord> {
    // (word, mover wins?, draw?)
    const WORDS: [(&str, Option<bool>, bool); 13] = [
        ("投了", Some(false), false),
        ("中断", None, false),
        ("千日手", None, true),
        ("詰み", Some(false), false),
        ("持将棋", None, true),
        ("切れ負け", Some(false), false),
        ("反則勝ち", Some(true), false),
        ("反則負け", Some(false), false),
        ("入玉勝ち", Some(true), false),
        ("不戦勝", Some(true), false),
        ("不戦敗", Some(false), false),
        ("封じ手", None, false),
        ("不詰", None, false),
    ];
    WORDS.iter().find_map(|&(w, mover_wins, draw)| {
        body.starts_with(w).then(|| {
            let ending = match w {
                "投了" => Ending::Resign,
                "中断" => Ending::Interrupted,
                "千日手" => Ending::Repetition,
                "詰み" => Ending::Checkmate,
                "持将棋" => Ending::Impasse,
                "切れ負け" => Ending::TimeUp,
                "反則勝ち" | "反則負け" => Ending::IllegalMove,
                "入玉勝ち" => Ending::EnteringKingWin,
                "封じ手" => Ending::Sealed,
                other => Ending::Other(other.to_string()),
            };
            FinalWord {
                ending,
                mover_wins,
                draw,
                word: w,
            }
        })
    })
}

/// What a `まで…` summary line says.
pub(super) struct Summary {
    /// The result it names (`Unknown` when it names none).
    pub(super) result: GameResult,
    /// The ending it names, if any.
    pub(super) ending: Option<Ending>,
    /// The words after `まで N手で`, as written.
    pub(super) word: String,
}

/// Reads a `まで…` summary line.
pub(super) fn summary(line: &str) -> Summary {
    let word = line
        .split_once("手で")
        .map_or(line.trim_start_matches("まで"), |(_, w)| w)
        .trim()
        .to_string();
    let result = if line.contains("先手の勝ち") || line.contains("下手の勝ち") {
        GameResult::BlackWin
    } else if line.contains("後手の勝ち") || line.contains("上手の勝ち") {
        GameResult::WhiteWin
    } else if line.contains("千日手") || line.contains("持将棋") {
        GameResult::Draw
    } else {
        GameResult::Unknown
    };
    let ending = if line.contains("封じ手") {
        Some(Ending::Sealed)
    } else if line.contains("千日手") {
        Some(Ending::Repetition)
    } else if line.contains("持将棋") {
        Some(Ending::Impasse)
    } else if line.contains("中断") {
        Some(Ending::Interrupted)
    } else if line.contains("詰") {
        Some(Ending::Checkmate)
    } else if line.contains("切れ") {
        Some(Ending::TimeUp)
    } else if line.contains("反則") {
        Some(Ending::IllegalMove)
    } else if line.contains("入玉") {
        Some(Ending::EnteringKingWin)
    } else if result != GameResult::Unknown {
        // A plain "まで N手で先手の勝ち" is how KIF writers record a resignation.
        Some(Ending::Resign)
    } else {
        None
    };
    Summary {
        result,
        ending,
        word,
    }
}

/// A file or rank digit: full-width, ASCII or kanji.
fn digit_char(c: char) -> Option<u8> {
    match c {
        '1'..='9' => Some(c as u8 - b'0'),
        '１'..='９' => Some((c as u32 - '１' as u32) as u8 + 1),
        _ => "一二三四五六七八九"
            .chars()
            .position(|d| d == c)
            .map(|d| d as u8 + 1),
    }
}

/// The square of `file` (1–9) and `rank` (1–9, 一 = 1).
fn square(file: u8, rank: u8) -> Square {
    Square::index((file as usize - 1) * 9 + rank as usize - 1)
}

const MOVE_EXPECTED: &str =
    "a move like `７六歩(77)`, `同　歩(77)`, `５五角打` or `７七桂成(85)`, or a final word like `投了`";

/// The KI2 moves of a line starting with a mark: (mark, move text) pairs,
/// the text trimmed (`▲７六歩　△同　歩` → `７六歩`, `同　歩`).
pub(super) fn split_marks(line: &str) -> Vec<(char, &str)> {
    let mut out = Vec::new();
    let mut current: Option<(char, usize)> = None;
    for (at, c) in line.char_indices() {
        if ki2::is_mark(c) {
            if let Some((mark, start)) = current {
                out.push((mark, line[start..at].trim()));
            }
            current = Some((c, at + c.len_utf8()));
        }
    }
    if let Some((mark, start)) = current {
        out.push((mark, line[start..].trim()));
    }
    out
}

const KI2_EXPECTED: &str =
    "a KI2 move like `７六歩`, `同　歩`, `５二金右`, `４五角打` or `２二角成`";

/// Parses a move's text (after the number in KIF, after the mark in KI2) against `pos`.
///
/// With an origin `(77)` the origin decides; without one the KI2 words pick
/// the piece ([`ki2::resolve`]). In `ki2` mode nothing may follow the words.
pub(super) fn parse_move(
    pos: &Position,
    body: &str,
    last_to: Option<Square>,
    warnings: &mut Vec<String>,
    number: usize,
    ki2_mode: bool,
) -> Result<Move, String> {
    let expected = if ki2_mode {
        KI2_EXPECTED
    } else {
        MOVE_EXPECTED
    };
    let mut rest = body;
    let to = if let Some(r) = rest.strip_prefix(['同', '仝']) {
        rest = r.trim_start_matches(['　', ' ']);
        last_to.ok_or_else(|| "a previous move for `同` to refer to".to_string())?
    } else {
        let mut chars = rest.chars();
        let (Some(f), Some(r)) = (
            chars.next().and_then(digit_char),
            chars.next().and_then(digit_char),
        ) else {
            return Err(expected.to_string());
        };
        rest = chars.as_str();
        square(f, r)
    };
    let (piece, r) = parse_piece(rest).ok_or_else(|| expected.to_string())?;
    let (words, r) = ki2::parse_words(r);
    rest = r;
    if words.drop {
        if piece.is_promoted() || piece == Piece::King || words.promote == Some(true) {
            return Err(format!("a piece that can be dropped ({expected})"));
        }
        if ki2_mode && !rest.trim().is_empty() {
            return Err(expected.to_string());
        }
        return Ok(Move::Drop { piece, to });
    }
    if let Some(r) = rest.strip_prefix('(') {
        let b = r.as_bytes();
        if b.len() >= 3 && b[2] == b')' {
            if let (Some(f), Some(rk)) = (digit_char(b[0] as char), digit_char(b[1] as char)) {
                let from = square(f, rk);
                if let Some((_, on)) = pos.piece_on(from) {
                    if on != piece {
                        warnings.push(format!(
                            "move {number}: the record names {} but {} stands on {from}; the origin decides",
                            piece_name(piece),
                            piece_name(on)
                        ));
                    }
                }
                return Ok(Move::BoardMove {
                    from,
                    to,
                    promotion: words.promote == Some(true),
                });
            }
        }
        return Err(format!("an origin like `(77)` ({MOVE_EXPECTED})"));
    }
    if ki2_mode && !rest.trim().is_empty() {
        return Err(expected.to_string());
    }
    ki2::resolve(pos, piece, to, words)
}

/// Piece name at the start of `s` (two-character names first).
fn parse_piece(s: &str) -> Option<(Piece, &str)> {
    for (name, piece) in [
        ("成香", Piece::PLance),
        ("成桂", Piece::PKnight),
        ("成銀", Piece::PSilver),
    ] {
        if let Some(r) = s.strip_prefix(name) {
            return Some((piece, r));
        }
    }
    let mut chars = s.chars();
    let piece = piece_char(chars.next()?)?;
    Some((piece, chars.as_str()))
}

/// The KIF/KI2 name of a piece (`歩`, `成香`, `龍`).
pub(crate) fn piece_name(piece: Piece) -> &'static str {
    match piece {
        Piece::Pawn => "歩",
        Piece::Lance => "香",
        Piece::Knight => "桂",
        Piece::Silver => "銀",
        Piece::Gold => "金",
        Piece::Bishop => "角",
        Piece::Rook => "飛",
        Piece::King => "玉",
        Piece::Tokin => "と",
        Piece::PLance => "成香",
        Piece::PKnight => "成桂",
        Piece::PSilver => "成銀",
        Piece::PBishop => "馬",
        Piece::PRook => "龍",
    }
}
