//! The speed figures of issue 15 item 3, measured in one run so that their
//! ratios compare like with like:
//!
//! 1. extraction rows/s on real games (the professional games of
//!    `fixtures/pro`, or the development collection's 10 with
//!    `KIFULEARN_SHARED=DIR`, as `docs/speed.md` measured them; plies 20–79,
//!    rows of the default `relation` set,
//!    written to files as `extract` writes them, games in parallel on every
//!    core) with the material labeller and with a model labeller, and the
//!    ratio of their times per row (each the median of three passes); and
//!    with the material labeller searching
//!    every sibling to its exact value (`--exact-values`, what every
//!    extraction did before siblings were capped at the game's move);
//! 2. evaluations/s of material, of a `relation` model and of a
//!    `relation,material,kp` model (the sets of the strength work), on the
//!    positions of those games, one thread;
//! 3. engine nodes/s at depth 3 (alpha-beta + quiescence, one thread) with
//!    material and with the `relation,material,kp` model, and their ratio;
//! 4. how much of a position's `relation` sum a move changes: for every legal
//!    move of those positions, the (pair, attack code) terms of the child
//!    that are not the parent's, plus the parent's that are gone, in each of
//!    the two views a model is read from. An incremental evaluation must
//!    look up at least that many weights per move and per view, so this is
//!    the bound on what it can save (`docs/speed.md`);
//! 5. the engine's incremental reading of a model ([`EngineModel`]), for a
//!    `material,kp`, a `material,pp` and a `relation,material,kp` model: evaluations/s of
//!    every child of those positions in full and updated from the parent,
//!    and engine nodes/s with the `f32` model and with `EngineModel`, each
//!    over material's.
//!
//! The model is [`Linear::hashed`]: material values plus pseudo-random
//! positional weights, as heavy to evaluate as a learned model of the same
//! set (`--model PATH` evaluates a model file instead).
//!
//! `cargo bench --bench speed` (optional: `-- --model PATH`, `-- --quick`;
//! `-- --incremental` measures section 5 alone, for profiling an update).

use std::path::{Path, PathBuf};
use std::time::Instant;

use kifulearn::eval::{load_linear, Accumulator, EngineModel, Evaluator, Linear, Material};
use kifulearn::extract::{self, ExtractOptions, GameJob};
use kifulearn::features::{Features, Relation, RowBuilder};
use kifulearn::record::{read_file, Game};
use kifulearn::search::{Control, Limits, Searcher, TranspositionTable};
use kifulearn::shogi::Position;

mod common;

/// The professional games: `fixtures/pro` (2), or the development
/// collection's 10 with `KIFULEARN_SHARED=DIR`; and their name.
fn games() -> (Vec<Game>, String) {
    let (dir, name) = common::records("pro", "pro");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .collect();
    files.sort();
    let games = files
        .iter()
        .flat_map(|f| read_file(f).games)
        .filter_map(Result::ok)
        .collect();
    (games, name)
}

/// CPU seconds used by this process so far (user + system, all threads), from
/// `/proc/self/stat`; `None` where there is no such file. On a machine shared
/// with other work the wall clock undercounts what the code can do; rows per
/// CPU second do not.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: f64 = fields.get(11)?.parse::<f64>().ok()? + fields.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

/// Passes of each extraction: one pass of the bench's games takes about
/// 0.4 s, short enough for one disturbance of the shared machine to move it.
const EXTRACT_PASSES: usize = 3;

/// Rows per second of extracting `games` with labeller `eval`, all cores:
/// the median of [`EXTRACT_PASSES`] passes (wall, and per CPU second), the
/// slowest and fastest pass's wall rates, and the row count.
fn extract_rate<E: Evaluator>(
    jobs: &[GameJob],
    eval: &E,
    exact_values: bool,
    tag: &str,
) -> (f64, f64, [f64; 2], u64) {
    let mut passes: Vec<(f64, f64)> = Vec::new();
    let mut rows = 0;
    for _ in 0..EXTRACT_PASSES {
        let (wall, cpu, n) = extract_pass(jobs, eval, exact_values, tag);
        passes.push((wall, cpu));
        rows = n;
    }
    passes.sort_by(|a, b| a.0.total_cmp(&b.0));
    let (wall, cpu) = passes[passes.len() / 2];
    (wall, cpu, [passes[0].0, passes[passes.len() - 1].0], rows)
}

