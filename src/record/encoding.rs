//! The text encoding of a record file, decided per file (`docs/cli.md`,
//! "KIF encoding").
//!
//! 1. A BOM or valid UTF-8: UTF-8.
//! 2. UTF-8 but for a few invalid bytes (at most one invalid sequence per
//!    [`UTF8_PER_INVALID`] non-ASCII characters that are valid UTF-8): still
//!    UTF-8, each invalid byte read as U+FFFD and reported with its line,
//!    column and byte offset. Before this rule one stray byte made a whole
//!    UTF-8 KIF decode as Shift_JIS: every line became mojibake and the game
//!    failed at a later line than the byte's.
//! 3. Otherwise Shift_JIS (CP932), reported with where UTF-8 first failed.
//!
//! Measured on the records at hand: the 23 UTF-8 KIF files of the
//! development collection (`edo-kif`, not shipped; three are in
//! `fixtures/edo-kif`) hold 416–1,304 non-ASCII characters and no invalid
//! sequence; the Shift_JIS fixtures hold 8–10 sequences that happen to be
//! valid UTF-8 against 96–229 invalid ones, so the threshold sits far from
//! both.

/// Valid non-ASCII UTF-8 characters needed per invalid sequence for a file to
/// stay UTF-8 (rule 2 above).
pub const UTF8_PER_INVALID: usize = 20;

/// Where a byte that is not UTF-8 stands in a file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BadByte {
    /// Offset of the byte in the file (a BOM counted), 0-based.
    pub offset: usize,
    /// 1-based line.
    pub line: usize,
    /// 1-based column in characters (the line's bytes before it read as UTF-8).
    pub column: usize,
    /// The byte.
    pub byte: u8,
}

impl std::fmt::Display for BadByte {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {} (byte offset {}): 0x{:02X}",
            self.line, self.column, self.offset, self.byte
        )
    }
}

/// How a file's bytes were decoded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TextEncoding {
    /// Valid UTF-8 (a BOM, if any, dropped).
    Utf8,
    /// UTF-8 with a few invalid bytes, each read as U+FFFD: the first of them
    /// and how many invalid sequences there are.
    Utf8WithInvalid {
        /// The first invalid byte.
        first: BadByte,
        /// Invalid sequences in the file.
        count: usize,
    },
    /// Not UTF-8: read as Shift_JIS. Where UTF-8 first failed.
    ShiftJis(BadByte),
}

impl TextEncoding {
    /// The warning to give about a file read this way, or `None` for clean UTF-8.
    pub fn warning(&self) -> Option<String> {
        match self {
            TextEncoding::Utf8 => None,
            TextEncoding::Utf8WithInvalid { first, count } => Some(format!(
                "invalid UTF-8 at {first}{}; read as U+FFFD, the rest of the file is UTF-8",
                if *count > 1 {
                    format!(" and {} more place(s)", count - 1)
                } else {
                    String::new()
                }
            )),
            TextEncoding::ShiftJis(first) => Some(format!(
                "not UTF-8 (first invalid byte at {first}); read as Shift_JIS"
            )),
        }
    }
}

/// A decoded text file.
#[derive(Debug, Clone)]
pub struct DecodedText {
    /// The text.
    pub text: String,
    /// How it was decoded.
    pub encoding: TextEncoding,
}

/// Decodes `bytes` by the rules of the module doc.
pub fn decode(bytes: &[u8]) -> DecodedText {
    let (bom, body) = match bytes.strip_prefix(b"\xEF\xBB\xBF") {
        Some(rest) => (3, rest),
        None => (0, bytes),
    };
    if let Ok(s) = std::str::from_utf8(body) {
        return DecodedText {
            text: s.to_string(),
            encoding: TextEncoding::Utf8,
        };
    }
    // Valid non-ASCII characters and invalid sequences, and the first of those.
    let (mut valid, mut invalid, mut first) = (0usize, 0usize, None);
    let mut rest = body;
    let mut at = 0;
    loop {
        match std::str::from_utf8(rest) {
            Ok(s) => {
                valid += s.chars().filter(|c| !c.is_ascii()).count();
                break;
            }
            Err(e) => {
                let good = e.valid_up_to();
                // Checked by from_utf8 just above.
                let s = std::str::from_utf8(&rest[..good]).unwrap_or_default();
                valid += s.chars().filter(|c| !c.is_ascii()).count();
                invalid += 1;
                first.get_or_insert(at + good);
                let skip = good + e.error_len().unwrap_or(rest.len() - good);
                at += skip;
                rest = &rest[skip..];
            }
        }
    }
    let first = locate(body, first.unwrap_or(0), bom);
    if invalid * UTF8_PER_INVALID <= valid {
        DecodedText {
            text: String::from_utf8_lossy(body).into_owned(),
            encoding: TextEncoding::Utf8WithInvalid {
                first,
                count: invalid,
            },
        }
    } else {
        DecodedText {
            text: encoding_rs::SHIFT_JIS.decode(body).0.into_owned(),
            encoding: TextEncoding::ShiftJis(first),
        }
    }
}

/// Line, column and file offset of `body[offset]` (`bom` bytes precede `body`).
fn locate(body: &[u8], offset: usize, bom: usize) -> BadByte {
    let before = &body[..offset];
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    BadByte {
        offset: offset + bom,
        line: 1 + before.iter().filter(|&&b| b == b'\n').count(),
        column: 1 + String::from_utf8_lossy(&before[line_start..])
            .chars()
            .count(),
        byte: body.get(offset).copied().unwrap_or(0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clean_utf8_with_and_without_bom() {
        let d = decode("手合割：平手\n".as_bytes());
        assert_eq!(
            (d.text.as_str(), d.encoding),
            ("手合割：平手\n", TextEncoding::Utf8)
        );
        let d = decode(b"\xEF\xBB\xBFabc");
        assert_eq!((d.text.as_str(), d.encoding), ("abc", TextEncoding::Utf8));
    }

    #[test]
    fn shift_jis_is_decoded_and_located() {
        // "先手：\n手合割：平手" in Shift_JIS.
        let (sjis, _, _) = encoding_rs::SHIFT_JIS.encode("先手：太郎\n手合割：平手\n");
        let d = decode(&sjis);
        assert_eq!(d.text, "先手：太郎\n手合割：平手\n");
        let TextEncoding::ShiftJis(first) = d.encoding else {
            panic!("{:?}", d.encoding)
        };
        assert_eq!((first.offset, first.line, first.column), (0, 1, 1));
    }

    #[test]
    fn a_stray_byte_in_utf8_stays_utf8_and_is_located() {
        let mut text = "手合割：平手\n".repeat(10).into_bytes();
        // Line 3, after "手合" (6 bytes): one byte that cannot start a sequence.
        let line3 = "手合割：平手\n".len() * 2;
        text.insert(line3 + 6, 0xFF);
        let d = decode(&text);
        assert_eq!(
            d.encoding,
            TextEncoding::Utf8WithInvalid {
                first: BadByte {
                    offset: line3 + 6,
                    line: 3,
                    column: 3,
                    byte: 0xFF
                },
                count: 1
            }
        );
        assert_eq!(d.text.lines().nth(2), Some("手合\u{FFFD}割：平手"));
        assert_eq!(d.text.lines().nth(3), Some("手合割：平手"));
        let w = d.encoding.warning().unwrap();
        let want = format!(
            "invalid UTF-8 at line 3, column 3 (byte offset {}): 0xFF;",
            line3 + 6
        );
        assert!(w.starts_with(&want), "{w}");
    }
}
