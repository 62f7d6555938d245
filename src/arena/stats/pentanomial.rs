//! Game pairs: the two games of an opening, colours swapped, counted by A's
//! score over the pair (the pentanomial model of fishtest and fastchess).
//!
//! The two games of a pair are correlated (an opening that favours one side
//! favours it in both), so the pairs, not the games, are the independent
//! samples: their variance gives honest intervals and the GSPRT its evidence.

use super::mle;
use super::{elo_from_score, score_from_elo, Interval};

/// fishtest's `nelo_divided_by_nt`: normalized Elo per unit of t-value, `800 / ln 10`.
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The two-sided 95 % quantile of the standard normal law (fishtest's
/// `Phi_inv(0.975)`, fastchess's `CI95ZSCORE`).
pub const Z95: f64 = 1.959_963_984_540_054;

/// A pair's mean score per game, by index of [`Pentanomial::counts`].
const PAIR_SCORES: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// Complete game pairs by A's score over the pair: `counts[i]` pairs scored
/// `i / 2` of 2, i.e. `[LL, LD+DL, LW+WL+DD, WD+DW, WW]` (fishtest's order).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Pentanomial {
    /// Pairs that scored 0, ½, 1, 1½ and 2 for A.
    pub counts: [u32; 5],
}

impl Pentanomial {
    /// Counts the pairs in `games`, each given as (game number, A's score 1, ½
    /// or 0), in any order: games `2k` and `2k + 1` form pair `k` when both are
    /// there; a game whose partner is missing (the odd last game of a match,
    /// or one still being played) counts in no pair.
    pub fn from_games(games: impl IntoIterator<Item = (usize, f64)>) -> Self {
        let mut games: Vec<(usize, f64)> = games.into_iter().collect();
        games.sort_by_key(|&(game, _)| game);
        let mut pairs = Self::default();
        for w in games.windows(2) {
            let ((first, a), (second, b)) = (w[0], w[1]);
            if first.is_multiple_of(2) && second == first + 1 {
                pairs.add_pair(a, b);
            }
        }
        pairs
    }

    /// Adds a pair whose games scored `first` and `second` for A (1, ½ or 0 each).
    pub fn add_pair(&mut self, first: f64, second: f64) {
        let half_points = (2.0 * (first + second)).round().clamp(0.0, 4.0);
        self.counts[half_points as usize] += 1;
    }

    /// Complete pairs counted.
    pub fn pairs(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// A's mean score per game over the pairs; ½ for no pairs.
    pub fn score(&self) -> f64 {
        self.mean_variance().0
    }

    /// The variance of a pair's mean score per game (on 0, ¼, ½, ¾, 1) over
    /// the pairs: `σ² = Σ (n_i/N) (a_i − s)²`; 0 for no pairs.
    pub fn variance(&self) -> f64 {
        self.mean_variance().1
    }

    fn mean_variance(&self) -> (f64, f64) {
        let n = self.pairs();
        if n == 0 {
            return (0.5, 0.0);
        }
        let p = self.counts.map(|c| f64::from(c) / f64::from(n));
        mle::mean_variance(&PAIR_SCORES, &p)
    }

    /// The score's 95 % interval `s ± z·σ/√N` (N pairs; `None` for no pairs).
    fn score_interval(&self) -> Option<(f64, f64, f64)> {
        let n = self.pairs();
        if n == 0 {
            return None;
        }
        let (s, variance) = self.mean_variance();
        let se = (variance / f64::from(n)).sqrt();
        Some((s, s - Z95 * se, s + Z95 * se))
    }

    /// Logistic Elo of the score over the pairs, with the Elo of the score's
    /// 95 % interval `s ± 1.96·σ/√N` (fishtest's `stat_util.get_elo` on the
    /// pentanomial, fastchess's `EloPentanomial`). `None` for no pairs.
    pub fn elo95(&self) -> Option<Interval> {
        let (s, low, high) = self.score_interval()?;
        Some(Interval {
            estimate: elo_from_score(s),
            low: elo_from_score(low),
            high: elo_from_score(high),
        })
    }

    /// Normalized Elo `(s − ½) / σ_pg · 800/ln 10` with the per-game deviation
    /// `σ_pg = √2·σ` (fishtest's `sigma_pg`; fastchess's `scoreToNeloDiff`), and
    /// its 95 % interval, the nElo of `s ± 1.96·σ/√N` at the same σ: ±
    /// `1.96 · 800/ln 10 / √(2N)`. `None` for no pairs or when every pair scored
    /// the same (σ = 0).
    pub fn nelo95(&self) -> Option<Interval> {
        let (s, low, high) = self.score_interval()?;
        let sigma_pg = (2.0 * self.variance()).sqrt();
        if sigma_pg == 0.0 {
            return None;
        }
        let nelo = |score: f64| (score - 0.5) / sigma_pg * NELO_PER_T;
        Some(Interval {
            estimate: nelo(s),
            low: nelo(low),
            high: nelo(high),
        })
    }

    /// The GSPRT log-likelihood ratio of H1 (logistic Elo `elo1`) against H0
    /// (`elo0`) on the pairs: fishtest's `LLRcalc.LLR_logistic(elo0, elo1,
    /// counts)`. The regularized pairs (zero counts → 10⁻³) put mass on the
    /// pair scores 0, ¼, ½, ¾, 1; `s_k = 1/(1 + 10^(−elo_k/400))`; each
    /// hypothesis's distribution is the maximum-likelihood one with mean `s_k`.
    /// 0 for no pairs; NaN if an Elo is so large that its score rounds to 1.
    pub fn llr_logistic(&self, elo0: f64, elo1: f64) -> f64 {
        self.llr_with(|p_hat| {
            let p0 = mle::mle_expected(&PAIR_SCORES, p_hat, score_from_elo(elo0))?;
            let p1 = mle::mle_expected(&PAIR_SCORES, p_hat, score_from_elo(elo1))?;
            Some((p0, p1))
        })
    }

    /// The GSPRT log-likelihood ratio of H1 (normalized Elo `nelo1`) against
    /// H0 (`nelo0`) on the pairs: fishtest's `LLRcalc.LLR_normalized(nelo0,
    /// nelo1, counts)`. The hypotheses fix the pairs' t-value `(μ − ½)/σ` at
    /// `t_k = √2 · nelo_k / (800/ln 10)`. 0 for no pairs; NaN where fishtest's
    /// iteration has no step ([`super::sprt::MAX_NELO`] keeps tests clear of that).
    pub fn llr_normalized(&self, nelo0: f64, nelo1: f64) -> f64 {
        let t = |nelo: f64| std::f64::consts::SQRT_2 * nelo / NELO_PER_T;
        self.llr_with(|p_hat| {
            let p0 = mle::mle_t_value(&PAIR_SCORES, p_hat, 0.5, t(nelo0))?;
            let p1 = mle::mle_t_value(&PAIR_SCORES, p_hat, 0.5, t(nelo1))?;
            Some((p0, p1))
        })
    }

    fn llr_with(&self, hypotheses: impl Fn(&[f64; 5]) -> Option<([f64; 5], [f64; 5])>) -> f64 {
        if self.pairs() == 0 {
            return 0.0;
        }
        let (total, p_hat) = mle::regularized(self.counts);
        match hypotheses(&p_hat) {
            Some((p0, p1)) => mle::llr(total, &p_hat, &p0, &p1),
            None => f64::NAN,
        }
    }
}

#[cfg(test)]
mod tests;
