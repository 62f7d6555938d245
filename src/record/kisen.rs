//! Kisen (棋泉 6.0) binary records: 512 bytes a game, with an optional `.idx` companion.
//!
//! The format was published by its author (かかし, SHOP0008, "棋泉6.0データ形式",
//! 1995-12-23, on the Net-Komaoto BBS); the text survives quoted in a comment of
//! ShogiCore's `KisenNotationReader.cs`, whose reader does what this one does.
//!
//! **`.kif` file.** One 512-byte record per game, 256 little-endian words, one a
//! move: the low byte (byte 0) is the destination, the high byte (byte 1) the
//! origin. Squares 1–81 run along rank 一 from 9一 (1) to 1一 (9), then rank 二
//! (10–18) and so on: `(rank − 1) × 9 + (10 − file)`. A destination + 100 means
//! the move promotes. An origin 101–138 is a drop of the N-th (N = origin − 100)
//! piece of the mover's hand, the hand listed piece by piece in the order
//! 飛 角 金 銀 桂 香 歩: the spec's example is that with a hand 角金金桂香歩歩歩, 104
//! is the fourth piece, the knight. So N indexes the *current* list of held
//! pieces (not fixed slots per kind), and any N within a kind's run means that
//! kind; [`encode`] writes the first of the run. A 0x00 or 0xFF destination ends
//! the game. In a handicap game the first word is 0xFFFF and unused ("上手の
//! 第１手は２手目として記録する"): the upper player's first move is the second word.
//!
//! **`.idx` file.** 32-byte records of 16 little-endian words. Record 0 holds the
//! number of games (4 bytes). Record n + 1 describes game n: words 0/1 player
//! numbers, 2 event number, 4–6 date, 8 the result code, 10 the handicap code.
//! Result codes: 0 = decided by the parity of the move count (Ver 4.1 records:
//! the side that made the last move wins), 1 = 先手 wins, 2 = 後手 wins,
//! 3 = repetition, 4 = impasse, 5–8 = the same four for games longer than the
//! 256 moves a record holds. Handicap codes: 0 平手, 1 香落ち, 2 角落ち, 3 飛車落ち,
//! 4 飛香落ち, 5 二枚落ち, 6 四枚落ち, 7 六枚落ち.
//!
//! Choices (no real Kisen files were at hand to confirm them):
//! - In a handicap game 先手 of the result code is taken to be the lower player
//!   (Black in SFEN), the side whose turn the unused first word stands for, so
//!   that the parity rule and codes 1/2 agree.
//! - Player and event numbers refer to name tables outside these two files, so
//!   [`Game::black`]/[`Game::white`]/[`Game::event`] stay `None`.
//! - A win (codes 0–2) is recorded as [`Ending::Checkmate`] when the final
//!   position is mate, else as [`Ending::Resign`]; codes 5–8 as
//!   [`Ending::Unfinished`] with the result.
//! - An all-zero record is an empty slot, not a game: it yields no entry, and
//!   [`Source::index`] stays the record number so games match `.idx` records.

use std::path::Path;

use super::{Ending, Game, GameResult, RecordError, Source};
use crate::shogi::{Color, Move, Piece, Position, Square, HAND_PIECES};

/// Bytes in one game record of a Kisen `.kif` file.
pub const RECORD_LEN: usize = 512;
/// Bytes in one record of a Kisen `.idx` file.
pub const INDEX_RECORD_LEN: usize = 32;

/// The `手合割` names of the handicap codes 0–7; their start positions (White,
/// the upper player, moves first) are the KIF reader's table, the one table of
/// handicaps (`kif::handicap_start`).
const HANDICAPS: [&str; 8] = [
    "平手",
    "香落ち",
    "角落ち",
    "飛車落ち",
    "飛香落ち",
    "二枚落ち",
    "四枚落ち",
    "六枚落ち",
];

/// The start position of a Kisen handicap code (0–7).
pub fn handicap_start(code: u16) -> Option<Position> {
    HANDICAPS
        .get(code as usize)
        .and_then(|name| super::kif::handicap_start(name))
}

/// The Kisen hand order: 飛 角 金 銀 桂 香 歩 (the same as SFEN's R B G S N L P).
const HAND_ORDER: [Piece; 7] = HAND_PIECES;

