//! Position files other tools share: YaneuraOu's PackedSfenValue (`.psv`,
//! `.bin`, 40 bytes a record) and dlshogi's/cshogi's HCPE (`.hcpe`, 38 bytes),
//! read and written.
//!
//! A [`PositionRecord`] is a position with a search score, a best move, the
//! ply and the game's result, all from the side to move's point of view.
//! [`PositionWriter`] writes them in either format; [`PositionReader`] reads
//! them back from any producer (YaneuraOu's `gensfen`, cshogi, dlshogi, ...).
//! `docs/positions.md` describes both layouts byte by byte; the Huffman
//! codings are in `packed.rs`, the move codes in `move16.rs`, and the square
//! and piece numbers they share in `numbering.rs`.
//!
//! ```
//! use kifulearn::positions::{GameResult, PositionFormat, PositionReader, PositionRecord, PositionWriter};
//! use kifulearn::shogi::Position;
//!
//! let position = Position::startpos();
//! let best_move = Some(position.parse_move("7g7f").unwrap());
//! let record = PositionRecord { position, score: 35, best_move, ply: 1, result: GameResult::Win };
//! let mut writer = PositionWriter::new(Vec::new(), PositionFormat::Psv);
//! writer.write(&record).unwrap();
//! let bytes = writer.finish().unwrap();
//! assert_eq!(bytes.len(), 40);
//! let read: Vec<_> = PositionReader::new(&bytes[..], PositionFormat::Psv).collect();
//! assert_eq!(read.len(), 1);
//! assert_eq!(read[0].as_ref().unwrap(), &record);
//! ```

use std::fmt;
use std::io::{self, BufReader, BufWriter, Read, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use crate::record::{self, Game};
use crate::shogi::{sfen_from_parts, Color, Move, Position};

mod move16;
mod numbering;
mod packed;

use move16::MoveCode;
use packed::{pack, unpack, Coding, HUFFMAN_CODED_POS, PACKED_SFEN};

/// The result of the game for the side to move in a record's position.
///
/// (Not [`record::GameResult`], which names the winner by colour; convert
/// with [`GameResult::for_side`] and [`GameResult::winner`].)
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// The side to move went on to win.
    Win,
    /// The side to move went on to lose.
    Loss,
    /// The game was drawn.
    Draw,
    /// Not known. Neither format can say so: both write it as a draw (0), so
    /// it reads back as [`GameResult::Draw`].
    Unknown,
}

impl GameResult {
    /// The game's `result` seen by `side`.
    pub fn for_side(result: record::GameResult, side: Color) -> Self {
        match (result, side) {
            (record::GameResult::BlackWin, Color::Black)
            | (record::GameResult::WhiteWin, Color::White) => GameResult::Win,
            (record::GameResult::BlackWin, Color::White)
            | (record::GameResult::WhiteWin, Color::Black) => GameResult::Loss,
            (record::GameResult::Draw, _) => GameResult::Draw,
            (record::GameResult::Unknown, _) => GameResult::Unknown,
        }
    }

    /// Who won, when this is the result for `side`.
    pub fn winner(self, side: Color) -> record::GameResult {
        match (self, side) {
            (GameResult::Win, Color::Black) | (GameResult::Loss, Color::White) => {
                record::GameResult::BlackWin
            }
            (GameResult::Win, Color::White) | (GameResult::Loss, Color::Black) => {
                record::GameResult::WhiteWin
            }
            (GameResult::Draw, _) => record::GameResult::Draw,
            (GameResult::Unknown, _) => record::GameResult::Unknown,
        }
    }
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::Win => "win",
            GameResult::Loss => "loss",
            GameResult::Draw => "draw",
            GameResult::Unknown => "unknown",
        })
    }
}

/// The ±limit the scores of the position files kifulearn writes are clamped
/// to by default, mates included (±limit): the default of `generate
/// --eval-limit` (`GenerateConfig::default()`) and of `positions --relabel
/// --eval-limit`, so relabelled files hold scores in the range generated
/// ones do. The positions learner's `score_mse` compares against teacher
/// scores clamped to it too (`train::positions::MSE_SCORE_LIMIT`).
pub const DEFAULT_EVAL_LIMIT: i32 = 3000;

/// The eval limits `generate --eval-limit` and `positions --relabel
/// --eval-limit` take (a limit fits a record's `i16` score).
pub const EVAL_LIMITS: std::ops::RangeInclusive<i32> = 1..=32_000;

