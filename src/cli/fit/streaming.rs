//! `kifulearn fit --method streaming`: the Logistello-style learner over
//! libsvm files, one file (game) at a time (see `docs/streaming.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use kifulearn::features::{FeatureSet, Features};
use kifulearn::libsvm::expand_paths;
use kifulearn::model::toml_string;
use kifulearn::train::progress::Epoch;
use kifulearn::train::{Event, StreamingParams};
use linfa::ParamGuard;

use super::{LearnerArgs, ModelOut};
use crate::cli::verbosity::{self, summary};
use crate::cli::CliResult;

/// Options of the streaming learner (defaults: `kifulearn::train::streaming`).
#[derive(ClapArgs)]
#[command(next_help_heading = "Streaming learner (--method streaming)")]
pub struct StreamingArgs {
    /// Rows of a batch a feature must occur in to be updated [default: 2].
    #[arg(long)]
    min_frequency: Option<u32>,
    /// Largest absolute weight [default: 0.1].
    #[arg(long)]
    bound: Option<f32>,
}

impl StreamingArgs {
    fn params(&self, shared: &LearnerArgs) -> StreamingParams {
        let mut p = StreamingParams::new().seed(shared.seed);
        if let Some(v) = shared.rate {
            p = p.rate(v as f32);
        }
        if let Some(v) = self.min_frequency {
            p = p.min_frequency(v);
        }
        if let Some(v) = self.bound {
            p = p.bound(v);
        }
        if let Some(v) = shared.batch_games {
            p = p.batch_games(v);
        }
        if let Some(v) = shared.epochs {
            p = p.epochs(v);
        }
        p
    }
}

/// Trains on `data` and writes the model and its `MODEL.meta.toml`.
pub fn run(
    data: &[PathBuf],
    out: &ModelOut,
    args: &StreamingArgs,
    shared: &LearnerArgs,
) -> CliResult {
    let (features, binary) = (out.features, out.binary);
    let params = args.params(shared).check()?;
    // Allocate the whole weight table now when the feature set says how large.
    let dimension = if features == "unspecified" {
        0
    } else {
        features.parse::<Features>()?.dimension() as usize
    };
    let files = expand_paths(data)?;
    let bar = verbosity::bar(
        (files.len() * params.epochs()) as u64,
        "{elapsed_precise} [{bar:30}] {pos}/{len} files {msg}",
    )?;
    let observer = |event: &Event<'_>| match event {
        Event::File { epoch, .. } => {
            bar.set_message(format!("epoch {epoch}"));
            bar.inc(1);
        }
        // Every epoch with -v, the last one otherwise (the fit's summary).
        Event::Epoch(Epoch::Streaming(s)) if verbosity::verbose() || s.epoch == params.epochs() => {
            bar.suspend(|| {
                summary!(
                    "epoch {}: {} rows, mse {:.6e} (before update), {} batches, \
             {} weight updates, {:.2}s",
                    s.epoch,
                    s.rows,
                    s.mse,
                    s.batches,
                    s.features_updated,
                    s.seconds
                )
            })
        }
        _ => {}
    };
    let fit = params.fit(&files, dimension, &observer)?;
    bar.finish_and_clear();
    let stats = fit.epochs.clone();
    let mut model = fit.into_model(features);
    summary!(
        "{} file(s), {} features, {:.2}s",
        files.len(),
        model.nr_feature(),
        stats.iter().map(|s| s.seconds).sum::<f64>()
    );
    let list = |v: Vec<String>| format!("[{}]", v.join(", "));
    let mut options = params.meta();
    options.extend([
        (
            "seed",
            params
                .seed()
                .map_or_else(|| toml_string("sorted"), |s| s.to_string()),
        ),
        ("binary", binary.to_string()),
        (
            "epoch_mse",
            list(stats.iter().map(|s| format!("{:?}", s.mse)).collect()),
        ),
        (
            "data",
            list(
                files
                    .iter()
                    .map(|f| toml_string(&f.display().to_string()))
                    .collect(),
            ),
        ),
    ]);
    out.write(&mut model, None, features, &options)?;
    Ok(ExitCode::SUCCESS)
}
