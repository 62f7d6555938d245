//! Every CSA game and USI opening line of the development collection
//! (`../shared/kifu/`, see its README) must replay legally: the README says each
//! one does (checked there with cshogi). Skipped when the collection is absent.

use std::path::{Path, PathBuf};

use kifulearn::record::{find_record_files, read_file, Format};

mod common;

/// `../shared/kifu`, or `None` with a note (a failure in CI).
fn collection() -> Option<PathBuf> {
    common::shared("kifu")
}

/// (games read, failures as text, warnings about non-CSA lines)
fn read_folder(dir: &Path) -> (usize, Vec<String>, usize) {
    let files = find_record_files(&[dir.to_path_buf()]).unwrap();
    let (mut ok, mut failed, mut not_csa) = (0, Vec::new(), 0);
    for file in files {
        let read = read_file(&file);
        assert_eq!(read.format, Some(Format::Csa), "{}", file.display());
        for game in read.games {
            match game {
                Ok(g) => {
                    ok += 1;
                    not_csa += g
                        .warnings
                        .iter()
                        .filter(|w| w.ends_with("is not CSA; read as a comment"))
                        .count();
                }
                Err(e) => failed.push(e.to_string()),
            }
        }
    }
    (ok, failed, not_csa)
}

#[test]
fn every_csa_game_replays() {
    let Some(kifu) = collection() else { return };
    let none: &[String] = &[];
    let (ok, failed, not_csa) = read_folder(&kifu.join("tournament"));
    assert_eq!((ok, failed.as_slice()), (47, none));
    // 14 `#RESIGN`, 2 `#TIME_UP` and one `** 1248 ...` line (counted with grep).
    assert_eq!(not_csa, 17);
    let (ok, failed, not_csa) = read_folder(&kifu.join("pro"));
    assert_eq!((ok, failed.as_slice(), not_csa), (10, none, 0));
    let (ok, failed, not_csa) = read_folder(&kifu.join("selfplay"));
    assert_eq!((ok, failed.as_slice(), not_csa), (625, none, 0));
}

#[test]
fn every_floodgate_opening_line_replays() {
    let Some(kifu) = collection() else { return };
    let read = read_file(&kifu.join("floodgate2016-openings.sfen"));
    assert_eq!(read.format, Some(Format::Usi));
    assert_eq!(read.games.len(), 10_831);
    for game in &read.games {
        let game = game.as_ref().unwrap();
        assert_eq!(game.plies(), 24, "{}", game.source);
    }
}
