//! The positions learner, streamed: the data is read in chunks of positions,
//! each chunk's quiescence leaves are built (in parallel), its mini-batches
//! applied, and the chunk dropped, so memory is bounded by the chunk size,
//! not by the number of positions (`docs/positions-learner.md`, "Streaming").
//!
//! The data is a [`StreamData`]: position files read as one sequence of
//! fixed-size records (PackedSfenValue 40 bytes, HCPE 38), cut into chunks of
//! `chunk` records; and game records (held in memory as games, small next to
//! their leaves), cut into runs of consecutive games of about `chunk`
//! positions, scored by the teacher's search when their chunk is built.
//!
//! Every epoch visits the chunks in a seeded random order and each chunk's
//! positions in a seeded random order, cut into batches of `batch` (a
//! chunk's last batch may be smaller). The step is the in-memory learner's
//! ([`PositionsParams::fit`]): with one chunk holding every position, the
//! first epoch takes exactly the same steps. Later epochs differ in order
//! only (the in-memory learner reshuffles its previous order; a chunk starts
//! each epoch from its natural order).
//!
//! **Leaf cache.** Leaves are taken with the material evaluator, so they do
//! not depend on the weights: with a cache path, the first epoch writes each
//! chunk's leaf rows to a file (about 5 bytes per nonzero) and later epochs
//! read them back (one sequential read per chunk) instead of decoding and
//! searching again. The file is removed when the learner returns.
//!
//! The training loss of a streamed epoch is its running loss: each batch
//! measured just before its step, averaged over the epoch (a full pass
//! afterwards would cost as much as the epoch). Held-out data is streamed the
//! same way, chunk by chunk (cached too), and measured after each epoch at the
//! epoch's weights. There is no epoch-0 report.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Instant;

use rayon::prelude::*;

use super::positions::{
    loss, samples_from_games, Descent, EpochReport, LeafLoss, Leaves, PositionsFit,
    PositionsParams, Sample,
};
use super::progress::{Chunk as ChunkEvent, Epoch as ProgressEpoch, Event, Observer};
use super::TrainError;
use crate::eval::{Evaluator, Material};
use crate::features::Features;
use crate::positions::PositionFormat;
use crate::record::Game;
use crate::rng::SplitMix64;
use cache::LeafCache;

mod cache;

/// Default positions per chunk.
pub const DEFAULT_CHUNK: usize = 65_536;

/// Errors of the streaming learner: a file that cannot be read or written
/// (named), or the learner's own.
#[derive(Debug, thiserror::Error)]
pub enum StreamError {
    /// Reading a position file or reading/writing the leaf cache.
    #[error("{}: {source}", path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        source: std::io::Error,
    },
    /// A parameter or the data does not fit the learner.
    #[error(transparent)]
    Train(#[from] TrainError),
}

fn io_error(path: &Path) -> impl FnOnce(std::io::Error) -> StreamError + '_ {
    move |source| StreamError::Io {
        path: path.to_path_buf(),
        source,
    }
}

/// Position files read as one sequence of records, in the order given.
#[derive(Clone, Debug, Default)]
pub struct PositionFiles {
    files: Vec<(PathBuf, PositionFormat, u64)>,
    total: u64,
}

impl PositionFiles {
    /// Opens nothing yet: takes each file's record count from its size (a
    /// last partial record counts as one, and is skipped as undecodable when read).
    pub fn new(paths: &[PathBuf]) -> Result<Self, StreamError> {
        let mut files = Vec::with_capacity(paths.len());
        let mut total = 0;
        for p in paths {
            let format = PositionFormat::from_path(p).ok_or_else(|| StreamError::Io {
                path: p.clone(),
                source: std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "not a position file (.psv, .bin, .hcpe)",
                ),
            })?;
            let bytes = std::fs::metadata(p).map_err(io_error(p))?.len();
            let records = bytes.div_ceil(format.record_len() as u64);
            files.push((p.clone(), format, records));
            total += records;
        }
        Ok(Self { files, total })
    }

    /// Records in all the files.
    pub fn len(&self) -> u64 {
        self.total
    }

    /// True when there is no record.
    pub fn is_empty(&self) -> bool {
        self.total == 0
    }

    /// The records of `blocks` (each `start..start + count`), in order, as
    /// samples (decoded in parallel), and the number that do not decode.
    fn read(&self, blocks: &[(u64, u64)]) -> Result<(Vec<Sample>, u64), StreamError> {
        let mut bytes = Vec::new();
        // (format, offset in `bytes`) of each record read, and records missing
        // (a partial last record, or a file that shrank since it was measured).
        let mut records: Vec<(PositionFormat, usize)> = Vec::new();
        let mut missing = 0;
        let mut open: Option<(usize, File)> = None;
        for &(start, count) in blocks {
            let end = start + count;
            let mut first = 0u64;
            for (f, (path, format, n)) in self.files.iter().enumerate() {
                let (lo, hi) = (start.max(first), end.min(first + n));
                if lo < hi {
                    let len = format.record_len() as u64;
                    let file = match &mut open {
                        Some((g, file)) if *g == f => file,
                        _ => {
                            &mut open
                                .insert((f, File::open(path).map_err(io_error(path))?))
                                .1
                        }
                    };
                    file.seek(SeekFrom::Start((lo - first) * len))
                        .map_err(io_error(path))?;
                    let at = bytes.len();
                    file.take((hi - lo) * len)
                        .read_to_end(&mut bytes)
                        .map_err(io_error(path))?;
                    let got = (bytes.len() - at) as u64 / len;
                    records.extend((0..got).map(|r| (*format, at + (r * len) as usize)));
                    missing += (hi - lo) - got;
                }
                first += n;
                if first >= end {
                    break;
                }
            }
        }
        let decoded: Vec<Option<Sample>> = records
            .par_iter()
            .map(|&(format, at)| {
                format
                    .decode(&bytes[at..at + format.record_len()])
                    .ok()
                    .map(Sample::from_record)
            })
            .collect();
        let mut bad = missing;
        let mut samples = Vec::with_capacity(decoded.len());
        for s in decoded {
            match s {
                Some(s) => samples.push(s),
                None => bad += 1,
            }
        }
        Ok((samples, bad))
    }
}

