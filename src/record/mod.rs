//! Game records: one [`Game`] type and readers for CSA, KIF, KI2, USI position lines and Kisen.
//!
//! Every reader replays each move through [`Position`] and rejects an illegal
//! one. A bad game becomes one `Err(RecordError)` naming the file, the line
//! (or byte offset), the text found and what was expected; the other games of
//! the same file are still read. No input may make a reader panic.

use std::fmt;
use std::path::{Path, PathBuf};

use crate::shogi::{Move, Position};

pub mod csa;
pub mod csa_writer;
pub mod encoding;
pub mod ki2;
pub mod ki2_writer;
pub mod kif;
pub mod kisen;
pub mod usi;

/// Who won a game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GameResult {
    /// Black (sente, the first player in an even game) won.
    BlackWin,
    /// White (gote) won.
    WhiteWin,
    /// Draw (repetition, impasse with enough points, ...).
    Draw,
    /// The record does not say (interrupted, or it simply stops).
    Unknown,
}

impl fmt::Display for GameResult {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            GameResult::BlackWin => "black",
            GameResult::WhiteWin => "white",
            GameResult::Draw => "draw",
            GameResult::Unknown => "unknown",
        })
    }
}

/// How a game ended, as the record says (CSA `%` codes, KIF `まで…` lines, Kisen result codes).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Ending {
    /// Resignation (`%TORYO`, `投了`).
    Resign,
    /// Checkmate, declared (`%TSUMI`, `詰み`) or on the board.
    Checkmate,
    /// Four-fold repetition (`%SENNICHITE`, `千日手`).
    Repetition,
    /// Entering-king declaration of a win (`%KACHI`, `入玉勝ち`).
    EnteringKingWin,
    /// Impasse (`%JISHOGI`, `持将棋`).
    Impasse,
    /// Interrupted (`%CHUDAN`, `中断`).
    Interrupted,
    /// Lost on time (`%TIME_UP`, `切れ負け`).
    TimeUp,
    /// An illegal move ended the game (`%ILLEGAL_MOVE`, `反則負け`).
    IllegalMove,
    /// `%+ILLEGAL_ACTION` / `%-ILLEGAL_ACTION`: the named side acted illegally and lost.
    IllegalAction(crate::shogi::Color),
    /// Maximum number of moves reached (`%MAX_MOVES`).
    MaxMoves,
    /// The record simply stops after its last move.
    Unfinished,
    /// A sealed move (`封じ手`) ends the record: the game was adjourned, the
    /// moves before the seal are all the record holds.
    Sealed,
    /// Any other ending, as written in the record.
    Other(String),
}

impl fmt::Display for Ending {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ending::Resign => f.write_str("resign"),
            Ending::Checkmate => f.write_str("checkmate"),
            Ending::Repetition => f.write_str("repetition"),
            Ending::EnteringKingWin => f.write_str("entering-king-win"),
            Ending::Impasse => f.write_str("impasse"),
            Ending::Interrupted => f.write_str("interrupted"),
            Ending::TimeUp => f.write_str("time-up"),
            Ending::IllegalMove => f.write_str("illegal-move"),
            Ending::IllegalAction(c) => write!(
                f,
                "illegal-action-{}",
                if *c == crate::shogi::Color::Black {
                    "black"
                } else {
                    "white"
                }
            ),
            Ending::MaxMoves => f.write_str("max-moves"),
            Ending::Unfinished => f.write_str("unfinished"),
            Ending::Sealed => f.write_str("sealed"),
            Ending::Other(s) => write!(f, "other:{s}"),
        }
    }
}

/// The record formats kifulearn reads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Format {
    /// CSA standard text (V2, V2.1, V2.2, V3.0).
    Csa,
    /// KIF text (Kakinoki), UTF-8 or Shift_JIS.
    Kif,
    /// KI2 text (moves without origins, `▲７六歩　△３四歩`), UTF-8 or Shift_JIS.
    Ki2,
    /// One USI `position` line per game.
    Usi,
    /// Kisen (棋泉) binary, 512 bytes a game.
    Kisen,
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Format::Csa => "csa",
            Format::Kif => "kif",
            Format::Ki2 => "ki2",
            Format::Usi => "usi",
            Format::Kisen => "kisen",
        })
    }
}

