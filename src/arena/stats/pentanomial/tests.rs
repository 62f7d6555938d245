//! Reference values: fishtest's `server/fishtest/stats/LLRcalc.py` (commit
//! 121549e5) and `stat_util.py` (commit 1054c5aa), and fastchess's
//! `app/src/matchmaking/sprt/sprt.cpp` (commit 05d6451c) and
//! `app/src/matchmaking/elo/elo_pentanomial.cpp` (commit 1ccb9f6e), their code
//! run as read (fishtest's Python with scipy 1.17.1's `brentq`; fastchess's
//! C++ ported line for line to Python, its ITP root finder included) on the
//! count vectors below.

use super::*;

fn penta(counts: [u32; 5]) -> Pentanomial {
    Pentanomial { counts }
}

fn close(a: f64, b: f64, tol: f64) -> bool {
    (a - b).abs() <= tol
}

/// fishtest's `stat_util.py` self-test vector (its `__main__`: W 65388,
/// L 65804, D 56553, SPRT(elo0=-3, elo1=1)); the small vectors are made up.
const FISHTEST_MAIN: [u32; 5] = [10789, 19328, 33806, 19402, 10543];
/// fishtest's `stat_util.py` `__main__`: a drawish pentanomial it tests with
/// logistic bounds (0.2, 0.9) and normalized (0.764, 3.439).
const DRAWISH: [u32; 5] = [39, 2226, 31451, 2412, 40];

#[test]
fn logistic_llr_matches_fishtest() {
    // LLRcalc.LLR_logistic(elo0, elo1, counts). fastchess's getLLR_logistic
    // stops its ITP root finder at θ ± 10⁻³ and so differs by up to 1.4e-4 on
    // the large vectors (2.1312043649818784, 2.1625571414611002, 5.774480793242487).
    for (counts, elo0, elo1, fishtest) in [
        (FISHTEST_MAIN, -3.0, 1.0, 2.131_067_811_794_080_7),
        (DRAWISH, 0.2, 0.9, 2.162_542_580_048_359_3),
        ([3, 10, 20, 12, 5], 0.0, 5.0, 0.141_396_398_896_624_9),
        ([1, 4, 12, 20, 13], 0.0, 50.0, 5.774_483_667_402_132),
        // Zero counts regularized to 10⁻³.
        ([0, 2, 5, 3, 0], -10.0, 10.0, 0.229_330_919_059_212_57),
    ] {
        let llr = penta(counts).llr_logistic(elo0, elo1);
        assert!(
            close(llr, fishtest, 1e-6),
            "{counts:?}: {llr} vs {fishtest}"
        );
    }
}

#[test]
fn normalized_llr_matches_fishtest_and_fastchess() {
    // LLRcalc.LLR_normalized(nelo0, nelo1, counts); fastchess's
    // getLLR_normalized agrees with each to 4e-7 or better.
    for (counts, nelo0, nelo1, fishtest) in [
        (FISHTEST_MAIN, -3.0, 1.0, 0.300_869_785_483_540_76),
        (DRAWISH, 0.764, 3.439, 2.162_940_869_584_568),
        ([3, 10, 20, 12, 5], 0.0, 5.0, 0.107_367_064_969_858_34),
        ([1, 4, 12, 20, 13], 0.0, 30.0, 3.324_957_634_695_895),
        ([0, 2, 5, 3, 0], -10.0, 10.0, 0.115_020_615_991_233_34),
    ] {
        let llr = penta(counts).llr_normalized(nelo0, nelo1);
        assert!(
            close(llr, fishtest, 1e-6),
            "{counts:?}: {llr} vs {fishtest}"
        );
    }
}

