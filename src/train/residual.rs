//! Residual rows: a prior for learners that have none (`kifulearn dataset
//! residual` and `dataset add-prior`).
//!
//! `fit svr --prior w0` minimises ½‖w − w0‖² + C Σ loss(y − w·x). With
//! v = w − w0 that is ½‖v‖² + C Σ loss((y − w0·x) − v·x): the same fit with
//! no prior, on labels `y − w0·x` ([`super::prior::residual_label`]).
//! So a folder of rows whose labels are rewritten that way lets liblinear,
//! scikit-learn or Spark fit the model `fit svr --prior` fits: each fits v,
//! and [`add_prior`] gives w = w0 + v. The new folder's `dataset.toml`
//! names the prior and hashes its files, so the prior added back is the one
//! the labels were made with.
//!
//! Written here rather than taken from a crate: it is a rewrite of the label
//! token of text rows, with the rest of each line copied as it is.

use std::fs;
use std::io::{self, BufRead, BufWriter, Write};
use std::path::Path;

use super::prior::{named_prior_model_units, residual_label};
use crate::extract::Labelling;
use crate::features::Features;
use crate::libsvm::dataset::{DatasetInfo, DATASET_TOML, ROWS_DIR};
use crate::model::{Model, ModelMeta};

/// What [`write_residual_rows`] wrote.
#[derive(Debug)]
pub struct ResidualSummary {
    /// Row files rewritten.
    pub files: usize,
    /// Rows rewritten.
    pub rows: u64,
    /// The mean absolute label before and after, model units.
    pub mean_abs_label: (f64, f64),
}

/// The hash [`DatasetInfo::prior_hash`] records for a prior named as
/// `fit --prior` takes it: `""` for `material` and `zero`, else the model
/// file's and its sidecar's ([`Labelling::model`]).
fn prior_hash(prior: &str) -> Result<String, String> {
    match prior {
        "material" | "zero" => Ok(String::new()),
        path => Labelling::model(Path::new(path))
            .map(|l| l.hash)
            .map_err(|e| format!("--prior {path}: {e}")),
    }
}

/// The prior's weights over the rows' feature set, in model units; a model
/// file of another feature set is refused.
fn prior_weights(features: &str, prior: &str) -> Result<Vec<f64>, String> {
    let set: Features = features
        .parse()
        .map_err(|e| format!("features {features:?}: {e}"))?;
    if !matches!(prior, "material" | "zero") {
        let model = Model::load(Path::new(prior)).map_err(|e| e.to_string())?;
        if model.features != features {
            return Err(format!(
                "the prior {prior} holds features {:?}, the rows {features:?}",
                model.features
            ));
        }
    }
    named_prior_model_units(&set, prior).map_err(|e| e.to_string())
}

