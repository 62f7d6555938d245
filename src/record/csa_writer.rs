//! Writing a [`Game`] as a CSA V2.2 record (the reader is [`super::csa`]).
//!
//! Follows the CSA "標準棋譜ファイル形式" V2.2: `V2.2`, `N+`/`N-` names, an
//! optional `$EVENT:` header, `'` comment lines, the start position (`PI` for
//! the even-game start position, otherwise the `P1`–`P9` rows, `P+`/`P-`
//! hand lines with `00` squares, and the turn line), one move per line
//! (`+7776FU`, the piece named as it stands after the move, `00` for a drop)
//! and the ending as a special move:
//!
//! | [`Ending`] | written |
//! |---|---|
//! | `Resign` | `%TORYO` |
//! | `Checkmate` | `%TSUMI` |
//! | `Repetition` | `%SENNICHITE` |
//! | `EnteringKingWin` | `%KACHI` |
//! | `Impasse` | `%JISHOGI` |
//! | `Interrupted` | `%CHUDAN` |
//! | `TimeUp` | `%TIME_UP` |
//! | `IllegalMove` | `%ILLEGAL_MOVE` |
//! | `IllegalAction(Black / White)` | `%+ILLEGAL_ACTION` / `%-ILLEGAL_ACTION` |
//! | `MaxMoves` | `%MAX_MOVES` (a V3.0 code; V2.2 readers may not know it) |
//! | `Other(code)` | `%code` |
//! | `Unfinished` | nothing |
//!
//! Lines end with `\n`. What the writer writes, the reader reads back to the
//! same game (tested below).

use std::fmt::Write as _;

use super::{Ending, Game};
use crate::shogi::{Color, Move, Piece, Position, Square, HAND_PIECES};

/// The game as CSA V2.2 text. `notes` become `'` comment lines after the
/// header (one line each; line breaks inside a note are replaced by spaces).
pub fn to_csa(game: &Game, notes: &[String]) -> String {
    let mut out = String::from("V2.2\n");
    if let Some(name) = &game.black {
        let _ = writeln!(out, "N+{}", one_line(name));
    }
    if let Some(name) = &game.white {
        let _ = writeln!(out, "N-{}", one_line(name));
    }
    if let Some(event) = &game.event {
        let _ = writeln!(out, "$EVENT:{}", one_line(event));
    }
    for note in notes {
        let _ = writeln!(out, "'{}", one_line(note));
    }
    write_start(&mut out, &game.start);
    let mut pos = game.start.clone();
    for &mv in &game.moves {
        out.push_str(&move_text(&pos, mv));
        out.push('\n');
        pos.play_unchecked(mv);
    }
    if let Some(code) = ending_code(&game.ending) {
        out.push_str(&code);
        out.push('\n');
    }
    out
}

/// One move in CSA notation (`+7776FU`, `-0055KA`, `+8822UM`) from `pos`,
/// where it must be legal.
pub fn move_text(pos: &Position, mv: Move) -> String {
    let sign = color_sign(pos.side_to_move());
    match mv {
        Move::Drop { piece, to } => format!("{sign}00{}{}", square_text(to), csa_code(piece)),
        Move::BoardMove { from, to, .. } => {
            let after = pos.piece_after(mv).unwrap_or(Piece::King);
            format!(
                "{sign}{}{}{}",
                square_text(from),
                square_text(to),
                csa_code(after)
            )
        }
    }
}

/// The `%` code of an ending, `None` for [`Ending::Unfinished`].
pub fn ending_code(ending: &Ending) -> Option<String> {
    let code = match ending {
        Ending::Resign => "%TORYO",
        Ending::Checkmate => "%TSUMI",
        Ending::Repetition => "%SENNICHITE",
        Ending::EnteringKingWin => "%KACHI",
        Ending::Impasse => "%JISHOGI",
        // A sealed move is an adjournment: CSA has no code of its own for it.
        Ending::Interrupted | Ending::Sealed => "%CHUDAN",
        Ending::TimeUp => "%TIME_UP",
        Ending::IllegalMove => "%ILLEGAL_MOVE",
        Ending::IllegalAction(Color::Black) => "%+ILLEGAL_ACTION",
        Ending::IllegalAction(Color::White) => "%-ILLEGAL_ACTION",
        Ending::MaxMoves => "%MAX_MOVES",
        Ending::Other(code) => return Some(format!("%{}", one_line(code))),
        Ending::Unfinished => return None,
    };
    Some(code.to_string())
}

fn write_start(out: &mut String, start: &Position) {
    if start.same_position(&Position::startpos()) {
        out.push_str("PI\n+\n");
        return;
    }
    for rank in 0..9 {
        let _ = write!(out, "P{}", rank + 1);
        for file in (0..9).rev() {
            match start.piece_on(Square::index(file * 9 + rank)) {
                None => out.push_str(" * "),
                Some((c, p)) => {
                    out.push_str(color_sign(c));
                    out.push_str(csa_code(p));
                }
            }
        }
        out.push('\n');
    }
    for color in [Color::Black, Color::White] {
        let mut line = format!("P{}", color_sign(color));
        for piece in HAND_PIECES {
            for _ in 0..start.hand_count(color, piece) {
                line.push_str("00");
                line.push_str(csa_code(piece));
            }
        }
        if line.len() > 2 {
            out.push_str(&line);
            out.push('\n');
        }
    }
    out.push_str(color_sign(start.side_to_move()));
    out.push('\n');
}

