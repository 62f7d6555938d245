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

use std::path::Path;

use super::{ki2, missing_kings, Ending, Game, GameResult, RecordError, Source};
use crate::shogi::{sfen_from_parts, Color, Move, Piece, Position, Square, HAND_PIECES};

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

/// Start positions of the `手合割` names (the upper player, White, moves first).
const HANDICAPS: [(&str, &str); 16] = [
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
        "1nsgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "左五枚落ち",
        "2sgkgsn1/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
    ),
    (
        "六枚落ち",
        "2sgkgs2/9/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1",
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
type Squares = [Option<(Color, Piece)>; 81];

/// A board diagram being read (`後手の持駒：`, the 9×9 board, `先手の持駒：`).
#[derive(Default)]
struct Diagram {
    squares: Option<Box<Squares>>,
    rows: usize,
    hands: [[u8; 7]; 2],
    white_to_move: bool,
}

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
struct Summary {
    /// The result it names (`Unknown` when it names none).
    result: GameResult,
    /// The ending it names, if any.
    ending: Option<Ending>,
    /// The words after `まで N手で`, as written.
    word: String,
}

/// Reads a `まで…` summary line.
fn summary(line: &str) -> Summary {
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
                         八枚落ち, 十枚落ち or その他 with a board diagram",
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

/// The start position from the handicap header or the board diagram.
fn start_game(
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
fn diagram_row(diagram: &mut Diagram, row: &str) -> Result<(), String> {
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
fn piece_char(c: char) -> Option<Piece> {
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
fn parse_hand(text: &str) -> Result<[u8; 7], String> {
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
fn split_marks(line: &str) -> Vec<(char, &str)> {
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
fn parse_move(
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

#[cfg(test)]
mod tests {
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
            "t.kif:line 1: found \"手合割：九枚落ち\", expected a handicap of 平手, 香落ち, 右香落ち, 角落ち, 飛車落ち, 飛香落ち, 二枚落ち, 三枚落ち, 四枚落ち, 五枚落ち, 左五枚落ち, 六枚落ち, 八枚落ち, 十枚落ち or その他 with a board diagram"
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
}
