//! Extraction speed on real games (floodgate opening lines, 24 plies each):
//! rows per second and nonzeros per row with the material labeller and the
//! `relation` features, on one thread and on all cores; the labelling search
//! alone as the baseline; and evaluations per second of `relation` through the
//! dot-product sink.
//!
//! `cargo bench --bench extract` (prints figures; no criterion harness); the
//! lines come from `fixtures/`, or from the development collection with
//! `KIFULEARN_SHARED=DIR` (`benches/common`).

use std::time::Instant;

use kifulearn::eval::{linear::Linear, Evaluator, Material};
use kifulearn::extract::{self, ExtractOptions, GameJob};
use kifulearn::features::{Features, Relation};
use kifulearn::label::{LabelOptions, Labeller};
use kifulearn::record::{usi, Source};
use kifulearn::shogi::Position;

const GAMES: usize = 300;

mod common;

/// `GAMES` lines spread over the first 10,000 (every 33rd of the development
/// collection's floodgate set; every bundled line of `fixtures/`, 575).
fn jobs() -> Vec<GameJob> {
    let (path, lines, name) = common::opening_lines();
    println!("games: floodgate-2016 lines of {name}");
    let step = (lines.len().min(10_000) / GAMES).max(1);
    lines
        .iter()
        .enumerate()
        .step_by(step)
        .take(GAMES)
        .map(|(index, line)| {
            let source = Source {
                path: path.clone(),
                index,
            };
            // The USI-line reader replays and checks every move.
            let mut game = usi::read(line, &source.path).remove(0).unwrap();
            game.source = source.clone();
            GameJob {
                name: extract::game_name("bench", index),
                source: source.to_string(),
                game: Ok(game),
            }
        })
        .collect()
}

fn main() {
    let jobs = jobs();
    let features: Features = "relation".parse().unwrap();
    let options = ExtractOptions::default();

    // Baseline: the labelling search alone (no features, no files), one thread.
    let start = Instant::now();
    let mut labeller = Labeller::new(&Material, LabelOptions::default());
    let mut out = Vec::new();
    let mut rows = 0u64;
    for job in &jobs {
        let game = job.game.as_ref().unwrap();
        let mut pos = game.start.clone();
        for &mv in &game.moves {
            labeller
                .label_position(&pos, mv, &mut out, |_, _, _, _| {})
                .unwrap();
            rows += out.len() as u64;
            pos.play_unchecked(mv);
        }
    }
    let base = rows as f64 / start.elapsed().as_secs_f64();
    println!(
        "label only, 1 thread:        {base:>9.0} rows/s  ({rows} rows, {} nodes/row)",
        labeller.nodes() / rows
    );

    for threads in [
        1,
        std::thread::available_parallelism().map_or(2, |n| n.get()),
    ] {
        let dir =
            std::env::temp_dir().join(format!("kifulearn-bench-extract-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        let start = Instant::now();
        let summary = pool
            .install(|| extract::run(&jobs, &dir, &features, &Material, &options, |_, _| {}))
            .unwrap();
        let secs = start.elapsed().as_secs_f64();
        let rows: u64 = summary.reports.iter().map(|r| r.rows).sum();
        let nnz: u64 = summary.reports.iter().map(|r| r.nonzeros).sum();
        let rate = rows as f64 / secs;
        println!(
            "extract relation, {threads} thread(s): {rate:>9.0} rows/s  ({:.2} × label-only), {:.1} nonzeros/row",
            rate / base,
            nnz as f64 / rows as f64
        );
        let _ = std::fs::remove_dir_all(&dir);
    }

    // Evaluations of a relation model (dot sink, no row built) against material.
    let positions: Vec<Position> = jobs
        .iter()
        .flat_map(|j| {
            let g = j.game.as_ref().unwrap();
            let mut p = g.start.clone();
            g.moves.iter().map(move |&m| {
                p.play_unchecked(m);
                p.clone()
            })
        })
        .collect();
    let model = Linear::new(Relation, vec![1e-4; 5_143_824]);
    for (name, f) in [
        (
            "material eval",
            &(|p: &Position| Material.evaluate(p)) as &dyn Fn(&Position) -> i32,
        ),
        ("relation dot eval", &|p: &Position| model.evaluate(p)),
    ] {
        let start = Instant::now();
        let mut sum = 0i64;
        for _ in 0..5 {
            for p in &positions {
                sum += f(p) as i64;
            }
        }
        let rate = 5.0 * positions.len() as f64 / start.elapsed().as_secs_f64();
        println!("{name:<28} {rate:>9.0} evals/s (checksum {sum})");
    }
}