/// Records per block: a chunk of position-file records is a set of blocks
/// spread over all the files, so that it mixes many games.
const BLOCK: u64 = 32;

/// What the streaming learner reads: position files, then game records
/// scored by `teacher` (a `depth`-ply search, positions from ply `skip`).
pub struct StreamData<'a, E> {
    /// Position files (their own scores and results).
    pub files: PositionFiles,
    /// Game records, scored when their chunk is built.
    pub games: &'a [Game],
    /// The teacher of the games' positions.
    pub teacher: &'a E,
    /// Full-width plies of the teacher's search.
    pub depth: u32,
    /// Positions before this ply are not used.
    pub skip: usize,
}

/// One chunk: blocks of file records (`first`, `first + stride`, … —
/// `blocks` of them, of `block` records), or games (`first`, `first +
/// stride`, …, split where they would exceed the chunk), with its nominal size.
#[derive(Clone, Debug)]
enum Chunk {
    Records {
        first: u64,
        stride: u64,
        blocks: u64,
        block: u64,
        records: u64,
    },
    Games {
        games: Vec<usize>,
        positions: u64,
    },
}

impl Chunk {
    /// Positions it holds at most (file records, or the games' plies from `skip`).
    fn nominal(&self) -> u64 {
        match *self {
            Chunk::Records { records, .. } => records,
            Chunk::Games { positions, .. } => positions,
        }
    }
}

impl<E: Evaluator> StreamData<'_, E> {
    /// Positions at most: file records plus the games' positions from `skip`.
    pub fn nominal_len(&self) -> u64 {
        self.files.len() + self.games.iter().map(|g| self.game_len(g)).sum::<u64>()
    }

    fn game_len(&self, game: &Game) -> u64 {
        (game.moves.len() + 1).saturating_sub(self.skip) as u64
    }

    /// The chunks. File records: blocks of [`BLOCK`] records (fewer when
    /// `chunk` is smaller) dealt to the chunks in turn, at most `chunk`
    /// records a chunk; one chunk holds the records in file order. Games:
    /// dealt in turn to as many chunks as `chunk` positions fill (a chunk
    /// holds about `chunk` positions, more when games differ in length).
    fn chunks(&self, chunk: usize) -> Vec<Chunk> {
        let c = chunk.max(1) as u64;
        let n = self.files.len();
        let block = BLOCK.min(c);
        let all = n.div_ceil(block);
        let per = c / block;
        let count = all.div_ceil(per);
        let mut out: Vec<Chunk> = (0..count)
            .map(|first| {
                let blocks = (all - first).div_ceil(count);
                let last = first + (blocks - 1) * count;
                Chunk::Records {
                    first,
                    stride: count,
                    blocks,
                    block,
                    records: (blocks - 1) * block + block.min(n - last * block),
                }
            })
            .collect();
        let total: u64 = self.games.iter().map(|g| self.game_len(g)).sum();
        let count = (total.div_ceil(c) as usize).clamp(1, self.games.len().max(1));
        for first in 0..count.min(self.games.len()) {
            let (mut games, mut positions) = (Vec::new(), 0);
            for i in (first..self.games.len()).step_by(count) {
                let len = self.game_len(&self.games[i]);
                if !games.is_empty() && positions + len > c {
                    out.push(Chunk::Games {
                        games: std::mem::take(&mut games),
                        positions,
                    });
                    positions = 0;
                }
                games.push(i);
                positions += len;
            }
            out.push(Chunk::Games { games, positions });
        }
        out
    }
}

