//! The selective search's constants, tunable from the environment in a
//! `tune` build, so that a step can be matched against the search before it
//! from one binary (`docs/search.md`, "Tuning a step").
//!
//! Each constant keeps its one definition (a `const` in `selective.rs`);
//! where the search reads it, it is written `tuned!(NAME)`. In an ordinary
//! build that is `NAME` itself, so the search compiles to what it was. In a
//! build with `--features tune` it reads `KIFULEARN_TUNE_NAME` once per
//! process, and falls back to the constant when the variable is unset; a
//! value that does not parse ends the process with a message instead of
//! being ignored. Nothing outside the selective search reads a tunable
//! constant, so rows, labels and self-play are the same in both builds.
//!
//! Why by hand: the engine's constants are few and read in its hottest
//! loop, and what is needed is an environment variable read once, which
//! `std` does. Stockfish's `TUNE` macro and YaneuraOu's `PARAM_DEFINE`
//! serve the same purpose there.

use std::str::FromStr;

/// The environment variable a tunable constant is read from.
pub const PREFIX: &str = "KIFULEARN_TUNE_";

/// The value of the constant `name` (default `default`) given what the
/// environment holds for it: `None` keeps the default; a value that does
/// not parse is an error that names the variable.
pub fn read<T: FromStr>(name: &str, default: T, value: Option<&str>) -> Result<T, String> {
    match value {
        None => Ok(default),
        Some(v) => v
            .trim()
            .parse()
            .map_err(|_| format!("{PREFIX}{name}={v:?} does not parse as the constant's type")),
    }
}

/// The value of `name` in this process: the environment's, else `default`.
/// A value that does not parse ends the process (exit code 2) with the
/// message on stderr: a tuning run with a mistyped value must not play the
/// default while its report says otherwise, and a panic would end only the
/// search thread.
pub fn from_env<T: FromStr>(name: &str, default: T) -> T {
    let value = std::env::var(format!("{PREFIX}{name}")).ok();
    read(name, default, value.as_deref()).unwrap_or_else(|e| {
        eprintln!("kifulearn: {e}");
        std::process::exit(2)
    })
}

/// A selective-search constant as the search reads it: the constant itself,
/// or in a `tune` build the environment's value, read once (module docs).
#[cfg(not(feature = "tune"))]
macro_rules! tuned {
    ($name:ident $(: $ty:ty)?) => {
        $name
    };
}

/// A selective-search constant as the search reads it: the constant itself,
/// or in a `tune` build the environment's value, read once (module docs).
#[cfg(feature = "tune")]
macro_rules! tuned {
    ($name:ident) => {
        $crate::search::tune::tuned!($name: i32)
    };
    ($name:ident : $ty:ty) => {{
        static VALUE: std::sync::OnceLock<$ty> = std::sync::OnceLock::new();
        *VALUE.get_or_init(|| $crate::search::tune::from_env(stringify!($name), $name))
    }};
}

pub(super) use tuned;

#[cfg(test)]
mod tests {
    use super::read;

    #[test]
    fn an_unset_constant_keeps_its_default_and_a_set_one_is_read() {
        assert_eq!(read("FUTILITY_DEPTH", 3, None), Ok(3));
        assert_eq!(read("FUTILITY_DEPTH", 3, Some("5")), Ok(5));
        assert_eq!(read("NULL_MOVE_MARGIN", 0, Some(" -40 ")), Ok(-40));
        assert_eq!(read("REDUCTION_DIVISOR", 1.5f32, Some("2")), Ok(2.0));
    }

    #[test]
    fn a_value_that_does_not_parse_is_refused() {
        assert_eq!(
            read("FUTILITY_DEPTH", 3, Some("five")),
            Err(
                "KIFULEARN_TUNE_FUTILITY_DEPTH=\"five\" does not parse as the constant's type"
                    .into()
            )
        );
        assert!(read("FUTILITY_DEPTH", 3, Some("1.5")).is_err());
    }
}
