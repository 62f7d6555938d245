//! Reading libsvm files into a CSR matrix, in parallel and without holding text.
//!
//! Files are read in line-aligned blocks of [`BLOCK_BYTES`]; each block is cut
//! into line-aligned pieces parsed in parallel (rayon) straight from bytes,
//! and the pieces are appended in order. So peak memory is the final matrix
//! plus one block, never the text of a whole file.
//!
//! The text is svmlight as its producers write it (SVMlight, scikit-learn's
//! `dump_svmlight_file`): `#` starts a comment that runs to the end of the
//! line (a line holding only a comment is no row), tokens are separated by
//! any run of blanks and tabs, and `qid:N` may follow the label (ranking
//! data). The group ids are kept for a learner that asks for them
//! ([`read_paths_with_groups`], [`RowBuffer::group`]) and ignored otherwise.
//! Everything else stays strict: an empty line, a non-numeric label, an
//! index that is not a positive integer, an index beyond
//! [`crate::files::MAX_FEATURES`] (learners size their weights by the largest
//! index, so `4294967295:1` would be a 32 GB allocation), unsorted indices, or
//! `qid:` anywhere but right after the label is an error naming the file and line.
//!
//! Labels are kept as `f64`: the writer prints them in shortest round-trip
//! `f64` form, liblinear reads them as `double`, and the objective is summed in
//! `f64`; at 8 bytes a row they cost nothing next to the nonzeros.
//!
//! The blocks are parsed into the compact form ([`read_paths_compact`]: `u8`
//! values while every value is an integer 0..=255, `f32` from the first one
//! that is not); [`read_paths`] widens that to the `f32` matrix of
//! [`LibsvmData`]. [`RowBuffer`] keeps `f32` values; both share one line
//! parser, so they accept and refuse the same text.

use std::fmt;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

use ndarray::Array1;
use rayon::prelude::*;
use sprs::CsMatI;

use super::compact::{CompactCsr, CompactData, Parsed, Values};

/// Bytes read from a file at a time (then cut at the last newline).
pub const BLOCK_BYTES: usize = 16 << 20;

/// A libsvm data set: rows of `(index - 1, value)` in CSR form, and labels.
#[derive(Debug, Clone)]
pub struct LibsvmData {
    /// Rows × columns, columns = the largest 1-based index seen (liblinear's
    /// `nr_feature`); column `j` holds feature index `j + 1`.
    pub x: CsMatI<f32, u32>,
    /// One label per row.
    pub y: Array1<f64>,
}

/// A malformed line or an unreadable file, with where and what was expected.
#[derive(Debug)]
pub enum ReadError {
    /// The file could not be opened or read.
    Io {
        /// The file.
        path: PathBuf,
        /// The cause.
        source: io::Error,
    },
    /// A line does not follow `label idx:val ...` with ascending indices.
    Syntax {
        /// The file.
        path: PathBuf,
        /// 1-based line number.
        line: u64,
        /// What was wrong.
        message: String,
    },
    /// More nonzeros than `u32` CSR offsets can address.
    TooLarge,
    /// No file to read (an empty folder, or no path given).
    NoFiles(String),
}

impl fmt::Display for ReadError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReadError::Io { path, source } => write!(f, "{}: {source}", path.display()),
            ReadError::Syntax {
                path,
                line,
                message,
            } => write!(f, "{}:{line}: {message}", path.display()),
            ReadError::TooLarge => write!(f, "more than 4294967295 nonzeros in one data set"),
            ReadError::NoFiles(what) => write!(f, "no libsvm file to read in {what}"),
        }
    }
}

impl std::error::Error for ReadError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            ReadError::Io { source, .. } => Some(source),
            _ => None,
        }
    }
}

/// Lists the files to read: files as given, folders as their `*.svm` files
/// (recursively, sorted by path so runs are reproducible).
pub fn expand_paths<P: AsRef<Path>>(paths: &[P]) -> Result<Vec<PathBuf>, ReadError> {
    let mut out = Vec::new();
    for p in paths {
        let p = p.as_ref();
        if p.is_dir() {
            let mut found = Vec::new();
            collect_svm(p, &mut found)?;
            found.sort();
            if found.is_empty() {
                return Err(ReadError::NoFiles(p.display().to_string()));
            }
            out.extend(found);
        } else {
            out.push(p.to_path_buf());
        }
    }
    if out.is_empty() {
        return Err(ReadError::NoFiles("the arguments".into()));
    }
    Ok(out)
}

