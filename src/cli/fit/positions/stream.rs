//! `fit positions --chunk N`: the positions learner streamed
//! (`kifulearn::train::positions_stream`, `docs/positions-learner.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use kifulearn::train::positions::split_position_paths;
use kifulearn::train::positions_stream::{PositionFiles, StreamData, StreamParams, DEFAULT_CHUNK};
use kifulearn::train::progress::{Chunk, Epoch, Event};

use super::super::ModelOut;
use super::Args;
use crate::cli::{verbosity, CliResult};

/// Position files holding more records than this are streamed unless `--chunk` says otherwise.
pub const AUTO_STREAM: u64 = 524_288;

/// The chunk to stream with, or `None` for the in-memory learner: `--chunk`
/// when given (0: in memory), else [`DEFAULT_CHUNK`] when the position files
/// among `records` hold more than [`AUTO_STREAM`] records.
pub fn chunk(records: &[PathBuf], args: &Args) -> Result<Option<usize>, String> {
    match args.chunk {
        Some(0) => Ok(None),
        Some(n) => Ok(Some(n)),
        None => {
            let (files, _) = split_position_paths(records).map_err(|e| e.to_string())?;
            let files = PositionFiles::new(&files).map_err(|e| e.to_string())?;
            Ok((files.len() > AUTO_STREAM).then_some(DEFAULT_CHUNK))
        }
    }
}

/// Runs the streamed learner.
pub fn run(
    records: &[PathBuf],
    out: &ModelOut,
    prior: &str,
    args: &Args,
    chunk: usize,
) -> CliResult {
    fix_mmap_threshold();
    let setup = super::Setup::new(out, prior, args)?;
    let (position_files, records) = split_position_paths(records)?;
    let files = PositionFiles::new(&position_files)?;
    let (games, held_games) = setup.games(&records, args)?;
    let super::Setup {
        features,
        params,
        teacher_choice,
        teacher,
        depth,
        skip,
        w0,
        pool,
    } = setup;
    let train = StreamData {
        files,
        games: &games,
        teacher: &teacher,
        depth,
        skip,
    };
    let held = (!held_games.is_empty()).then(|| StreamData {
        files: PositionFiles::default(),
        games: &held_games,
        teacher: &teacher,
        depth,
        skip,
    });
    let cache = (!args.no_leaf_cache).then(|| {
        let mut name = out.path.as_os_str().to_owned();
        name.push(".leaves-tmp");
        PathBuf::from(name)
    });
    verbosity::summary!(
        "positions: streamed in chunks of {chunk}: up to {} training positions from {} games and {} position file(s), {} held-out games; features {features}; leaf cache {}",
        train.nominal_len(),
        games.len(),
        position_files.len(),
        held_games.len(),
        cache
            .as_ref()
            .map_or("off".to_string(), |p| format!("{}.*", p.display())),
    );
    let stream = StreamParams { chunk, cache };
    let bar = verbosity::bar(
        train.nominal_len(),
        "{msg} {elapsed_precise} [{bar:30}] {pos}/{len} positions, {per_sec}",
    )?;
    let epochs = params.epochs;
    let observe = |event: &Event<'_>| match *event {
        Event::Chunk(Chunk {
            epoch,
            held_out,
            done,
            total,
            ..
        }) => {
            bar.set_message(if held_out {
                format!("epoch {epoch} held out")
            } else {
                format!("epoch {epoch}")
            });
            bar.set_length(total);
            bar.set_position(done);
        }
        Event::Epoch(Epoch::Positions(r)) => {
            // Every epoch with -v, the last one otherwise (the fit's summary).
            if verbosity::verbose() || r.epoch == epochs {
                bar.suspend(|| super::epoch_line(r, " (running)"));
            }
            bar.reset();
        }
        _ => {}
    };
    let fitted = pool
        .install(|| params.fit_stream(&features, &train, held.as_ref(), &w0, &stream, &observe))?;
    bar.finish_and_clear();
    if fitted.skipped > 0 {
        eprintln!(
            "skipped {} position record(s) that do not decode",
            fitted.skipped
        );
    }
    verbosity::summary!(
        "positions: {} training positions in {} chunks ({} with a result, {} nonzeros), {} held out; leaf cache {:.0} MB",
        fitted.positions,
        fitted.chunks,
        fitted.with_result,
        fitted.nonzeros,
        fitted.held_out,
        fitted.cache_bytes as f64 / 1e6,
    );
    let mut model = fitted.fit.model;
    let meta = super::Meta {
        teacher: &teacher_choice.name(),
        depth,
        params: &params,
        prior,
        skip,
        positions: fitted.positions as usize,
        chunk: Some(chunk),
        train_cross_entropy: fitted.fit.epochs.last().map(|r| r.train.cross_entropy),
        files: position_files.iter().chain(&records),
    }
    .into_meta(&features.to_string());
    out.write(&mut model, None, meta)?;
    verbosity::summary!("wrote {}", out.path.display());
    Ok(ExitCode::SUCCESS)
}

/// glibc raises its mmap threshold (up to 32 MB) each time a large block is
/// freed; the chunk-sized buffers then come from the heap arenas, which
/// fragment, and the peak RSS creeps up with the number of chunks (323 → 466
/// MB from 100k to 1M positions, `benches/positions_learner.sh`). A fixed
/// 1 MB threshold maps them and returns them when dropped (280 → 319 MB).
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn fix_mmap_threshold() {
    extern "C" {
        fn mallopt(param: i32, value: i32) -> i32;
    }
    const M_MMAP_THRESHOLD: i32 = -3;
    // SAFETY: mallopt only sets an allocator parameter (glibc, thread-safe).
    unsafe {
        mallopt(M_MMAP_THRESHOLD, 1 << 20);
    }
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn fix_mmap_threshold() {}