/// Where a game came from: the file and the game's index in it (0-based).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Source {
    /// The file read.
    pub path: PathBuf,
    /// Index of the game in the file, from 0.
    pub index: usize,
}

impl fmt::Display for Source {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}#{}", self.path.display(), self.index)
    }
}

/// One game: a start position, the moves played, and what the record says about it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Game {
    /// The start position (any SFEN: handicaps are start positions with pieces missing).
    pub start: Position,
    /// The moves, in order, each legal in the position it was played in.
    pub moves: Vec<Move>,
    /// Who won, if the record says.
    pub result: GameResult,
    /// How the game ended.
    pub ending: Ending,
    /// The ending as the file writes it (`%TORYO`, `投了`, `封じ手`, the end of
    /// a `まで…` line such as `先手の勝ち`), when it writes one.
    pub ending_word: Option<String>,
    /// Black's (sente's, or the handicap receiver's) name.
    pub black: Option<String>,
    /// White's (gote's) name.
    pub white: Option<String>,
    /// Event or tournament name.
    pub event: Option<String>,
    /// Where the record came from.
    pub source: Source,
    /// Things the reader tolerated (non-standard lines read as comments, ...).
    pub warnings: Vec<String>,
}

impl Game {
    /// A game from `start` with no moves yet, ending unknown.
    pub fn new(start: Position, source: Source) -> Self {
        Self {
            start,
            moves: Vec::new(),
            result: GameResult::Unknown,
            ending: Ending::Unfinished,
            ending_word: None,
            black: None,
            white: None,
            event: None,
            source,
            warnings: Vec::new(),
        }
    }

    /// Number of moves (plies) played.
    pub fn plies(&self) -> usize {
        self.moves.len()
    }

    /// Every position of the game with the move played from it; the final
    /// position (after the last move) comes last with `None`.
    pub fn positions(&self) -> impl Iterator<Item = (Position, Option<Move>)> + '_ {
        let mut pos = self.start.clone();
        let mut i = 0;
        std::iter::from_fn(move || {
            if i > self.moves.len() {
                return None;
            }
            let here = pos.clone();
            let mv = self.moves.get(i).copied();
            if let Some(mv) = mv {
                pos.play_unchecked(mv);
            }
            i += 1;
            Some((here, mv))
        })
    }

    /// The moves in USI notation, separated by single spaces.
    pub fn moves_usi(&self) -> String {
        self.moves
            .iter()
            .map(|m| m.to_string())
            .collect::<Vec<_>>()
            .join(" ")
    }

    /// The game as one USI line: `startpos moves ...` or `sfen ... moves ...`.
    pub fn to_usi(&self) -> String {
        let mut s = if self.start.same_position(&Position::startpos()) {
            "startpos".to_string()
        } else {
            format!("sfen {}", self.start.to_sfen())
        };
        if !self.moves.is_empty() {
            s.push_str(" moves ");
            s.push_str(&self.moves_usi());
        }
        s
    }
}

/// Where in a file an error was found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    /// A 1-based line number (text formats).
    Line(usize),
    /// A byte offset (Kisen).
    Byte(u64),
}

/// Why a game was not read.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ErrorKind {
    /// The record is malformed or a move is illegal.
    Malformed,
    /// The start position has one king (or none): a tsume or endgame problem, not a game.
    ProblemPosition,
}

/// What [`RecordError::expected`] says of a position with a missing king.
pub const ONE_KING: &str = "one king: a problem position, not a game";

/// A game that could not be read: the file, where, the text found and what was expected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}:{}: found \"{}\", expected {expected}", path.display(), match location { Location::Line(n) => format!("line {n}"), Location::Byte(b) => format!("byte {b}") }, found.escape_default_ascii_controls())]
pub struct RecordError {
    /// The file.
    pub path: PathBuf,
    /// Line or byte offset.
    pub location: Location,
    /// The text (or bytes, shown as hex) found there.
    pub found: String,
    /// What the reader expected instead.
    pub expected: String,
    /// Malformed record, or a problem position (counted apart by `games`).
    pub kind: ErrorKind,
}

/// Shows record text as written (kanji and full-width spaces stay readable),
/// escaping only quotes, backslashes and control characters.
trait EscapeControls {
    fn escape_default_ascii_controls(&self) -> String;
}

