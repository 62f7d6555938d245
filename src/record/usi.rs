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
            if let Some(missing) = missing_king_in_sfen(fields.first().copied().unwrap_or("")) {
                return Err(RecordError::problem_position(
                    path,
                    n,
                    sfen.as_str(),
                    missing,
                ));
            }
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

/// The side(s) without a king in an SFEN board field, as [`super::missing_kings`] words.
fn missing_king_in_sfen(board: &str) -> Option<&'static str> {
    if board.matches('/').count() != 8 {
        return None; // not a board: from_sfen says what is wrong
    }
    match (board.contains('K'), board.contains('k')) {
        (true, true) => None,
        (true, false) => Some("no white king"),
        (false, true) => Some("no black king"),
        (false, false) => Some("no king at all"),
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn read_str(text: &str) -> Vec<Result<Game, RecordError>> {
        read(text, Path::new("t.sfen"))
    }

    fn usi_moves(game: &Game) -> Vec<String> {
        game.moves.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn floodgate_opening_lines() {
        let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("fixtures/floodgate-30.sfen");
        let text = std::fs::read_to_string(&path).unwrap();
        let games = read(&text, &path);
        assert_eq!(games.len(), 30);
        for (i, g) in games.iter().enumerate() {
            let g = g.as_ref().unwrap();
            assert_eq!(g.plies(), 24);
            assert_eq!(g.source.index, i);
            assert_eq!(
                (g.result, &g.ending),
                (GameResult::Unknown, &Ending::Unfinished)
            );
            // Writing the game back gives the line read.
            assert_eq!(g.to_usi(), text.lines().nth(i).unwrap().trim());
        }
        let first = games[0].as_ref().unwrap();
        assert_eq!(usi_moves(first)[0], "7g7f");
        assert_eq!(usi_moves(first)[23], "2b5e");
        assert_eq!(usi_moves(games[29].as_ref().unwrap())[23], "4c4d");
    }

    #[test]
    fn position_prefix_sfen_start_and_comments() {
        let games = read_str(
            "# openings\n\
             position startpos moves 7g7f 3c3d\n\
             \n\
             sfen lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 moves 3c3d 7g7f\n\
             position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1\n\
             startpos\n",
        );
        let games: Vec<Game> = games.into_iter().map(Result::unwrap).collect();
        assert_eq!(games.len(), 4);
        assert_eq!(usi_moves(&games[0]), ["7g7f", "3c3d"]);
        assert_eq!(
            games[1].start.to_sfen(),
            "lnsgkgsn1/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
        );
        assert_eq!(usi_moves(&games[1]), ["3c3d", "7g7f"]);
        assert_eq!(games[2].plies(), 0);
        assert_eq!(games[2].to_usi(), "startpos");
        assert_eq!(games[3].source.index, 3);
    }

    #[test]
    fn errors_name_the_line_and_keep_the_other_games() {
        let games = read_str(
            "startpos moves 7g7f 3c3d\n\
             startpos moves 7g7f 3c3d 7g7e\n\
             startpos moves 7g7f 3c3d 2g2f\n\
             kifu 7g7f\n\
             sfen lnsgkgsnl/9 b - 1 moves 7g7f\n\
             startpos 7g7f\n",
        );
        assert_eq!(games.len(), 6);
        assert_eq!(games[0].as_ref().unwrap().plies(), 2);
        assert_eq!(games[2].as_ref().unwrap().plies(), 3);
        let errors: Vec<String> = games
            .iter()
            .filter_map(|g| g.as_ref().err().map(|e| e.to_string()))
            .collect();
        assert_eq!(
            errors,
            [
                "t.sfen:line 2: found \"7g7e\", expected a legal move (illegal move 7g7e in position lnsgkgsnl/1r5b1/pppppp1pp/6p2/9/2P6/PP1PPPPPP/1B5R1/LNSGKGSNL b - 3)",
                "t.sfen:line 4: found \"kifu 7g7f\", expected a USI position line: startpos [moves ...] or sfen BOARD SIDE HANDS NUMBER [moves ...]",
                "t.sfen:line 5: found \"lnsgkgsnl/9 b - 1\", expected a valid SFEN (invalid SFEN \"lnsgkgsnl/9 b - 1\": expected 9 ranks separated by '/', found 2)",
                "t.sfen:line 6: found \"7g7f\", expected \"moves\" or the end of the line after startpos",
            ]
        );
    }

    #[test]
    fn one_king_sfen_is_a_problem_position() {
        let games = read(
            "sfen 8k/9/7P1/9/9/9/9/9/9 b G 1 moves G*1b\n",
            Path::new("t.sfen"),
        );
        let e = games[0].as_ref().unwrap_err();
        assert!(e.is_problem_position());
        assert!(e.to_string().ends_with(
            "expected two kings (one king: a problem position, not a game: no black king)"
        ));
    }
}