#[test]
fn normalized_llr_converges_where_fishtest_stops_after_ten_steps() {
    // fishtest's MLE_t_value raises (its check |t − t(p)| < 1e-5 fails) after
    // its 10 steps on these; with the cap lifted the same code settles after
    // 12 and 13 steps on -14.047669905423527 and -2.401457318709763, and
    // fastchess's loop (which has no cap) on -14.047669905453256 and
    // -2.4014573543829174.
    let llr = penta([0, 0, 100, 2, 0]).llr_normalized(0.0, 120.0);
    assert!(close(llr, -14.047_669_905_423_527, 1e-6), "{llr}");
    let llr = penta([2, 5, 40, 9, 4]).llr_normalized(-50.0, 150.0);
    assert!(close(llr, -2.401_457_318_709_763, 1e-6), "{llr}");
    // Beyond nElo ≈ 231.6 fishtest's first step has no root (its secular()
    // asserts): no LLR, and an LLR of NaN decides nothing.
    assert!(penta([3, 10, 20, 12, 5])
        .llr_normalized(0.0, 300.0)
        .is_nan());
}

#[test]
fn elo_and_nelo_intervals_match_fastchess() {
    // fastchess's EloPentanomial (elo, elo ± error from scoreToEloDiff of
    // s ± 1.959963984540054·√(σ²/N); nElo by scoreToNeloDiff at the same σ²);
    // fishtest's stat_util.get_elo gives the same Elo interval on these
    // vectors (no zero count to regularize).
    // [3, 10, 20, 12, 5]: s = 26.5/50 = 0.53, σ² = 0.0666.
    let p = penta([3, 10, 20, 12, 5]);
    assert!(close(p.score(), 0.53, 1e-15));
    assert!(close(p.variance(), 0.0666, 1e-15));
    let elo = p.elo95().unwrap();
    assert!(close(elo.estimate, 20.871_204_666_028_67, 1e-9), "{elo:?}");
    assert!(close(elo.low, -28.926_019_673_856_6, 1e-9), "{elo:?}");
    assert!(close(elo.high, 71.546_094_641_285_48, 1e-9), "{elo:?}");
    let nelo = p.nelo95().unwrap();
    assert!(
        close(nelo.estimate, 28.559_029_206_879_792, 1e-9),
        "{nelo:?}"
    );
    assert!(close(nelo.low, -39.537_094_250_308_684, 1e-9), "{nelo:?}");
    assert!(close(nelo.high, 96.655_152_664_068_21, 1e-9), "{nelo:?}");
    // The nElo interval is nElo ± 1.96 · (800/ln 10) / √(2N), whatever the results.
    let half = Z95 * NELO_PER_T / (2.0 * 50.0f64).sqrt();
    assert!(close(nelo.high - nelo.estimate, half, 1e-9));
    assert!(close(nelo.estimate - nelo.low, half, 1e-9));

    let p = penta([1, 4, 12, 20, 13]);
    let elo = p.elo95().unwrap();
    assert!(close(elo.estimate, 147.190_714_117_837_84, 1e-9), "{elo:?}");
    assert!(close(elo.low, 94.026_028_475_210_81, 1e-9), "{elo:?}");
    assert!(close(elo.high, 207.847_077_858_537_03, 1e-9), "{elo:?}");
    let nelo = p.nelo95().unwrap();
    assert!(
        close(nelo.estimate, 200.592_028_827_529_25, 1e-9),
        "{nelo:?}"
    );
    assert!(close(nelo.low, 132.495_905_370_340_8, 1e-9), "{nelo:?}");
    assert!(close(nelo.high, 268.688_152_284_717_7, 1e-9), "{nelo:?}");

    // fishtest's own vector: Elo -0.7735773359 [-2.0511676917, +0.5039920998],
    // nElo -0.9516290045 [-2.5232528486, +0.6199948396].
    let p = penta(FISHTEST_MAIN);
    let elo = p.elo95().unwrap();
    assert!(close(elo.estimate, -0.773_577_335_916_619, 1e-9), "{elo:?}");
    assert!(close(elo.low, -2.051_167_691_664_677, 1e-9), "{elo:?}");
    assert!(close(elo.high, 0.503_992_099_791_289_2, 1e-9), "{elo:?}");
    let nelo = p.nelo95().unwrap();
    assert!(close(nelo.estimate, -0.951_629_004_472_647_6, 1e-9));
    assert!(close(nelo.low, -2.523_252_848_584_519_4, 1e-9));
    assert!(close(nelo.high, 0.619_994_839_639_176_7, 1e-9));
}

