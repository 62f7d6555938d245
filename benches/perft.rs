//! Perft through our `Position` layer against `haitaka::Board` directly.
//! The foundation issue's target: our layer costs under 10% (ratio < 1.10).

use criterion::{criterion_group, criterion_main, Criterion};
use kifulearn::shogi::{perft, perft_haitaka, Position};

const MIDGAME: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";

fn bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("perft");
    group.sample_size(10);
    for (name, sfen, depth) in [("startpos-4", None, 4), ("midgame-2", Some(MIDGAME), 2)] {
        let pos = sfen.map_or_else(Position::startpos, |s| Position::from_sfen(s).unwrap());
        group.bench_function(format!("kifulearn/{name}"), |b| {
            b.iter(|| perft(&pos, depth))
        });
        let board = pos.board().clone();
        group.bench_function(format!("haitaka/{name}"), |b| {
            b.iter(|| perft_haitaka(&board, depth))
        });
    }
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
