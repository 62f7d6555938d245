//! `kifulearn predict`: a model and libsvm data to predictions (like liblinear-predict).

use std::path::PathBuf;
use std::process::ExitCode;

use clap::Args as ClapArgs;
use kifulearn::libsvm::read_paths;
use kifulearn::model::{format_g, format_g17, Model};
use kifulearn::train::predict_into;
use ndarray::Array1;

use super::CliResult;

/// Options of `predict`.
#[derive(ClapArgs)]
pub struct Args {
    /// Model file (liblinear text or kifulearn binary).
    #[arg(long)]
    model: PathBuf,
    /// libsvm file (or folder of `*.svm` files) to predict.
    data: PathBuf,
    /// Prediction file: one `%.17g` number per line.
    #[arg(long)]
    out: PathBuf,
}

/// Runs `predict`; prints MSE and squared correlation as liblinear-predict does.
pub fn run(args: Args) -> CliResult {
    let model = Model::load(&args.model)?;
    let data = read_paths(&[&args.data])?;
    let mut pred = Array1::zeros(data.x.rows());
    predict_into(&model, &data.x, &mut pred);
    let mut text = String::with_capacity(pred.len() * 24);
    for &v in pred.iter() {
        text.push_str(&format_g17(v));
        text.push('\n');
    }
    kifulearn::files::write_atomic(&args.out, text.as_bytes())?;
    let (mse, r2) = regression_scores(
        pred.as_slice().unwrap_or(&[]),
        data.y.as_slice().unwrap_or(&[]),
    );
    println!("Mean squared error = {} (regression)", format_g(mse, 6));
    println!(
        "Squared correlation coefficient = {} (regression)",
        format_g(r2, 6)
    );
    Ok(ExitCode::SUCCESS)
}

/// liblinear-predict's MSE and squared correlation coefficient.
fn regression_scores(p: &[f64], y: &[f64]) -> (f64, f64) {
    let l = p.len() as f64;
    let (mut e, mut sp, mut st, mut spp, mut stt, mut spt) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
    for (&v, &t) in p.iter().zip(y) {
        e += (v - t) * (v - t);
        sp += v;
        st += t;
        spp += v * v;
        stt += t * t;
        spt += v * t;
    }
    let r2 = (l * spt - sp * st).powi(2) / ((l * spp - sp * sp) * (l * stt - st * st));
    (e / l, r2)
}
