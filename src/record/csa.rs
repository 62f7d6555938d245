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
//!
//! An ending line may carry a `,`-joined comment (`%KACHI,'* -5000 win`) and
//! be followed by time lines and the same ending again, as floodgate's server
//! writes them: that is one ending. A different ending after the first is an
//! error. A start position with one king is refused as a problem position
//! ([`super::ErrorKind::ProblemPosition`]).

use std::path::Path;

use super::{missing_kings, Ending, Game, GameResult, RecordError, Source};
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
        if let Some(missing) = missing_kings(&self.squares) {
            return Err(RecordError::problem_position(self.path, n, stmt, missing));
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
        // floodgate's server writes the ending twice (`%KACHI,'* -5000 win`,
        // `T10`, `%KACHI`): the same code again is the same ending.
        if self.stage == Stage::Ended && self.game.ending_word.as_deref() == Some(stmt) {
            return Ok(());
        }
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
        self.game.ending_word = Some(stmt.to_string());
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::decode_text;
    use std::path::PathBuf;

    const HIRATE: &str = "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1";

    fn fixture(name: &str) -> (String, PathBuf) {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures")
            .join(name);
        let bytes = std::fs::read(&path).unwrap();
        (decode_text(&bytes), path)
    }

    fn read_one(name: &str) -> Game {
        let (text, path) = fixture(name);
        let mut games = read(&text, &path);
        assert_eq!(games.len(), 1, "{name}");
        games.remove(0).unwrap()
    }

    fn usi_moves(game: &Game) -> Vec<String> {
        game.moves.iter().map(|m| m.to_string()).collect()
    }

    fn read_str(text: &str) -> Vec<Result<Game, RecordError>> {
        read(text, Path::new("t.csa"))
    }

    /// Expected values below were read from the same files with cshogi 1.1.0.
    #[test]
    fn lance_handicap_as_p1_board() {
        let g = read_one("pro/kifu25654.csa");
        assert_eq!(
            g.start.to_sfen(),
            "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
        );
        assert_eq!(g.plies(), 103);
        let m = usi_moves(&g);
        assert_eq!((m[0].as_str(), m[102].as_str()), ("3c3d", "G*5h"));
        assert_eq!(g.result, GameResult::Unknown);
        assert_eq!(g.ending, Ending::Unfinished);
        assert_eq!((g.black.as_deref(), g.white.as_deref()), (None, None));
        assert_eq!(g.event.as_deref(), Some("その他の棋戦"));
        assert!(g.warnings.is_empty());
    }

    #[test]
    fn v3_pi_line_gives_the_same_game_as_the_p1_board() {
        let board = read_one("pro/kifu25654.csa");
        let pi = read_one("assembled/kifu25654-v3-pi.csa");
        assert_eq!(pi.start, board.start);
        assert_eq!(pi.moves, board.moves);
        assert_eq!(pi.event, board.event);
        assert!(pi.warnings.is_empty());
    }

    #[test]
    fn pro_game_with_names_and_no_ending() {
        let g = read_one("pro/kifu09136.csa");
        assert_eq!(g.start.to_sfen(), HIRATE);
        assert_eq!(g.plies(), 102);
        let m = usi_moves(&g);
        assert_eq!((m[0].as_str(), m[101].as_str()), ("7g7f", "3i3h"));
        assert_eq!(g.black.as_deref(), Some("田丸昇"));
        assert_eq!(g.white.as_deref(), Some("高橋道雄"));
        assert_eq!(g.event.as_deref(), Some("順位戦"));
        assert_eq!(g.ending, Ending::Unfinished);
    }

    #[test]
    fn selfplay_endings_and_results() {
        let cases = [
            (
                "w2_00152",
                69,
                "2g2f",
                "5i4h",
                GameResult::BlackWin,
                Ending::Resign,
            ),
            (
                "w1_00301",
                75,
                "7g7f",
                "5e8e",
                GameResult::BlackWin,
                Ending::Resign,
            ),
            (
                "w2_00049",
                64,
                "2g2f",
                "B*4d",
                GameResult::WhiteWin,
                Ending::Resign,
            ),
            (
                "w1_00119",
                74,
                "7g7f",
                "7f7g+",
                GameResult::WhiteWin,
                Ending::Resign,
            ),
            (
                "w2_00068",
                30,
                "7g7f",
                "4d3c",
                GameResult::Draw,
                Ending::Repetition,
            ),
            (
                "w2_00318",
                39,
                "7g7f",
                "4h3g",
                GameResult::Draw,
                Ending::Repetition,
            ),
            (
                "w1_00212",
                256,
                "7g7f",
                "P*3d",
                GameResult::Draw,
                Ending::Impasse,
            ),
            (
                "w1_00234",
                256,
                "7g7f",
                "6g6f",
                GameResult::Draw,
                Ending::Impasse,
            ),
        ];
        for (name, plies, first, last, result, ending) in cases {
            let g = read_one(&format!("selfplay/fsf_selfplay_{name}.csa"));
            let m = usi_moves(&g);
            assert_eq!(g.plies(), plies, "{name}");
            assert_eq!(m[0], first, "{name}");
            assert_eq!(m[plies - 1], last, "{name}");
            assert_eq!((g.result, g.ending), (result, ending), "{name}");
            assert_eq!(g.black.as_deref(), Some("Fairy-Stockfish-11.1"));
            assert_eq!(
                g.event,
                Some(format!("selfplay+fairy-stockfish-11.1+nodes40000+{name}"))
            );
            assert!(g.warnings.is_empty(), "{name}: {:?}", g.warnings);
        }
    }

    #[test]
    fn tournament_log_with_engine_comment_and_time_up_line() {
        let g = read_one("tournament/wcsc23-day2-4-ponanza.csa");
        assert_eq!(g.plies(), 65);
        let m = usi_moves(&g);
        assert_eq!((m[0].as_str(), m[64].as_str()), ("7g7f", "7h6g"));
        assert_eq!(
            (g.result, g.ending),
            (GameResult::Unknown, Ending::Unfinished)
        );
        assert_eq!(g.black.as_deref(), Some("ponanza"));
        assert_eq!(g.white.as_deref(), Some("TeamGPS"));
        assert_eq!(g.event.as_deref(), Some("WCSC23_U4_PON_GPS"));
        assert_eq!(
            g.warnings,
            [
                "line 2: name written with a colon (\"N+:ponanza\"); colon dropped",
                "line 3: name written with a colon (\"N-:TeamGPS\"); colon dropped",
                "line 106: \"** 1248 -7667NG+7867OU-0055KE+6758OU-004\"... is not CSA; read as a comment",
                "line 108: \"#TIME_UP\" is not CSA; read as a comment",
            ]
        );
    }

    #[test]
    fn tournament_log_with_resign_line_after_the_ending() {
        let g = read_one("tournament/wcsc22-day3-7-ponanza.csa");
        assert_eq!(g.plies(), 87);
        assert_eq!(usi_moves(&g)[86], "2a3a");
        assert_eq!((g.result, g.ending), (GameResult::BlackWin, Ending::Resign));
        assert_eq!(
            g.warnings,
            ["line 142: \"#RESIGN\" is not CSA; read as a comment"]
        );
    }

    #[test]
    fn tournament_logs_with_times_commas_and_no_ending() {
        let g = read_one("tournament/olympiad2011-shokidoki-gps.csa");
        assert_eq!(g.plies(), 80);
        let m = usi_moves(&g);
        assert_eq!((m[0].as_str(), m[79].as_str()), ("9g9f", "3h4i"));
        assert_eq!((g.result, g.ending), (GameResult::WhiteWin, Ending::Resign));
        assert_eq!(g.white.as_deref(), Some("gpsusione (smp) r2614"));

        let g = read_one("tournament/040501.csa");
        assert_eq!(g.plies(), 156);
        assert_eq!(usi_moves(&g)[155], "1d2d");
        assert_eq!(
            (g.result, g.ending),
            (GameResult::Unknown, Ending::Unfinished)
        );
        assert_eq!(
            (g.black.as_deref(), g.white.as_deref()),
            (Some("GPSSHOGI"), Some("ROBOT"))
        );

        let g = read_one("tournament/wcsc20-0504-7-gpsshogi-otsukishogi.csa");
        assert_eq!(g.plies(), 75);
        assert_eq!((g.result, g.ending), (GameResult::BlackWin, Ending::Resign));
    }

    #[test]
    fn two_games_separated_by_slash() {
        let (text, path) = fixture("assembled/selfplay-two-games.csa");
        let games: Vec<Game> = read(&text, &path).into_iter().map(Result::unwrap).collect();
        assert_eq!(games.len(), 2);
        assert_eq!(
            (games[0].plies(), games[0].result, games[0].source.index),
            (74, GameResult::WhiteWin, 0)
        );
        assert_eq!(usi_moves(&games[0])[73], "B*6e");
        assert_eq!(
            (games[1].plies(), games[1].result, games[1].source.index),
            (77, GameResult::BlackWin, 1)
        );
        assert_eq!(usi_moves(&games[1])[76], "5c6d");
        assert_eq!(
            games[1].event.as_deref(),
            Some("selfplay+fairy-stockfish-11.1+nodes40000+w2_00041")
        );
    }

    #[test]
    fn crlf_reads_like_lf() {
        let (text, path) = fixture("assembled/selfplay-two-games.csa");
        let lf = read(&text, &path);
        let crlf = read(&text.replace('\n', "\r\n"), &path);
        assert_eq!(lf, crlf);
        assert!(lf.iter().all(Result::is_ok));
    }

    fn replace_line(text: &str, old: &str, new: &str) -> (String, usize) {
        let n = text.lines().position(|l| l == old).unwrap();
        let lines: Vec<&str> = text
            .lines()
            .enumerate()
            .map(|(i, l)| if i == n { new } else { l })
            .collect();
        (lines.join("\n"), n + 1)
    }

    /// Breaks the first game of the two-game file; the second must still be read.
    fn first_game_error(old: &str, new: &str) -> String {
        let (text, path) = fixture("assembled/selfplay-two-games.csa");
        let (text, _) = replace_line(&text, old, new);
        let games = read(&text, &path);
        assert_eq!(games.len(), 2);
        assert_eq!(games[1].as_ref().unwrap().plies(), 77);
        games[0].as_ref().unwrap_err().to_string()
    }

    fn at(line: usize) -> String {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("fixtures/assembled/selfplay-two-games.csa");
        format!("{}:line {line}", path.display())
    }

    #[test]
    fn illegal_move_names_file_line_and_position() {
        assert_eq!(
            first_game_error("+7776FU", "+7775FU"),
            format!(
                "{}: found \"+7775FU\", expected a legal move (illegal move 7g7e in position {HIRATE})",
                at(17)
            )
        );
    }

    #[test]
    fn unknown_piece_code() {
        assert_eq!(
            first_game_error("+7776FU", "+7776XX"),
            format!(
                "{}: found \"+7776XX\", expected a CSA piece code (FU KY KE GI KI KA HI OU TO NY NK NG UM RY)",
                at(17)
            )
        );
    }

    #[test]
    fn piece_code_not_matching_the_board() {
        assert_eq!(
            first_game_error("+7776FU", "+7776KI"),
            format!(
                "{}: found \"+7776KI\", expected a legal move (the piece on 77 is FU, not KI)",
                at(17)
            )
        );
    }

    #[test]
    fn move_by_the_wrong_side() {
        assert_eq!(
            first_game_error("+7776FU", "-7776FU"),
            format!(
                "{}: found \"-7776FU\", expected a move by black (+)",
                at(17)
            )
        );
    }

    #[test]
    fn malformed_lines() {
        assert_eq!(
            first_game_error("+7776FU", "X7776FU"),
            format!(
                "{}: found \"X7776FU\", expected a CSA line (V, N+, N-, $, P, +, -, T, %, ' or /)",
                at(17)
            )
        );
        assert_eq!(
            first_game_error("P5 *  *  *  *  *  *  *  *  * ", "P5 *  * "),
            format!(
                "{}: found \"P5 *  *\", expected 9 squares of 3 characters each (' * ' or a piece such as +FU)",
                at(11)
            )
        );
        assert_eq!(
            first_game_error("+7776FU", "+7776F"),
            format!(
                "{}: found \"+7776F\", expected a move of 7 characters: side, origin (00 for a drop), destination, piece (e.g. +7776FU)",
                at(17)
            )
        );
        assert_eq!(
            first_game_error("+", "+7776FU"),
            format!(
                "{}: found \"+7776FU\", expected the start position and the turn line (+ or -) before any move",
                at(16)
            )
        );
    }

    #[test]
    fn nothing_but_times_after_the_ending() {
        let games = read_str("PI\n+\n+7776FU\n%TORYO\nT3\n-3334FU\n");
        assert_eq!(
            games[0].as_ref().unwrap_err().to_string(),
            "t.csa:line 6: found \"-3334FU\", expected only times and comments after the ending (or / before another game)"
        );
    }

    #[test]
    fn empty_and_positionless_texts() {
        assert_eq!(
            read_str("")[0].as_ref().unwrap_err().to_string(),
            "t.csa:line 1: found \"end of file\", expected a CSA game (a start position such as PI or P1-P9, then moves)"
        );
        assert_eq!(
            read_str("V2.2\nN+a\nN-b\n")[0].as_ref().unwrap_err().to_string(),
            "t.csa:line 3: found \"end of game\", expected a start position (PI or P1-P9) and the turn line (+ or -)"
        );
        // A trailing separator and comments alone make no game.
        assert_eq!(read_str("PI\n+\n/\n'notes\n").len(), 1);
    }

    #[test]
    fn pi_with_rook_and_bishop_removed() {
        let g = read_str("V2.2\nPI82HI22KA\n-\n-3334FU\n+7776FU\n")
            .remove(0)
            .unwrap();
        assert_eq!(
            g.start.to_sfen(),
            "lnsgkgsnl/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
        );
        assert_eq!(usi_moves(&g), ["3c3d", "7g7f"]);
        assert_eq!(
            read_str("PI82KA\n-\n")[0].as_ref().unwrap_err().to_string(),
            "t.csa:line 1: found \"82KA\", expected a piece of the even-game position to remove (there is no KA on 82)"
        );
    }

    #[test]
    fn piece_lines_with_all_remaining_pieces_in_hand() {
        let g = read_str("P-51OU\nP+53FU59OU\nP+00KI\nP-00AL\n+\n+0052KI\n%TSUMI\n")
            .remove(0)
            .unwrap();
        assert_eq!(
            g.start.to_sfen(),
            "4k4/9/4P4/9/9/9/9/9/4K4 b G2r2b3g4s4n4l17p 1"
        );
        assert_eq!(usi_moves(&g), ["G*5b"]);
        assert_eq!(
            (g.result, &g.ending),
            (GameResult::BlackWin, &Ending::Checkmate)
        );
        let (end, _) = g.positions().last().unwrap();
        assert!(end.is_checkmate());
    }

    #[test]
    fn every_ending_code() {
        // After one move White is to move: the `%` "move" is White's.
        let cases = [
            ("TORYO", Ending::Resign, GameResult::BlackWin),
            ("TSUMI", Ending::Checkmate, GameResult::BlackWin),
            ("TIME_UP", Ending::TimeUp, GameResult::BlackWin),
            ("ILLEGAL_MOVE", Ending::IllegalMove, GameResult::BlackWin),
            (
                "+ILLEGAL_ACTION",
                Ending::IllegalAction(Color::Black),
                GameResult::WhiteWin,
            ),
            (
                "-ILLEGAL_ACTION",
                Ending::IllegalAction(Color::White),
                GameResult::BlackWin,
            ),
            ("KACHI", Ending::EnteringKingWin, GameResult::WhiteWin),
            ("SENNICHITE", Ending::Repetition, GameResult::Draw),
            ("JISHOGI", Ending::Impasse, GameResult::Draw),
            ("MAX_MOVES", Ending::MaxMoves, GameResult::Draw),
            (
                "HIKIWAKE",
                Ending::Other("HIKIWAKE".into()),
                GameResult::Draw,
            ),
            ("CHUDAN", Ending::Interrupted, GameResult::Unknown),
        ];
        for (code, ending, result) in cases {
            let g = read_str(&format!("V3.0\nPI\n+\n+7776FU,T1.5\n%{code},T0.25\n"))
                .remove(0)
                .unwrap();
            assert_eq!((g.ending, g.result), (ending, result), "{code}");
            assert!(g.warnings.is_empty());
        }
        let g = read_str("PI\n+\n%FOO\n").remove(0).unwrap();
        assert_eq!(g.ending, Ending::Other("FOO".into()));
        assert_eq!(
            g.warnings,
            ["line 3: unknown ending \"%FOO\"; result unknown"]
        );
    }

    #[test]
    fn floodgate_declaration_written_twice_is_one_ending() {
        // floodgate's server: the ending with a `,`-joined comment, a time, the ending again.
        let text = "V2.2\nPI\n+\n+7776FU\nT3\n-3334FU\nT1\n%KACHI,'* -5000 win\nT10\n%KACHI\n";
        let g = read_str(text).remove(0).unwrap();
        assert_eq!(usi_moves(&g), ["7g7f", "3c3d"]);
        assert_eq!(
            (&g.ending, g.result, g.ending_word.as_deref()),
            (
                &Ending::EnteringKingWin,
                GameResult::BlackWin,
                Some("%KACHI")
            )
        );
        assert!(g.warnings.is_empty());
        // A different ending after the first is still an error.
        let games = read_str("PI\n+\n+7776FU\n%KACHI\nT1\n%TORYO\n");
        assert_eq!(
            games[0].as_ref().unwrap_err().to_string(),
            "t.csa:line 6: found \"%TORYO\", expected only times and comments after the ending (or / before another game)"
        );
    }

    #[test]
    fn one_king_is_a_problem_position() {
        // A 9-pawn tsume-style position: White's king only.
        let text = "P1 *  *  *  *  *  *  *  * -OU\nP2 *  *  *  *  *  *  *  *  * \nP3 *  *  *  *  *  *  * +FU * \nP4 *  *  *  *  *  *  *  *  * \nP5 *  *  *  *  *  *  *  *  * \nP6 *  *  *  *  *  *  *  *  * \nP7 *  *  *  *  *  *  *  *  * \nP8 *  *  *  *  *  *  *  *  * \nP9 *  *  *  *  *  *  *  *  * \nP+00KI\n+\n+0012KI\n";
        let e = read_str(text).remove(0).unwrap_err();
        assert!(e.is_problem_position());
        assert_eq!(
            e.to_string(),
            "t.csa:line 11: found \"+\", expected two kings (one king: a problem position, not a game: no black king)"
        );
        // Both kings: a game as before.
        let ok = text.replace(
            "P9 *  *  *  *  *  *  *  *  * ",
            "P9 *  *  *  * +OU *  *  *  * ",
        );
        assert_eq!(usi_moves(&read_str(&ok).remove(0).unwrap()), ["G*1b"]);
    }

    #[test]
    fn several_statements_on_one_line() {
        let g =
            read_str("PI\n+\n+7776FU,T12,-3334FU,T3,'a comment, with a comma\n+8822UM,-3122GI\n")
                .remove(0)
                .unwrap();
        assert_eq!(usi_moves(&g), ["7g7f", "3c3d", "8h2b+", "3a2b"]);
    }
}