impl EscapeControls for String {
    fn escape_default_ascii_controls(&self) -> String {
        let mut out = String::with_capacity(self.len());
        for c in self.chars() {
            if c.is_control() || c == '"' || c == '\\' {
                out.extend(c.escape_default());
            } else {
                out.push(c);
            }
        }
        out
    }
}

impl RecordError {
    /// An error at a 1-based line of a text file.
    pub fn at_line(
        path: &Path,
        line: usize,
        found: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        Self {
            path: path.to_path_buf(),
            location: Location::Line(line),
            found: found.into(),
            expected: expected.into(),
            kind: ErrorKind::Malformed,
        }
    }

    /// A start position without both kings, at a 1-based line: `missing`
    /// names the side without a king.
    pub fn problem_position(
        path: &Path,
        line: usize,
        found: impl Into<String>,
        missing: &str,
    ) -> Self {
        Self {
            kind: ErrorKind::ProblemPosition,
            ..Self::at_line(
                path,
                line,
                found,
                format!("two kings ({ONE_KING}: {missing})"),
            )
        }
    }

    /// True when the game is a problem position (one king), not a malformed record.
    pub fn is_problem_position(&self) -> bool {
        self.kind == ErrorKind::ProblemPosition
    }

    /// An error at a byte offset of a binary file.
    pub fn at_byte(
        path: &Path,
        offset: u64,
        found: impl Into<String>,
        expected: impl Into<String>,
    ) -> Self {
        Self {
            path: path.to_path_buf(),
            location: Location::Byte(offset),
            found: found.into(),
            expected: expected.into(),
            kind: ErrorKind::Malformed,
        }
    }
}

/// The side(s) without a king on `squares` (indexed like
/// [`crate::shogi::square_index`]), as words for [`RecordError::problem_position`];
/// `None` when both kings stand.
pub fn missing_kings(
    squares: &[Option<(crate::shogi::Color, crate::shogi::Piece)>; 81],
) -> Option<&'static str> {
    use crate::shogi::{Color, Piece};
    let has = |c: Color| {
        squares
            .iter()
            .flatten()
            .any(|&(color, p)| color == c && p == Piece::King)
    };
    match (has(Color::Black), has(Color::White)) {
        (true, true) => None,
        (true, false) => Some("no white king"),
        (false, true) => Some("no black king"),
        (false, false) => Some("no king at all"),
    }
}

/// The games of one file, each read or failed on its own.
#[derive(Debug)]
pub struct FileGames {
    /// The file.
    pub path: PathBuf,
    /// The format detected, if any.
    pub format: Option<Format>,
    /// One entry per game found in the file.
    pub games: Vec<Result<Game, RecordError>>,
}

/// Decodes text that is UTF-8 (with or without BOM; a few invalid bytes read
/// as U+FFFD) or else Shift_JIS (CP932): [`encoding::decode`] without its report.
pub fn decode_text(bytes: &[u8]) -> String {
    encoding::decode(bytes).text
}

/// Reads a text record with `read`, reporting how its bytes were decoded: a
/// Shift_JIS fallback or invalid UTF-8 bytes are a warning on stderr and in
/// every game's warnings, and an error at a line holding an invalid byte
/// names the byte.
fn read_text(
    bytes: &[u8],
    path: &Path,
    read: fn(&str, &Path) -> Vec<Result<Game, RecordError>>,
) -> Vec<Result<Game, RecordError>> {
    let decoded = encoding::decode(bytes);
    let mut games = read(&decoded.text, path);
    let Some(warning) = decoded.encoding.warning() else {
        return games;
    };
    eprintln!("warning: {}: {warning}", path.display());
    for game in &mut games {
        match game {
            Ok(g) => g.warnings.push(warning.clone()),
            Err(e) => {
                if let encoding::TextEncoding::Utf8WithInvalid { first, .. } = &decoded.encoding {
                    if e.location == Location::Line(first.line) {
                        e.expected
                            .push_str(&format!(" (invalid UTF-8 here: {first}, read as U+FFFD)"));
                    }
                }
            }
        }
    }
    games
}

