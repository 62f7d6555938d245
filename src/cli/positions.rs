//! `kifulearn positions PATH... [--format F] [--sfen OUT] [--convert OUT [--to F]]`:
//! summarize position files (PackedSfenValue, HCPE), dump SFEN lines, convert;
//! `--relabel OUT --teacher-usi CMD`: the same records scored by a USI engine
//! (`docs/teacher.md`).

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use kifulearn::features::DEFAULT_SET;
use kifulearn::positions::{
    read_positions, read_positions_as, GameResult, PositionFormat, PositionRecord, PositionWriter,
    DEFAULT_EVAL_LIMIT,
};
use kifulearn::shogi::Color;

use super::teacher::TeacherArgs;
use super::{help_with_default, AtomicFile, CliResult};

#[derive(clap::Args)]
pub struct Args {
    /// Position files: .psv/.bin (YaneuraOu PackedSfenValue) or .hcpe (cshogi/dlshogi HCPE).
    #[arg(required = true)]
    paths: Vec<PathBuf>,
    /// Read every file as this format (psv or hcpe) whatever its extension
    /// [default: by extension: .psv/.bin psv, .hcpe hcpe].
    #[arg(long, value_name = "FORMAT")]
    format: Option<PositionFormat>,
    /// Write each position read as one SFEN line (move number = the record's ply).
    #[arg(long, value_name = "OUT")]
    sfen: Option<PathBuf>,
    /// Write every record read to OUT, in the format of --to or of OUT's extension.
    #[arg(long, value_name = "OUT")]
    convert: Option<PathBuf>,
    /// The format --convert writes: psv or hcpe [default: by OUT's extension].
    #[arg(long, value_name = "FORMAT")]
    to: Option<PositionFormat>,
    /// Write every record read to OUT with its score replaced by the
    /// --teacher-usi engine's (format of --to or OUT's extension); positions the
    /// teacher fails on twice are left out and counted.
    #[arg(long, value_name = "OUT", requires = "teacher", conflicts_with_all = ["sfen", "convert"])]
    relabel: Option<PathBuf>,
    #[command(flatten)]
    teacher: TeacherArgs,
    /// Relabelling: scores are clamped to ±CP, mates are ±CP (generate's default too).
    #[arg(long, value_name = "CP", default_value_t = DEFAULT_EVAL_LIMIT, requires = "relabel")]
    eval_limit: i32,
    /// Relabelling: teacher processes, one per thread [default: all cores].
    #[arg(long, requires = "relabel")]
    jobs: Option<usize>,
    /// Write a dataset folder of position rows (docs/dataset.md, "Position
    /// rows"): one libsvm row per position, the features of the end of its
    /// quiescence line, labelled with the file's score (the teacher's) in
    /// model units; the rows `fit positions` learns from. PATHs
    /// may be folders (`generate`'s output).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["sfen", "convert", "relabel", "format"])]
    rows: Option<PathBuf>,
    // Rows: feature sets; unset, rows::run applies features::DEFAULT_SET,
    // which the help shows.
    #[arg(long, requires = "rows", help = help_with_default("Rows: feature sets, comma-separated", DEFAULT_SET))]
    features: Option<String>,
    /// Rows: write svmlight's `qid:N` after each label, one N per game (a run of rising plies).
    #[arg(long, requires = "rows")]
    qid: bool,
    #[command(flatten)]
    row_args: rows::RowArgs,
}

pub(crate) mod rows;

/// Errors printed per file before the rest are only counted.
const ERRORS_SHOWN: usize = 10;

