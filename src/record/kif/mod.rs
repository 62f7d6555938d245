//! KIF (Kakinoki) reader: header lines, handicaps, board diagrams, the move table.
//!
//! The format is the one written by Kakinoki's Kifu for Windows and read by most
//! shogi software: `key：value` header lines, an optional board diagram for a
//! non-standard start, the move table `手数----指手---------消費時間--`, then one
//! numbered line per move (`   1 ７六歩(77)   ( 0:00/00:00:00)`). Branches
//! (`変化：N手`) follow the main line; only the main line is kept.
//!
//! Decisions made here (the format has no formal spec):
//! - The origin `(77)` decides the move where present; a named piece that does
//!   not match the piece on the origin is a warning, not a failure.
//! - A move without origin (KI2 style) is resolved with its words (右 左 直
//!   上 引 寄 打 成 不成) against the legal moves, as [`super::ki2`] describes;
//!   a move the words do not single out fails the game, naming the candidates.
//! - A line starting with a side mark (`▲７六歩　△３四歩`) is a run of KI2
//!   moves, so the same reader reads KI2 records ([`super::ki2::read`]).
//! - A start position with one king (a tsume problem) is refused as
//!   [`super::ErrorKind::ProblemPosition`], not as a malformed record.
//! - `封じ手` (a sealed move) ends the record as [`Ending::Sealed`], result
//!   unknown, with the moves before it.
//! - The result comes from the `まで…` summary when it names a winner (a
//!   `千日手` can still be a loss for perpetual check), else from the final move
//!   word (`投了`, `詰み`, ...) and who was to move when it was written.
//! - Several games in one text are split where a header line (`開始日時：`,
//!   `手合割：`, `先手：`, ...) follows a move table.

mod moves;
mod start;
#[cfg(test)]
mod tests;

use std::path::Path;

use super::{ki2, Ending, Game, GameResult, RecordError};
use crate::shogi::{Color, Move, Position, Square};
pub(crate) use moves::piece_name;
use moves::{final_word, parse_move, split_marks, summary, FinalWord, Summary};
use start::{diagram_row, parse_hand, start_game, Diagram};
pub use start::{handicap_name, handicap_start};

/// Reads every game of a KIF text (already decoded, see [`super::decode_text`]).
///
/// A game with an unparsable line or an illegal move becomes one `Err` naming
/// the line; the other games of the text are still read.
pub fn read(text: &str, path: &Path) -> Vec<Result<Game, RecordError>> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut start = 0;
    for end in game_boundaries(&lines) {
        let index = out.len();
        out.push(read_game(&lines[start..end], start, path, index));
        start = end;
    }
    if out.is_empty() {
        out.push(Err(RecordError::at_line(
            path,
            1,
            lines.first().copied().unwrap_or("").trim(),
            "a KIF game record (header lines and a move table)",
        )));
    }
    out
}

/// Header keys that begin a new game when they appear after a move table.
const GAME_START_KEYS: [&str; 9] = [
    "開始日時",
    "手合割",
    "先手",
    "後手",
    "下手",
    "上手",
    "棋戦",
    "後手の持駒",
    "上手の持駒",
];

/// End indices (exclusive) of the games in `lines`; empty when no game is found.
fn game_boundaries(lines: &[&str]) -> Vec<usize> {
    let mut ends = Vec::new();
    let mut seen_content = false;
    let mut seen_moves = false;
    for (i, line) in lines.iter().enumerate() {
        let t = line.trim();
        if t.is_empty() || t.starts_with('#') {
            continue;
        }
        if seen_moves && header_key(t).is_some_and(|k| GAME_START_KEYS.contains(&k)) {
            ends.push(i);
            seen_moves = false;
        }
        seen_content = true;
        if t.starts_with("手数") || parse_numbered(t).is_some() || t.starts_with(ki2::is_mark) {
            seen_moves = true;
        }
    }
    if seen_content {
        ends.push(lines.len());
    }
    ends
}

