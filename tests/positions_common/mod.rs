//! The position records of every game in `fixtures/`, shared by the position-file tests.

// Each test crate that includes this module uses only part of it.
#![allow(dead_code)]

use std::path::Path;

use kifulearn::positions::{GameResult, PositionRecord};
use kifulearn::record;
use kifulearn::shogi::{Color, Move, Position, Square, HAND_PIECES};

/// Every position of every fixture game (CSA, KIF, USI lines, Kisen: even and
/// handicap games), with the move played as best move, scores spread over
/// the whole `i16` range and the game's result for the side to move.
pub fn fixture_records() -> Vec<PositionRecord> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("fixtures");
    let files = record::find_record_files(&[dir]).unwrap();
    let mut out = Vec::new();
    for file in &files {
        for game in record::read_file(file).games.into_iter().flatten() {
            out.extend(PositionRecord::from_game(&game));
        }
    }
    for (i, rec) in out.iter_mut().enumerate() {
        rec.score = match i {
            0 => i16::MIN,
            1 => i16::MAX,
            _ => (i as u32).wrapping_mul(2_654_435_761) as i16,
        };
    }
    out
}

/// What the records cover; the tests assert each is there, so that a change
/// of fixtures cannot silently narrow them.
#[derive(Debug, Default)]
pub struct Coverage {
    pub records: usize,
    pub white_to_move: usize,
    pub black_to_move: usize,
    pub handicap: usize,
    pub promoted_on_board: usize,
    pub in_hand: usize,
    pub drops: usize,
    pub promotions: usize,
    pub no_move: usize,
    pub results: [usize; 4],
}

pub fn coverage(records: &[PositionRecord]) -> Coverage {
    let mut c = Coverage::default();
    for rec in records {
        let pos = &rec.position;
        c.records += 1;
        if pos.side_to_move() == Color::White {
            c.white_to_move += 1;
        } else {
            c.black_to_move += 1;
        }
        let mut pieces = 0;
        let mut promoted = false;
        for sq in Square::ALL {
            if let Some((_, piece)) = pos.piece_on(sq) {
                pieces += 1;
                promoted |= piece.is_promoted();
            }
        }
        let mut hand = 0;
        for color in [kifulearn::shogi::Color::Black, Color::White] {
            for piece in HAND_PIECES {
                hand += pos.hand_count(color, piece) as usize;
            }
        }
        c.handicap += usize::from(pieces + hand < 40);
        c.promoted_on_board += usize::from(promoted);
        c.in_hand += usize::from(hand > 0);
        match rec.best_move {
            Some(Move::Drop { .. }) => c.drops += 1,
            Some(Move::BoardMove {
                promotion: true, ..
            }) => c.promotions += 1,
            Some(_) => {}
            None => c.no_move += 1,
        }
        c.results[match rec.result {
            GameResult::Win => 0,
            GameResult::Loss => 1,
            GameResult::Draw => 2,
            GameResult::Unknown => 3,
        }] += 1;
    }
    c
}

/// Fails unless the records hold every case the formats must carry.
pub fn assert_covers_everything(c: &Coverage) {
    assert!(c.records > 3000, "{c:?}");
    for (what, n) in [
        ("White to move", c.white_to_move),
        ("Black to move", c.black_to_move),
        ("handicap (pieces in the box)", c.handicap),
        ("promoted pieces on the board", c.promoted_on_board),
        ("pieces in hand", c.in_hand),
        ("drops", c.drops),
        ("promotions", c.promotions),
        ("no best move", c.no_move),
        ("wins", c.results[0]),
        ("losses", c.results[1]),
        ("draws", c.results[2]),
        ("unknown results", c.results[3]),
    ] {
        assert!(n > 0, "no record with {what}: {c:?}");
    }
}

/// The record as a reader of `format` gives it back: HCPE has no ply (0, move
/// number 1); neither format has an unknown result (read as a draw).
pub fn as_read_back(rec: &PositionRecord, hcpe: bool) -> PositionRecord {
    let mut expected = rec.clone();
    if expected.result == GameResult::Unknown {
        expected.result = GameResult::Draw;
    }
    let ply = if hcpe { 0 } else { rec.ply };
    expected.ply = ply;
    let sfen = rec.position.to_sfen();
    let (head, _) = sfen.rsplit_once(' ').unwrap();
    expected.position = Position::from_sfen(&format!("{head} {}", ply.max(1))).unwrap();
    expected
}