fn color_sign(color: Color) -> &'static str {
    if color == Color::Black {
        "+"
    } else {
        "-"
    }
}

/// `7g` → `"77"`: file digit, then rank digit (rank `a` = 1).
fn square_text(square: Square) -> String {
    let i = square as usize;
    format!("{}{}", i / 9 + 1, i % 9 + 1)
}

fn csa_code(piece: Piece) -> &'static str {
    match piece {
        Piece::Pawn => "FU",
        Piece::Lance => "KY",
        Piece::Knight => "KE",
        Piece::Silver => "GI",
        Piece::Gold => "KI",
        Piece::Bishop => "KA",
        Piece::Rook => "HI",
        Piece::King => "OU",
        Piece::Tokin => "TO",
        Piece::PLance => "NY",
        Piece::PKnight => "NK",
        Piece::PSilver => "NG",
        Piece::PBishop => "UM",
        Piece::PRook => "RY",
    }
}

fn one_line(text: &str) -> String {
    text.replace(['\r', '\n'], " ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::record::{csa, usi, GameResult};
    use std::path::Path;

    fn read_back(text: &str) -> Game {
        let mut games = csa::read(text, Path::new("written.csa"));
        assert_eq!(games.len(), 1, "{text}");
        games.remove(0).unwrap_or_else(|e| panic!("{e}\n{text}"))
    }

    #[test]
    fn floodgate_openings_round_trip_through_the_reader() {
        let text = std::fs::read_to_string(
            Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures/floodgate-30.sfen"),
        )
        .unwrap();
        for game in usi::read(&text, Path::new("floodgate-30.sfen")) {
            let mut game = game.unwrap();
            game.black = Some("material".into());
            game.white = Some("model A".into());
            game.ending = Ending::Resign;
            let csa_text = to_csa(&game, &["opening line 1".to_string()]);
            assert!(csa_text.starts_with("V2.2\nN+material\nN-model A\n'opening line 1\nPI\n+\n"));
            assert!(csa_text.ends_with("%TORYO\n"));
            let back = read_back(&csa_text);
            assert_eq!(back.moves, game.moves);
            assert_eq!(back.black.as_deref(), Some("material"));
            // 24 plies: Black to move resigns.
            assert_eq!(back.result, GameResult::WhiteWin);
        }
    }

    #[test]
    fn any_start_position_with_hands_promotions_and_drops() {
        // From a refereed match: promoted pieces, both hands, White to move.
        let sfen =
            "p3pp1p1/1+S1p2k1l/2+L5n/1p1g2g1p/P1s5s/6p1g/LPK2+p+p+b+n/7+rg/1+b1L3+pr w Nsn5p 230";
        let start = Position::from_sfen(sfen).unwrap();
        let source = crate::record::Source {
            path: "written.csa".into(),
            index: 0,
        };
        let mut game = Game::new(start.clone(), source);
        let mut pos = start.clone();
        // Play a few legal moves, drops included, to exercise every code path.
        for _ in 0..6 {
            let mut moves = pos.legal_moves();
            moves.sort_by_key(|m| matches!(m, Move::BoardMove { .. }));
            let mv = moves[0];
            game.moves.push(mv);
            pos.play_unchecked(mv);
        }
        assert!(matches!(game.moves[0], Move::Drop { .. }));
        for (ending, code, result) in [
            (Ending::Repetition, "%SENNICHITE", GameResult::Draw),
            (Ending::Impasse, "%JISHOGI", GameResult::Draw),
            (
                Ending::IllegalAction(Color::White),
                "%-ILLEGAL_ACTION",
                GameResult::BlackWin,
            ),
            (Ending::EnteringKingWin, "%KACHI", GameResult::WhiteWin),
        ] {
            game.ending = ending.clone();
            let text = to_csa(&game, &[]);
            assert!(text.contains("\nP1-FU *  *  * -FU-FU * -FU * \n"), "{text}");
            assert!(text.contains("\nP2 * +NG * -FU *  * -OU * -KY\n"), "{text}");
            assert!(text.contains("\nP+00KE\n"), "{text}");
            assert!(
                text.contains("\nP-00GI00KE00FU00FU00FU00FU00FU\n-\n"),
                "{text}"
            );
            assert!(text.ends_with(&format!("{code}\n")));
            let back = read_back(&text);
            assert!(back.start.same_position(&start));
            assert_eq!(back.moves, game.moves);
            assert_eq!(back.ending, ending);
            assert_eq!(back.result, result);
        }
    }
}