pub fn run(args: Args) -> CliResult {
    if args.to.is_some() && args.convert.is_none() && args.relabel.is_none() {
        return Err("--to: give --convert OUT or --relabel OUT".into());
    }
    if args.teacher.teacher.is_some() && args.relabel.is_none() {
        return Err(
            "--teacher-usi: give --relabel OUT (the file the relabelled records go to)".into(),
        );
    }
    if let Some(out) = &args.relabel {
        return relabel::run(&args, out);
    }
    if let Some(dir) = &args.rows {
        return rows::run(
            &args.paths,
            dir,
            args.features.as_deref(),
            args.qid,
            &args.row_args,
        );
    }
    if let Some(flag) = args.row_args.given() {
        return Err(format!("{flag}: give --rows DIR (the folder of position rows)").into());
    }
    let convert_format = match &args.convert {
        None => None,
        Some(out) => Some(
            args.to
                .or_else(|| PositionFormat::from_path(out))
                .ok_or_else(|| {
                    format!(
                        "--convert {}: give --to psv|hcpe or a .psv, .bin or .hcpe name",
                        out.display()
                    )
                })?,
        ),
    };
    let mut sfen_out = args.sfen.as_deref().map(AtomicFile::create).transpose()?;
    let mut converted = match (&args.convert, convert_format) {
        (Some(out), Some(format)) => Some((AtomicFile::create(out)?, format)),
        _ => None,
    };
    let mut writer = converted
        .as_mut()
        .map(|(file, format)| PositionWriter::new(file.writer(), *format));

    let mut out = std::io::stdout().lock();
    let mut summary = Summary::default();
    for path in &args.paths {
        let reader = match args.format {
            Some(format) => read_positions_as(path, format),
            None => read_positions(path),
        }?;
        let format = reader.format();
        let (mut ok, mut failed) = (0u64, 0u64);
        let mut shown = Vec::new();
        for item in reader {
            match item {
                Ok(rec) => {
                    ok += 1;
                    summary.add(&rec);
                    if let Some(file) = &mut sfen_out {
                        writeln!(file.writer(), "{}", rec.position.to_sfen())?;
                    }
                    if let Some(w) = &mut writer {
                        w.write(&rec)?;
                    }
                }
                Err(e) => {
                    failed += 1;
                    if shown.len() < ERRORS_SHOWN {
                        shown.push(e);
                    }
                }
            }
        }
        summary.failed += failed;
        writeln!(
            out,
            "{}: {format}, {ok} records, {failed} errors",
            path.display()
        )?;
        for e in &shown {
            writeln!(out, "  error: {e}")?;
        }
        if failed > shown.len() as u64 {
            writeln!(out, "  ... and {} more errors", failed - shown.len() as u64)?;
        }
    }
    writer.map(PositionWriter::finish).transpose()?;
    summary.print(&mut out)?;
    if let Some(file) = sfen_out {
        file.commit()?;
        writeln!(
            out,
            "wrote {} SFEN lines to {}",
            summary.records,
            args.sfen.as_ref().expect("--sfen given").display()
        )?;
    }
    if let Some((file, format)) = converted {
        file.commit()?;
        writeln!(
            out,
            "wrote {} {format} records to {}",
            summary.records,
            args.convert.as_ref().expect("--convert given").display()
        )?;
    }
    Ok(ExitCode::SUCCESS)
}

/// Counts and ranges over the records read.
#[derive(Default)]
struct Summary {
    records: u64,
    failed: u64,
    to_move: [u64; 2],
    results: [u64; 4],
    with_move: u64,
    score_min: i16,
    score_max: i16,
    score_sum: i64,
    ply_min: u16,
    ply_max: u16,
}

impl Summary {
    fn add(&mut self, rec: &PositionRecord) {
        if self.records == 0 {
            (self.score_min, self.score_max) = (rec.score, rec.score);
            (self.ply_min, self.ply_max) = (rec.ply, rec.ply);
        }
        self.records += 1;
        self.to_move[usize::from(rec.position.side_to_move() == Color::White)] += 1;
        self.results[match rec.result {
            GameResult::Win => 0,
            GameResult::Loss => 1,
            GameResult::Draw => 2,
            GameResult::Unknown => 3,
        }] += 1;
        self.with_move += u64::from(rec.best_move.is_some());
        self.score_min = self.score_min.min(rec.score);
        self.score_max = self.score_max.max(rec.score);
        self.score_sum += i64::from(rec.score);
        self.ply_min = self.ply_min.min(rec.ply);
        self.ply_max = self.ply_max.max(rec.ply);
    }

    fn print(&self, out: &mut dyn Write) -> std::io::Result<()> {
        writeln!(
            out,
            "positions: {} ok, {} failed",
            self.records, self.failed
        )?;
        if self.records == 0 {
            return Ok(());
        }
        let [win, loss, draw, _] = self.results;
        writeln!(
            out,
            "side to move: black {}, white {}",
            self.to_move[0], self.to_move[1]
        )?;
        writeln!(
            out,
            "results for the side to move: win {win}, loss {loss}, draw {draw}"
        )?;
        writeln!(
            out,
            "scores: {} to {}, mean {:.1}",
            self.score_min,
            self.score_max,
            self.score_sum as f64 / self.records as f64
        )?;
        writeln!(out, "plies: {} to {}", self.ply_min, self.ply_max)?;
        writeln!(
            out,
            "best moves: {} ({} without)",
            self.with_move,
            self.records - self.with_move
        )
    }
}