#[test]
fn no_pairs_yet() {
    let p = Pentanomial::default();
    assert_eq!(p.pairs(), 0);
    assert_eq!(p.score(), 0.5);
    assert_eq!(p.elo95(), None);
    assert_eq!(p.nelo95(), None);
    assert_eq!(p.llr_logistic(0.0, 5.0), 0.0);
    assert_eq!(p.llr_normalized(0.0, 5.0), 0.0);
}

#[test]
fn all_draws() {
    // Every pair scores 1: Elo 0 with no spread, nElo undefined (σ = 0).
    // fishtest: LLR_logistic(0, 10, [0, 0, 8, 0, 0]) = -0.22762611983297285,
    // LLR_normalized(0, 10, [0, 0, 8, 0, 0]) = -0.010582286893721335
    // (fastchess: -0.227625997372027 and -0.01058291422113707).
    let p = penta([0, 0, 8, 0, 0]);
    let elo = p.elo95().unwrap();
    assert_eq!((elo.estimate, elo.low, elo.high), (0.0, 0.0, 0.0));
    assert_eq!(p.nelo95(), None);
    assert!(close(
        p.llr_logistic(0.0, 10.0),
        -0.227_626_119_832_972_85,
        1e-6
    ));
    assert!(close(
        p.llr_normalized(0.0, 10.0),
        -0.010_582_286_893_721_335,
        1e-6
    ));
    // A win and a loss in each pair is the same evidence as two draws.
    assert_eq!(
        Pentanomial::from_games([(0, 1.0), (1, 0.0)]),
        penta([0, 0, 1, 0, 0])
    );
}

#[test]
fn all_wins() {
    // fishtest: LLR_logistic(0, 10, [0, 0, 0, 0, 6]) = 0.17026482552587277,
    // LLR_normalized(0, 10, [0, 0, 0, 0, 6]) = 0.23920996606209843.
    let p = penta([0, 0, 0, 0, 6]);
    assert_eq!(p.score(), 1.0);
    let elo = p.elo95().unwrap();
    assert_eq!(
        (elo.estimate, elo.low, elo.high),
        (f64::INFINITY, f64::INFINITY, f64::INFINITY)
    );
    assert_eq!(elo.to_string(), "+inf [+inf, +inf]");
    assert_eq!(p.nelo95(), None);
    assert!(close(
        p.llr_logistic(0.0, 10.0),
        0.170_264_825_525_872_77,
        1e-6
    ));
    assert!(close(
        p.llr_normalized(0.0, 10.0),
        0.239_209_966_062_098_43,
        1e-6
    ));
}

#[test]
fn pairs_are_counted_from_game_outcomes() {
    // (game, A's score). Pairs: 0+1 LW, 2+3 DW, 4+5 DD, 8+9 LL, 10+11 WW
    // (given out of order); 6 has lost its partner, 12 is the odd last game.
    let games = [
        (0, 0.0),
        (1, 1.0),
        (3, 1.0),
        (2, 0.5),
        (4, 0.5),
        (5, 0.5),
        (6, 1.0),
        (11, 1.0),
        (8, 0.0),
        (9, 0.0),
        (10, 1.0),
        (12, 1.0),
    ];
    let p = Pentanomial::from_games(games);
    assert_eq!(p.counts, [1, 0, 2, 1, 1]);
    assert_eq!(p.pairs(), 5);
    // Games 1 and 2 are of different openings: no pair.
    assert_eq!(Pentanomial::from_games([(1, 1.0), (2, 1.0)]).pairs(), 0);
    // Pair by pair, as a match counts them.
    let mut q = Pentanomial::default();
    for (a, b) in [(0.0, 1.0), (0.5, 1.0), (0.5, 0.5), (0.0, 0.0), (1.0, 1.0)] {
        q.add_pair(a, b);
    }
    assert_eq!(p, q);
    // LD and DL share a count, as do WD and DW.
    assert_eq!(
        Pentanomial::from_games([(0, 0.0), (1, 0.5), (2, 0.5), (3, 0.0), (4, 1.0), (5, 0.5)]),
        penta([0, 2, 0, 1, 0])
    );
}