/// The key of a `key：value` header line (full-width or ASCII colon).
fn header_key(line: &str) -> Option<&str> {
    if line.starts_with('*') || line.starts_with('&') || line.starts_with("変化") {
        return None;
    }
    let (key, _) = line.split_once('：').or_else(|| line.split_once(':'))?;
    let key = key.trim();
    (!key.is_empty() && !key.starts_with(|c: char| c.is_ascii_digit())).then_some(key)
}

/// `   12 ７六歩(77) ...` → (12, `７六歩(77) ...`).
fn parse_numbered(line: &str) -> Option<(usize, &str)> {
    let t = line.trim_start();
    let digits = t.len() - t.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    if digits == 0 || digits > 4 {
        return None;
    }
    let n = t[..digits].parse().ok()?;
    let rest = &t[digits..];
    if !rest.starts_with(|c: char| c.is_whitespace()) {
        return None;
    }
    Some((n, rest.trim_start()))
}

/// The game once its first move (or the move table header) is seen.
struct Play {
    /// The position after the moves read.
    pos: Position,
    /// The game being built.
    game: Game,
    /// Where the last move went (for `同`).
    last_to: Option<Square>,
}

/// A final move word and who was to move when it was written.
struct Ended {
    word: FinalWord,
    mover: Color,
}

/// What to do after a line.
enum Next {
    /// Read the next line.
    Line,
    /// The main line is over (a branch follows).
    Stop,
}

/// One game being read, line by line (the structure of `csa.rs`'s reader).
struct GameReader<'a> {
    path: &'a Path,
    /// Lines before the game's first line in the file.
    offset: usize,
    /// The game's index in its file.
    index: usize,
    /// The `手合割` start and its line.
    handicap: Option<(usize, Position)>,
    diagram: Diagram,
    /// Black's (下手's) and White's (上手's) names.
    names: [Option<String>; 2],
    event: Option<String>,
    /// Warnings before the first move (moved into the game at the end).
    warnings: Vec<String>,
    play: Option<Play>,
    ended: Option<Ended>,
    summary: Option<Summary>,
}

/// Reads one game from `lines`, whose first line is line `offset + 1` of the file.
fn read_game(
    lines: &[&str],
    offset: usize,
    path: &Path,
    index: usize,
) -> Result<Game, RecordError> {
    let mut r = GameReader {
        path,
        offset,
        index,
        handicap: None,
        diagram: Diagram::default(),
        names: [None, None],
        event: None,
        warnings: Vec::new(),
        play: None,
        ended: None,
        summary: None,
    };
    for (i, raw) in lines.iter().enumerate() {
        if let Next::Stop = r.line(i, raw)? {
            break;
        }
    }
    r.finish()
}

