//! The positions the learner trains on ([`Sample`]): from game records,
//! each scored by a search with a teacher evaluator, or from position files
//! (PackedSfenValue, HCPE), which carry their own scores.

use rayon::prelude::*;

use crate::eval::Evaluator;
use crate::search::{Control, Limits, Searcher, TranspositionTable};
use crate::shogi::{Color, Position};

/// One training position: the position, its teacher score and its game's result.
#[derive(Clone, Debug)]
pub struct Sample {
    /// The position (any side to move).
    pub position: Position,
    /// The teacher's score for the side to move, centipawns.
    pub score: i32,
    /// 1 when the side to move won the game, ½ for a draw, 0 for a loss; `None` unknown.
    pub result: Option<f32>,
}

impl Sample {
    /// A position file's record as a sample: its score (clamped to
    /// ±[`crate::eval::EVAL_LIMIT`]) is the teacher score and its result the result.
    pub fn from_record(r: crate::positions::PositionRecord) -> Self {
        use crate::positions::GameResult as R;
        Sample {
            score: i32::from(r.score).clamp(-crate::eval::EVAL_LIMIT, crate::eval::EVAL_LIMIT),
            result: match r.result {
                R::Win => Some(1.0),
                R::Loss => Some(0.0),
                R::Draw => Some(0.5),
                R::Unknown => None,
            },
            position: r.position,
        }
    }
}

/// The result of a game for the side to move `side`: 1 won, ½ draw, 0 lost.
pub fn result_for(result: crate::record::GameResult, side: Color) -> Option<f32> {
    use crate::record::GameResult as R;
    match (result, side) {
        (R::BlackWin, Color::Black) | (R::WhiteWin, Color::White) => Some(1.0),
        (R::BlackWin, Color::White) | (R::WhiteWin, Color::Black) => Some(0.0),
        (R::Draw, _) => Some(0.5),
        (R::Unknown, _) => None,
    }
}

/// The positions of `games` (plies `skip..`, the last position included), each
/// scored by a `depth`-ply search with `teacher` (quiescence below; repetitions
/// of the game before the position are known to it), in order.
pub fn samples_from_games<E: Evaluator>(
    games: &[crate::record::Game],
    teacher: &E,
    depth: u32,
    skip: usize,
    progress: impl Fn() + Sync,
) -> Vec<Sample> {
    use crate::search::game_path;
    games
        .par_iter()
        .map(|game| {
            let mut table = TranspositionTable::new(4);
            let control = Control::new();
            let path = game_path(&game.start, &game.moves);
            let mut out = Vec::new();
            for (ply, (pos, _)) in game.positions().enumerate() {
                if ply < skip || !pos.has_legal_move() {
                    continue;
                }
                let mut searcher = Searcher::new(teacher, &mut table, &control, Limits::default());
                let score = searcher.value(&pos, &path[..ply], depth);
                out.push(Sample {
                    score: score.clamp(-crate::eval::EVAL_LIMIT, crate::eval::EVAL_LIMIT),
                    result: result_for(game.result, pos.side_to_move()),
                    position: pos,
                });
            }
            progress();
            out
        })
        .flatten()
        .collect()
}

/// The position files (PackedSfenValue `.psv`/`.bin`, HCPE `.hcpe`) under
/// `paths` (files, or folders searched recursively), sorted; and the paths
/// that hold none (record files or folders, for the game readers).
pub fn split_position_paths(
    paths: &[std::path::PathBuf],
) -> std::io::Result<(Vec<std::path::PathBuf>, Vec<std::path::PathBuf>)> {
    use crate::positions::PositionFormat;
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) -> std::io::Result<()> {
        let mut entries: Vec<_> = std::fs::read_dir(dir)?.collect::<Result<_, _>>()?;
        entries.sort_by_key(|e| e.path());
        for e in entries {
            let p = e.path();
            let kind = e.file_type()?;
            if kind.is_dir() {
                walk(&p, out)?;
            } else if kind.is_file() && PositionFormat::from_path(&p).is_some() {
                out.push(p);
            }
        }
        Ok(())
    }
    let (mut positions, mut records) = (Vec::new(), Vec::new());
    for p in paths {
        if p.is_dir() {
            let mut found = Vec::new();
            walk(p, &mut found)?;
            if found.is_empty() {
                records.push(p.clone());
            } else {
                positions.extend(found);
            }
        } else if PositionFormat::from_path(p).is_some() {
            positions.push(p.clone());
        } else {
            records.push(p.clone());
        }
    }
    Ok((positions, records))
}

/// Samples from position files: each record's score (the generator's or a
/// teacher's search) is the teacher score and its result the result. Records
/// that do not decode are skipped and counted; an unreadable file is an error.
pub fn samples_from_position_files(
    files: &[std::path::PathBuf],
) -> Result<(Vec<Sample>, u64), crate::positions::PositionError> {
    use crate::positions::read_positions;
    let mut samples = Vec::new();
    let mut bad = 0;
    for f in files {
        for record in read_positions(f)? {
            match record {
                Ok(r) => samples.push(Sample::from_record(r)),
                Err(_) => bad += 1,
            }
        }
    }
    Ok((samples, bad))
}
