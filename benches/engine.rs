//! Engine throughput: material evaluations per second and search nodes per second
//! (alpha-beta with capture quiescence) on middle-game positions (ply 24 of the
//! floodgate-2016 opening lines), each against a baseline measured in the same run:
//! legal-move counting on the same positions.
//!
//! Run: `cargo bench --bench engine` (optional args: number of positions, search depth);
//! the positions come from `fixtures/`, or from the development collection
//! with `KIFULEARN_SHARED=DIR` (`benches/common`).

use std::hint::black_box;
use std::time::Instant;

use kifulearn::eval::{Evaluator, Material};
use kifulearn::search::{Control, Limits, Searcher, TranspositionTable};
use kifulearn::shogi::Position;

mod common;

fn positions(n: usize) -> (Vec<Position>, String) {
    let (_, lines, name) = common::opening_lines();
    let positions = lines
        .iter()
        .take(n)
        .filter_map(|line| {
            let mut pos = Position::startpos();
            for mv in line.split_whitespace().skip(2).take(24) {
                pos.play_usi(mv).ok()?;
            }
            Some(pos)
        })
        .collect();
    (positions, name)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let n = args.first().copied().unwrap_or(200);
    let depth = args.get(1).copied().unwrap_or(3) as u32;
    let (positions, name) = positions(n);
    println!(
        "{} positions (ply 24 of the floodgate-2016 lines of {name}), search depth {depth}",
        positions.len()
    );

    // Baseline: legal-move counting.
    let rounds = 200;
    let t = Instant::now();
    let mut moves = 0usize;
    for _ in 0..rounds {
        for p in &positions {
            moves += black_box(p).count_legal_moves();
        }
    }
    let gen_per_s = (rounds * positions.len()) as f64 / t.elapsed().as_secs_f64();
    println!("baseline  move generation: {gen_per_s:>12.0} positions/s ({moves} moves)");

    let rounds = 2000;
    let t = Instant::now();
    let mut sum = 0i64;
    for _ in 0..rounds {
        for p in &positions {
            sum += i64::from(Material.evaluate(black_box(p)));
        }
    }
    let eval_per_s = (rounds * positions.len()) as f64 / t.elapsed().as_secs_f64();
    println!(
        "material  evaluations:     {eval_per_s:>12.0} evals/s     ({:.2}x move generation; checksum {sum})",
        eval_per_s / gen_per_s
    );

    let control = Control::new();
    let mut tt = TranspositionTable::new(16);
    let t = Instant::now();
    let mut nodes = 0u64;
    for p in &positions {
        tt.clear();
        let limits = Limits {
            depth: Some(depth),
            ..Limits::default()
        };
        let r = Searcher::new(&Material, &mut tt, &control, limits).search(p, &[], |_| {});
        nodes += r.nodes;
    }
    let secs = t.elapsed().as_secs_f64();
    let nps = nodes as f64 / secs;
    println!(
        "search    depth {depth} + quiescence: {nps:>8.0} nodes/s     ({:.2}x move generation; {nodes} nodes in {secs:.2} s, {:.0} nodes/position)",
        nps / gen_per_s,
        nodes as f64 / positions.len() as f64
    );
}
