//! CSA standard game records (V2, V2.1, V2.2 and V3.0), several games per file.
//!
//! Follows the CSA "標準棋譜ファイル形式" (V2.2, and V3.0 of 2024): version line,
//! `N+`/`N-` names, `$KEY:VALUE` headers, a start position (`PI` with the
//! squares of removed handicap pieces, `P1`–`P9` rows, `P+`/`P-` piece lists
//! with `00` for the hand and `00AL` for "every remaining piece"), the turn
//! line, then moves (`+7776FU`), times (`T12`, `T12.5` in V3.0) and an ending
//! (`%TORYO`, ...). Statements may share a line, separated by `,`; a line
//! holding only `/` separates games. Lines starting with `'` are comments
//! (V3.0's `'CSA encoding=` line included: the text arrives already decoded).
//!
//! Real logs carry lines that are not CSA at all: `#RESIGN`, `#TIME_UP` from
//! the server protocol, or an engine's `** 1248 ...` that lost its leading
//! `'`. Lines starting with `#` or `*` are read as comments and noted in
//! [`Game::warnings`], so a tournament log is not lost for them.
//!
//! # Who won
//!
//! A CSA ending is a "move" made by the side to move, so the result depends on
//! whose turn it is when it appears:
//!
//! | ending | [`Ending`] | result |
//! |---|---|---|
//! | `%TORYO` | `Resign` | the side to move resigned: the other side wins |
//! | `%TSUMI` | `Checkmate` | the side to move is mated: the other side wins |
//! | `%TIME_UP` | `TimeUp` | the side to move ran out of time and lost |
//! | `%ILLEGAL_MOVE` | `IllegalMove` | the side to move lost by an illegal move |
//! | `%+ILLEGAL_ACTION` / `%-ILLEGAL_ACTION` | `IllegalAction(side)` | the named side lost |
//! | `%KACHI` | `EnteringKingWin` | the side to move declared (and took) the win |
//! | `%SENNICHITE` | `Repetition` | draw |
//! | `%JISHOGI` | `Impasse` | draw (the record does not say otherwise) |
//! | `%MAX_MOVES` | `MaxMoves` | draw: the CSA server ends such games as a draw (`#CENSORED`) |
//! | `%HIKIWAKE` | `Other("HIKIWAKE")` | draw (a declared draw) |
//! | `%CHUDAN` | `Interrupted` | unknown: the game was stopped, nobody won |
//! | any other `%` code | `Other(code)` | unknown, with a warning |
//! | no ending | `Unfinished` | unknown |

use std::path::Path;

use super::{Ending, Game, GameResult, RecordError, Source};
use crate::shogi::{sfen_from_parts, Color, Move, Piece, Position, Square, HAND_PIECES};

const PIECE_CODES: [(&str, Piece); 14] = [
    ("FU", Piece::Pawn),
    ("KY", Piece::Lance),
    ("KE", Piece::Knight),
    ("GI", Piece::Silver),
    ("KI", Piece::Gold),
    ("KA", Piece::Bishop),
    ("HI", Piece::Rook),
    ("OU", Piece::King),
    ("TO", Piece::Tokin),
    ("NY", Piece::PLance),
    ("NK", Piece::PKnight),
    ("NG", Piece::PSilver),
    ("UM", Piece::PBishop),
    ("RY", Piece::PRook),
];

const EXPECT_PIECE_CODE: &str = "a CSA piece code (FU KY KE GI KI KA HI OU TO NY NK NG UM RY)";

/// How many of each hand piece (in [`HAND_PIECES`] order) a full set holds.
const FULL_SET: [u8; 7] = [2, 2, 4, 4, 4, 4, 18];

