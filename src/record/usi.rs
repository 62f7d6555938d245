//! USI position lines: one game per line, as engines and opening books write them.
//!
//! A line is `startpos [moves M...]` or `sfen BOARD SIDE HANDS [NUMBER] [moves M...]`,
//! with or without a leading `position ` (the USI command itself). Blank lines
//! and lines starting with `#` are skipped. The lines say nothing about the
//! outcome, so every game is [`GameResult::Unknown`] and [`Ending::Unfinished`].

use std::path::Path;

use super::{Ending, Game, GameResult, RecordError, Source};
use crate::shogi::Position;

/// Reads every game of a text of USI position lines.
pub fn read(text: &str, path: &Path) -> Vec<Result<Game, RecordError>> {
    let mut out = Vec::new();
    for (i, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let index = out.len();
        out.push(read_line(line, i + 1, path, index));
    }
    out
}

fn read_line(line: &str, n: usize, path: &Path, index: usize) -> Result<Game, RecordError> {
    let body = line.strip_prefix("position ").unwrap_or(line).trim_start();
    let mut words = body.split_whitespace();
    let start = match words.next() {
        Some("startpos") => Position::startpos(),
        Some("sfen") => {
            let fields: Vec<&str> = words.by_ref().take_while(|w| *w != "moves").collect();
            let sfen = fields.join(" ");
            let pos = Position::from_sfen(&sfen).map_err(|e| {
                RecordError::at_line(path, n, sfen.as_str(), format!("a valid SFEN ({e})"))
            })?;
            // `take_while` consumed the `moves` keyword, if any.
            return replay(pos, words, n, path, index);
        }
        _ => {
            let shown: String = line.chars().take(40).collect();
            return Err(RecordError::at_line(
                path,
                n,
                shown,
                "a USI position line: startpos [moves ...] or sfen BOARD SIDE HANDS NUMBER [moves ...]",
            ));
        }
    };
    match words.next() {
        None => replay(start, words, n, path, index),
        Some("moves") => replay(start, words, n, path, index),
        Some(other) => Err(RecordError::at_line(
            path,
            n,
            other,
            "\"moves\" or the end of the line after startpos",
        )),
    }
}

fn replay<'a>(
    start: Position,
    moves: impl Iterator<Item = &'a str>,
    n: usize,
    path: &Path,
    index: usize,
) -> Result<Game, RecordError> {
    let mut game = Game::new(
        start.clone(),
        Source {
            path: path.to_path_buf(),
            index,
        },
    );
    game.result = GameResult::Unknown;
    game.ending = Ending::Unfinished;
    let mut pos = start;
    for word in moves {
        let mv = pos
            .play_usi(word)
            .map_err(|e| RecordError::at_line(path, n, word, format!("a legal move ({e})")))?;
        game.moves.push(mv);
    }
    Ok(game)
}