mod relabel {
    //! `--relabel OUT --teacher-usi CMD`: every record scored by the teacher.

    use std::path::Path;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::{Duration, Instant};

    use kifulearn::positions::{
        read_positions, read_positions_as, PositionFormat, PositionRecord, PositionWriter,
        EVAL_LIMITS,
    };
    use kifulearn::teacher::{label_records, Teacher, TeacherStats};

    use super::{Args, AtomicFile, CliResult};
    use std::process::ExitCode;

    /// Records labelled per block (read, labelled, written, then the next);
    /// a multiple of every batch size up to 1024.
    const BLOCK: usize = 65536;

    pub(super) fn run(args: &Args, out: &Path) -> CliResult {
        let spec = args
            .teacher
            .spec()?
            .expect("--relabel requires --teacher-usi");
        if args.teacher.teacher_batch == 0 || !BLOCK.is_multiple_of(args.teacher.teacher_batch) {
            return Err(format!(
                "--teacher-batch {}: expected a divisor of {BLOCK} (e.g. 1024)",
                args.teacher.teacher_batch
            )
            .into());
        }
        if !EVAL_LIMITS.contains(&args.eval_limit) {
            return Err(format!(
                "--eval-limit {}: expected {} to {}",
                args.eval_limit,
                EVAL_LIMITS.start(),
                EVAL_LIMITS.end()
            )
            .into());
        }
        let first_format = match args.format {
            Some(f) => f,
            None => PositionFormat::from_path(&args.paths[0]).ok_or_else(|| {
                format!(
                    "{}: give --format psv|hcpe or a .psv, .bin or .hcpe name",
                    args.paths[0].display()
                )
            })?,
        };
        let format = args
            .to
            .or_else(|| PositionFormat::from_path(out))
            .unwrap_or(first_format);
        let jobs = match args.jobs {
            Some(0) => return Err("--jobs 0: expected at least 1".into()),
            Some(n) => n,
            None => std::thread::available_parallelism().map_or(1, |n| n.get()),
        };
        let mut total = 0u64;
        for path in &args.paths {
            let f = args
                .format
                .or_else(|| PositionFormat::from_path(path))
                .unwrap_or(first_format);
            let len = std::fs::metadata(path)
                .map_err(|e| format!("{}: {e}", path.display()))?
                .len();
            total += len / f.record_len() as u64;
        }
        let mut teachers = Vec::with_capacity(jobs);
        for _ in 0..jobs {
            teachers.push(Teacher::new(&spec)?);
        }
        let name = teachers[0]
            .engine_name()
            .unwrap_or("(no id name)")
            .to_string();
        super::super::verbosity::summary!(
            "teacher: {name}, {}, {jobs} process(es)",
            spec.go_command()
        );
        let mut file = AtomicFile::create(out)?;
        let mut writer = PositionWriter::new(file.writer(), format);
        let bar =
            super::super::verbosity::bar(total, "{bar:40} {pos}/{len} positions {msg} {elapsed}")?;
        let started = Instant::now();
        let mut pairs: Vec<(i16, i16)> = Vec::new();
        let (mut read, mut failed, mut written) = (0u64, 0u64, 0u64);
        let mut block: Vec<PositionRecord> = Vec::with_capacity(BLOCK);
        let mut label_block = |block: Vec<PositionRecord>,
                               teachers: &mut Vec<Teacher>,
                               writer: &mut PositionWriter<_>,
                               read: u64|
         -> Result<u64, Box<dyn std::error::Error>> {
            let old: Vec<i16> = block.iter().map(|r| r.score).collect();
            let done = AtomicU64::new(0);
            let labelled = std::thread::scope(|scope| {
                let h = scope.spawn(|| {
                    label_records(
                        teachers,
                        &spec,
                        args.eval_limit,
                        args.teacher.teacher_batch,
                        block,
                        &done,
                    )
                });
                while !h.is_finished() {
                    let d = done.load(Ordering::Relaxed);
                    let base = read - old.len() as u64;
                    bar.set_position(base + d);
                    bar.set_message(format!(
                        "({:.1} positions/s)",
                        (base + d) as f64 / started.elapsed().as_secs_f64().max(1e-9)
                    ));
                    std::thread::sleep(Duration::from_millis(100));
                }
                h.join().expect("labelling thread panicked")
            })?;
            let mut n = 0;
            for (rec, old) in labelled.iter().zip(old) {
                if let Some(rec) = rec {
                    writer.write(rec)?;
                    pairs.push((old, rec.score));
                    n += 1;
                }
            }
            Ok(n)
        };
        for path in &args.paths {
            let reader = match args.format {
                Some(format) => read_positions_as(path, format),
                None => read_positions(path),
            }?;
            for item in reader {
                match item {
                    Ok(rec) => {
                        read += 1;
                        block.push(rec);
                        if block.len() == BLOCK {
                            written += label_block(
                                std::mem::take(&mut block),
                                &mut teachers,
                                &mut writer,
                                read,
                            )?;
                        }
                    }
                    Err(e) => {
                        if failed < 10 {
                            bar.suspend(|| eprintln!("{}: {e}", path.display()));
                        }
                        failed += 1;
                    }
                }
            }
        }
        if !block.is_empty() {
            written += label_block(std::mem::take(&mut block), &mut teachers, &mut writer, read)?;
        }
        writer.finish()?;
        file.commit()?;
        bar.finish_and_clear();
        let secs = started.elapsed().as_secs_f64();
        let mut stats = TeacherStats::default();
        for t in &teachers {
            stats.add(&t.stats);
        }
        println!(
            "relabelled: {written} of {read} positions ({failed} unreadable records), {} retried, {} skipped, {} teacher restarts, {:.1} s, {:.1} positions/s",
            stats.retried, stats.skipped, stats.restarts, secs, read as f64 / secs.max(1e-9)
        );
        if let Some(e) = teachers
            .iter()
            .filter_map(|t| t.last_error.as_deref())
            .next()
        {
            println!("last teacher failure: {e}");
        }
        print_scale(&pairs, args.eval_limit);
        println!("wrote {written} {format} records to {}", out.display());
        Ok(ExitCode::SUCCESS)
    }