/// Reads every game of a CSA text (already decoded). Each game separated by a
/// `/` line is read or fails on its own.
pub fn read(text: &str, path: &Path) -> Vec<Result<Game, RecordError>> {
    let mut out = Vec::new();
    let mut chunk: Vec<(usize, &str)> = Vec::new();
    let mut last_line = 0;
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim_end();
        last_line = i + 1;
        if line.trim() == "/" {
            read_chunk(&chunk, path, &mut out);
            chunk.clear();
        } else {
            chunk.push((i + 1, line));
        }
    }
    read_chunk(&chunk, path, &mut out);
    if out.is_empty() {
        out.push(Err(RecordError::at_line(
            path,
            last_line.max(1),
            "end of file",
            "a CSA game (a start position such as PI or P1-P9, then moves)",
        )));
    }
    out
}

/// Reads one game unless the chunk holds nothing but blanks and comments
/// (a trailing `/`, or notes after the last game).
fn read_chunk(chunk: &[(usize, &str)], path: &Path, out: &mut Vec<Result<Game, RecordError>>) {
    let has_content = chunk
        .iter()
        .any(|(_, l)| !l.trim().is_empty() && !l.starts_with('\''));
    if !has_content {
        return;
    }
    let index = out.len();
    out.push(read_game(chunk, path, index));
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Stage {
    /// Version, names and headers; no start position yet.
    Header,
    /// Start position lines seen; waiting for the turn line.
    Position,
    /// Turn line seen: moves, times and the ending.
    Moves,
    /// An ending was read: only times and comments may follow.
    Ended,
}

struct GameReader<'a> {
    path: &'a Path,
    stage: Stage,
    squares: [Option<(Color, Piece)>; 81],
    hands: [[u8; 7]; 2],
    rest_to_hand: [bool; 2],
    pos: Position,
    game: Game,
}

fn read_game(chunk: &[(usize, &str)], path: &Path, index: usize) -> Result<Game, RecordError> {
    let source = Source {
        path: path.to_path_buf(),
        index,
    };
    let mut r = GameReader {
        path,
        stage: Stage::Header,
        squares: [None; 81],
        hands: [[0; 7]; 2],
        rest_to_hand: [false; 2],
        pos: Position::startpos(),
        game: Game::new(Position::startpos(), source),
    };
    for &(n, line) in chunk {
        r.line(n, line)?;
    }
    let last = chunk.last().map_or(1, |(n, _)| *n);
    match r.stage {
        Stage::Header => Err(RecordError::at_line(
            path,
            last,
            "end of game",
            "a start position (PI or P1-P9) and the turn line (+ or -)",
        )),
        Stage::Position => Err(RecordError::at_line(
            path,
            last,
            "end of game",
            "the turn line (+ or -) after the start position",
        )),
        Stage::Moves | Stage::Ended => Ok(r.game),
    }
}