fn collect_svm(dir: &Path, out: &mut Vec<PathBuf>) -> Result<(), ReadError> {
    let io_err = |source| ReadError::Io {
        path: dir.to_path_buf(),
        source,
    };
    for entry in std::fs::read_dir(dir).map_err(io_err)? {
        let path = entry.map_err(io_err)?.path();
        if path.is_dir() {
            collect_svm(&path, out)?;
        } else if path.extension().is_some_and(|e| e == "svm") {
            out.push(path);
        }
    }
    Ok(())
}

/// Reads one or more libsvm files or folders of `*.svm` files into one data set.
pub fn read_paths<P: AsRef<Path>>(paths: &[P]) -> Result<LibsvmData, ReadError> {
    Ok(read_paths_with_groups(paths)?.0)
}

/// Each row's group (`qid:N`): `None` when no row has one, else one entry per row.
pub type Groups = Option<Vec<Option<u64>>>;

/// As [`read_paths`], with each row's group (`qid:N`, ranking data): `None`
/// when no row has a `qid`, else one entry per row (`None` for a row without one).
pub fn read_paths_with_groups<P: AsRef<Path>>(
    paths: &[P],
) -> Result<(LibsvmData, Groups), ReadError> {
    let files = expand_paths(paths)?;
    let mut acc = Accumulator::default();
    for file in &files {
        acc.read_file(file)?;
    }
    acc.finish_with_groups()
}

/// As [`read_paths`], into the compact form the SVR solvers read: `u32`
/// indices and `u8` values when every value is an integer 0..=255, else `f32`
/// ([`CompactData`]; 5 bytes a nonzero instead of 8). The same text is
/// accepted and refused, with the same messages.
pub fn read_paths_compact<P: AsRef<Path>>(paths: &[P]) -> Result<CompactData, ReadError> {
    let files = expand_paths(paths)?;
    let mut acc = Accumulator::default();
    for file in &files {
        acc.read_file(file)?;
    }
    Ok(acc.finish_compact().0)
}

/// As [`read_bytes`], into the compact form ([`read_paths_compact`]).
pub fn read_bytes_compact(name: &Path, bytes: &[u8]) -> Result<CompactData, ReadError> {
    let mut acc = Accumulator::default();
    acc.add_block(name, bytes)?;
    Ok(acc.finish_compact().0)
}

/// Reads libsvm text from memory (`name` is used in error messages).
pub fn read_bytes(name: &Path, bytes: &[u8]) -> Result<LibsvmData, ReadError> {
    let mut acc = Accumulator::default();
    acc.add_block(name, bytes)?;
    acc.finish()
}

#[derive(Default)]
struct Accumulator {
    labels: Vec<f64>,
    indptr: Vec<u32>,
    indices: Vec<u32>,
    values: Values,
    max_index: u32,
    lines_before: u64,
    groups: Vec<Option<u64>>,
    any_group: bool,
}

/// The parse of one line-aligned piece of text.
#[derive(Default)]
struct Piece {
    rows: PieceRows,
    /// Lines read (rows, comment lines included).
    lines: u64,
    /// (1-based line within the piece, message)
    error: Option<(u64, String)>,
}

/// The rows of one [`Piece`], with compact values.
#[derive(Default)]
struct PieceRows {
    labels: Vec<f64>,
    row_ends: Vec<u32>,
    indices: Vec<u32>,
    values: Values,
    groups: Vec<Option<u64>>,
    max_index: u32,
}

impl LineSink for PieceRows {
    type Value = Parsed;
    #[inline]
    fn parse_value(text: &[u8]) -> Option<Parsed> {
        // Fast path: up to three digits (the attack codes, counts).
        if !text.is_empty() && text.len() <= 3 && text.iter().all(u8::is_ascii_digit) {
            let mut v = 0u32;
            for &d in text {
                v = v * 10 + (d - b'0') as u32;
            }
            if v <= 255 {
                return Some(Parsed::U8(v as u8));
            }
        }
        parse_f32(text).map(Parsed::of)
    }
    #[inline]
    fn push_entry(&mut self, index0: u32, value: Parsed) {
        self.indices.push(index0);
        self.values.push(value);
    }
    fn end_row(&mut self, label: f64, group: Option<u64>, last: u32) {
        self.max_index = self.max_index.max(last);
        self.groups.push(group);
        self.labels.push(label);
        self.row_ends.push(self.indices.len() as u32);
    }
}

