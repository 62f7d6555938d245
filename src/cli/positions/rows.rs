//! `kifulearn positions FILES... --rows DIR`: position files to a dataset
//! folder of position rows (`train::positions::rows`, docs/dataset.md).

use std::fs;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args as ClapArgs, ValueEnum};
use kifulearn::eval::Material;
use kifulearn::extract::{file_stems, lock::OutputLock, remove_if_present, rows_path, temp_path};
use kifulearn::features::{FeatureSet, Features};
use kifulearn::libsvm::dataset::{DatasetInfo, TargetInfo, FORMAT, ROWS_DIR};
use kifulearn::model::LABEL_SCALE;
use kifulearn::train::positions::rows::{games_by_ply, write_rows, RowLabels, RowTarget};
use kifulearn::train::positions::{
    samples_from_position_files, split_position_paths, Leaves, PositionsParams,
};

use crate::cli::verbosity::summary;
use crate::cli::CliResult;

/// Options of `--rows` (the positions learner's target).
#[derive(ClapArgs)]
#[command(next_help_heading = "Position rows (--rows DIR)")]
pub struct RowArgs {
    /// Feature sets of the rows, comma-separated [default: relation].
    #[arg(long, requires = "rows")]
    features: Option<String>,
    /// λ, the weight of the game result in the target, 0..1 [default: 0.33, the positions learner's].
    #[arg(long, requires = "rows")]
    result_weight: Option<f64>,
    /// K of σ(s / K), centipawns [default: 600, the positions learner's].
    #[arg(long, requires = "rows")]
    eval_k: Option<f64>,
    /// Labels: `score` (K·logit of the target: the teacher's score when λ is
    /// 0) or `sigmoid` (4K·(target − ½): the score near 0, squashed
    /// towards ±2K) [default: score].
    #[arg(long, value_enum, requires = "rows")]
    target: Option<TargetArg>,
    /// Write svmlight's `qid:N` after each label, one N per game (a run of rising plies).
    #[arg(long, requires = "rows")]
    qid: bool,
}

#[derive(Clone, Copy, ValueEnum)]
enum TargetArg {
    Score,
    Sigmoid,
}

pub(super) fn run(paths: &[PathBuf], dir: &Path, args: &RowArgs) -> CliResult {
    let features: Features = args.features.as_deref().unwrap_or("relation").parse()?;
    let d = PositionsParams::default();
    let params = PositionsParams {
        lambda: args.result_weight.unwrap_or(d.lambda),
        eval_k: args.eval_k.unwrap_or(d.eval_k),
        ..d
    };
    params.check()?;
    let target = match args.target {
        None | Some(TargetArg::Score) => RowTarget::Score,
        Some(TargetArg::Sigmoid) => RowTarget::Sigmoid,
    };
    let labels = RowLabels::of(target, &params);
    let (files, others) = split_position_paths(paths)?;
    if !others.is_empty() {
        return Err(format!(
            "--rows reads position files (.psv, .bin, .hcpe): {} holds none",
            others[0].display()
        )
        .into());
    }
    fs::create_dir_all(dir.join(ROWS_DIR))?;
    let _lock = OutputLock::acquire(dir, "positions --rows")?;
    // A folder with dataset.toml holds a finished run: not while this one writes.
    remove_if_present(&dir.join(kifulearn::libsvm::dataset::DATASET_TOML))?;
    let names = file_stems(&files);
    let (mut rows, mut nonzeros, mut next_game, mut bad) = (0, 0, 1, 0);
    for (file, name) in files.iter().zip(&names) {
        let (samples, skipped) = samples_from_position_files(std::slice::from_ref(file))?;
        bad += skipped;
        let leaves = Leaves::build(&features, &Material, &samples);
        let (games, next) = games_by_ply(&samples, next_game);
        next_game = next;
        let path = rows_path(dir, name);
        let tmp = temp_path(&path);
        let mut out = BufWriter::new(fs::File::create(&tmp)?);
        let (r, n) = write_rows(&mut out, &leaves, &labels, args.qid.then_some(&games[..]))?;
        out.flush()?;
        drop(out);
        fs::rename(&tmp, &path)?;
        rows += r;
        nonzeros += n;
    }
    // Row files of other inputs (an earlier run) are not this run's.
    for entry in fs::read_dir(dir.join(ROWS_DIR))? {
        let path = entry?.path();
        let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
        let ours = stem.is_some_and(|s| names.contains(&s));
        if path.extension().is_some_and(|e| e == "svm") && !ours {
            fs::remove_file(&path)?;
        }
    }
    if bad > 0 {
        eprintln!("skipped {bad} position record(s) that do not decode");
    }
    let info = DatasetInfo {
        format: FORMAT.into(),
        dimension: u64::from(features.dimension()),
        features: features.name(),
        rows,
        nonzeros,
        games: next_game - 1,
        failed: 0,
        qid: args.qid,
        rows_at: "position".into(),
        skip_opening: 0,
        max_plies: None,
        shard: "0/1".into(),
        program: format!("kifulearn {}", env!("CARGO_PKG_VERSION")),
        label: None,
        target: Some(TargetInfo {
            target: target.name().into(),
            result_weight: params.lambda,
            eval_k: params.eval_k,
            scale: f64::from(LABEL_SCALE),
            teacher: "position files".into(),
            teacher_depth: None,
        }),
    };
    info.write(dir)?;
    summary!(
        "{rows} position rows ({:.1} nonzeros/row) of {} file(s), {} game(s), features {} (dimension {}), target {} (λ {}, K {}) in {}",
        nonzeros as f64 / rows.max(1) as f64,
        files.len(),
        info.games,
        info.features,
        info.dimension,
        target.name(),
        params.lambda,
        params.eval_k,
        dir.display()
    );
    Ok(ExitCode::SUCCESS)
}