impl GameReader<'_> {
    fn error(&self, line: usize, found: &str, expected: impl Into<String>) -> RecordError {
        RecordError::at_line(self.path, line, found, expected)
    }

    fn warn_not_csa(&mut self, n: usize, line: &str) {
        let shown: String = line.chars().take(40).collect();
        let more = if line.chars().count() > 40 { "..." } else { "" };
        self.game.warnings.push(format!(
            "line {n}: {shown:?}{more} is not CSA; read as a comment"
        ));
    }

    fn line(&mut self, n: usize, line: &str) -> Result<(), RecordError> {
        let Some(first) = line.chars().next() else {
            return Ok(());
        };
        match first {
            '\'' => Ok(()),
            'V' => self.version(n, line),
            'N' => self.name(n, line),
            '$' => self.header(n, line),
            'P' => self.position_line(n, line),
            '+' | '-' | 'T' | '%' => self.statements(n, line),
            '#' | '*' => {
                self.warn_not_csa(n, line);
                Ok(())
            }
            _ => Err(self.error(n, line, "a CSA line (V, N+, N-, $, P, +, -, T, %, ' or /)")),
        }
    }

    fn version(&mut self, n: usize, line: &str) -> Result<(), RecordError> {
        let v = &line[1..];
        if !v.is_empty() && v.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            Ok(())
        } else {
            Err(self.error(n, line, "a version line such as V2.2 or V3.0"))
        }
    }

    fn name(&mut self, n: usize, line: &str) -> Result<(), RecordError> {
        let (black, rest) = if let Some(rest) = line.strip_prefix("N+") {
            (true, rest)
        } else if let Some(rest) = line.strip_prefix("N-") {
            (false, rest)
        } else {
            return Err(self.error(n, line, "a name line N+NAME or N-NAME"));
        };
        // Some tournament loggers wrote `N+:TeamGPS`, by analogy with `$KEY:`.
        let rest = match rest.strip_prefix(':') {
            Some(r) => {
                self.game.warnings.push(format!(
                    "line {n}: name written with a colon ({line:?}); colon dropped"
                ));
                r
            }
            None => rest,
        };
        let name = (!rest.trim().is_empty()).then(|| rest.trim().to_string());
        if black {
            self.game.black = name;
        } else {
            self.game.white = name;
        }
        Ok(())
    }

    fn header(&mut self, n: usize, line: &str) -> Result<(), RecordError> {
        let Some((key, value)) = line[1..].split_once(':') else {
            return Err(self.error(n, line, "a header $KEY:VALUE"));
        };
        if key == "EVENT" && !value.trim().is_empty() {
            self.game.event = Some(value.trim().to_string());
        }
        Ok(())
    }

    fn position_line(&mut self, n: usize, line: &str) -> Result<(), RecordError> {
        if !matches!(self.stage, Stage::Header | Stage::Position) {
            return Err(self.error(n, line, self.expected_in_stage()));
        }
        if !line.is_ascii() {
            return Err(self.error(n, line, "a position line in ASCII (PI, P1-P9, P+ or P-)"));
        }
        let b = line.as_bytes();
        match b.get(1) {
            Some(b'I') => self.handicap(n, &line[2..])?,
            Some(d @ b'1'..=b'9') => self.rank(n, line, (d - b'1') as usize)?,
            Some(b'+') => self.pieces(n, &line[2..], Color::Black)?,
            Some(b'-') => self.pieces(n, &line[2..], Color::White)?,
            _ => return Err(self.error(n, line, "a position line (PI, P1-P9, P+ or P-)")),
        }
        self.stage = Stage::Position;
        Ok(())
    }

    /// `PI82HI22KA`: the even-game position without the listed pieces.
    fn handicap(&mut self, n: usize, rest: &str) -> Result<(), RecordError> {
        let start = Position::startpos();
        for sq in Square::ALL {
            self.squares[sq as usize] = start.piece_on(sq);
        }
        if !rest.len().is_multiple_of(4) {
            return Err(self.error(
                n,
                &format!("PI{rest}"),
                "PI followed by removed pieces of 4 characters each (e.g. PI82HI22KA)",
            ));
        }
        for i in (0..rest.len()).step_by(4) {
            let group = &rest[i..i + 4];
            let sq = parse_square(&group[..2]).ok_or_else(|| {
                self.error(n, group, "a square 11-99 and a piece code (e.g. 82HI)")
            })?;
            let piece =
                piece_code(&group[2..]).ok_or_else(|| self.error(n, group, EXPECT_PIECE_CODE))?;
            match self.squares[sq as usize] {
                Some((_, p)) if p == piece => self.squares[sq as usize] = None,
                _ => {
                    return Err(self.error(
                        n,
                        group,
                        format!(
                            "a piece of the even-game position to remove (there is no {} on {})",
                            &group[2..],
                            &group[..2]
                        ),
                    ))
                }
            }
        }
        Ok(())
    }

    /// `P1-KY-KE-GI-KI-OU-KI-GI-KE-KY`: nine 3-character fields, file 9 first.
    fn rank(&mut self, n: usize, line: &str, rank: usize) -> Result<(), RecordError> {
        let fields = &line.as_bytes()[2..];
        // Writers drop the trailing spaces of a last ` * `; put them back.
        if fields.len() > 27 || fields.len() < 25 {
            return Err(self.error(
                n,
                line,
                "9 squares of 3 characters each (' * ' or a piece such as +FU)",
            ));
        }
        for i in 0..9 {
            let field = &fields[i * 3..(i * 3 + 3).min(fields.len())];
            let file = 8 - i;
            let text = std::str::from_utf8(field).unwrap_or("").trim();
            self.squares[file * 9 + rank] = if text == "*" {
                None
            } else {
                let color = match field.first() {
                    Some(b'+') => Color::Black,
                    Some(b'-') => Color::White,
                    _ => {
                        return Err(self.error(
                            n,
                            line,
                            format!(
                                "' * ' or a piece such as +FU for square {}{} (found {text:?})",
                                file + 1,
                                rank + 1
                            ),
                        ))
                    }
                };
                let code = std::str::from_utf8(&field[1..]).unwrap_or("");
                let piece = piece_code(code).ok_or_else(|| {
                    self.error(
                        n,
                        line,
                        format!("{EXPECT_PIECE_CODE} on square {}{}", file + 1, rank + 1),
                    )
                })?;
                Some((color, piece))
            };
        }
        Ok(())
    }

    /// `P+99KY89KE`, `P-00KI00FU`, `P-00AL`: single pieces for one side.
    fn pieces(&mut self, n: usize, rest: &str, color: Color) -> Result<(), RecordError> {
        if !rest.len().is_multiple_of(4) {
            return Err(self.error(
                n,
                rest,
                "pieces of 4 characters each: a square (00 for the hand) and a piece code",
            ));
        }
        for i in (0..rest.len()).step_by(4) {
            let group = &rest[i..i + 4];
            if group == "00AL" {
                self.rest_to_hand[color as usize] = true;
                continue;
            }
            let piece =
                piece_code(&group[2..]).ok_or_else(|| self.error(n, group, EXPECT_PIECE_CODE))?;
            if &group[..2] == "00" {
                let Some(h) = hand_index(piece) else {
                    return Err(self.error(
                        n,
                        group,
                        "a piece that can be held in hand (FU KY KE GI KI KA HI)",
                    ));
                };
                let count = &mut self.hands[hand_side(color)][h];
                *count = count.saturating_add(1);
            } else {
                let sq = parse_square(&group[..2])
                    .ok_or_else(|| self.error(n, group, "a square 11-99 or 00 for the hand"))?;
                self.squares[sq as usize] = Some((color, piece));
            }
        }
        Ok(())
    }

    /// The `+`/`-` line: the start position is complete.
    fn turn(&mut self, n: usize, stmt: &str, side: Color) -> Result<(), RecordError> {
        match self.stage {
            Stage::Position => {}
            Stage::Header => {
                return Err(self.error(
                    n,
                    stmt,
                    "a start position (PI or P1-P9) before the turn line",
                ))
            }
            _ => return Err(self.error(n, stmt, self.expected_in_stage())),
        }
        for color in [Color::Black, Color::White] {
            if self.rest_to_hand[color as usize] {
                let remaining = self.remaining_pieces();
                let hand = &mut self.hands[hand_side(color)];
                for (h, r) in hand.iter_mut().zip(remaining) {
                    *h = h.saturating_add(r);
                }
            }
        }
        let sfen = sfen_from_parts(&self.squares, &self.hands, side, 1);
        self.pos = Position::from_sfen(&sfen)
            .map_err(|e| self.error(n, stmt, format!("a valid start position ({e})")))?;
        self.game.start = self.pos.clone();
        self.stage = Stage::Moves;
        Ok(())
    }

    /// Pieces of a full set neither on the board nor in a hand, per hand kind.
    fn remaining_pieces(&self) -> [u8; 7] {
        let mut used = [0u8; 7];
        let on_board = self.squares.iter().flatten().map(|(_, p)| p.unpromote());
        for piece in on_board {
            if let Some(h) = hand_index(piece) {
                used[h] = used[h].saturating_add(1);
            }
        }
        let mut left = FULL_SET;
        for i in 0..7 {
            let held = self.hands[0][i].saturating_add(self.hands[1][i]);
            left[i] = left[i].saturating_sub(used[i].saturating_add(held));
        }
        left
    }

    /// A line of `+`, `-`, `T` or `%` statements, possibly joined by `,`.
    fn statements(&mut self, n: usize, line: &str) -> Result<(), RecordError> {
        let mut rest = line;
        while !rest.is_empty() {
            // A comment runs to the end of the line, commas and all.
            if rest.starts_with('\'') {
                break;
            }
            let (stmt, tail) = rest.split_once(',').unwrap_or((rest, ""));
            rest = tail;
            let stmt = stmt.trim();
            match stmt.as_bytes() {
                [] => {}
                [b'+'] => self.turn(n, stmt, Color::Black)?,
                [b'-'] => self.turn(n, stmt, Color::White)?,
                [b'+' | b'-', ..] => self.play(n, stmt)?,
                [b'T', ..] => self.time(n, stmt)?,
                [b'%', ..] => self.ending(n, stmt)?,
                _ => {
                    return Err(self.error(
                        n,
                        stmt,
                        "a move (+7776FU), a time (T12) or an ending (%TORYO)",
                    ))
                }
            }
        }
        Ok(())
    }

    fn expected_in_stage(&self) -> &'static str {
        match self.stage {
            Stage::Header | Stage::Position => {
                "the start position and the turn line (+ or -) before any move"
            }
            Stage::Moves => "a move (+7776FU), a time (T12) or an ending (%TORYO)",
            Stage::Ended => "only times and comments after the ending (or / before another game)",
        }
    }

    fn time(&mut self, n: usize, stmt: &str) -> Result<(), RecordError> {
        if !matches!(self.stage, Stage::Moves | Stage::Ended) {
            return Err(self.error(n, stmt, self.expected_in_stage()));
        }
        let t = &stmt[1..];
        let dots = t.bytes().filter(|&b| b == b'.').count();
        if t.is_empty() || dots > 1 || !t.bytes().all(|b| b.is_ascii_digit() || b == b'.') {
            return Err(self.error(n, stmt, "a time in seconds such as T12 or T12.345"));
        }
        Ok(())
    }

    fn play(&mut self, n: usize, stmt: &str) -> Result<(), RecordError> {
        if self.stage != Stage::Moves {
            return Err(self.error(n, stmt, self.expected_in_stage()));
        }
        let b = stmt.as_bytes();
        if b.len() != 7 || !stmt.is_ascii() {
            return Err(self.error(
                n,
                stmt,
                "a move of 7 characters: side, origin (00 for a drop), destination, piece (e.g. +7776FU)",
            ));
        }
        let side = self.pos.side_to_move();
        let mover = if b[0] == b'+' {
            Color::Black
        } else {
            Color::White
        };
        if mover != side {
            let (who, sign) = if side == Color::Black {
                ("black", '+')
            } else {
                ("white", '-')
            };
            return Err(self.error(n, stmt, format!("a move by {who} ({sign})")));
        }
        let code = &stmt[5..7];
        let piece = piece_code(code).ok_or_else(|| self.error(n, stmt, EXPECT_PIECE_CODE))?;
        let to = parse_square(&stmt[3..5])
            .ok_or_else(|| self.error(n, stmt, "a destination square 11-99"))?;
        let mv = if &stmt[1..3] == "00" {
            if hand_index(piece).is_none() {
                return Err(self.error(
                    n,
                    stmt,
                    "a piece that can be dropped (FU KY KE GI KI KA HI)",
                ));
            }
            Move::Drop { piece, to }
        } else {
            let from = parse_square(&stmt[1..3])
                .ok_or_else(|| self.error(n, stmt, "an origin square 11-99, or 00 for a drop"))?;
            let origin = &stmt[1..3];
            let on_origin = match self.pos.piece_on(from) {
                None => {
                    return Err(self.error(n, stmt, format!("a legal move (no piece on {origin})")))
                }
                Some((c, _)) if c != side => {
                    return Err(self.error(
                        n,
                        stmt,
                        format!("a legal move (the piece on {origin} is the opponent's)"),
                    ))
                }
                Some((_, p)) => p,
            };
            // CSA names the piece after the move, so a promotion shows as a change of code.
            let promotion = if piece == on_origin {
                false
            } else if on_origin.is_promotable() && on_origin.promote() == piece {
                true
            } else {
                return Err(self.error(
                    n,
                    stmt,
                    format!(
                        "a legal move (the piece on {origin} is {}, not {code})",
                        csa_code(on_origin)
                    ),
                ));
            };
            if from == to {
                return Err(self.error(
                    n,
                    stmt,
                    "a legal move (origin and destination are the same)",
                ));
            }
            Move::BoardMove {
                from,
                to,
                promotion,
            }
        };
        self.pos
            .play(mv)
            .map_err(|e| self.error(n, stmt, format!("a legal move ({e})")))?;
        self.game.moves.push(mv);
        Ok(())
    }

    fn ending(&mut self, n: usize, stmt: &str) -> Result<(), RecordError> {
        if self.stage != Stage::Moves {
            return Err(self.error(n, stmt, self.expected_in_stage()));
        }
        let side = self.pos.side_to_move();
        let win = |c: Color| {
            if c == Color::Black {
                GameResult::BlackWin
            } else {
                GameResult::WhiteWin
            }
        };
        let (ending, result) = match &stmt[1..] {
            "TORYO" => (Ending::Resign, win(!side)),
            "TSUMI" => (Ending::Checkmate, win(!side)),
            "TIME_UP" => (Ending::TimeUp, win(!side)),
            "ILLEGAL_MOVE" => (Ending::IllegalMove, win(!side)),
            "+ILLEGAL_ACTION" => (Ending::IllegalAction(Color::Black), GameResult::WhiteWin),
            "-ILLEGAL_ACTION" => (Ending::IllegalAction(Color::White), GameResult::BlackWin),
            "KACHI" => (Ending::EnteringKingWin, win(side)),
            "SENNICHITE" => (Ending::Repetition, GameResult::Draw),
            "JISHOGI" => (Ending::Impasse, GameResult::Draw),
            "MAX_MOVES" => (Ending::MaxMoves, GameResult::Draw),
            "HIKIWAKE" => (Ending::Other("HIKIWAKE".into()), GameResult::Draw),
            "CHUDAN" => (Ending::Interrupted, GameResult::Unknown),
            other => {
                if !matches!(other, "MATTA" | "FUZUMI" | "ERROR") {
                    self.game
                        .warnings
                        .push(format!("line {n}: unknown ending {stmt:?}; result unknown"));
                }
                (Ending::Other(other.to_string()), GameResult::Unknown)
            }
        };
        self.game.ending = ending;
        self.game.result = result;
        self.stage = Stage::Ended;
        Ok(())
    }
}

/// `"77"` → square 7g. Files and ranks 1-9; anything else (`00` included) is `None`.
fn parse_square(text: &str) -> Option<Square> {
    match text.as_bytes() {
        [f @ b'1'..=b'9', r @ b'1'..=b'9'] => {
            Some(Square::index((f - b'1') as usize * 9 + (r - b'1') as usize))
        }
        _ => None,
    }
}

fn piece_code(code: &str) -> Option<Piece> {
    PIECE_CODES
        .iter()
        .find(|(c, _)| *c == code)
        .map(|&(_, p)| p)
}

fn csa_code(piece: Piece) -> &'static str {
    PIECE_CODES
        .iter()
        .find(|(_, p)| *p == piece)
        .map_or("??", |&(c, _)| c)
}

fn hand_index(piece: Piece) -> Option<usize> {
    HAND_PIECES.iter().position(|&p| p == piece)
}

/// Row of `sfen_from_parts`' hands: Black first (haitaka numbers White as 0).
fn hand_side(color: Color) -> usize {
    if color == Color::Black {
        0
    } else {
        1
    }
}
