//! The held-out split: deterministic, by game, stable across runs and machines.

use crate::record::Source;

/// Is the game from `source` held out, for a held-out fraction and seed?
///
/// Decided by a hash of the file name (not the full path, so the split does not
/// depend on where the records are) and the game's index in the file.
pub fn is_held_out(source: &Source, fraction: f64, seed: u64) -> bool {
    if fraction <= 0.0 {
        return false;
    }
    let name = source
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut h: u64 = 0xcbf2_9ce4_8422_2325 ^ seed;
    for b in name.bytes().chain(source.index.to_le_bytes()) {
        h ^= b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    // Finalize (splitmix64) so that nearby names spread over [0, 1).
    let h = crate::rng::mix(h);
    ((h >> 11) as f64 / (1u64 << 53) as f64) < fraction
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    #[test]
    fn split_is_deterministic_and_near_the_fraction() {
        let sources: Vec<Source> = (0..2000)
            .map(|i| Source {
                path: PathBuf::from(format!("some/dir/game{}.csa", i / 4)),
                index: i % 4,
            })
            .collect();
        let held: Vec<bool> = sources.iter().map(|s| is_held_out(s, 0.2, 0)).collect();
        let n = held.iter().filter(|h| **h).count();
        assert!((340..460).contains(&n), "{n} of 2000 held out");
        let moved: Vec<bool> = sources
            .iter()
            .map(|s| {
                let mut s = s.clone();
                s.path = PathBuf::from("elsewhere").join(s.path.file_name().unwrap());
                is_held_out(&s, 0.2, 0)
            })
            .collect();
        assert_eq!(held, moved);
        let reseeded = sources.iter().filter(|s| is_held_out(s, 0.2, 1)).count();
        assert_ne!(
            held,
            sources
                .iter()
                .map(|s| is_held_out(s, 0.2, 1))
                .collect::<Vec<_>>()
        );
        assert!((340..460).contains(&reseeded));
        assert!(sources.iter().all(|s| !is_held_out(s, 0.0, 0)));
    }
}
