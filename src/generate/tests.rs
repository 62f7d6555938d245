use std::path::Path;

use super::*;
use crate::arena::{default_openings, GameEnd};
use crate::eval::Material;
use crate::positions::GameResult;
use crate::shogi::Color;

fn quick() -> GenerateConfig {
    GenerateConfig {
        depth: Some(1),
        max_plies: 120,
        hash_mb: 1,
        ..GenerateConfig::default()
    }
}

fn tables() -> [TranspositionTable; 2] {
    [TranspositionTable::new(1), TranspositionTable::new(1)]
}

#[test]
fn shard_parses_k_of_n() {
    assert_eq!("1/4".parse::<Shard>(), Ok(Shard { index: 1, count: 4 }));
    assert_eq!(Shard { index: 1, count: 4 }.game(3), 13);
    // Games 0..10 split 4 ways: 0 4 8 | 1 5 9 | 2 6 | 3 7.
    let counts: Vec<u64> = (0..4)
        .map(|index| Shard { index, count: 4 }.games_of(10))
        .collect();
    assert_eq!(counts, [3, 3, 2, 2]);
    assert_eq!(Shard { index: 3, count: 4 }.games_of(2), 0);
    for bad in ["4/4", "1/0", "1", "a/2", "-1/2"] {
        assert!(bad.parse::<Shard>().is_err(), "{bad}");
    }
}

#[test]
fn bundled_openings_are_kept_and_match_openings_refused() {
    let set = generation_openings(None).unwrap();
    assert_eq!(set.openings.len(), 30);
    assert!(set.refused.is_empty());
    // Two test openings and one training line: the test openings are refused.
    let text = "startpos moves 7g7f 3c3d\n".to_string()
        + "position startpos moves 2g2f\n"
        + &std::fs::read_to_string("fixtures/openings/match.sfen")
            .unwrap()
            .lines()
            .skip(5)
            .take(2)
            .collect::<Vec<_>>()
            .join("\n");
    let set = generation_openings(Some((&text, Path::new("extra.sfen")))).unwrap();
    assert_eq!(set.openings.len(), 32);
    assert_eq!(
        set.refused,
        vec![("extra.sfen".to_string(), 3), ("extra.sfen".to_string(), 4)]
    );
    let test: Vec<u64> = default_openings()
        .iter()
        .map(|o| o.position().hash())
        .collect();
    assert!(set
        .openings
        .iter()
        .all(|o| !test.contains(&o.position().hash())));
}

#[test]
fn a_game_is_a_function_of_the_seed_and_its_index() {
    let set = generation_openings(None).unwrap();
    let cfg = quick();
    let a = play_game(&Material, &set.openings, 5, &cfg, &mut tables());
    let b = play_game(&Material, &set.openings, 5, &cfg, &mut tables());
    assert_eq!(a, b);
    let c = play_game(&Material, &set.openings, 6, &cfg, &mut tables());
    assert_ne!(a.moves, c.moves);
    let other_seed = GenerateConfig { seed: 2, ..cfg };
    let d = play_game(&Material, &set.openings, 5, &other_seed, &mut tables());
    assert_ne!(a.moves, d.moves);
}