/// Kisen square number (1–81) of a square.
pub fn square_number(square: Square) -> u8 {
    let i = square as usize; // (file − 1) × 9 + (rank − 1)
    let (file, rank) = (i / 9 + 1, i % 9 + 1);
    ((rank - 1) * 9 + (10 - file)) as u8
}

/// The square of a Kisen square number, if it is 1–81.
pub fn square_of(number: u8) -> Option<Square> {
    if !(1..=81).contains(&number) {
        return None;
    }
    let n = number as usize - 1;
    let (rank, file) = (n / 9 + 1, 9 - n % 9);
    Some(Square::index((file - 1) * 9 + rank - 1))
}

/// One `.idx` record's fields that matter here.
#[derive(Clone, Copy, Debug)]
struct IndexEntry {
    result_code: u16,
    handicap_code: u16,
    /// Byte offset of the record in the `.idx` file (for error messages).
    offset: u64,
}

fn word(bytes: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([bytes[at], bytes[at + 1]])
}

fn index_entry(idx: Option<&[u8]>, game: usize) -> Option<IndexEntry> {
    let idx = idx?;
    let at = (game + 1) * INDEX_RECORD_LEN;
    let rec = idx.get(at..at + INDEX_RECORD_LEN)?;
    Some(IndexEntry {
        result_code: word(rec, 16),
        handicap_code: word(rec, 20),
        offset: at as u64,
    })
}