/// Where [`parse_line`] puts a row: the parse and the checks are shared, the
/// storage of values is the sink's.
trait LineSink {
    /// A parsed value.
    type Value;
    /// The value of `text`, or `None` when it is not a finite number.
    fn parse_value(text: &[u8]) -> Option<Self::Value>;
    /// Appends one entry of the current row (0-based index, checked).
    fn push_entry(&mut self, index0: u32, value: Self::Value);
    /// Ends the current row.
    fn end_row(&mut self, label: f64, group: Option<u64>, last: u32);
}

impl LineSink for RowBuffer {
    type Value = f32;
    #[inline]
    fn parse_value(text: &[u8]) -> Option<f32> {
        parse_f32(text)
    }
    #[inline]
    fn push_entry(&mut self, index0: u32, value: f32) {
        self.indices.push(index0);
        self.values.push(value);
    }
    fn end_row(&mut self, label: f64, group: Option<u64>, last: u32) {
        self.max_index = self.max_index.max(last);
        self.groups.push(group);
        self.labels.push(label);
        self.row_ends.push(self.indices.len() as u32);
    }
}

/// Parsed rows held for reuse: clearing keeps the allocations, so a reader
/// that refills one buffer per file or chunk allocates only while it grows.
///
/// Indices are stored 0-based (`index - 1`), as in [`LibsvmData::x`].
#[derive(Debug, Default, Clone)]
pub struct RowBuffer {
    labels: Vec<f64>,
    /// End of each row in `indices`/`values`.
    row_ends: Vec<u32>,
    indices: Vec<u32>,
    values: Vec<f32>,
    /// The `qid` of each row, if written.
    groups: Vec<Option<u64>>,
    /// Largest 1-based index seen since the last clear (0: none).
    max_index: u32,
}

impl RowBuffer {
    /// An empty buffer.
    pub fn new() -> Self {
        Self::default()
    }

    /// Forgets the rows, keeping the allocations.
    pub fn clear(&mut self) {
        self.labels.clear();
        self.row_ends.clear();
        self.indices.clear();
        self.values.clear();
        self.groups.clear();
        self.max_index = 0;
    }

    /// Number of rows.
    pub fn len(&self) -> usize {
        self.labels.len()
    }

    /// True when there is no row.
    pub fn is_empty(&self) -> bool {
        self.labels.is_empty()
    }

    /// Total nonzeros of all rows.
    pub fn nnz(&self) -> usize {
        self.indices.len()
    }

    /// The largest 1-based feature index of the rows (0 when none).
    pub fn max_index(&self) -> u32 {
        self.max_index
    }

    /// Row `i`: its label, 0-based indices (ascending) and values.
    pub fn row(&self, i: usize) -> (f64, &[u32], &[f32]) {
        let a = if i == 0 {
            0
        } else {
            self.row_ends[i - 1] as usize
        };
        let b = self.row_ends[i] as usize;
        (self.labels[i], &self.indices[a..b], &self.values[a..b])
    }

    /// Row `i`'s group (`qid:N`), if the row has one.
    pub fn group(&self, i: usize) -> Option<u64> {
        self.groups[i]
    }

    /// The rows in order, as [`RowBuffer::row`] gives them.
    pub fn iter(&self) -> impl Iterator<Item = (f64, &[u32], &[f32])> + '_ {
        (0..self.len()).map(|i| self.row(i))
    }

    /// Parses one line (`label [qid:N] idx:val ... [# comment]`, a trailing
    /// newline allowed) and appends it as a row; a line holding only a comment
    /// adds nothing. On error the buffer is left without that row.
    pub fn push_line(&mut self, line: &[u8]) -> Result<(), String> {
        let (n, m) = (self.indices.len(), self.max_index);
        let result = parse_line(line, self);
        if result.is_err() {
            self.indices.truncate(n);
            self.values.truncate(n);
            self.max_index = m;
        }
        result
    }
}

/// Reads a libsvm file a chunk of rows at a time, line by line, so a file
/// of any size is held as at most one chunk of parsed rows and one line of text.
pub struct RowReader {
    path: PathBuf,
    input: BufReader<File>,
    line: Vec<u8>,
    line_number: u64,
}

