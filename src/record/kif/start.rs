//! The start of a KIF game: the `手合割` handicaps, the board diagram
//! (rows, hands, side to move) and the start position they give.

use std::path::Path;

use super::super::{missing_kings, Game, RecordError, Source};
use crate::shogi::{sfen_from_parts, Color, Piece, Position, HAND_PIECES};

/// Start positions of the `手合割` names (the upper player, White, moves first).
///
/// The names are those Kakinoki's KIF/KI2 writers emit (and `左香落ち`, `飛落ち`
/// as aliases). Left and right are the handicap giver's own (White's, seen
/// from the top of the board): `左` pieces stand on the 1 side (1一香, 2一桂,
/// 3一銀), `右` ones on the 9 side. So 香落ち (the left lance) removes 1一香,
/// 五枚落ち the right knight (8一桂) and 左五枚落ち the left one (2一桂), and
/// 左七枚落ち the left silver (3一銀) and 右七枚落ち the right one (7一銀),
/// each besides both lances and knights, rook and bishop. Checked piece by
/// piece against the presets json-kifu-format reads KIF and KI2 with
/// (`Shogi.preset` of na2hiro's Shogi.js: `KY`, `KY_R`, `KA`, `HI`, `HIKY`, `2`,
/// `3`, `4`, `5`, `5_L`, `6`, `7_L`, `7_R`, `8`, `10`).
pub(super) const HANDICAPS: [(&str, &str); 18] = [
    (
        "平手",
        "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
    ),
    (
        "香落ち",
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "左香落ち",
        "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "右香落ち",
        "1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "角落ち",
        "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "飛車落ち",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "飛落ち",
        "lnsgkgsnl/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "飛香落ち",
        "lnsgkgsn1/7b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "二枚落ち",
        "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "三枚落ち",
        "lnsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "四枚落ち",
        "1nsgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "五枚落ち",
        "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "左五枚落ち",
        "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "六枚落ち",
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "左七枚落ち",
        "2sgkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "右七枚落ち",
        "3gkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "八枚落ち",
        "3gkg3/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "十枚落ち",
        "4k4/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
];

/// The `手合割` name of a start position, if it is the even game or a standard handicap.
pub fn handicap_name(pos: &Position) -> Option<&'static str> {
    HANDICAPS.iter().find_map(|(name, sfen)| {
        let p = Position::from_sfen(sfen).ok()?;
        p.same_position(pos).then_some(*name)
    })
}

/// The start position of a `手合割` name, if it is one of the standard handicaps.
pub fn handicap_start(name: &str) -> Option<Position> {
    let name = name.trim();
    HANDICAPS
        .iter()
        .find(|(n, _)| *n == name)
        .and_then(|(_, sfen)| Position::from_sfen(sfen).ok())
}

/// The 81 squares of a board diagram, indexed like [`crate::shogi::square_index`].
pub(super) type Squares = [Option<(Color, Piece)>; 81];

/// A board diagram being read (`後手の持駒：`, the 9×9 board, `先手の持駒：`).
#[derive(Default)]
pub(super) struct Diagram {
    pub(super) squares: Option<Box<Squares>>,
    pub(super) rows: usize,
    pub(super) hands: [[u8; 7]; 2],
    pub(super) white_to_move: bool,
}

/// The start position from the handicap header or the board diagram.
pub(super) fn start_game(
    handicap: &Option<(usize, Position)>,
    diagram: &Diagram,
    path: &Path,
    index: usize,
    line: usize,
    text: &str,
) -> Result<(Position, Game), RecordError> {
    let start = if let Some(squares) = &diagram.squares {
        if diagram.rows != 9 {
            return Err(RecordError::at_line(
                path,
                line,
                text.trim(),
                format!(
                    "a board diagram of 9 rows before the moves (found {})",
                    diagram.rows
                ),
            ));
        }
        let side = if diagram.white_to_move {
            Color::White
        } else {
            Color::Black
        };
        if let Some(missing) = missing_kings(squares) {
            return Err(RecordError::problem_position(
                path,
                line,
                text.trim(),
                missing,
            ));
        }
        let sfen = sfen_from_parts(squares, &diagram.hands, side, 1);
        Position::from_sfen(&sfen).map_err(|e| {
            RecordError::at_line(
                path,
                line,
                text.trim(),
                format!("a valid board diagram ({e})"),
            )
        })?
    } else if let Some((_, p)) = handicap {
        p.clone()
    } else {
        Position::startpos()
    };
    let source = Source {
        path: path.to_path_buf(),
        index,
    };
    Ok((start.clone(), Game::new(start, source)))
}