/// Reads every game of a Kisen file; `idx` is the `.idx` companion when there is one.
///
/// A file whose size is not a multiple of 512 bytes gives its whole records and
/// one error for the truncated one; a bad square, drop index or illegal move
/// fails that game with the byte offset of the move.
pub fn read(bytes: &[u8], idx: Option<&[u8]>, path: &Path) -> Vec<Result<Game, RecordError>> {
    let mut out = Vec::new();
    if bytes.is_empty() {
        out.push(Err(RecordError::at_byte(
            path,
            0,
            "an empty file",
            "Kisen game records of 512 bytes each",
        )));
        return out;
    }
    let mut warnings = Vec::new();
    if let Some(idx) = idx {
        let records = bytes.len() / RECORD_LEN;
        let count = idx
            .get(..4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
        if count != Some(records) {
            warnings.push(format!(
                "the .idx file counts {} games, the .kif file holds {records}",
                count.map_or("no".to_string(), |c| c.to_string())
            ));
        }
    }
    for (n, rec) in bytes.chunks(RECORD_LEN).enumerate() {
        let offset = (n * RECORD_LEN) as u64;
        if rec.len() < RECORD_LEN {
            out.push(Err(RecordError::at_byte(
                path,
                offset,
                format!("{} bytes", rec.len()),
                "a whole 512-byte game record (the file is truncated)",
            )));
            break;
        }
        if rec.iter().all(|&b| b == 0) {
            continue;
        }
        out.push(read_game(rec, n, index_entry(idx, n), path).map(|mut g| {
            g.warnings.extend(warnings.iter().cloned());
            g
        }));
    }
    out
}

fn hex(b: &[u8]) -> String {
    b.iter()
        .map(|x| format!("{x:02x}"))
        .collect::<Vec<_>>()
        .join(" ")
}

/// Reads record `n` (512 bytes).
fn read_game(
    rec: &[u8],
    n: usize,
    entry: Option<IndexEntry>,
    path: &Path,
) -> Result<Game, RecordError> {
    let base = (n * RECORD_LEN) as u64;
    let idx_path = path.with_extension("idx");
    let handicap = word(rec, 0) == 0xFFFF;
    let mut warnings = Vec::new();
    let start = match (handicap, entry) {
        (false, e) => {
            if let Some(e) = e.filter(|e| e.handicap_code != 0) {
                warnings.push(format!(
                    "the .idx gives handicap code {} but the record starts as an even game",
                    e.handicap_code
                ));
            }
            Position::startpos()
        }
        (true, None) => {
            return Err(RecordError::at_byte(
                path,
                base,
                "ff ff",
                "a .idx companion with this handicap game's handicap code",
            ))
        }
        (true, Some(e)) => handicap_start(e.handicap_code)
            .filter(|_| e.handicap_code != 0)
            .ok_or_else(|| {
                RecordError::at_byte(
                    &idx_path,
                    e.offset + 20,
                    format!("handicap code {}", e.handicap_code),
                    "a handicap code 1–7 (香落ち 角落ち 飛車落ち 飛香落ち 二枚落ち 四枚落ち 六枚落ち)",
                )
            })?,
    };
    let mut game = Game::new(
        start.clone(),
        Source {
            path: path.to_path_buf(),
            index: n,
        },
    );
    game.warnings = warnings;
    let mut pos = start;
    for slot in usize::from(handicap)..RECORD_LEN / 2 {
        let at = slot * 2;
        let (to_byte, from_byte) = (rec[at], rec[at + 1]);
        if to_byte == 0x00 || to_byte == 0xFF {
            break;
        }
        let bad = |expected: String| {
            RecordError::at_byte(path, base + at as u64, hex(&rec[at..at + 2]), expected)
        };
        let mv = decode_move(&pos, to_byte, from_byte).map_err(bad)?;
        pos.play(mv)
            .map_err(|e| bad(format!("a legal move ({e})")))?;
        game.moves.push(mv);
    }
    let mover_won = |pos: &Position| {
        if pos.side_to_move() == Color::Black {
            GameResult::WhiteWin
        } else {
            GameResult::BlackWin
        }
    };
    let win_ending = |pos: &Position| {
        if pos.is_checkmate() {
            Ending::Checkmate
        } else {
            Ending::Resign
        }
    };
    (game.result, game.ending) = match entry.map(|e| e.result_code) {
        None if pos.is_checkmate() => (mover_won(&pos), Ending::Checkmate),
        None => (GameResult::Unknown, Ending::Unfinished),
        Some(0) => (mover_won(&pos), win_ending(&pos)),
        Some(1) => (GameResult::BlackWin, win_ending(&pos)),
        Some(2) => (GameResult::WhiteWin, win_ending(&pos)),
        Some(3) => (GameResult::Draw, Ending::Repetition),
        Some(4) => (GameResult::Draw, Ending::Impasse),
        Some(5) => (GameResult::BlackWin, Ending::Unfinished),
        Some(6) => (GameResult::WhiteWin, Ending::Unfinished),
        Some(7 | 8) => (GameResult::Draw, Ending::Unfinished),
        Some(c) => {
            game.warnings
                .push(format!("unknown result code {c} in the .idx file"));
            (GameResult::Unknown, Ending::Unfinished)
        }
    };
    Ok(game)
}

/// One move word (destination byte, origin byte) in `pos`.
fn decode_move(pos: &Position, to_byte: u8, from_byte: u8) -> Result<Move, String> {
    let (to_number, promotion) = if to_byte > 100 {
        (to_byte - 100, true)
    } else {
        (to_byte, false)
    };
    let to = square_of(to_number)
        .ok_or_else(|| "a destination 1–81, or 101–181 for a promotion".to_string())?;
    if (101..=138).contains(&from_byte) {
        if promotion {
            return Err("a drop without promotion (destination 1–81)".to_string());
        }
        let color = pos.side_to_move();
        let mut n = (from_byte - 100) as u32;
        let mut total = 0u32;
        for piece in HAND_ORDER {
            let count = pos.hand_count(color, piece) as u32;
            total += count;
            if n <= count {
                return Ok(Move::Drop { piece, to });
            }
            n -= count;
        }
        return Err(if total == 0 {
            "a board origin 1–81 (no pieces in hand to drop)".to_string()
        } else {
            format!("a drop index 101–{} ({total} pieces in hand)", 100 + total)
        });
    }
    let from =
        square_of(from_byte).ok_or_else(|| "an origin 1–81, or 101–138 for a drop".to_string())?;
    Ok(Move::BoardMove {
        from,
        to,
        promotion,
    })
}

/// Why a game cannot be written as a Kisen record.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum EncodeError {
    /// The start is neither the even start nor one of the Kisen handicaps.
    #[error("start position {0} is neither the even start nor a Kisen handicap (codes 1–7)")]
    Start(String),
    /// More moves than a 512-byte record holds.
    #[error("{plies} moves do not fit a Kisen record (at most {max})")]
    TooLong {
        /// Moves in the game.
        plies: usize,
        /// Moves the record can hold.
        max: usize,
    },
    /// The `.idx` result code cannot say "unknown".
    #[error("game {index} has no known result, which a Kisen .idx record cannot express")]
    UnknownResult {
        /// 0-based index of the game in the list given.
        index: usize,
    },
    /// A move that is not legal where it is played.
    #[error("move {number} ({mv}) is illegal")]
    Illegal {
        /// 1-based move number.
        number: usize,
        /// The move in USI.
        mv: String,
    },
}