impl<E: Evaluator + Sync> StreamData<'_, E> {
    /// The chunk's samples and the number of file records that do not decode.
    fn samples(&self, chunk: &Chunk) -> Result<(Vec<Sample>, u64), StreamError> {
        match *chunk {
            Chunk::Records {
                first,
                stride,
                blocks,
                block,
                ..
            } => {
                let n = self.files.len();
                let ranges: Vec<(u64, u64)> = (0..blocks)
                    .map(|m| {
                        let start = (first + m * stride) * block;
                        (start, block.min(n - start))
                    })
                    .collect();
                self.files.read(&ranges)
            }
            Chunk::Games { ref games, .. } => {
                let games: Vec<Game> = games.iter().map(|&i| self.games[i].clone()).collect();
                Ok((
                    samples_from_games(&games, self.teacher, self.depth, self.skip, || {}),
                    0,
                ))
            }
        }
    }
}

/// How the learner streams.
#[derive(Clone, Debug)]
pub struct StreamParams {
    /// Positions per chunk (at least 1).
    pub chunk: usize,
    /// Leaf cache: files `PATH.train` and `PATH.held-out` written in the first
    /// epoch, read in later ones, removed at the end. `None`: leaves are built
    /// again every epoch.
    pub cache: Option<PathBuf>,
}

/// The outcome of a streamed fit: the model and reports, and what the data held.
#[derive(Clone, Debug)]
pub struct StreamFit {
    /// The model and the per-epoch reports (from epoch 1).
    pub fit: PositionsFit,
    /// Training positions (decoded or scored).
    pub positions: u64,
    /// Of those, with a known result.
    pub with_result: u64,
    /// Stored feature values of the training leaves.
    pub nonzeros: u64,
    /// Held-out positions.
    pub held_out: u64,
    /// File records that did not decode (skipped).
    pub skipped: u64,
    /// Bytes of leaf cache written (0 without a cache).
    pub cache_bytes: u64,
    /// Chunks of training data per epoch.
    pub chunks: usize,
}

/// One data set's chunks, with their cache.
struct Pass<'d, 'a, E> {
    data: &'d StreamData<'a, E>,
    chunks: Vec<Chunk>,
    total: u64,
    cache: Option<LeafCache>,
    held_out: bool,
}

impl<'d, 'a, E: Evaluator + Sync> Pass<'d, 'a, E> {
    fn new(
        data: &'d StreamData<'a, E>,
        stream: &StreamParams,
        suffix: &str,
        held_out: bool,
    ) -> Result<Self, StreamError> {
        let chunks = data.chunks(stream.chunk);
        let total = chunks.iter().map(Chunk::nominal).sum();
        let cache = match &stream.cache {
            Some(p) => {
                let mut name = p.clone().into_os_string();
                name.push(suffix);
                Some(LeafCache::create(PathBuf::from(name), chunks.len())?)
            }
            None => None,
        };
        Ok(Self {
            data,
            chunks,
            total,
            cache,
            held_out,
        })
    }

    /// Chunk `k`'s leaves (from the cache, or built and cached), whether
    /// they came from the cache, and the records that did not decode.
    fn leaves(
        &mut self,
        features: &Features,
        k: usize,
    ) -> Result<(Leaves, bool, u64), StreamError> {
        if let Some(cache) = &mut self.cache {
            if let Some(leaves) = cache.get(k)? {
                return Ok((leaves, true, 0));
            }
        }
        let (samples, bad) = self.data.samples(&self.chunks[k])?;
        let leaves = Leaves::build(features, &Material, &samples);
        drop(samples);
        if let Some(cache) = &mut self.cache {
            cache.put(k, &leaves)?;
        }
        Ok((leaves, false, bad))
    }
}

impl PositionsParams {
    /// Learns like [`PositionsParams::fit`], streaming `train` (and
    /// `held_out`) in chunks: see the module notes. `observer` sees each
    /// chunk and epoch.
    pub fn fit_stream<E: Evaluator + Sync>(
        &self,
        features: &Features,
        train: &StreamData<'_, E>,
        held_out: Option<&StreamData<'_, E>>,
        prior: &[f32],
        stream: &StreamParams,
        observer: &dyn Observer,
    ) -> Result<StreamFit, StreamError> {
        fit_stream(features, train, held_out, prior, self, stream, observer)
    }
}