/// One pass of [`extract_rate`].
fn extract_pass<E: Evaluator>(
    jobs: &[GameJob],
    eval: &E,
    exact_values: bool,
    tag: &str,
) -> (f64, f64, u64) {
    let dir = std::env::temp_dir().join(format!("kifulearn-speed-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let features: Features = "relation".parse().unwrap();
    let options = ExtractOptions {
        skip_opening: 20,
        max_plies: Some(80),
        exact_values,
        ..ExtractOptions::default()
    };
    let start = Instant::now();
    let cpu = cpu_seconds();
    // Through `extract`'s own run (its manifest and dataset description included).
    let summary = extract::run(jobs, &dir, &features, eval, &options, |_, _| {}).unwrap();
    let rows: u64 = summary.reports.iter().map(|r| r.rows).sum();
    let secs = start.elapsed().as_secs_f64();
    let cpu = cpu
        .and_then(|c| Some(cpu_seconds()? - c))
        .unwrap_or(f64::NAN);
    std::fs::remove_dir_all(&dir).ok();
    (rows as f64 / secs, rows as f64 / cpu, rows)
}

/// Evaluations per second over `positions`: the best of five passes (the
/// machine is shared; the best pass is the one least disturbed), and a checksum.
fn eval_rate<E: Evaluator>(positions: &[Position], eval: &E) -> (f64, i64) {
    let mut best = 0.0f64;
    let mut sum = 0i64;
    for _ in 0..5 {
        let start = Instant::now();
        sum = 0;
        for p in positions {
            sum += i64::from(eval.evaluate(std::hint::black_box(p)));
        }
        best = best.max(positions.len() as f64 / start.elapsed().as_secs_f64());
    }
    (best, sum)
}

fn nodes_rate<E: Evaluator>(positions: &[Position], eval: &E) -> (f64, u64) {
    let control = Control::new();
    let mut tt = TranspositionTable::new(16);
    let start = Instant::now();
    let mut nodes = 0u64;
    for p in positions {
        tt.clear();
        let limits = Limits {
            depth: Some(3),
            ..Limits::default()
        };
        nodes += Searcher::new(eval, &mut tt, &control, limits)
            .search(p, &[], |_| {})
            .nodes;
    }
    (nodes as f64 / start.elapsed().as_secs_f64(), nodes)
}

/// Evaluations per second of every child of `positions` (one legal move
/// away), evaluated in full and from its parent's sums updated by the move
/// (the engine's way): the best of three passes each, and the child count.
/// The two values are checked equal.
fn child_rates(positions: &[Position], eval: &EngineModel) -> (f64, f64, usize) {
    let mut children = Vec::new();
    for p in positions {
        p.for_each_legal_move(|mv| {
            let mut child = p.clone();
            child.play_unchecked(mv);
            children.push((p, mv, child));
        });
    }
    let (mut full, mut incremental) = (0.0f64, 0.0f64);
    for _ in 0..3 {
        let start = Instant::now();
        let mut a = 0i64;
        for (_, _, child) in &children {
            a += i64::from(eval.evaluate(std::hint::black_box(child)));
        }
        full = full.max(children.len() as f64 / start.elapsed().as_secs_f64());
        let start = Instant::now();
        let mut b = 0i64;
        let mut parent = Accumulator::default();
        let mut last: Option<&Position> = None;
        for (p, mv, child) in &children {
            if last.is_none_or(|l| !std::ptr::eq(l, *p)) {
                eval.refresh(p, &mut parent);
                last = Some(p);
            }
            let sums = eval.update(p, *mv, child, &parent);
            b += i64::from(eval.evaluate_from(std::hint::black_box(child), &sums));
        }
        incremental = incremental.max(children.len() as f64 / start.elapsed().as_secs_f64());
        assert_eq!(a, b);
    }
    (full, incremental, children.len())
}

/// Terms of `a` not in `b` plus terms of `b` not in `a`, for two libsvm rows
/// (sorted indices; a term is an index with its value).
fn changed_terms(a: &[(u32, f32)], b: &[(u32, f32)]) -> usize {
    let (mut i, mut j, mut changed) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].0.cmp(&b[j].0) {
            std::cmp::Ordering::Less => (changed, i) = (changed + 1, i + 1),
            std::cmp::Ordering::Greater => (changed, j) = (changed + 1, j + 1),
            std::cmp::Ordering::Equal => {
                changed += 2 * usize::from(a[i].1 != b[j].1);
                (i, j) = (i + 1, j + 1);
            }
        }
    }
    changed + (a.len() - i) + (b.len() - j)
}

