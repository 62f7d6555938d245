//! `kifulearn fit streaming`: the Logistello-style learner over libsvm
//! files, one file (game) at a time (see `docs/streaming.md`).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use kifulearn::features::{FeatureSet, Features};
use kifulearn::libsvm::expand_paths;
use kifulearn::model::{ModelMeta, Seed};
use kifulearn::train::prior::named_prior_model_units;
use kifulearn::train::progress::Epoch;
use kifulearn::train::streaming::StreamingValidParams;
use kifulearn::train::{Event, StreamingParams};
use linfa::ParamGuard;

use super::OutArgs;
use crate::cli::verbosity::{self, summary};
use crate::cli::CliResult;

/// The learner's defaults ([`StreamingParams::default`]), which `--help` shows.
fn defaults() -> StreamingValidParams {
    StreamingParams::default().check_unwrap()
}

/// A step size: read as f64 and rounded to f32 once, as the learner takes it.
fn f32_via_f64(s: &str) -> Result<f32, String> {
    s.parse::<f64>()
        .map(|v| v as f32)
        .map_err(|e| e.to_string())
}

/// Options of `fit streaming`.
#[derive(ClapArgs)]
pub struct Args {
    /// libsvm files, or folders of `*.svm` files (dataset folders).
    #[arg(required = true)]
    data: Vec<PathBuf>,
    #[command(flatten)]
    out: OutArgs,
    /// Learn the correction to this evaluation, fitted to the labels minus
    /// its value (the bound limits the correction), and add it back:
    /// `material` (the piece values on the `material` part of --features),
    /// `zero`, or a model file [default: none, from zero].
    #[arg(long)]
    prior: Option<String>,
    /// Passes over the data.
    #[arg(long, default_value_t = defaults().epochs())]
    epochs: usize,
    /// Games (files) per update.
    #[arg(long, default_value_t = defaults().batch_games())]
    batch_games: usize,
    /// Step size.
    #[arg(long, allow_negative_numbers = true, value_parser = f32_via_f64,
          default_value_t = defaults().rate())]
    rate: f32,
    /// Seed of the file order, shuffled every epoch [default: sorted order].
    #[arg(long)]
    seed: Option<u64>,
    /// Rows of a batch a feature must occur in to be updated.
    #[arg(long, default_value_t = defaults().min_frequency())]
    min_frequency: u32,
    /// Largest absolute weight.
    #[arg(long, default_value_t = defaults().bound())]
    bound: f32,
}

impl Args {
    fn params(&self) -> StreamingParams {
        StreamingParams::new()
            .seed(self.seed)
            .rate(self.rate)
            .min_frequency(self.min_frequency)
            .bound(self.bound)
            .batch_games(self.batch_games)
            .epochs(self.epochs)
    }
}

/// The parameters the options set, as `Debug` shows them, and the named
/// prior (in place of the weights it becomes), for `fit::tests`.
#[cfg(test)]
pub(super) fn params_debug(args: &Args) -> (String, Vec<(&'static str, String)>) {
    (
        format!("{:?}", args.params()),
        vec![("prior", format!("{:?}", args.prior))],
    )
}

/// Trains on `data` and writes the model and its `MODEL.meta.toml`.
pub fn run(args: &Args) -> CliResult {
    let out = &args.out.model_out(&args.data, true)?;
    let data = &args.data[..];
    let features = out.features.as_str();
    let params = args.params().check()?;
    // Allocate the whole weight table now when the feature set says how large.
    let dimension = if features == "unspecified" {
        0
    } else {
        features.parse::<Features>()?.dimension() as usize
    };
    // The prior in model units, the SVR's (`train::prior`).
    let prior = match args.prior.as_deref() {
        None => None,
        Some(name) => {
            let set: Features = features.parse().map_err(|e| {
                format!(
                    "--prior {name} needs the rows' feature set (--features or dataset.toml): {e}"
                )
            })?;
            Some(named_prior_model_units(&set, name)?)
        }
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
    let fit = params.fit_with_prior(&files, dimension, prior.as_deref(), &observer)?;
    bar.finish_and_clear();
    let stats = fit.epochs.clone();
    let mut model = fit.into_model(features);
    summary!(
        "{} file(s), {} features, {:.2}s",
        files.len(),
        model.nr_feature(),
        stats.iter().map(|s| s.seconds).sum::<f64>()
    );
    let meta = ModelMeta {
        seed: Some(Seed(params.seed())),
        epoch_mse: Some(stats.iter().map(|s| s.mse).collect()),
        prior: args.prior.clone(),
        ..params.meta(features).data_files(&files)
    };
    out.write(&mut model, None, meta)?;
    Ok(ExitCode::SUCCESS)
}