impl GameReader<'_> {
    /// An error at line `i` of the game.
    fn error(&self, i: usize, found: &str, expected: impl Into<String>) -> RecordError {
        RecordError::at_line(self.path, self.offset + i + 1, found.trim(), expected)
    }

    /// Reads line `i` of the game.
    fn line(&mut self, i: usize, raw: &str) -> Result<Next, RecordError> {
        let t = raw.trim_end().trim();
        if t.is_empty() || t.starts_with('#') || t.starts_with('*') || t.starts_with('&') {
            return Ok(Next::Line);
        }
        if t.starts_with("変化") {
            // Branches follow the main line to the end of the game.
            return Ok(Next::Stop);
        }
        if t.starts_with("まで") {
            self.summary = Some(summary(t));
            return Ok(Next::Line);
        }
        // Board diagram rows: `|v香v桂 ... |一`.
        if t.starts_with('|') {
            diagram_row(&mut self.diagram, t).map_err(|e| self.error(i, t, e))?;
            return Ok(Next::Line);
        }
        if t.starts_with('+') || t.starts_with('９') {
            return Ok(Next::Line); // frame and file numbers of a diagram
        }
        if matches!(t, "後手番" | "上手番") {
            self.diagram.white_to_move = true;
            return Ok(Next::Line);
        }
        if matches!(t, "先手番" | "下手番") {
            self.diagram.white_to_move = false;
            return Ok(Next::Line);
        }
        if t.starts_with("手数") {
            self.start(i, t)?;
            return Ok(Next::Line);
        }
        if let Some((number, body)) = parse_numbered(t) {
            self.numbered_move(i, t, number, body)?;
            return Ok(Next::Line);
        }
        if t.starts_with(ki2::is_mark) {
            self.marked_moves(i, t)?;
            return Ok(Next::Line);
        }
        if let Some(key) = header_key(t) {
            self.header(i, t, key)?;
            return Ok(Next::Line);
        }
        if self.play.is_some() {
            return Err(self.error(
                i,
                t,
                "a numbered move line like `   1 ７六歩(77)`, a comment (`*`) or `まで…`",
            ));
        }
        self.warnings
            .push(format!("line {}: ignored {t:?}", self.offset + i + 1));
        Ok(Next::Line)
    }

    /// Sets up the start position at the first move or the move table header.
    fn start(&mut self, i: usize, t: &str) -> Result<(), RecordError> {
        if self.play.is_none() {
            let (pos, game) = start_game(
                &self.handicap,
                &self.diagram,
                self.path,
                self.index,
                self.offset + i + 1,
                t,
            )?;
            self.play = Some(Play {
                pos,
                game,
                last_to: None,
            });
        }
        Ok(())
    }

    /// `   12 ７六歩(77) ...`: move `number`, `body` after the number.
    fn numbered_move(
        &mut self,
        i: usize,
        t: &str,
        number: usize,
        body: &str,
    ) -> Result<(), RecordError> {
        self.start(i, t)?;
        if self.ended.is_some() {
            return Err(self.error(i, t, "no move after the game-ending word"));
        }
        let Some(play) = self.play.as_mut() else {
            return Ok(());
        };
        let expected_number = play.game.moves.len() + 1;
        if number != expected_number {
            return Err(self.error(i, t, format!("move number {expected_number}")));
        }
        if let Some(word) = final_word(body) {
            let mover = play.pos.side_to_move();
            self.ended = Some(Ended { word, mover });
            return Ok(());
        }
        let played = play_move(play, body, &mut self.warnings, number, false);
        played.map_err(|e| self.error(i, t, e))
    }

    /// `▲７六歩　△３四歩`: a run of KI2 moves, each with its side mark.
    fn marked_moves(&mut self, i: usize, t: &str) -> Result<(), RecordError> {
        self.start(i, t)?;
        for (mark, text) in split_marks(t) {
            let found = format!("{mark}{text}");
            if self.ended.is_some() {
                return Err(self.error(i, &found, "no move after the game-ending word"));
            }
            let Some(play) = self.play.as_mut() else {
                return Ok(());
            };
            let side = play.pos.side_to_move();
            if ki2::mark_color(mark) != Some(side) {
                let expected = if side == Color::Black {
                    "a move by black (▲)"
                } else {
                    "a move by white (△)"
                };
                return Err(self.error(i, &found, expected));
            }
            if let Some(word) = final_word(text) {
                self.ended = Some(Ended { word, mover: side });
                continue;
            }
            let number = play.game.moves.len() + 1;
            let played = play_move(play, text, &mut self.warnings, number, true);
            played.map_err(|e| self.error(i, &found, e))?;
        }
        Ok(())
    }

    /// A `key：value` header line.
    fn header(&mut self, i: usize, t: &str, key: &str) -> Result<(), RecordError> {
        let value = t
            .split_once('：')
            .or_else(|| t.split_once(':'))
            .map(|(_, v)| v.trim())
            .unwrap_or("");
        let named = || Some(value.to_string()).filter(|v| !v.is_empty());
        match key {
            "先手" | "下手" => self.names[0] = named(),
            "後手" | "上手" => self.names[1] = named(),
            "棋戦" => self.event = named(),
            "手合割" => {
                if let Some(p) = handicap_start(value) {
                    self.handicap = Some((self.offset + i + 1, p));
                } else if value != "その他" {
                    return Err(self.error(
                        i,
                        t,
                        "a handicap of 平手, 香落ち, 右香落ち, 角落ち, 飛車落ち, 飛香落ち, \
                         二枚落ち, 三枚落ち, 四枚落ち, 五枚落ち, 左五枚落ち, 六枚落ち, \
                         左七枚落ち, 右七枚落ち, 八枚落ち, 十枚落ち or その他 with a board diagram",
                    ));
                }
            }
            "先手の持駒" | "下手の持駒" => {
                self.diagram.hands[0] = parse_hand(value).map_err(|e| self.error(i, t, e))?
            }
            "後手の持駒" | "上手の持駒" => {
                self.diagram.hands[1] = parse_hand(value).map_err(|e| self.error(i, t, e))?
            }
            _ => {}
        }
        Ok(())
    }

    /// The game: names, warnings, result and ending from the final word,
    /// the summary line or the final position.
    fn finish(mut self) -> Result<Game, RecordError> {
        let Some(play) = self.play.take() else {
            // Header only (no moves at all): still a game from its start position.
            let (pos, mut game) = start_game(
                &self.handicap,
                &self.diagram,
                self.path,
                self.index,
                self.offset + 1,
                "",
            )?;
            game.warnings.append(&mut self.warnings);
            // Without a move, a summary line is not read as the game's end.
            self.summary = None;
            return Ok(self.decide(pos, game));
        };
        let Play { pos, mut game, .. } = play;
        game.warnings.append(&mut self.warnings);
        Ok(self.decide(pos, game))
    }

    /// Fills in what the record says about `game`, which ended at `pos`.
    fn decide(self, pos: Position, mut game: Game) -> Game {
        let [black, white] = self.names;
        game.black = black;
        game.white = white;
        game.event = self.event;
        let word = self.ended.map(|Ended { word, mover }| {
            let result = match (word.mover_wins, word.draw) {
                (_, true) => GameResult::Draw,
                (Some(true), _) => win_for(mover),
                (Some(false), _) => win_for(!mover),
                (None, _) => GameResult::Unknown,
            };
            (word, result)
        });
        game.ending_word = match (&word, &self.summary) {
            (Some((w, _)), _) => Some(w.word.to_string()),
            (None, Some(s)) if !s.word.is_empty() => Some(s.word.clone()),
            _ => None,
        };
        let (mut result, mut ending) = match &word {
            Some((w, r)) => (*r, w.ending.clone()),
            None if pos.is_checkmate() => (win_for(!pos.side_to_move()), Ending::Checkmate),
            None => (GameResult::Unknown, Ending::Unfinished),
        };
        if let Some(summary) = self.summary {
            if summary.result != GameResult::Unknown {
                if word.is_some() && summary.result != result {
                    game.warnings.push(format!(
                        "the summary says {}, the final move word says {result}; kept {}",
                        summary.result, summary.result
                    ));
                }
                result = summary.result;
            }
            if word.is_none() {
                if let Some(e) = summary.ending {
                    ending = e;
                }
            }
        }
        game.result = result;
        game.ending = ending;
        game
    }
}

/// Plays the move written `text` (move `number`); `ki2`: no origin square.
fn play_move(
    play: &mut Play,
    text: &str,
    warnings: &mut Vec<String>,
    number: usize,
    ki2: bool,
) -> Result<(), String> {
    let mv = parse_move(&play.pos, text, play.last_to, warnings, number, ki2)?;
    play.pos
        .play(mv)
        .map_err(|e| format!("a legal move ({e})"))?;
    play.last_to = Some(match mv {
        Move::BoardMove { to, .. } | Move::Drop { to, .. } => to,
    });
    play.game.moves.push(mv);
    Ok(())
}

fn win_for(color: Color) -> GameResult {
    if color == Color::Black {
        GameResult::BlackWin
    } else {
        GameResult::WhiteWin
    }
}