impl RowReader {
    /// Opens `path`.
    pub fn open(path: &Path) -> Result<RowReader, ReadError> {
        let file = File::open(path).map_err(|source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Ok(RowReader {
            path: path.to_path_buf(),
            input: BufReader::with_capacity(1 << 16, file),
            line: Vec::with_capacity(4096),
            line_number: 0,
        })
    }

    /// Clears `rows` and fills it with up to `max_rows` (at least 1) next rows;
    /// returns false, with `rows` empty, at the end of the file.
    pub fn next_chunk(&mut self, rows: &mut RowBuffer, max_rows: usize) -> Result<bool, ReadError> {
        rows.clear();
        while rows.len() < max_rows.max(1) {
            self.line.clear();
            let n = self
                .input
                .read_until(b'\n', &mut self.line)
                .map_err(|source| ReadError::Io {
                    path: self.path.clone(),
                    source,
                })?;
            if n == 0 {
                break;
            }
            self.line_number += 1;
            rows.push_line(&self.line)
                .map_err(|message| ReadError::Syntax {
                    path: self.path.clone(),
                    line: self.line_number,
                    message,
                })?;
        }
        Ok(!rows.is_empty())
    }
}

impl Accumulator {
    fn read_file(&mut self, path: &Path) -> Result<(), ReadError> {
        let io_err = |source| ReadError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut file = File::open(path).map_err(io_err)?;
        let mut buf = vec![0u8; BLOCK_BYTES];
        let mut filled = 0;
        self.lines_before = 0;
        loop {
            if filled == buf.len() {
                // A single line longer than the block: grow rather than fail.
                buf.resize(buf.len() * 2, 0);
            }
            let n = file.read(&mut buf[filled..]).map_err(io_err)?;
            filled += n;
            let at_end = n == 0;
            let cut = if at_end {
                filled
            } else {
                match memchr_last(b'\n', &buf[..filled]) {
                    Some(i) => i + 1,
                    None => continue,
                }
            };
            self.add_block(path, &buf[..cut])?;
            buf.copy_within(cut..filled, 0);
            filled -= cut;
            if at_end {
                return Ok(());
            }
        }
    }

    fn add_block(&mut self, path: &Path, block: &[u8]) -> Result<(), ReadError> {
        let pieces = split_lines(block, rayon::current_num_threads() * 4);
        let parsed: Vec<Piece> = pieces.par_iter().map(|p| parse_piece(p)).collect();
        let mut lines = self.lines_before;
        for piece in parsed {
            if let Some((line, message)) = piece.error {
                return Err(ReadError::Syntax {
                    path: path.to_path_buf(),
                    line: lines + line,
                    message,
                });
            }
            lines += piece.lines;
            let piece = piece.rows;
            if self.indptr.is_empty() {
                self.indptr.push(0);
            }
            let base = self.indices.len();
            if base + piece.indices.len() > u32::MAX as usize {
                return Err(ReadError::TooLarge);
            }
            self.indptr
                .extend(piece.row_ends.iter().map(|&e| base as u32 + e));
            self.labels.extend_from_slice(&piece.labels);
            self.indices.extend_from_slice(&piece.indices);
            self.values.extend(&piece.values);
            self.any_group |= piece.groups.iter().any(Option::is_some);
            self.groups.extend_from_slice(&piece.groups);
            self.max_index = self.max_index.max(piece.max_index);
        }
        self.lines_before = lines;
        Ok(())
    }

    fn finish(self) -> Result<LibsvmData, ReadError> {
        Ok(self.finish_with_groups()?.0)
    }

    fn finish_with_groups(self) -> Result<(LibsvmData, Groups), ReadError> {
        let (data, groups) = self.finish_compact();
        Ok((
            LibsvmData {
                x: data.x.into_csmat(),
                y: data.y,
            },
            groups,
        ))
    }