    /// The old scores against the teacher's: a least-squares scale (old ≈
    /// k × teacher, through 0), the correlation and quantiles of |score|,
    /// the RMS ratio, over the positions where neither score is clamped (or a mate).
    fn print_scale(pairs: &[(i16, i16)], limit: i32) {
        let both: Vec<(f64, f64)> = pairs
            .iter()
            .filter(|(o, t)| i32::from(*o).abs() < limit && i32::from(*t).abs() < limit)
            .map(|&(o, t)| (f64::from(o), f64::from(t)))
            .collect();
        if both.len() < 2 {
            return;
        }
        let n = both.len() as f64;
        let (so, st) = both.iter().fold((0.0, 0.0), |a, p| (a.0 + p.0, a.1 + p.1));
        let (mo, mt) = (so / n, st / n);
        let (mut sot, mut stt, mut soo, mut cot, mut ctt, mut coo) = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0);
        for &(o, t) in &both {
            sot += o * t;
            stt += t * t;
            soo += o * o;
            cot += (o - mo) * (t - mt);
            ctt += (t - mt) * (t - mt);
            coo += (o - mo) * (o - mo);
        }
        let k = if stt > 0.0 { sot / stt } else { f64::NAN };
        let rms = (soo / stt).sqrt();
        let r = cot / (ctt * coo).sqrt();
        let quantiles = |f: fn(&(f64, f64)) -> f64| {
            let mut v: Vec<f64> = both.iter().map(|p| f(p).abs()).collect();
            v.sort_by(f64::total_cmp);
            [0.25, 0.5, 0.75, 0.9].map(|q| v[((v.len() - 1) as f64 * q).round() as usize])
        };
        let (qo, qt) = (quantiles(|p| p.0), quantiles(|p| p.1));
        println!(
            "scale on {} positions (both |score| < {limit}): old ≈ {k:.3} × teacher (least squares through 0), RMS ratio {rms:.3}, correlation {r:.3}",
            both.len()
        );
        println!(
            "|score| quantiles 25/50/75/90%: old {:.0}/{:.0}/{:.0}/{:.0}, teacher {:.0}/{:.0}/{:.0}/{:.0}, ratio {:.2}/{:.2}/{:.2}/{:.2}",
            qo[0], qo[1], qo[2], qo[3], qt[0], qt[1], qt[2], qt[3],
            qo[0] / qt[0], qo[1] / qt[1], qo[2] / qt[2], qo[3] / qt[3]
        );
    }
}