/// One position of a position file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PositionRecord {
    /// The position. Read from PackedSfenValue its move number is the ply
    /// (1 when the ply is 0); from HCPE it is 1.
    pub position: Position,
    /// Search score in centipawns, from the side to move's point of view.
    pub score: i16,
    /// The best move (a legal move of `position`), if any.
    pub best_move: Option<Move>,
    /// Plies from the start of the game as the producer counts them
    /// (YaneuraOu: 1 at the start position). HCPE has no ply: 0 when read.
    pub ply: u16,
    /// The game's result for the side to move.
    pub result: GameResult,
}

impl PositionRecord {
    /// Every position of `game` with the move played from it (`None` after the
    /// last move), score 0, ply = the position's move number, and the game's
    /// result for the side to move.
    pub fn from_game(game: &Game) -> impl Iterator<Item = PositionRecord> + '_ {
        game.positions().map(move |(position, best_move)| {
            let side = position.side_to_move();
            PositionRecord {
                ply: position.move_number(),
                position,
                score: 0,
                best_move,
                result: GameResult::for_side(game.result, side),
            }
        })
    }
}

/// The two file formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PositionFormat {
    /// YaneuraOu's PackedSfenValue: 40 bytes a record.
    Psv,
    /// dlshogi's / cshogi's HuffmanCodedPosAndEval: 38 bytes a record.
    Hcpe,
}

impl PositionFormat {
    /// The format a file's extension names: `.psv` and `.bin` (YaneuraOu's
    /// usual name) are PackedSfenValue, `.hcpe` is HCPE (case ignored).
    pub fn from_path(path: &Path) -> Option<Self> {
        let ext = path.extension()?.to_str()?.to_ascii_lowercase();
        match ext.as_str() {
            "psv" | "bin" => Some(PositionFormat::Psv),
            "hcpe" => Some(PositionFormat::Hcpe),
            _ => None,
        }
    }

    /// Bytes per record: 40 or 38.
    pub const fn record_len(self) -> usize {
        match self {
            PositionFormat::Psv => 40,
            PositionFormat::Hcpe => 38,
        }
    }

    fn coding(self) -> &'static Coding {
        match self {
            PositionFormat::Psv => &PACKED_SFEN,
            PositionFormat::Hcpe => &HUFFMAN_CODED_POS,
        }
    }

    fn move_code(self) -> MoveCode {
        match self {
            PositionFormat::Psv => MoveCode::YaneuraOu,
            PositionFormat::Hcpe => MoveCode::Apery,
        }
    }

    /// Appends the record's [`Self::record_len`] bytes to `out`. Fails only
    /// when the best move is not legal in the position (a file no reader would take).
    pub fn encode(self, record: &PositionRecord, out: &mut Vec<u8>) -> Result<(), Problem> {
        if let Some(mv) = record.best_move {
            if !record.position.is_legal(mv) {
                return Err(Problem::Move {
                    code: self.move_code().encode(Some(mv)),
                    reason: format!("{mv} is not legal in {}", record.position.to_sfen()),
                });
            }
        }
        out.extend_from_slice(&pack(self.coding(), &record.position));
        out.extend_from_slice(&record.score.to_le_bytes());
        out.extend_from_slice(&self.move_code().encode(record.best_move).to_le_bytes());
        let side = record.position.side_to_move();
        match self {
            PositionFormat::Psv => {
                out.extend_from_slice(&record.ply.to_le_bytes());
                let result: i8 = match record.result {
                    GameResult::Win => 1,
                    GameResult::Loss => -1,
                    GameResult::Draw | GameResult::Unknown => 0,
                };
                out.push(result as u8);
                out.push(0); // padding
            }
            PositionFormat::Hcpe => {
                // cshogi's GameResult: Draw 0, BlackWin 1, WhiteWin 2.
                out.push(match record.result.winner(side) {
                    record::GameResult::BlackWin => 1,
                    record::GameResult::WhiteWin => 2,
                    record::GameResult::Draw | record::GameResult::Unknown => 0,
                });
                out.push(0); // dummy
            }
        }
        Ok(())
    }

    /// Decodes one record of exactly [`Self::record_len`] bytes.
    pub fn decode(self, bytes: &[u8]) -> Result<PositionRecord, Problem> {
        if bytes.len() != self.record_len() {
            return Err(Problem::Truncated {
                found: bytes.len(),
                expected: self.record_len(),
            });
        }
        let word = |at: usize| u16::from_le_bytes([bytes[at], bytes[at + 1]]);
        let packed: &[u8; 32] = bytes[..32].try_into().expect("32 bytes");
        let unpacked = unpack(self.coding(), packed).map_err(Problem::Packing)?;
        let score = word(32) as i16;
        let code = word(34);
        let (ply, result) = match self {
            PositionFormat::Psv => {
                let result = match bytes[38] as i8 {
                    1 => GameResult::Win,
                    -1 => GameResult::Loss,
                    0 => GameResult::Draw,
                    n => {
                        return Err(Problem::Result {
                            found: n.into(),
                            expected: "1 (win), -1 (loss) or 0 (draw)",
                        })
                    }
                };
                (word(36), result)
            }
            PositionFormat::Hcpe => {
                let winner = match bytes[36] {
                    0 => record::GameResult::Draw,
                    1 => record::GameResult::BlackWin,
                    2 => record::GameResult::WhiteWin,
                    n => {
                        return Err(Problem::Result {
                            found: n.into(),
                            expected: "0 (draw), 1 (Black won) or 2 (White won)",
                        })
                    }
                };
                (0, GameResult::for_side(winner, unpacked.side))
            }
        };
        let sfen = sfen_from_parts(
            &unpacked.squares,
            &unpacked.hands,
            unpacked.side,
            u32::from(ply.max(1)),
        );
        let position = Position::from_sfen(&sfen)?;
        let best_move = self
            .move_code()
            .decode(code)
            .map_err(|reason| Problem::Move { code, reason })?;
        if let Some(mv) = best_move {
            if !position.is_legal(mv) {
                return Err(Problem::Move {
                    code,
                    reason: format!("{mv} is not legal in {sfen}"),
                });
            }
        }
        Ok(PositionRecord {
            position,
            score,
            best_move,
            ply,
            result,
        })
    }
}