/// [`PositionsParams::fit_stream`].
fn fit_stream<E: Evaluator + Sync>(
    features: &Features,
    train: &StreamData<'_, E>,
    held_out: Option<&StreamData<'_, E>>,
    prior: &[f32],
    params: &PositionsParams,
    stream: &StreamParams,
    observer: &dyn Observer,
) -> Result<StreamFit, StreamError> {
    params.check()?;
    if stream.chunk == 0 {
        return Err(TrainError::InvalidParam("chunk must be at least 1, got 0".into()).into());
    }
    let mut pass = Pass::new(train, stream, ".train", false)?;
    if pass.total == 0 {
        return Err(TrainError::Data("no training position".into()).into());
    }
    let mut held = match held_out {
        Some(h) => Some(Pass::new(h, stream, ".held-out", true)?),
        None => None,
    };
    let per_epoch: usize = pass
        .chunks
        .iter()
        .map(|c| (c.nominal() as usize).div_ceil(params.batch))
        .sum();
    let mut stepper = Descent::new(features, prior, params, params.epochs * per_epoch)?;
    let mut rng = SplitMix64(params.seed);
    let mut order: Vec<usize> = (0..pass.chunks.len()).collect();
    let mut out = StreamFit {
        fit: PositionsFit {
            model: stepper.model(features),
            epochs: Vec::with_capacity(params.epochs),
        },
        positions: 0,
        with_result: 0,
        nonzeros: 0,
        held_out: 0,
        skipped: 0,
        cache_bytes: 0,
        chunks: pass.chunks.len(),
    };
    for epoch in 1..=params.epochs {
        let t0 = Instant::now();
        rng.shuffle(&mut order);
        let (mut sums, mut seen, mut done) = ((0.0, 0.0, 0.0), 0usize, 0u64);
        for &k in &order {
            let (leaves, cached, bad) = pass.leaves(features, k)?;
            done += pass.chunks[k].nominal();
            observer.event(&Event::Chunk(ChunkEvent {
                epoch,
                held_out: false,
                positions: leaves.len(),
                done,
                total: pass.total,
                cached,
            }));
            if epoch == 1 {
                out.positions += leaves.len() as u64;
                out.with_result += leaves.with_result() as u64;
                out.nonzeros += leaves.nonzeros() as u64;
                out.skipped += bad;
            }
            let mut rows: Vec<usize> = (0..leaves.len()).collect();
            rng.shuffle(&mut rows);
            for batch in rows.chunks(params.batch) {
                let s = stepper.step(&leaves, batch);
                sums = (sums.0 + s.0, sums.1 + s.1, sums.2 + s.2);
            }
            seen += leaves.len();
        }
        if seen == 0 {
            return Err(TrainError::Data("no training position decodes".into()).into());
        }
        let n = seen as f64;
        let held_loss = match &mut held {
            Some(h) => Some(measure(
                h,
                features,
                &stepper.weights,
                params,
                epoch,
                observer,
            )?),
            None => None,
        };
        if epoch == 1 {
            out.held_out = held_loss.map_or(0, |l| l.positions as u64);
        }
        let r = EpochReport {
            epoch,
            train: LeafLoss {
                positions: seen,
                cross_entropy: sums.0 / n,
                score_ce: sums.1 / n,
                score_mse: sums.2 / n,
            },
            held_out: held_loss,
            seconds: t0.elapsed().as_secs_f64(),
        };
        observer.event(&Event::Epoch(ProgressEpoch::Positions(&r)));
        out.fit.epochs.push(r);
    }
    out.cache_bytes = pass.cache.as_ref().map_or(0, |c| c.end)
        + held
            .as_ref()
            .and_then(|h| h.cache.as_ref())
            .map_or(0, |c| c.end);
    out.fit.model = stepper.model(features);
    Ok(out)
}

/// The loss of `weights` over a held-out pass, chunk by chunk.
fn measure<E: Evaluator + Sync>(
    pass: &mut Pass<'_, '_, E>,
    features: &Features,
    weights: &[f32],
    params: &PositionsParams,
    epoch: usize,
    observer: &dyn Observer,
) -> Result<LeafLoss, StreamError> {
    let mut total = LeafLoss::default();
    let mut done = 0;
    for k in 0..pass.chunks.len() {
        let (leaves, cached, _) = pass.leaves(features, k)?;
        done += pass.chunks[k].nominal();
        observer.event(&Event::Chunk(ChunkEvent {
            epoch,
            held_out: pass.held_out,
            positions: leaves.len(),
            done,
            total: pass.total,
            cached,
        }));
        let l = loss(weights, &leaves, params);
        let n = l.positions as f64;
        total.positions += l.positions;
        total.cross_entropy += l.cross_entropy * n;
        total.score_ce += l.score_ce * n;
        total.score_mse += l.score_mse * n;
    }
    let n = total.positions.max(1) as f64;
    total.cross_entropy /= n;
    total.score_ce /= n;
    total.score_mse /= n;
    Ok(total)
}
