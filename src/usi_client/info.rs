//! What an engine's `info` lines say: depth, nodes, time and score.

use std::time::Duration;

/// A score as a USI engine reports it, from the side to move's view.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InfoScore {
    /// `score cp X`.
    Cp(i32),
    /// `score mate N`: mate in N plies (N > 0: the side to move mates; N ≤ 0:
    /// it is mated; `mate +`/`mate -` read as ±1000).
    Mate(i32),
}

/// What the `info` lines of one search said, each field from the last line
/// that gave it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Info {
    /// `depth D`.
    pub depth: Option<u32>,
    /// `nodes N`.
    pub nodes: Option<u64>,
    /// `time MS`.
    pub time: Option<Duration>,
    /// `score cp X` / `score mate N` (`lowerbound`/`upperbound` ignored).
    pub score: Option<InfoScore>,
    /// The first line whose score did not parse, with why.
    pub garbage: Option<String>,
}

impl Info {
    /// Takes what the `info` line `line` says over what earlier lines said.
    /// Free text (`string ...`) and the moves of `pv` are not read.
    pub fn read(&mut self, line: &str) {
        let mut words = line.split_whitespace().skip(1);
        while let Some(w) = words.next() {
            match w {
                "string" | "pv" => break,
                "depth" => {
                    if let Some(d) = words.next().and_then(|v| v.parse().ok()) {
                        self.depth = Some(d);
                    }
                }
                "nodes" => {
                    if let Some(n) = words.next().and_then(|v| v.parse().ok()) {
                        self.nodes = Some(n);
                    }
                }
                "time" => {
                    if let Some(ms) = words.next().and_then(|v| v.parse().ok()) {
                        self.time = Some(Duration::from_millis(ms));
                    }
                }
                "score" => match score_words(words.next(), words.next()) {
                    Some(s) => self.score = Some(s),
                    None => {
                        if self.garbage.is_none() {
                            self.garbage = Some(format!("{line:?}: expected score cp X or mate N"));
                        }
                        break;
                    }
                },
                _ => {}
            }
        }
    }
}

/// The score of `score KIND VALUE`.
fn score_words(kind: Option<&str>, value: Option<&str>) -> Option<InfoScore> {
    match (kind, value) {
        (Some("cp"), Some(v)) => v.parse().ok().map(InfoScore::Cp),
        (Some("mate"), Some("+")) => Some(InfoScore::Mate(1000)),
        (Some("mate"), Some("-")) => Some(InfoScore::Mate(-1000)),
        (Some("mate"), Some(v)) => v.trim_start_matches('+').parse().ok().map(InfoScore::Mate),
        _ => None,
    }
}

/// The score of an `info` line, if it has one: `score cp X` or `score mate
/// N` (`mate +`/`mate -` read as ±1000; `lowerbound`/`upperbound` ignored);
/// an error naming the line when its score does not parse.
///
/// ```
/// use kifulearn::usi_client::{parse_info_score, InfoScore};
/// let s = parse_info_score("info depth 8 seldepth 11 score cp -161 nodes 9188 pv 7g7f");
/// assert_eq!(s.unwrap(), Some(InfoScore::Cp(-161)));
/// assert_eq!(parse_info_score("info depth 0 score mate 0").unwrap(), Some(InfoScore::Mate(0)));
/// assert_eq!(parse_info_score("info string hello").unwrap(), None);
/// assert!(parse_info_score("info score cp banana").is_err());
/// ```
pub fn parse_info_score(line: &str) -> Result<Option<InfoScore>, String> {
    let mut info = Info::default();
    info.read(line);
    match info.garbage {
        Some(why) => Err(why),
        None => Ok(info.score),
    }
}