/// Mean `relation` terms of a child and mean terms changed by the move, over
/// every legal move of `positions`, in each view (the mover's, the other's).
fn relation_churn(positions: &[Position]) -> (f64, [f64; 2], usize) {
    let (mut parent_row, mut child_row) = (RowBuilder::new(), RowBuilder::new());
    let (mut terms, mut changed, mut moves) = (0usize, [0usize; 2], 0usize);
    for p in positions {
        let mover = p.side_to_move();
        for mv in p.legal_moves() {
            let mut child = p.clone();
            child.play_unchecked(mv);
            for (k, view) in [mover, !mover].into_iter().enumerate() {
                let before = parent_row.build(&Relation, p, view);
                let after = child_row.build(&Relation, &child, view);
                changed[k] += changed_terms(before, after);
                if k == 0 {
                    terms += after.len();
                }
            }
            moves += 1;
        }
    }
    let n = moves.max(1) as f64;
    (
        terms as f64 / n,
        [changed[0] as f64 / n, changed[1] as f64 / n],
        moves,
    )
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let quick = args.iter().any(|a| a == "--quick");
    let incremental_only = args.iter().any(|a| a == "--incremental");
    let model: Linear<Features> = match args.iter().position(|a| a == "--model") {
        Some(i) => load_linear(Path::new(&args[i + 1])).unwrap(),
        None => Linear::hashed("relation,material,kp".parse().unwrap(), 2e-4, 15),
    };
    let (mut games, name) = games();
    if quick {
        games.truncate(3);
    }
    let threads = rayon::current_num_threads();
    println!(
        "{} games of {name}, plies 20-79; model {}; {threads} threads",
        games.len(),
        model.features
    );

    let positions: Vec<Position> = games
        .iter()
        .flat_map(|g| g.positions().skip(20).take(60).map(|(p, _)| p))
        .collect();
    if !incremental_only {
        println!("extraction: the median of {EXTRACT_PASSES} passes [slowest, fastest pass]");
        let jobs: Vec<GameJob> = games
            .iter()
            .enumerate()
            .map(|(i, game)| GameJob {
                name: format!("g{i}"),
                source: format!("{}#0", game.source.path.display()),
                game: Ok(game.clone()),
            })
            .collect();
        let (exact_rows, exact_cpu, [lo, hi], n) = extract_rate(&jobs, &Material, true, "exact");
        println!(
            "extract, material, exact:   {exact_rows:>10.0} rows/s wall [{lo:.0}, {hi:.0}], {exact_cpu:>8.0} rows per CPU second ({n} rows; --exact-values)"
        );
        let (material_rows, material_cpu, [lo, hi], n) =
            extract_rate(&jobs, &Material, false, "material");
        println!(
            "extract, material labeller: {material_rows:>10.0} rows/s wall [{lo:.0}, {hi:.0}], {material_cpu:>8.0} rows per CPU second ({n} rows)"
        );
        println!(
            "  capped/exact rows per CPU second: {:.2}",
            material_cpu / exact_cpu
        );
        let (model_rows, model_cpu, [lo, hi], n) = extract_rate(&jobs, &model, false, "model");
        println!(
            "extract, model labeller:    {model_rows:>10.0} rows/s wall [{lo:.0}, {hi:.0}], {model_cpu:>8.0} rows per CPU second ({n} rows)"
        );
        println!(
            "  model/material time per row: {:.2} wall, {:.2} CPU",
            material_rows / model_rows,
            material_cpu / model_cpu
        );

        let relation = Linear::hashed("relation".parse().unwrap(), 2e-4, 15);
        let (material_evals, c1) = eval_rate(&positions, &Material);
        let (relation_evals, c2) = eval_rate(&positions, &relation);
        let (model_evals, c3) = eval_rate(&positions, &model);
        println!(
            "evaluations, 1 thread, {} positions: material {material_evals:.0}/s, relation model {relation_evals:.0}/s, {} model {model_evals:.0}/s  (checksums {c1} {c2} {c3})",
            positions.len(),
            model.features
        );
    }

    let search_positions: Vec<Position> = positions
        .iter()
        .step_by(if quick { 40 } else { 10 })
        .cloned()
        .collect();
    let (material_nps, n1) = nodes_rate(&search_positions, &Material);
    if !incremental_only {
        let (model_nps, n2) = nodes_rate(&search_positions, &model);
        println!(
            "engine depth 3, 1 thread, {} positions: material {material_nps:.0} nodes/s ({n1} nodes), model {model_nps:.0} nodes/s ({n2} nodes)",
            search_positions.len()
        );
        println!("  model/material nodes/s: {:.2}", model_nps / material_nps);
    }

    println!("incremental evaluation (eval::incremental), 1 thread:");
    for set in ["material,kp", "material,pp", "relation,material,kp"] {
        let linear = Linear::hashed(set.parse().unwrap(), 2e-4, 15);
        let engine = EngineModel::new(&linear);
        let (full, incremental, children) = child_rates(&positions, &engine);
        println!(
            "  {set}: {children} children, full {full:.0}/s, updated from the parent {incremental:.0}/s, incremental/full {:.2}",
            incremental / full
        );
        let (linear_nps, _) = nodes_rate(&search_positions, &linear);
        let (engine_nps, _) = nodes_rate(&search_positions, &engine);
        println!(
            "  {set}: engine depth 3 nodes/s, f32 Linear {linear_nps:.0}, EngineModel {engine_nps:.0}; over material's: {:.2} and {:.2}",
            linear_nps / material_nps,
            engine_nps / material_nps
        );
    }

    if incremental_only {
        return;
    }
    let (terms, changed, moves) = relation_churn(&positions);
    println!(
        "relation terms per position {terms:.1}; changed by a move: {:.1} in the mover's view ({:.0}%), {:.1} in the other's ({:.0}%) ({moves} moves)",
        changed[0],
        100.0 * changed[0] / terms,
        changed[1],
        100.0 * changed[1] / terms,
    );
}
