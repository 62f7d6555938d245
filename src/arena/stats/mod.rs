//! Match statistics (`docs/arena.md` has the formulas and their sources).
//!
//! - [`Tally`]: wins, losses and draws, the score and its Elo with a 95 %
//!   interval, each game taken as independent (trinomial).
//! - [`Pentanomial`]: the games as the pairs they are played in, Elo and
//!   normalized Elo with 95 % intervals from the pairs' variance.
//! - [`SprtConfig`]: the GSPRT on the pairs, logistic or normalized Elo, as
//!   fishtest and fastchess compute it.
//! - `mle`: the maximum-likelihood distributions the GSPRT compares.

mod mle;
mod pentanomial;
mod sprt;

pub use pentanomial::{Pentanomial, NELO_PER_T, Z95};
pub use sprt::{
    sprt_bounds, EloModel, SprtConfig, SprtResult, SprtVerdict, DEFAULT_ERROR_RATE, MAX_NELO,
};

/// Wins, losses and draws of one side (A) of a match.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tally {
    /// Games A won.
    pub wins: u32,
    /// Games A lost.
    pub losses: u32,
    /// Drawn games.
    pub draws: u32,
}

impl Tally {
    /// Number of games.
    pub fn games(&self) -> u32 {
        self.wins + self.losses + self.draws
    }

    /// Adds one game worth `score` to A (1, ½ or 0).
    pub fn add(&mut self, score: f64) {
        if score > 0.75 {
            self.wins += 1;
        } else if score < 0.25 {
            self.losses += 1;
        } else {
            self.draws += 1;
        }
    }

    /// A's mean score per game, (W + D/2) / N; 0.5 for no games.
    pub fn score(&self) -> f64 {
        let n = self.games();
        if n == 0 {
            return 0.5;
        }
        (f64::from(self.wins) + 0.5 * f64::from(self.draws)) / f64::from(n)
    }

    /// The Elo difference A − B that the score implies ([`elo_from_score`]).
    pub fn elo(&self) -> f64 {
        elo_from_score(self.score())
    }

    /// A 95 % interval for the Elo difference from the trinomial model: the
    /// per-game variance of the score `σ² = (W(1−s)² + D(½−s)² + L s²)/N`, the
    /// standard error `σ/√N`, and the logistic Elo of `s ± 1.96·se` (infinite
    /// when that leaves (0, 1)). `(0, 0)` for no games.
    pub fn elo_interval95(&self) -> (f64, f64) {
        if self.games() == 0 {
            return (0.0, 0.0);
        }
        let (low, high) = self.score_interval95();
        (elo_from_score(low), elo_from_score(high))
    }

    /// A 95 % interval for the score, `s ± 1.96·se` with the trinomial
    /// standard error of [`Tally::elo_interval95`] (not clamped to [0, 1]);
    /// `(0.5, 0.5)` for no games.
    pub fn score_interval95(&self) -> (f64, f64) {
        let n = f64::from(self.games());
        let s = self.score();
        if n == 0.0 {
            return (s, s);
        }
        let (w, l, d) = (
            f64::from(self.wins),
            f64::from(self.losses),
            f64::from(self.draws),
        );
        let variance = (w * (1.0 - s).powi(2) + d * (0.5 - s).powi(2) + l * s.powi(2)) / n;
        let se = (variance / n).sqrt();
        (s - 1.96 * se, s + 1.96 * se)
    }

    /// [`Tally::elo`] and [`Tally::elo_interval95`]; `None` for no games.
    pub fn elo95(&self) -> Option<Interval> {
        let (low, high) = self.elo_interval95();
        (self.games() > 0).then(|| Interval {
            estimate: self.elo(),
            low,
            high,
        })
    }

    /// The generalized log-likelihood ratio of H1 (Elo = `elo1`) against H0
    /// (Elo = `elo0`), logistic Elo, trinomial results: fishtest's
    /// `LLRcalc.LLR_logistic(elo0, elo1, [L, D, W])` ([`sprt_llr`]).
    pub fn llr(&self, elo0: f64, elo1: f64) -> f64 {
        sprt_llr(*self, elo0, elo1)
    }
}

/// An estimate with its 95 % interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Interval {
    /// The point estimate.
    pub estimate: f64,
    /// Lower end of the interval.
    pub low: f64,
    /// Upper end of the interval.
    pub high: f64,
}

impl std::fmt::Display for Interval {
    /// `+34.9 ± 48.2 [-13.3, +83.0]` (the ± is half the width: Elo intervals are
    /// not symmetric), or `+inf [+inf, +inf]` when an end is infinite.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let Self {
            estimate,
            low,
            high,
        } = *self;
        if estimate.is_finite() && low.is_finite() && high.is_finite() {
            write!(
                f,
                "{estimate:+.1} ± {:.1} [{low:+.1}, {high:+.1}]",
                (high - low) / 2.0
            )
        } else {
            write!(
                f,
                "{} [{}, {}]",
                signed(estimate),
                signed(low),
                signed(high)
            )
        }
    }
}

/// `+12.3`, `-inf`, `+inf`.
fn signed(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.1}")
    } else if x > 0.0 {
        "+inf".to_string()
    } else {
        "-inf".to_string()
    }
}

/// Logistic Elo of a score: `−400 · log10(1/s − 1)`; ±∞ at 0 and 1.
pub fn elo_from_score(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        // + 0.0 turns the −0.0 of an even score into 0.0.
        -400.0 * (1.0 / score - 1.0).log10() + 0.0
    }
}

/// Expected score of an Elo difference: `1 / (1 + 10^(−elo/400))`.
pub fn score_from_elo(elo: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-elo / 400.0))
}