/// Writes `out`, a dataset folder with the rows of `dir` and labels
/// `y − w0·x` for the prior `prior` (`material` or a model file, in model
/// units as `fit --prior` reads it). Each row's features are copied as
/// they are; its label is written in Rust's shortest round-trip form, so a
/// learner reads the `f64` that `fit svr --prior` fits in memory.
/// `dataset.toml` is written last, so an interrupted run leaves no folder
/// that reads as a dataset; an existing `out` is refused.
pub fn write_residual_rows(dir: &Path, prior: &str, out: &Path) -> Result<ResidualSummary, String> {
    let mut info = DatasetInfo::read(dir)?;
    if let Some(p) = &info.prior {
        return Err(format!(
            "{}: its labels are already residuals of the prior {p}: make residual rows from the folder they came from",
            dir.display()
        ));
    }
    if prior == "zero" {
        return Err(
            "--prior zero leaves every label as it is: name `material` or a model file".into(),
        );
    }
    let hash = prior_hash(prior)?;
    let w0 = prior_weights(&info.features, prior)?;
    if out.exists() {
        return Err(format!(
            "{} exists: residual rows are written to a new folder",
            out.display()
        ));
    }
    let files = crate::libsvm::expand_paths(&[dir.join(ROWS_DIR)]).map_err(|e| e.to_string())?;
    let out_rows = out.join(ROWS_DIR);
    fs::create_dir_all(&out_rows).map_err(|e| format!("{}: {e}", out_rows.display()))?;
    let mut rows = 0u64;
    let (mut before, mut after) = (0.0f64, 0.0f64);
    let (mut indices, mut values) = (Vec::<u32>::new(), Vec::<f64>::new());
    for file in &files {
        let name = file.file_name().expect("a row file has a name");
        let target = out_rows.join(name);
        let io_err = |e: io::Error, p: &Path| format!("{}: {e}", p.display());
        let reader = io::BufReader::with_capacity(
            1 << 20,
            fs::File::open(file).map_err(|e| io_err(e, file))?,
        );
        let mut writer = BufWriter::with_capacity(
            1 << 20,
            fs::File::create(&target).map_err(|e| io_err(e, &target))?,
        );
        for (n, line) in reader.lines().enumerate() {
            let line = line.map_err(|e| io_err(e, file))?;
            let at = || format!("{}:{}", file.display(), n + 1);
            let text = line.trim_end();
            let (label, rest) = text.split_once(char::is_whitespace).unwrap_or((text, ""));
            let y: f64 = label
                .parse()
                .map_err(|_| format!("{}: label {label:?} is not a number", at()))?;
            indices.clear();
            values.clear();
            for token in rest.split_whitespace() {
                if token.starts_with("qid:") {
                    continue;
                }
                let (i, v) = token
                    .split_once(':')
                    .ok_or_else(|| format!("{}: {token:?} is not index:value", at()))?;
                let i: u32 = i
                    .parse()
                    .ok()
                    .filter(|&i| i >= 1 && u64::from(i) <= info.dimension)
                    .ok_or_else(|| {
                        format!("{}: index {i:?} is not in 1..={}", at(), info.dimension)
                    })?;
                // Read as `f32`, as `fit` reads values, so the residual is the
                // one it computes.
                let v: f32 = v
                    .parse()
                    .map_err(|_| format!("{}: value {v:?} is not a number", at()))?;
                indices.push(i - 1);
                values.push(f64::from(v));
            }
            let r = residual_label(y, &w0, &indices, values.iter().copied());
            before += y.abs();
            after += r.abs();
            rows += 1;
            if rest.is_empty() {
                writeln!(writer, "{r}")
            } else {
                writeln!(writer, "{r} {rest}")
            }
            .map_err(|e| io_err(e, &target))?;
        }
        writer.flush().map_err(|e| io_err(e, &target))?;
    }
    if rows != info.rows {
        return Err(format!(
            "{}: {rows} rows in {} but its {DATASET_TOML} says {}",
            dir.display(),
            ROWS_DIR,
            info.rows
        ));
    }
    info.prior = Some(prior.to_string());
    info.prior_hash = Some(hash);
    info.write(out)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    let n = rows.max(1) as f64;
    Ok(ResidualSummary {
        files: files.len(),
        rows,
        mean_abs_label: (before / n, after / n),
    })
}

/// Adds the prior of the residual rows `dir` back to `fitted`, a model
/// fitted to them by any learner, and writes the sum to `out` as a text
/// model (liblinear's format) with a sidecar whose `prior` names it. Refuses
/// rows that are not residuals, a model of another feature set, and a prior
/// whose files changed since the rows were written.
pub fn add_prior(fitted: &Path, dir: &Path, out: &Path) -> Result<Model, String> {
    let info = DatasetInfo::read(dir)?;
    let prior = info.prior.as_deref().ok_or_else(|| {
        format!(
            "{}: its {DATASET_TOML} names no prior: these are not residual rows (kifulearn dataset residual)",
            dir.display()
        )
    })?;
    let now = prior_hash(prior)?;
    if info.prior_hash.as_deref() != Some(now.as_str()) {
        return Err(format!(
            "{prior} changed since {} was written from it (hash {} then, {now} now): the labels are residuals of another model",
            dir.display(),
            info.prior_hash.as_deref().unwrap_or("none")
        ));
    }
    let (mut model, meta) = Model::load_with_meta(fitted).map_err(|e| e.to_string())?;
    if model.features != info.features {
        return Err(format!(
            "{}: features {:?}, but {} holds {:?}",
            fitted.display(),
            model.features,
            dir.display(),
            info.features
        ));
    }
    let w0 = prior_weights(&info.features, prior)?;
    super::prior::add_prior(&mut model.w, &w0);
    let mut meta = meta.unwrap_or_else(|| ModelMeta::new(&info.features));
    meta.features = Some(info.features.clone());
    meta.prior = Some(prior.to_string());
    meta.nr_feature = Some(model.w.len() as u64);
    meta.binary = None;
    model
        .save_with_meta(out, false, &meta)
        .map_err(|e| format!("{}: {e}", out.display()))?;
    Ok(model)
}
