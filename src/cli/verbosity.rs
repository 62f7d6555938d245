//! How much a command prints: the one place that decides (`docs/cli.md`).
//!
//! `-q/--quiet` and `-v/--verbose` are global options of `kifulearn`; [`set`]
//! records them once, before the command runs, and every command asks here:
//!
//! | level | progress bars | summary lines | per-iteration traces | warnings, errors |
//! |---|---|---|---|---|
//! | `-q` | no | no | no | yes |
//! | default | yes | yes | no | yes |
//! | `-v` | yes | yes | yes | yes |
//!
//! A summary line says what a step did (rows read, iterations and objective,
//! the model written); a trace is one line per solver iteration, epoch, game
//! or chunk. A command's result (`games`' table, `perft`'s count, `predict`'s
//! error, `match`'s score line) is printed at every level. Warnings (an
//! iteration cap reached, a record file read as Shift_JIS) are printed even
//! with `-q`: they change what the result means.

use std::sync::atomic::{AtomicU8, Ordering};

use indicatif::{ProgressBar, ProgressStyle};

/// How much to print.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Verbosity {
    /// Warnings, errors and results only.
    Quiet = 0,
    /// Progress bars and one summary line per step as well.
    Normal = 1,
    /// Per-iteration traces as well.
    Verbose = 2,
}

static LEVEL: AtomicU8 = AtomicU8::new(Verbosity::Normal as u8);

/// Records the level for the rest of the process.
pub fn set(level: Verbosity) {
    LEVEL.store(level as u8, Ordering::Relaxed);
}

/// The level in effect.
pub fn level() -> Verbosity {
    match LEVEL.load(Ordering::Relaxed) {
        0 => Verbosity::Quiet,
        1 => Verbosity::Normal,
        _ => Verbosity::Verbose,
    }
}

/// `-q` was given: no progress bars, no summaries.
pub fn quiet() -> bool {
    level() == Verbosity::Quiet
}

/// `-v` was given: per-iteration traces too.
pub fn verbose() -> bool {
    level() == Verbosity::Verbose
}

/// A progress bar of `len` steps drawn with `template` (indicatif's syntax,
/// `=> ` as its characters), hidden with `-q`. indicatif itself draws nothing
/// when stderr is not a terminal.
pub fn bar(len: u64, template: &str) -> Result<ProgressBar, String> {
    if quiet() {
        return Ok(ProgressBar::hidden());
    }
    let bar = ProgressBar::new(len);
    bar.set_style(
        ProgressStyle::with_template(template)
            .map_err(|e| format!("progress bar template {template:?}: {e}"))?
            .progress_chars("=> "),
    );
    Ok(bar)
}

/// A summary line on stderr, unless `-q`.
macro_rules! summary {
    ($($arg:tt)*) => {
        if !$crate::cli::verbosity::quiet() {
            eprintln!($($arg)*);
        }
    };
}

/// A per-iteration trace line on stderr, only with `-v`.
macro_rules! trace {
    ($($arg:tt)*) => {
        if $crate::cli::verbosity::verbose() {
            eprintln!($($arg)*);
        }
    };
}

pub(crate) use {summary, trace};