/// The Kisen handicap code of a start position (0 for the even start).
pub fn handicap_code(start: &Position) -> Option<u16> {
    (0..HANDICAPS.len() as u16).find(|&c| handicap_start(c).is_some_and(|p| p.same_position(start)))
}

/// Writes one game as a 512-byte Kisen record.
///
/// The game must start from the even position or one of the Kisen handicaps
/// (the handicap itself goes to the `.idx` record, see [`encode_index`]); a
/// handicap game spends its first word on the 0xFFFF marker. Drops are written
/// with the hand index of the first piece of their kind. The unused rest of the
/// record is zero (the end marker).
pub fn encode(game: &Game) -> Result<[u8; RECORD_LEN], EncodeError> {
    let code =
        handicap_code(&game.start).ok_or_else(|| EncodeError::Start(game.start.to_sfen()))?;
    let first = usize::from(code != 0);
    let max = RECORD_LEN / 2 - first;
    if game.moves.len() > max {
        return Err(EncodeError::TooLong {
            plies: game.moves.len(),
            max,
        });
    }
    let mut rec = [0u8; RECORD_LEN];
    if first == 1 {
        rec[0] = 0xFF;
        rec[1] = 0xFF;
    }
    let mut pos = game.start.clone();
    for (i, &mv) in game.moves.iter().enumerate() {
        let illegal = || EncodeError::Illegal {
            number: i + 1,
            mv: mv.to_string(),
        };
        let (to, from) = match mv {
            Move::BoardMove {
                from,
                to,
                promotion,
            } => (
                square_number(to) + if promotion { 100 } else { 0 },
                square_number(from),
            ),
            Move::Drop { piece, to } => {
                let color = pos.side_to_move();
                let before: u32 = HAND_ORDER
                    .iter()
                    .take_while(|&&p| p != piece)
                    .map(|&p| pos.hand_count(color, p) as u32)
                    .sum();
                let index = u8::try_from(before + 101).map_err(|_| illegal())?;
                (square_number(to), index)
            }
        };
        pos.play(mv).map_err(|_| illegal())?;
        let at = (first + i) * 2;
        rec[at] = to;
        rec[at + 1] = from;
    }
    Ok(rec)
}