#[test]
fn positions_carry_clamped_scores_legal_moves_and_the_result_for_their_side() {
    let set = generation_openings(None).unwrap();
    let cfg = GenerateConfig {
        eval_limit: 800,
        ..quick()
    };
    let mut adjudicated = 0;
    for g in 0..12 {
        let game = play_game(&Material, &set.openings, g, &cfg, &mut tables());
        assert!(!game.positions.is_empty(), "game {g}");
        if game.adjudicated {
            adjudicated += 1;
            assert_eq!(game.end, GameEnd::Resign);
        }
        let mut last_ply = 0;
        for p in &game.positions {
            assert!(p.score.abs() <= 800, "game {g}: score {}", p.score);
            let mv = p.best_move.expect("a searched position has a best move");
            assert!(p.position.is_legal(mv));
            assert!(p.ply > last_ply, "positions in game order");
            last_ply = p.ply;
            let side = p.position.side_to_move();
            let expected = match game.winner {
                None => GameResult::Draw,
                Some(w) if w == side => GameResult::Win,
                Some(_) => GameResult::Loss,
            };
            assert_eq!(p.result, expected);
        }
        // Written positions start at skip_plies and only after the opening.
        let first = &game.positions[0];
        let mut pos = game.start.clone();
        let mut found = None;
        for (i, &mv) in game.moves.iter().enumerate() {
            if pos == first.position {
                found = Some(i);
                break;
            }
            pos.play_unchecked(mv);
        }
        let i = found.expect("the first position is a position of the game");
        assert!(i >= cfg.skip_plies as usize && i >= game.opening_plies);
        // The last searched position's score explains an adjudication.
        if game.adjudicated {
            let loser = !game.winner.unwrap();
            let last = game.positions.last().unwrap();
            let by_loser = last.position.side_to_move() == loser;
            assert_eq!(
                i32::from(last.score),
                if by_loser { -800 } else { 800 },
                "game {g}"
            );
        }
    }
    assert!(adjudicated > 0, "a limit of 800 cp ends some games");
}

#[test]
fn random_plies_change_the_game_and_skip_plies_the_positions_written() {
    let set = generation_openings(None).unwrap();
    let none = GenerateConfig {
        random_prob: 0.0,
        ..quick()
    };
    let all = GenerateConfig {
        random_prob: 1.0,
        ..quick()
    };
    let a = play_game(&Material, &set.openings, 0, &none, &mut tables());
    let b = play_game(&Material, &set.openings, 0, &all, &mut tables());
    assert_eq!(a.opening_line, b.opening_line, "the opening comes first");
    assert_ne!(a.moves, b.moves);
    // With every one of the first 8 plies random, none of them is written.
    let first = b.positions[0].position.move_number() as usize;
    assert!(first > b.opening_plies + 8, "{first}");
    let late = GenerateConfig {
        skip_plies: 60,
        ..none.clone()
    };
    let c = play_game(&Material, &set.openings, 0, &late, &mut tables());
    assert_eq!(a.moves, c.moves);
    assert!(c.positions.len() < a.positions.len());
    assert!(c.positions.iter().all(|p| p.ply as usize > 60));
}

#[test]
fn a_run_resumes_and_refuses_other_options() {
    let dir = std::env::temp_dir().join(format!("kifulearn-generate-unit-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let set = generation_openings(None).unwrap();
    let cfg = GenerateConfig {
        target: Target::Positions(150),
        chunk_games: 1,
        jobs: 2,
        ..quick()
    };
    let first = generate(&Material, &set.openings, &cfg, &dir, false, |_| {}).unwrap();
    assert!(first.positions >= 150);
    let more = GenerateConfig {
        target: Target::Positions(300),
        ..cfg.clone()
    };
    let second = generate(&Material, &set.openings, &more, &dir, false, |_| {}).unwrap();
    assert_eq!(second.chunks_before, first.chunks);
    assert_eq!(second.positions_before, first.positions);
    assert!(second.positions >= 300);
    let other = GenerateConfig {
        seed: 9,
        ..more.clone()
    };
    let e = generate(&Material, &set.openings, &other, &dir, false, |_| {}).unwrap_err();
    assert!(e.to_string().contains("option --seed differs"), "{e}");
    let forced = generate(&Material, &set.openings, &other, &dir, true, |_| {}).unwrap();
    assert_eq!(forced.positions_before, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generated_records_read_back_with_their_winner() {
    let set = generation_openings(None).unwrap();
    let game = play_game(&Material, &set.openings, 3, &quick(), &mut tables());
    let text = crate::record::csa_writer::to_csa(&game.to_record("x"), &[]);
    let read = crate::record::csa::read(&text, Path::new("g.csa"));
    let read = read[0].as_ref().unwrap();
    assert_eq!(read.moves, game.moves);
    let expected = match game.winner {
        None => crate::record::GameResult::Draw,
        Some(Color::Black) => crate::record::GameResult::BlackWin,
        Some(Color::White) => crate::record::GameResult::WhiteWin,
    };
    assert_eq!(read.result, expected);
}