    fn finish_compact(mut self) -> (CompactData, Groups) {
        let groups = self.any_group.then(|| std::mem::take(&mut self.groups));
        if self.indptr.is_empty() {
            self.indptr.push(0);
        }
        let cols = self.max_index as usize;
        // Indices were checked ascending and in range while parsing.
        let x = CompactCsr::from_checked(cols, self.indptr, self.indices, self.values);
        (
            CompactData {
                x,
                y: Array1::from(self.labels),
            },
            groups,
        )
    }
}

fn memchr_last(byte: u8, hay: &[u8]) -> Option<usize> {
    hay.iter().rposition(|&b| b == byte)
}

/// Cuts `block` into about `n` pieces, each ending just after a newline (or at the end).
fn split_lines(block: &[u8], n: usize) -> Vec<&[u8]> {
    let mut out = Vec::with_capacity(n);
    let target = block.len() / n.max(1) + 1;
    let mut start = 0;
    while start < block.len() {
        let mut end = (start + target).min(block.len());
        while end < block.len() && block[end - 1] != b'\n' {
            end += 1;
        }
        out.push(&block[start..end]);
        start = end;
    }
    out
}

fn parse_piece(text: &[u8]) -> Piece {
    let mut piece = Piece {
        rows: PieceRows {
            labels: Vec::with_capacity(text.len() / 512 + 1),
            row_ends: Vec::with_capacity(text.len() / 512 + 1),
            indices: Vec::with_capacity(text.len() / 6),
            values: Values::with_capacity(text.len() / 6),
            groups: Vec::with_capacity(text.len() / 512 + 1),
            max_index: 0,
        },
        lines: 0,
        error: None,
    };
    for (n, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
        piece.lines += 1;
        if let Err(message) = parse_line(line, &mut piece.rows) {
            piece.error = Some((n as u64 + 1, message));
            return piece;
        }
    }
    piece
}

fn is_space(b: u8) -> bool {
    b == b' ' || b == b'\t' || b == b'\r' || b == b'\n'
}

fn parse_line<S: LineSink>(line: &[u8], rows: &mut S) -> Result<(), String> {
    // svmlight comments: `#` to the end of the line; a comment line is no row.
    let (line, commented) = match line.iter().position(|&b| b == b'#') {
        Some(at) => (&line[..at], true),
        None => (line, false),
    };
    let mut tokens = line
        .split(|&b| is_space(b))
        .filter(|t| !t.is_empty())
        .peekable();
    let Some(label) = tokens.next() else {
        return if commented {
            Ok(())
        } else {
            Err("empty line, expected a label".to_string())
        };
    };
    let label = parse_f64(label).ok_or_else(|| {
        format!(
            "found \"{}\", expected a number as the label",
            String::from_utf8_lossy(label)
        )
    })?;
    let mut group = None;
    if let Some(qid) = tokens.peek().and_then(|t| t.strip_prefix(b"qid:")) {
        let id = std::str::from_utf8(qid)
            .ok()
            .and_then(|t| t.parse::<u64>().ok())
            .ok_or_else(|| {
                format!(
                    "found \"qid:{}\", expected qid:N with a non-negative integer N",
                    String::from_utf8_lossy(qid)
                )
            })?;
        group = Some(id);
        tokens.next();
    }
    let mut last = 0u32;
    for token in tokens {
        if token.starts_with(b"qid:") {
            return Err(format!(
                "found \"{}\", expected qid:N only right after the label",
                String::from_utf8_lossy(token)
            ));
        }
        let bad = || {
            format!(
                "found \"{}\", expected INDEX:VALUE with a positive integer index",
                String::from_utf8_lossy(token)
            )
        };
        let colon = token.iter().position(|&b| b == b':').ok_or_else(bad)?;
        let index = parse_index(&token[..colon]).ok_or_else(bad)?;
        let value = S::parse_value(&token[colon + 1..]).ok_or_else(bad)?;
        // Learners size their weights by the largest index: check it before it is believed.
        if index as usize > crate::files::MAX_FEATURES {
            return Err(format!(
                "index {index} is beyond the limit of {} features",
                crate::files::MAX_FEATURES
            ));
        }
        if index <= last {
            return Err(format!(
                "index {index} after {last}, indices must be strictly ascending"
            ));
        }
        last = index;
        rows.push_entry(index - 1, value);
    }
    rows.end_row(label, group, last);
    Ok(())
}

fn parse_index(digits: &[u8]) -> Option<u32> {
    if digits.is_empty() || digits.len() > 10 {
        return None;
    }
    let mut v: u64 = 0;
    for &d in digits {
        if !d.is_ascii_digit() {
            return None;
        }
        v = v * 10 + (d - b'0') as u64;
    }
    (1..=u32::MAX as u64).contains(&v).then_some(v as u32)
}

/// Fast path for small integers (the relation features' values 1..10), then
/// the standard library's correctly rounded (Eisel-Lemire) parser.
fn parse_f32(text: &[u8]) -> Option<f32> {
    if !text.is_empty() && text.len() <= 6 && text.iter().all(u8::is_ascii_digit) {
        let mut v = 0u32;
        for &d in text {
            v = v * 10 + (d - b'0') as u32;
        }
        return Some(v as f32);
    }
    let v: f32 = std::str::from_utf8(text).ok()?.parse().ok()?;
    v.is_finite().then_some(v)
}

fn parse_f64(text: &[u8]) -> Option<f64> {
    let v: f64 = std::str::from_utf8(text).ok()?.parse().ok()?;
    v.is_finite().then_some(v)
}

#[cfg(test)]
mod tests;
