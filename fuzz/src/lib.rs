//! Helpers shared by the fuzz targets in `fuzz_targets/` (see `docs/fuzzing.md`).
//!
//! Every target feeds raw bytes to one reader of the library. Besides "no
//! panic, no hang, no huge allocation" (libFuzzer's `-rss_limit_mb` and
//! `-malloc_limit_mb` catch the last), the record targets check what every
//! reader promises: each game it accepts is a sequence of legal moves, and it
//! survives a round trip through the USI line writer and through its own
//! format's writer with the same start position and moves.

use std::path::Path;

use kifulearn::positions::{PositionFormat, PositionReader};
use kifulearn::record::{self, Game, RecordError};

/// The file name the targets report in their errors.
pub const PATH: &str = "fuzz-input";

/// The line that separates a model from its sidecar text in the model targets'
/// inputs: `MODEL BYTES` + [`META_MARKER`] + `SIDECAR TEXT`.
pub const META_MARKER: &[u8] = b"\n#meta.toml\n";

/// Splits a model target's input into the model's bytes and the sidecar text
/// (`None` when there is no marker or the sidecar is not UTF-8, as a missing or
/// unreadable sidecar is for [`kifulearn::model::Model::load`]).
pub fn split_meta(data: &[u8]) -> (&[u8], Option<&str>) {
    match data
        .windows(META_MARKER.len())
        .position(|w| w == META_MARKER)
    {
        Some(at) => (
            &data[..at],
            std::str::from_utf8(&data[at + META_MARKER.len()..]).ok(),
        ),
        None => (data, None),
    }
}

/// Checks what a reader returned: errors format; every game replays legally and
/// reads back from its USI line with the same start and moves. Returns the games.
pub fn check_games(games: Vec<Result<Game, RecordError>>) -> Vec<Game> {
    let mut ok = Vec::new();
    for g in games {
        match g {
            Ok(game) => {
                check_game(&game);
                ok.push(game);
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
    ok
}

fn check_game(game: &Game) {
    let mut pos = game.start.clone();
    for (i, &mv) in game.moves.iter().enumerate() {
        assert!(
            pos.is_legal(mv),
            "move {} ({mv}) of an accepted game is not legal in {}",
            i + 1,
            pos.to_sfen()
        );
        pos.play_unchecked(mv);
    }
    let line = game.to_usi();
    let again = record::usi::read(&line, Path::new(PATH));
    assert_eq!(again.len(), 1, "the USI line {line:?} is not one game");
    match &again[0] {
        Ok(back) => same_game(game, back, "the USI line"),
        Err(e) => panic!("the USI line {line:?} of an accepted game does not read back: {e}"),
    }
}

/// Asserts that `back`, read from what a writer made of `game`, has the same
/// start position and moves.
pub fn same_game(game: &Game, back: &Game, through: &str) {
    assert!(
        back.start.same_position(&game.start),
        "{through}: start {} read back as {}",
        game.start.to_sfen(),
        back.start.to_sfen()
    );
    assert_eq!(
        back.moves_usi(),
        game.moves_usi(),
        "{through}: the moves changed (start {})",
        game.start.to_sfen()
    );
}

/// Reads `written` (a writer's output for the one game `game`) with `read` and
/// asserts it gives the same game back.
pub fn round_trip(
    game: &Game,
    written: &str,
    read: fn(&str, &Path) -> Vec<Result<Game, RecordError>>,
    through: &str,
) {
    let again = read(written, Path::new(PATH));
    assert_eq!(again.len(), 1, "{through}: {written:?} is not one game");
    match &again[0] {
        Ok(back) => same_game(game, back, through),
        Err(e) => panic!("{through}: {written:?} does not read back: {e}"),
    }
}

/// The position-file targets (HCPE, PackedSfenValue): reads `data` as records
/// of `format` through `PositionReader`; every record it accepts encodes, and
/// the bytes decode to the same record; errors format.
pub fn check_positions(data: &[u8], format: PositionFormat) {
    for item in PositionReader::new(data, format) {
        match item {
            Ok(record) => {
                let mut bytes = Vec::new();
                format
                    .encode(&record, &mut bytes)
                    .expect("a record read encodes");
                let back = format.decode(&bytes).expect("an encoded record decodes");
                assert_eq!(back, record, "record changed by encode/decode");
            }
            Err(e) => {
                let _ = e.to_string();
            }
        }
    }
}
