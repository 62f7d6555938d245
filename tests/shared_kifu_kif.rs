//! Reads every game of `../shared/kifu/edo-kif` (when present) through the KIF reader.

use std::path::Path;

use kifulearn::record::{self, Format, GameResult};

#[test]
fn all_edo_kif_games_read_and_agree_with_their_summary() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/kifu/edo-kif");
    if !dir.exists() {
        eprintln!("skipped: {} not found", dir.display());
        return;
    }
    let files = record::find_record_files(&[dir]).unwrap();
    assert_eq!(files.len(), 23);
    let mut handicap = 0;
    let mut failures = Vec::new();
    for path in &files {
        let read = record::read_file(path);
        assert_eq!(read.format, Some(Format::Kif), "{}", path.display());
        assert_eq!(read.games.len(), 1, "{}", path.display());
        match &read.games[0] {
            Err(e) => failures.push(e.to_string()),
            Ok(game) => {
                let text = std::fs::read_to_string(path).unwrap();
                // The summary line `まで143手で先手の勝ち` gives the count and winner.
                let summary = text.lines().find(|l| l.starts_with("まで")).unwrap();
                let plies: usize = summary
                    .trim_start_matches("まで")
                    .split('手')
                    .next()
                    .unwrap()
                    .parse()
                    .unwrap();
                assert_eq!(game.plies(), plies, "{}", path.display());
                let winner = if summary.contains("先手の勝ち") || summary.contains("下手の勝ち")
                {
                    GameResult::BlackWin
                } else {
                    GameResult::WhiteWin
                };
                assert_eq!(game.result, winner, "{}", path.display());
                // The last mover won: everyone resigned on their own turn.
                let last_mover_black = game.positions().last().unwrap().0.side_to_move()
                    == kifulearn::shogi::Color::White;
                assert_eq!(last_mover_black, winner == GameResult::BlackWin);
                if !text.contains("手合割：平手") {
                    handicap += 1;
                    assert!(game.start.to_sfen().contains(" w "), "{}", path.display());
                }
                assert!(game.black.is_some() && game.white.is_some());
            }
        }
    }
    assert!(failures.is_empty(), "{failures:#?}");
    assert_eq!(handicap, 10);
}