/// Chooses the reader for a file by extension and content.
///
/// Kisen files share the `.kif` extension with KIF text, so a `.kif` file is
/// Kisen when its size is a whole number of 512-byte records and it holds NUL
/// bytes (KIF text never does). Files with other extensions are sniffed.
pub fn detect_format(path: &Path, bytes: &[u8]) -> Option<Format> {
    let ext = path
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    let looks_binary = bytes.contains(&0);
    match ext.as_deref() {
        Some("idx") => None,
        Some("csa") => Some(Format::Csa),
        Some("kif") | Some("kifu") | Some("kis") | Some("kisen")
            if looks_binary && !bytes.is_empty() && bytes.len().is_multiple_of(512) =>
        {
            Some(Format::Kisen)
        }
        Some("kif") | Some("kifu") => Some(Format::Kif),
        Some("ki2") | Some("ki2u") => Some(Format::Ki2),
        Some("usi") | Some("sfen") => Some(Format::Usi),
        _ if looks_binary => None,
        _ => sniff_text(&decode_text(bytes)),
    }
}

fn sniff_text(text: &str) -> Option<Format> {
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .take(50)
    {
        if line.starts_with("startpos")
            || line.starts_with("sfen ")
            || line.starts_with("position ")
        {
            return Some(Format::Usi);
        }
        if line.starts_with(['▲', '△', '☗', '☖']) {
            return Some(Format::Ki2);
        }
        if line.starts_with("手合割")
            || line.starts_with("開始日時")
            || line.starts_with("先手：")
            || line.starts_with("手数")
            || line.contains("Kifu for")
        {
            return Some(Format::Kif);
        }
        if line.starts_with("V2")
            || line.starts_with("N+")
            || line.starts_with("PI")
            || line.starts_with("P1")
            || line.starts_with("+7776")
            || line.starts_with("'CSA")
        {
            return Some(Format::Csa);
        }
    }
    None
}

/// Reads every game of one file. An unreadable file or unknown format is one failed entry.
pub fn read_file(path: &Path) -> FileGames {
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return FileGames {
                path: path.to_path_buf(),
                format: None,
                games: vec![Err(RecordError::at_line(
                    path,
                    0,
                    e.to_string(),
                    "a readable file",
                ))],
            }
        }
    };
    let format = detect_format(path, &bytes);
    let games = match format {
        Some(Format::Csa) => read_text(&bytes, path, csa::read),
        Some(Format::Kif) => read_text(&bytes, path, kif::read),
        Some(Format::Ki2) => read_text(&bytes, path, ki2::read),
        Some(Format::Usi) => read_text(&bytes, path, usi::read),
        Some(Format::Kisen) => {
            let idx = std::fs::read(path.with_extension("idx")).ok();
            kisen::read(&bytes, idx.as_deref(), path)
        }
        None => vec![Err(RecordError::at_line(
            path,
            1,
            String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned(),
            "a CSA, KIF, KI2, USI or Kisen game record",
        ))],
    };
    // A file that holds no game (an empty `.sfen`) is said to, not counted as nothing.
    let games = if games.is_empty() {
        vec![Err(RecordError::at_line(
            path,
            1,
            String::from_utf8_lossy(&bytes[..bytes.len().min(40)]).into_owned(),
            "a game (no game in the file)",
        ))]
    } else {
        games
    };
    FileGames {
        path: path.to_path_buf(),
        format,
        games,
    }
}

/// The games of record files or folders (`paths`, as [`find_record_files`]
/// lists them), read in parallel; an unreadable game is reported on stderr
/// (`skipped: …`) and left out, and no game at all is an error naming `paths`.
/// The learners' one reader of `RECORDS...` arguments.
pub fn read_games(paths: &[PathBuf]) -> Result<Vec<Game>, String> {
    use rayon::prelude::*;
    let files = find_record_files(paths).map_err(|e| e.to_string())?;
    let games: Vec<Game> = files
        .par_iter()
        .flat_map_iter(|f| read_file(f).games)
        .filter_map(|g| g.map_err(|e| eprintln!("skipped: {e}")).ok())
        .collect();
    if games.is_empty() {
        return Err(format!("no game could be read from {paths:?}"));
    }
    Ok(games)
}