/// fishtest's GSPRT log-likelihood ratio for trinomial results (logistic Elo):
/// `LLRcalc.LLR_logistic(elo0, elo1, [L, D, W])`.
///
/// The regularized counts (a zero becomes 10⁻³, fishtest's `regularize`) put
/// mass L/N, D/N, W/N on the scores 0, ½, 1. For each hypothesis score
/// `s_k = score_from_elo(elo_k)` the maximum-likelihood distribution with mean
/// `s_k` is `p_i / (1 + x (a_i − s_k))`, with `x` the root of
/// `Σ p_i (a_i − s_k) / (1 + x (a_i − s_k)) = 0` (fishtest's `MLE_expected`
/// and `secular`). The LLR is `N · Σ p_i ln(p1_i / p0_i)`. 0 for no games.
pub fn sprt_llr(tally: Tally, elo0: f64, elo1: f64) -> f64 {
    if tally.games() == 0 {
        return 0.0;
    }
    let (n, p) = mle::regularized([tally.losses, tally.draws, tally.wins]);
    let values = [0.0, 0.5, 1.0];
    match (
        mle::mle_expected(&values, &p, score_from_elo(elo0)),
        mle::mle_expected(&values, &p, score_from_elo(elo1)),
    ) {
        (Some(p0), Some(p1)) => mle::llr(n, &p, &p0, &p1),
        _ => f64::NAN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tally(wins: u32, losses: u32, draws: u32) -> Tally {
        Tally {
            wins,
            losses,
            draws,
        }
    }

    fn close(a: f64, b: f64, tol: f64) -> bool {
        (a - b).abs() <= tol
    }

    #[test]
    fn elo_of_known_scores() {
        // −400·log10(1/s − 1): s = ¾ → 400·log10 3 = 190.8485019; s = 0.64 →
        // 400·log10(16/9) = 99.9509893; symmetric around ½.
        assert_eq!(elo_from_score(0.5), 0.0);
        assert!(close(elo_from_score(0.75), 190.848_501_887_865, 1e-9));
        assert!(close(elo_from_score(0.25), -190.848_501_887_865, 1e-9));
        assert!(close(elo_from_score(0.64), 99.950_989_286_64, 1e-8));
        assert_eq!(elo_from_score(1.0), f64::INFINITY);
        assert_eq!(elo_from_score(0.0), f64::NEG_INFINITY);
        assert!(close(score_from_elo(190.848_501_887_865), 0.75, 1e-12));
        assert_eq!(tally(3, 1, 0).score(), 0.75);
        assert_eq!(tally(1, 1, 2).score(), 0.5);
    }

    #[test]
    fn trinomial_interval_by_hand() {
        // W 60, L 40, D 0: s = 0.6, σ² = (60·0.4² + 40·0.6²)/100 = 0.24,
        // se = √(0.24/100) = 0.04898979, s ± 1.96·se = 0.50398000 / 0.69602000,
        // Elo −400·log10(1/s − 1) of those: +2.7656 and +143.9107.
        let (lo, hi) = tally(60, 40, 0).elo_interval95();
        assert!(close(lo, 2.765_647, 1e-5), "{lo}");
        assert!(close(hi, 143.910_682, 1e-5), "{hi}");
        // W 30, L 30, D 40: s = ½, σ² = (30·¼ + 30·¼)/100 = 0.15, se = 0.03872983,
        // s ± 1.96·se = 0.42408953 / 0.57591047: ∓53.1590 Elo, symmetric.
        let (lo, hi) = tally(30, 30, 40).elo_interval95();
        assert!(close(hi, 53.158_972, 1e-5), "{hi}");
        assert!(close(lo, -hi, 1e-9));
        // All wins: the interval reaches +∞.
        assert_eq!(tally(5, 0, 0).elo_interval95().1, f64::INFINITY);
    }

    #[test]
    fn llr_matches_fishtest() {
        // Reference values: fishtest's server/fishtest/stats/LLRcalc.py,
        // LLR_logistic(elo0, elo1, [L, D, W]) (MLE_expected with scipy's brentq),
        // evaluated in Python:
        //   LLR_logistic(0, 5, [100, 150, 120])  =  0.41979582126639897
        //   LLR_logistic(0, 5, [120, 150, 100])  = -0.5482297814959024
        //   LLR_logistic(-10, 0, [0, 10, 30])    =  1.1678118487553562 (L = 0: regularized to 1e-3)
        assert!(close(
            tally(120, 100, 150).llr(0.0, 5.0),
            0.419_795_821_266_4,
            1e-9
        ));
        assert!(close(
            tally(100, 120, 150).llr(0.0, 5.0),
            -0.548_229_781_495_9,
            1e-9
        ));
        assert!(close(
            tally(30, 0, 10).llr(-10.0, 0.0),
            1.167_811_848_755_4,
            1e-9
        ));
        assert_eq!(Tally::default().llr(0.0, 5.0), 0.0);
        // Seen from the other side the same evidence reverses: LLR_A(0, 10) for
        // +50 −40 =30 is 0.3176487740334 and LLR_B(−10, 0) for +40 −50 =30 is its negative.
        let x = tally(50, 40, 30).llr(0.0, 10.0);
        let y = tally(40, 50, 30).llr(-10.0, 0.0);
        assert!(close(x, 0.317_648_774_033_4, 1e-9), "{x}");
        assert!(close(x, -y, 1e-9), "{x} {y}");
    }

    #[test]
    fn bounds_for_five_percent_errors() {
        // ln(0.05/0.95) = −2.944439, ln(0.95/0.05) = 2.944439 (fishtest's ±2.94).
        let (lo, hi) = sprt_bounds(0.05, 0.05);
        assert!(close(lo, -2.944_438_979, 1e-8));
        assert!(close(hi, 2.944_438_979, 1e-8));
    }
}
