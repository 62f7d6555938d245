//! [`DepthRange`]: the search depths one parameter takes, written once for
//! the command-line flag and the recipe key that set it.

/// The depths a parameter takes (`min..=max` plies, in the one meaning of
/// depth, `docs/search.md`): its one range, which the flag's parser
/// ([`DepthRange::parse`], clap's `value_parser`) and a recipe's check
/// ([`DepthRange::allowed`]) both read, so the two refuse the same values
/// with the same words.
///
/// ```
/// use kifulearn::search::DepthRange;
///
/// const DEPTHS: DepthRange = DepthRange::new(1, 6);
/// assert_eq!(DEPTHS.parse("3"), Ok(3));
/// assert_eq!(DEPTHS.parse("7"), Err("a depth from 1 to 6".to_string()));
/// assert!(!DEPTHS.contains(0));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DepthRange {
    /// The smallest depth allowed.
    pub min: u32,
    /// The largest depth allowed.
    pub max: u32,
}

impl DepthRange {
    /// The depths `min..=max`.
    pub const fn new(min: u32, max: u32) -> Self {
        assert!(min <= max, "an empty depth range");
        DepthRange { min, max }
    }

    /// Whether `depth` is in the range.
    pub fn contains(self, depth: u32) -> bool {
        (self.min..=self.max).contains(&depth)
    }

    /// What the range allows, as errors say it: `a depth from 1 to 6`.
    pub fn allowed(self) -> String {
        format!("a depth from {} to {}", self.min, self.max)
    }

    /// A flag's value as a depth in the range, or what is allowed (clap
    /// prefixes the flag: `invalid value '7' for '--depth <DEPTH>': a depth
    /// from 1 to 6`).
    pub fn parse(self, text: &str) -> Result<u32, String> {
        match text.parse::<u32>() {
            Ok(d) if self.contains(d) => Ok(d),
            _ => Err(self.allowed()),
        }
    }
}