/// Writes the `.idx` companion of `games` (in file order): the count record,
/// then per game its result code (word 8) and handicap code (word 10); player,
/// event and date words stay zero.
///
/// Results map to codes 1 (Black wins), 2 (White wins), 3 (draw by
/// repetition) and 4 (other draws). Kisen has no code for an unknown result
/// (code 0 means "the last mover won"), so such a game is an error: write the
/// `.kif` without an `.idx` instead.
pub fn encode_index(games: &[Game]) -> Result<Vec<u8>, EncodeError> {
    let mut out = vec![0u8; INDEX_RECORD_LEN * (games.len() + 1)];
    out[..4].copy_from_slice(&(games.len() as u32).to_le_bytes());
    for (i, game) in games.iter().enumerate() {
        let code =
            handicap_code(&game.start).ok_or_else(|| EncodeError::Start(game.start.to_sfen()))?;
        let result: u16 = match (game.result, &game.ending) {
            (GameResult::BlackWin, _) => 1,
            (GameResult::WhiteWin, _) => 2,
            (GameResult::Draw, Ending::Repetition) => 3,
            (GameResult::Draw, _) => 4,
            (GameResult::Unknown, _) => return Err(EncodeError::UnknownResult { index: i }),
        };
        let at = (i + 1) * INDEX_RECORD_LEN;
        out[at + 16..at + 18].copy_from_slice(&result.to_le_bytes());
        out[at + 20..at + 22].copy_from_slice(&code.to_le_bytes());
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn path() -> PathBuf {
        PathBuf::from("t.kif")
    }

    fn record(words: &[[u8; 2]]) -> Vec<u8> {
        let mut rec = vec![0u8; RECORD_LEN];
        for (i, w) in words.iter().enumerate() {
            rec[2 * i] = w[0];
            rec[2 * i + 1] = w[1];
        }
        rec
    }

    #[test]
    fn square_numbering_runs_along_ranks_from_9a() {
        let sq = |s: &str| s.parse::<Square>().unwrap();
        assert_eq!(square_number(sq("9a")), 1);
        assert_eq!(square_number(sq("1a")), 9);
        assert_eq!(square_number(sq("9b")), 10);
        assert_eq!(square_number(sq("7f")), 48);
        assert_eq!(square_number(sq("7g")), 57);
        assert_eq!(square_number(sq("5e")), 41);
        assert_eq!(square_number(sq("1i")), 81);
        for s in Square::ALL {
            assert_eq!(square_of(square_number(s)), Some(s));
        }
        assert_eq!(square_of(0), None);
        assert_eq!(square_of(82), None);
    }

    /// Hand-computed bytes: 7六歩 is (48, 57); 8h2b+ is 2二 = 17 + 100 from 8八 = 65;
    /// drops index the current hand list 飛角金銀桂香歩.
    #[test]
    fn known_bytes_decode_to_known_moves() {
        let rec = record(&[
            [48, 57],  // 7g7f
            [34, 25],  // 3c3d
            [117, 65], // 8h2b+
            [17, 7],   // 3a2b
            [53, 62],  // 2g2f
            [29, 20],  // 8c8d
            [44, 53],  // 2f2e
            [38, 29],  // 8d8e
            [35, 44],  // 2e2d
            [35, 26],  // 2c2d
            [35, 71],  // 2h2d
            [26, 102], // White holds 角歩: 102 is the 2nd piece, the pawn: P*2c
            [41, 101], // Black holds 角歩: 101 is the bishop: B*5e
            [47, 38],  // 8e8f
            [44, 101], // Black now holds only 歩: 101 is the pawn: P*2e
        ]);
        let games = read(&rec, None, &path());
        assert_eq!(games.len(), 1);
        let g = games[0].as_ref().unwrap();
        assert_eq!(
            g.moves_usi(),
            "7g7f 3c3d 8h2b+ 3a2b 2g2f 8c8d 2f2e 8d8e 2e2d 2c2d 2h2d P*2c B*5e 8e8f P*2e"
        );
        assert_eq!(
            (g.result, g.ending.clone()),
            (GameResult::Unknown, Ending::Unfinished)
        );
        // The encoder writes the same bytes back.
        assert_eq!(encode(g).unwrap().to_vec(), rec);
    }

    #[test]
    fn ff_ends_a_game_and_empty_records_are_skipped() {
        let mut bytes = record(&[[48, 57], [0xFF, 0xFF], [34, 25]]);
        bytes.extend(vec![0u8; RECORD_LEN]);
        bytes.extend(record(&[[48, 57]]));
        let games = read(&bytes, None, &path());
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].as_ref().unwrap().moves_usi(), "7g7f");
        assert_eq!(games[1].as_ref().unwrap().source.index, 2);
    }

    #[test]
    fn handicap_record_takes_its_start_and_result_from_the_idx() {
        // 角落ち: word 0 is 0xFFFF, the upper player's 6二銀 (71 from 7一 = 3) comes second (6二 = 9 + 4 = 13).
        let rec = record(&[[0xFF, 0xFF], [13, 3], [48, 57]]);
        let mut idx = vec![0u8; 64];
        idx[0] = 1;
        idx[32 + 16] = 2; // result: 後手 (upper) wins
        idx[32 + 20] = 2; // 角落ち
        let g = read(&rec, Some(&idx), &path()).remove(0).unwrap();
        assert_eq!(
            g.start.to_sfen(),
            "lnsgkgsnl/1r7/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1"
        );
        assert_eq!(g.moves_usi(), "7a6b 7g7f");
        assert_eq!(
            (g.result, g.ending.clone()),
            (GameResult::WhiteWin, Ending::Resign)
        );
        assert!(g.warnings.is_empty(), "{:?}", g.warnings);
        assert_eq!(encode(&g).unwrap().to_vec(), rec);
        assert_eq!(encode_index(std::slice::from_ref(&g)).unwrap(), idx);
    }

    #[test]
    fn errors_name_the_byte_and_what_was_expected() {
        let msg = |bytes: &[u8], idx: Option<&[u8]>| {
            read(bytes, idx, &path())
                .into_iter()
                .find_map(|r| r.err())
                .unwrap()
                .to_string()
        };
        assert_eq!(
            msg(&[1u8; 100], None),
            "t.kif:byte 0: found \"100 bytes\", expected a whole 512-byte game record (the file is truncated)"
        );
        let mut two = record(&[[48, 57]]);
        two.extend(&record(&[[48, 57]])[..300]);
        assert_eq!(
            msg(&two, None),
            "t.kif:byte 512: found \"300 bytes\", expected a whole 512-byte game record (the file is truncated)"
        );
        assert_eq!(
            msg(&record(&[[48, 57], [82, 25]]), None),
            "t.kif:byte 2: found \"52 19\", expected a destination 1–81, or 101–181 for a promotion"
        );
        assert_eq!(
            msg(&record(&[[48, 57], [34, 90]]), None),
            "t.kif:byte 2: found \"22 5a\", expected an origin 1–81, or 101–138 for a drop"
        );
        assert_eq!(
            msg(&record(&[[48, 101]]), None),
            "t.kif:byte 0: found \"30 65\", expected a board origin 1–81 (no pieces in hand to drop)"
        );
        // After 7g7f 3c3d 8h2b+ Black holds one bishop: 102 is past the end.
        assert_eq!(
            msg(
                &record(&[[48, 57], [34, 25], [117, 65], [17, 7], [41, 102]]),
                None
            ),
            "t.kif:byte 8: found \"29 66\", expected a drop index 101–101 (1 pieces in hand)"
        );
        assert_eq!(
            msg(&record(&[[48, 56]]), None),
            "t.kif:byte 0: found \"30 38\", expected a legal move (illegal move 8g7f in position lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1)"
        );
        assert_eq!(
            msg(&record(&[[0xFF, 0xFF], [12, 3]]), None),
            "t.kif:byte 0: found \"ff ff\", expected a .idx companion with this handicap game's handicap code"
        );
        let mut idx = vec![0u8; 64];
        idx[32 + 20] = 9;
        assert_eq!(
            msg(&record(&[[0xFF, 0xFF], [12, 3]]), Some(&idx)),
            "t.idx:byte 52: found \"handicap code 9\", expected a handicap code 1–7 (香落ち 角落ち 飛車落ち 飛香落ち 二枚落ち 四枚落ち 六枚落ち)"
        );
        assert_eq!(
            msg(&[], None),
            "t.kif:byte 0: found \"an empty file\", expected Kisen game records of 512 bytes each"
        );
    }

    #[test]
    fn encode_rejects_what_kisen_cannot_hold() {
        let source = Source {
            path: path(),
            index: 0,
        };
        let right_lance =
            Position::from_sfen("1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1")
                .unwrap();
        let g = Game::new(right_lance, source.clone());
        assert_eq!(
            encode(&g).unwrap_err().to_string(),
            "start position 1nsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL w - 1 is neither the even start nor a Kisen handicap (codes 1–7)"
        );
        let mut long = Game::new(Position::startpos(), source.clone());
        let mut pos = Position::startpos();
        for i in 0..257 {
            let mv = ["2h1h", "8b9b", "1h2h", "9b8b"][i % 4];
            long.moves.push(pos.play_usi(mv).unwrap());
        }
        assert_eq!(
            encode(&long).unwrap_err().to_string(),
            "257 moves do not fit a Kisen record (at most 256)"
        );
        long.moves.truncate(256);
        let rec = encode(&long).unwrap();
        let back = read(&rec, None, &path()).remove(0).unwrap();
        assert_eq!(back.moves, long.moves);
        let unknown = Game::new(Position::startpos(), source);
        assert_eq!(
            encode_index(&[unknown]).unwrap_err().to_string(),
            "game 0 has no known result, which a Kisen .idx record cannot express"
        );
    }
}
