//! The streamed positions learner (`train::positions_stream`, `fit
//! positions --chunk N`) against the in-memory one, on position files written
//! from the bundled self-play and tournament records (each position scored by
//! a depth-1 material search, with its game's result).
//!
//! - one chunk holding every position: the first epoch is the in-memory
//!   learner's, weight for weight;
//! - the leaf cache changes nothing: with and without it, the same model and
//!   the same reports, over several epochs and small chunks crossing files;
//! - small chunks hold at most a chunk at once (counted through the observer)
//!   and learn a model whose held-out loss is close to the in-memory one's
//!   and below the prior's;
//! - the CLI streams with `--chunk`, counts an undecodable record as the
//!   in-memory reader does, and leaves no cache file behind.

mod common;

use std::path::{Path, PathBuf};

use kifulearn::eval::Material;
use kifulearn::features::Features;
use kifulearn::positions::{GameResult, PositionFormat, PositionRecord, PositionWriter};
use kifulearn::record::{read_file, Game};
use kifulearn::train::positions::{
    loss, material_prior, samples_from_games, samples_from_position_files, Leaves, PositionsParams,
    Sample,
};
use kifulearn::train::positions_stream::{PositionFiles, StreamData, StreamFit, StreamParams};
use kifulearn::train::progress::{Chunk, Event, Quiet};

/// The games of `dir` (under the crate root), the first `most` files.
fn games(dir: &str, most: usize) -> Vec<Game> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    files
        .iter()
        .take(most)
        .flat_map(|f| read_file(f).games)
        .map(|g| g.unwrap())
        .collect()
}

/// The positions (from ply 16) of 60 Fairy-Stockfish self-play games of
/// `../shared/kifu` as two PackedSfenValue files (the first with 25 games),
/// scored by a depth-1 material search.
/// `None` (with a note; a failure in CI) without `../shared`.
fn position_files(dir: &Path) -> Option<Vec<PathBuf>> {
    let selfplay = common::shared("kifu/selfplay")?;
    let games = games(selfplay.to_str().unwrap(), 60);
    let parts = [&games[..25], &games[25..]];
    let files = parts
        .iter()
        .enumerate()
        .map(|(i, part)| {
            let samples = samples_from_games(part, &Material, 1, 16, || {});
            let path = dir.join(format!("part{i}.psv"));
            let mut w = PositionWriter::create(&path, PositionFormat::Psv).unwrap();
            for s in samples {
                w.write(&PositionRecord {
                    ply: s.position.move_number(),
                    score: s.score as i16,
                    best_move: None,
                    result: match s.result {
                        Some(1.0) => GameResult::Win,
                        Some(0.0) => GameResult::Loss,
                        Some(_) => GameResult::Draw,
                        None => GameResult::Unknown,
                    },
                    position: s.position,
                })
                .unwrap();
            }
            w.finish().unwrap();
            path
        })
        .collect();
    Some(files)
}

fn features() -> Features {
    "relation,material,kp".parse().unwrap()
}

fn params(epochs: usize) -> PositionsParams {
    PositionsParams {
        epochs,
        batch: 256,
        lambda: 0.0,
        mu: 3e-7,
        ..Default::default()
    }
}

fn data<'a>(files: &[PathBuf], games: &'a [Game]) -> StreamData<'a, Material> {
    StreamData {
        files: PositionFiles::new(files).unwrap(),
        games,
        teacher: &Material,
        depth: 1,
        skip: 16,
    }
}

fn stream(
    files: &[PathBuf],
    held: Option<&[Game]>,
    epochs: usize,
    chunk: usize,
    cache: Option<PathBuf>,
    events: &mut Vec<(usize, bool, usize, bool)>,
) -> StreamFit {
    let features = features();
    let held = held.map(|g| data(&[], g));
    // Observers are `Sync` (the ranking learner reports from worker threads).
    let seen = std::sync::Mutex::new(Vec::new());
    let fit = params(epochs)
        .fit_stream(
            &features,
            &data(files, &[]),
            held.as_ref(),
            &material_prior(&features),
            &StreamParams { chunk, cache },
            &|e: &Event<'_>| {
                if let Event::Chunk(Chunk {
                    epoch,
                    held_out,
                    positions,
                    cached,
                    ..
                }) = *e
                {
                    seen.lock()
                        .unwrap()
                        .push((epoch, held_out, positions, cached));
                }
            },
        )
        .unwrap();
    events.extend(seen.into_inner().unwrap());
    fit
}

fn in_memory(files: &[PathBuf]) -> Vec<Sample> {
    let (samples, bad) = samples_from_position_files(files).unwrap();
    assert_eq!(bad, 0);
    samples
}

#[test]
fn one_chunk_takes_the_in_memory_first_epoch() {
    let dir = common::dir("positions-stream-one-chunk");
    let Some(files) = position_files(&dir) else {
        return;
    };
    let samples = in_memory(&files);
    assert!(samples.len() > 3000, "{} positions", samples.len());
    let features = features();
    let leaves = Leaves::build(&features, &Material, &samples);
    let memory = params(1)
        .fit(&features, &leaves, None, &material_prior(&features), &Quiet)
        .unwrap();
    for cache in [None, Some(dir.join("cache"))] {
        let mut events = Vec::new();
        let s = stream(&files, None, 1, 1 << 20, cache, &mut events);
        assert_eq!(s.positions, samples.len() as u64);
        assert_eq!(s.nonzeros, leaves.nonzeros() as u64);
        assert_eq!(s.skipped, 0);
        assert_eq!(events, vec![(1, false, samples.len(), false)]);
        assert!(
            memory.model.w
                != material_prior(&features)
                    .iter()
                    .map(|&w| f64::from(w) / 1e4)
                    .collect::<Vec<_>>()
        );
        assert_eq!(s.fit.model.w, memory.model.w, "weights differ");
    }
}