impl fmt::Display for PositionFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            PositionFormat::Psv => "psv",
            PositionFormat::Hcpe => "hcpe",
        })
    }
}

impl FromStr for PositionFormat {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        match s.to_ascii_lowercase().as_str() {
            "psv" | "bin" => Ok(PositionFormat::Psv),
            "hcpe" => Ok(PositionFormat::Hcpe),
            _ => Err(format!(
                "unknown position format {s:?}, expected psv or hcpe"
            )),
        }
    }
}

/// What is wrong with one record (or the file around it).
#[derive(Debug, thiserror::Error)]
pub enum Problem {
    /// Reading or writing failed.
    #[error("{0}")]
    Io(#[from] io::Error),
    /// The file ends inside a record.
    #[error("the file ends inside a record: {found} of {expected} bytes")]
    Truncated {
        /// Bytes found.
        found: usize,
        /// Bytes of a record.
        expected: usize,
    },
    /// The 32 bytes of the position are not a valid Huffman coding.
    #[error("bad packed position: {0}")]
    Packing(String),
    /// The position decodes but is not legal (a king missing or capturable, a
    /// pawn on the last rank, ...).
    #[error("{0}")]
    Position(#[from] crate::shogi::PositionError),
    /// The move code is not a legal move of the position.
    #[error("move code {code} ({code:#06x}): {reason}")]
    Move {
        /// The 16-bit code.
        code: u16,
        /// Why it was rejected.
        reason: String,
    },
    /// The game-result byte has a value the format does not define.
    #[error("game result {found}, expected {expected}")]
    Result {
        /// The value found.
        found: i16,
        /// The values allowed.
        expected: &'static str,
    },
    /// The format could not be told from the file name.
    #[error("cannot tell the format: expected a .psv, .bin or .hcpe file, or a format given")]
    UnknownFormat,
}

/// A record that could not be read or written: where, and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}record {index} (byte {offset}): {problem}", path.as_ref().map(|p| format!("{}: ", p.display())).unwrap_or_default())]
pub struct PositionError {
    /// The file, when known.
    pub path: Option<PathBuf>,
    /// Index of the record, from 0.
    pub index: u64,
    /// Byte offset of the record's start.
    pub offset: u64,
    /// What is wrong.
    pub problem: Problem,
}

impl PositionError {
    /// An error about the file `path` as a whole (opening it, telling its format).
    fn file(path: &Path, problem: Problem) -> Self {
        Self {
            path: Some(path.to_path_buf()),
            index: 0,
            offset: 0,
            problem,
        }
    }
}

/// Reads records one by one: an `Iterator` of `Result<PositionRecord, PositionError>`.
///
/// A record that does not decode (bad coding, illegal position or move,
/// unknown result) is one `Err` and reading goes on with the next; a read
/// error or a file that ends inside a record is a last `Err`. Nothing panics.
pub struct PositionReader<R: Read> {
    input: BufReader<R>,
    format: PositionFormat,
    path: Option<PathBuf>,
    index: u64,
    done: bool,
    buf: Vec<u8>,
}

impl<R: Read> PositionReader<R> {
    /// Reads `format` records from `input` (buffered here).
    pub fn new(input: R, format: PositionFormat) -> Self {
        Self {
            input: BufReader::with_capacity(64 * 1024, input),
            format,
            path: None,
            index: 0,
            done: false,
            buf: vec![0; format.record_len()],
        }
    }

    /// Names `path` in the errors.
    pub fn with_path(mut self, path: impl Into<PathBuf>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// The format read.
    pub fn format(&self) -> PositionFormat {
        self.format
    }

    fn error(&self, problem: Problem) -> PositionError {
        PositionError {
            path: self.path.clone(),
            index: self.index,
            offset: self.index * self.format.record_len() as u64,
            problem,
        }
    }

    /// Fills `buf` as far as the input goes: the number of bytes read.
    fn fill(&mut self) -> io::Result<usize> {
        let mut filled = 0;
        while filled < self.buf.len() {
            match self.input.read(&mut self.buf[filled..]) {
                Ok(0) => break,
                Ok(n) => filled += n,
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(e),
            }
        }
        Ok(filled)
    }
}

impl<R: Read> Iterator for PositionReader<R> {
    type Item = Result<PositionRecord, PositionError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let item = match self.fill() {
            Ok(0) => {
                self.done = true;
                return None;
            }
            Ok(n) if n < self.buf.len() => {
                self.done = true;
                Err(self.error(Problem::Truncated {
                    found: n,
                    expected: self.buf.len(),
                }))
            }
            Ok(_) => self.format.decode(&self.buf).map_err(|p| self.error(p)),
            Err(e) => {
                self.done = true;
                Err(self.error(e.into()))
            }
        };
        self.index += 1;
        Some(item)
    }
}

/// Writes records (buffered). Call [`PositionWriter::finish`] to flush and see the last error.
pub struct PositionWriter<W: Write> {
    output: BufWriter<W>,
    format: PositionFormat,
    index: u64,
    buf: Vec<u8>,
}

impl<W: Write> PositionWriter<W> {
    /// Writes `format` records to `output`.
    pub fn new(output: W, format: PositionFormat) -> Self {
        Self {
            output: BufWriter::with_capacity(64 * 1024, output),
            format,
            index: 0,
            buf: Vec::with_capacity(format.record_len()),
        }
    }

    /// The format written.
    pub fn format(&self) -> PositionFormat {
        self.format
    }

    /// Records written so far.
    pub fn count(&self) -> u64 {
        self.index
    }

    fn error(&self, problem: Problem) -> PositionError {
        PositionError {
            path: None,
            index: self.index,
            offset: self.index * self.format.record_len() as u64,
            problem,
        }
    }

    /// Writes one record. A best move that is not legal in the position is an
    /// error and nothing is written.
    pub fn write(&mut self, record: &PositionRecord) -> Result<(), PositionError> {
        self.buf.clear();
        self.format
            .encode(record, &mut self.buf)
            .map_err(|p| self.error(p))?;
        self.output
            .write_all(&self.buf)
            .map_err(|e| self.error(e.into()))?;
        self.index += 1;
        Ok(())
    }

    /// Flushes and returns the output.
    pub fn finish(self) -> Result<W, PositionError> {
        let (index, offset) = (self.index, self.index * self.format.record_len() as u64);
        self.output.into_inner().map_err(|e| PositionError {
            path: None,
            index,
            offset,
            problem: e.into_error().into(),
        })
    }
}

impl PositionWriter<std::fs::File> {
    /// Creates (or truncates) `path` and writes `format` records to it.
    pub fn create(path: &Path, format: PositionFormat) -> Result<Self, PositionError> {
        let file = std::fs::File::create(path).map_err(|e| PositionError::file(path, e.into()))?;
        Ok(Self::new(file, format))
    }
}

/// Opens `path` for reading in the format its extension names (see [`PositionFormat::from_path`]).
pub fn read_positions(path: &Path) -> Result<PositionReader<std::fs::File>, PositionError> {
    let format = PositionFormat::from_path(path)
        .ok_or_else(|| PositionError::file(path, Problem::UnknownFormat))?;
    read_positions_as(path, format)
}

/// Opens `path` for reading as `format`, whatever its name.
pub fn read_positions_as(
    path: &Path,
    format: PositionFormat,
) -> Result<PositionReader<std::fs::File>, PositionError> {
    let file = std::fs::File::open(path).map_err(|e| PositionError::file(path, e.into()))?;
    Ok(PositionReader::new(file, format).with_path(path))
}

#[cfg(test)]
mod tests;