/// The record files under `paths` (files as given; folders recursively, sorted by
/// path), skipping hidden files, Kisen `.idx` companions and README/license texts.
///
/// A path that does not exist is an error naming it. Whatever is not a regular
/// file or a folder (a FIFO, a socket, a device, a dangling link) is skipped with
/// a warning on stderr, since reading it could block forever; a file or folder
/// reached twice (symbolic links, a link loop) is read once, by canonical path.
pub fn find_record_files(paths: &[PathBuf]) -> std::io::Result<Vec<PathBuf>> {
    find_record_files_noting(paths, |w| eprintln!("warning: {w}"))
}

/// [`find_record_files`], handing each warning to `warn` instead of printing it.
pub fn find_record_files_noting(
    paths: &[PathBuf],
    mut warn: impl FnMut(String),
) -> std::io::Result<Vec<PathBuf>> {
    use std::collections::HashSet;
    use std::io::{Error, ErrorKind};
    struct Walk<'a> {
        seen: HashSet<PathBuf>,
        out: Vec<PathBuf>,
        warn: &'a mut dyn FnMut(String),
    }
    impl Walk<'_> {
        /// Whether `p` is met for the first time (by canonical path).
        fn first_time(&mut self, p: &Path) -> bool {
            let key = std::fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
            self.seen.insert(key)
        }
        fn visit(&mut self, p: &Path, named: bool) -> std::io::Result<()> {
            let meta = match std::fs::metadata(p) {
                Ok(m) => m,
                Err(e) if named && e.kind() == ErrorKind::NotFound => {
                    return Err(Error::new(
                        e.kind(),
                        format!("{}: no such file or directory", p.display()),
                    ))
                }
                Err(e) if named => {
                    return Err(Error::new(e.kind(), format!("{}: {e}", p.display())))
                }
                Err(e) => {
                    (self.warn)(format!("skipping {}: {e}", p.display()));
                    return Ok(());
                }
            };
            if meta.is_dir() {
                if !self.first_time(p) {
                    (self.warn)(format!(
                        "skipping {}: a folder already read (a link loop or a second link)",
                        p.display()
                    ));
                    return Ok(());
                }
                let mut entries: Vec<PathBuf> = std::fs::read_dir(p)
                    .map_err(|e| Error::new(e.kind(), format!("{}: {e}", p.display())))?
                    .map(|e| e.map(|e| e.path()))
                    .collect::<Result<_, _>>()?;
                entries.sort();
                for entry in entries {
                    let name = entry.file_name().and_then(|n| n.to_str()).unwrap_or("");
                    if name.starts_with('.') || !(is_record_name(&entry) || entry.is_dir()) {
                        continue;
                    }
                    self.visit(&entry, false)?;
                }
            } else if !meta.is_file() {
                (self.warn)(format!(
                    "skipping {}: not a regular file (a FIFO, socket or device could block the read)",
                    p.display()
                ));
            } else if self.first_time(p) {
                self.out.push(p.to_path_buf());
            } else {
                (self.warn)(format!("skipping {}: a file already read", p.display()));
            }
            Ok(())
        }
    }
    let mut walk = Walk {
        seen: HashSet::new(),
        out: Vec::new(),
        warn: &mut warn,
    };
    for p in paths {
        walk.visit(p, true)?;
    }
    Ok(walk.out)
}

fn is_record_name(p: &Path) -> bool {
    let ext = p
        .extension()
        .and_then(|e| e.to_str())
        .map(|e| e.to_ascii_lowercase());
    matches!(
        ext.as_deref(),
        Some("csa" | "kif" | "kifu" | "ki2" | "ki2u" | "kis" | "kisen" | "usi" | "sfen")
    )
}

#[cfg(test)]
mod read_games_tests {
    use super::*;

    #[test]
    fn every_game_of_a_folder_and_an_error_naming_paths_without_one() {
        let folder = crate::testdata::fixture("tournament");
        let games = read_games(std::slice::from_ref(&folder)).unwrap();
        let files = find_record_files(std::slice::from_ref(&folder)).unwrap();
        assert_eq!(games.len(), files.len());
        assert!(games.iter().all(|g| !g.moves.is_empty()));
        let empty = std::env::temp_dir().join(format!("kifulearn-no-games-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let err = read_games(std::slice::from_ref(&empty)).unwrap_err();
        std::fs::remove_dir_all(&empty).unwrap();
        assert!(err.starts_with("no game could be read from"), "{err}");
        assert!(err.contains("kifulearn-no-games"), "{err}");
    }
}