#[test]
fn the_leaf_cache_changes_nothing() {
    let dir = common::dir("positions-stream-cache");
    let Some(files) = position_files(&dir) else {
        return;
    };
    let cache = dir.join("model.leaves-tmp");
    let (mut with, mut without) = (Vec::new(), Vec::new());
    let a = stream(&files, None, 3, 300, Some(cache.clone()), &mut with);
    let b = stream(&files, None, 3, 300, None, &mut without);
    assert_eq!(a.fit.model.w, b.fit.model.w);
    let strip = |f: &StreamFit| {
        f.fit
            .epochs
            .iter()
            .map(|r| (r.epoch, r.train, r.held_out))
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&a), strip(&b));
    assert_eq!(a.fit.epochs.len(), 3);
    // The first epoch builds every chunk, later ones read them all back.
    assert!(with
        .iter()
        .all(|&(epoch, _, _, cached)| cached == (epoch > 1)));
    assert!(without.iter().all(|&(_, _, _, cached)| !cached));
    assert!(a.cache_bytes > 0 && b.cache_bytes == 0);
    // Gone when the learner returns.
    assert_no_cache_left(&dir);
}

#[test]
fn small_chunks_hold_a_chunk_and_learn_as_well() {
    let dir = common::dir("positions-stream-small");
    let Some(files) = position_files(&dir) else {
        return;
    };
    let samples = in_memory(&files);
    let held_games = games("fixtures/tournament", usize::MAX);
    let features = features();
    let held_samples = samples_from_games(&held_games, &Material, 1, 16, || {});
    let held = Leaves::build(&features, &Material, &held_samples);
    let train = Leaves::build(&features, &Material, &samples);
    let epochs = 4;
    let memory = params(epochs)
        .fit(
            &features,
            &train,
            Some(&held),
            &material_prior(&features),
            &Quiet,
        )
        .unwrap();
    let chunk = 1024;
    let mut events = Vec::new();
    let s = stream(
        &files,
        Some(&held_games),
        epochs,
        chunk,
        Some(dir.join("m.leaves-tmp")),
        &mut events,
    );
    // Memory: never more than a chunk of leaves at once, training or held out.
    let most = events.iter().map(|e| e.2).max().unwrap();
    assert!(most <= chunk, "{most} positions held at once");
    let chunks_per_epoch = samples.len().div_ceil(chunk);
    let trained: Vec<_> = events.iter().filter(|e| e.0 == 1 && !e.1).collect();
    assert_eq!(trained.len(), chunks_per_epoch);
    assert_eq!(s.held_out, held_samples.len() as u64);
    // The held-out figures are those of the final weights over every held-out leaf.
    let cp: Vec<f32> = s.fit.model.w.iter().map(|&w| (w * 1e4) as f32).collect();
    let direct = loss(&cp, &held, &params(epochs));
    let reported = s.fit.epochs.last().unwrap().held_out.unwrap();
    assert_eq!(reported.positions, direct.positions);
    assert!(
        (reported.score_ce - direct.score_ce).abs() < 1e-6,
        "{reported:?} {direct:?}"
    );
    // Learning: the training loss falls from the prior's as the in-memory
    // learner's does, and ends close to it (the order of the steps differs).
    let prior = loss(&material_prior(&features), &train, &params(epochs)).score_ce;
    let mem = memory.epochs.last().unwrap().train.score_ce;
    let streamed = loss(&cp, &train, &params(epochs)).score_ce;
    eprintln!("training score CE: prior {prior:.5}, in memory {mem:.5}, streamed {streamed:.5}");
    assert!(
        mem < prior && streamed < prior,
        "prior {prior}, memory {mem}, streamed {streamed}"
    );
    assert!(
        (streamed - mem).abs() < 0.5 * (prior - mem),
        "prior {prior}, memory {mem}, streamed {streamed}"
    );
}

#[test]
fn cli_streams_with_chunk_and_counts_bad_records() {
    let dir = common::dir("positions-stream-cli");
    let Some(files) = position_files(&dir) else {
        return;
    };
    // A last partial record: one undecodable record, for both learners.
    let mut bytes = std::fs::read(&files[1]).unwrap();
    bytes.extend_from_slice(&[0u8; 10]);
    std::fs::write(&files[1], bytes).unwrap();
    let (_, bad) = samples_from_position_files(&files).unwrap();
    assert_eq!(bad, 1);
    let model = dir.join("m.txt");
    let out = common::run_ok(&[
        "fit",
        "positions",
        files[0].to_str().unwrap(),
        files[1].to_str().unwrap(),
        "--features",
        "relation,material,kp",
        "--epochs",
        "2",
        "--chunk",
        "300",
        "--out",
        model.to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("streamed in chunks of 300"), "{err}");
    assert!(err.contains("skipped 1 position record"), "{err}");
    assert!(err.contains("epoch   2"), "{err}");
    let meta = std::fs::read_to_string(dir.join("m.txt.meta.toml")).unwrap();
    assert!(meta.contains("chunk = 300"), "{meta}");
    let n = in_memory_len(&files);
    assert!(meta.contains(&format!("positions = {n}")), "{meta}");
    assert!(kifulearn::model::Model::load(&model).is_ok());
    assert_no_cache_left(&dir);
}

fn in_memory_len(files: &[PathBuf]) -> usize {
    samples_from_position_files(files).unwrap().0.len()
}

/// No leaf-cache file (`*.leaves-tmp*`) is left in `dir`.
fn assert_no_cache_left(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .filter(|n| n.to_string_lossy().contains("leaves-tmp"))
        .collect();
    assert!(left.is_empty(), "{left:?}");
}