/// Reads one diagram row `|v香v桂v銀v金v玉v金v銀v桂v香|一` into `diagram`.
pub(super) fn diagram_row(diagram: &mut Diagram, row: &str) -> Result<(), String> {
    const EXPECTED: &str = "a board row of 9 cells like `|v香v桂v銀v金v玉v金v銀v桂v香|一`";
    let rank = diagram.rows;
    if rank >= 9 {
        return Err("at most 9 board rows".to_string());
    }
    let inner = row.strip_prefix('|').ok_or(EXPECTED)?;
    let cells: Vec<char> = inner.chars().take_while(|&c| c != '|').collect();
    if cells.len() != 18 {
        return Err(EXPECTED.to_string());
    }
    let squares = diagram.squares.get_or_insert_with(|| Box::new([None; 81]));
    for (col, cell) in cells.chunks(2).enumerate() {
        let color = match cell[0] {
            'v' | 'V' => Color::White,
            ' ' | '^' | '　' => Color::Black,
            _ => return Err(EXPECTED.to_string()),
        };
        let file = 8 - col; // the first column is file 9
        squares[file * 9 + rank] = match cell[1] {
            '・' => None,
            c => Some((color, piece_char(c).ok_or(EXPECTED)?)),
        };
    }
    diagram.rows += 1;
    Ok(())
}

/// One-character piece names, as diagrams and moves write them.
pub(super) fn piece_char(c: char) -> Option<Piece> {
    Some(match c {
        '歩' => Piece::Pawn,
        '香' => Piece::Lance,
        '桂' => Piece::Knight,
        '銀' => Piece::Silver,
        '金' => Piece::Gold,
        '角' => Piece::Bishop,
        '飛' => Piece::Rook,
        '玉' | '王' => Piece::King,
        'と' => Piece::Tokin,
        '杏' => Piece::PLance,
        '圭' => Piece::PKnight,
        '全' => Piece::PSilver,
        '馬' => Piece::PBishop,
        '龍' | '竜' => Piece::PRook,
        _ => return None,
    })
}

/// A hand like `歩四　香二　角` or `なし` → counts in [`HAND_PIECES`] order.
pub(super) fn parse_hand(text: &str) -> Result<[u8; 7], String> {
    let mut hand = [0u8; 7];
    let text = text.trim();
    if text.is_empty() || text == "なし" {
        return Ok(hand);
    }
    for item in text.split(|c: char| c == '　' || c.is_whitespace()) {
        if item.is_empty() {
            continue;
        }
        let mut chars = item.chars();
        let bad = || format!("a hand like `歩四　香二` or `なし`, not {item:?}");
        let piece = chars.next().and_then(piece_char).ok_or_else(bad)?;
        let slot = HAND_PIECES
            .iter()
            .position(|&p| p == piece)
            .ok_or_else(bad)?;
        let rest: String = chars.collect();
        let n = if rest.is_empty() {
            1
        } else {
            kanji_number(&rest).ok_or_else(bad)?
        };
        hand[slot] = hand[slot].saturating_add(n);
    }
    Ok(hand)
}

/// `一`..`十八` (hand counts).
fn kanji_number(s: &str) -> Option<u8> {
    let digit = |c: char| {
        "一二三四五六七八九"
            .chars()
            .position(|d| d == c)
            .map(|d| d as u8 + 1)
    };
    let mut chars = s.chars();
    match (chars.next()?, chars.next(), chars.next()) {
        ('十', None, None) => Some(10),
        ('十', Some(d), None) => Some(10 + digit(d)?),
        (d, None, None) => digit(d),
        _ => None,
    }
}
