//! The sequential probability ratio test on game pairs (fishtest's GSPRT).

use super::Pentanomial;

/// What the SPRT's Elo bounds measure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum EloModel {
    /// Logistic Elo: the expected score `1/(1 + 10^(−elo/400))` (`--elo0/--elo1`).
    #[default]
    Logistic,
    /// Normalized Elo: the score's distance from ½ in per-game standard
    /// deviations, times `800/ln 10` (`--nelo0/--nelo1`).
    Normalized,
}

impl EloModel {
    /// `elo` or `nelo`, the prefix of the bounds' names.
    pub fn name(self) -> &'static str {
        match self {
            EloModel::Logistic => "elo",
            EloModel::Normalized => "nelo",
        }
    }
}

/// The largest |nElo| bound accepted: from the uniform distribution, where
/// fishtest starts its iteration, the first step for a pair t-value beyond
/// 0.943 (nElo ≈ 231.6) has no root.
pub const MAX_NELO: f64 = 200.0;

/// The type I and type II error rates a test takes unless told otherwise
/// (`match --alpha/--beta`): fishtest's.
pub const DEFAULT_ERROR_RATE: f64 = 0.05;

/// A sequential probability ratio test of H0: Elo(A − B) = `elo0` against
/// H1: Elo = `elo1` (in the units of `model`), with error rates `alpha`
/// (accepting H1 when H0 holds) and `beta` (accepting H0 when H1 holds).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtConfig {
    /// Logistic or normalized Elo.
    pub model: EloModel,
    /// Elo of H0.
    pub elo0: f64,
    /// Elo of H1.
    pub elo1: f64,
    /// Type I error rate.
    pub alpha: f64,
    /// Type II error rate.
    pub beta: f64,
}

impl SprtConfig {
    /// Rejects a test that cannot run: `elo0 ≥ elo1`, a rate outside (0, ½),
    /// an nElo beyond ±[`MAX_NELO`]. The message names the value.
    pub fn check(&self) -> Result<(), String> {
        let name = self.model.name();
        let (elo0, elo1) = (self.elo0, self.elo1);
        if elo0.partial_cmp(&elo1) != Some(std::cmp::Ordering::Less) {
            return Err(format!(
                "{name}0 {elo0}, {name}1 {elo1}: expected {name}0 < {name}1"
            ));
        }
        if self.model == EloModel::Normalized {
            for (bound, v) in [("nelo0", elo0), ("nelo1", elo1)] {
                if !(-MAX_NELO..=MAX_NELO).contains(&v) {
                    return Err(format!(
                        "{bound} {v}: expected an nElo from -{MAX_NELO} to {MAX_NELO}"
                    ));
                }
            }
        }
        for (rate, v) in [("alpha", self.alpha), ("beta", self.beta)] {
            if !(v > 0.0 && v < 0.5) {
                return Err(format!("{rate} {v}: expected a rate in (0, 0.5)"));
            }
        }
        Ok(())
    }

    /// `(ln(β/(1−α)), ln((1−β)/α))`: below the first H0 is accepted, above the second H1.
    pub fn bounds(&self) -> (f64, f64) {
        sprt_bounds(self.alpha, self.beta)
    }

    /// The log-likelihood ratio of the pairs: [`Pentanomial::llr_logistic`] or
    /// [`Pentanomial::llr_normalized`].
    pub fn llr(&self, pairs: &Pentanomial) -> f64 {
        match self.model {
            EloModel::Logistic => pairs.llr_logistic(self.elo0, self.elo1),
            EloModel::Normalized => pairs.llr_normalized(self.elo0, self.elo1),
        }
    }

    /// The verdict for a log-likelihood ratio (a NaN decides nothing).
    pub fn verdict(&self, llr: f64) -> SprtVerdict {
        let (lower, upper) = self.bounds();
        if llr >= upper {
            SprtVerdict::H1
        } else if llr <= lower {
            SprtVerdict::H0
        } else {
            SprtVerdict::Inconclusive
        }
    }

    /// The test after `pairs`: their LLR and its verdict.
    pub fn result(&self, pairs: &Pentanomial) -> SprtResult {
        let llr = self.llr(pairs);
        SprtResult {
            config: *self,
            llr,
            verdict: self.verdict(llr),
        }
    }
}

/// The SPRT's stopping bounds for error rates α and β: `(ln(β/(1−α)), ln((1−β)/α))`.
pub fn sprt_bounds(alpha: f64, beta: f64) -> (f64, f64) {
    ((beta / (1.0 - alpha)).ln(), ((1.0 - beta) / alpha).ln())
}

/// What an SPRT concluded.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SprtVerdict {
    /// H0 accepted (A is not `elo1` stronger; the LLR fell below the lower bound).
    H0,
    /// H1 accepted (the LLR rose above the upper bound).
    H1,
    /// Neither bound was reached within the games allowed.
    Inconclusive,
}

/// The SPRT at the end of a match.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SprtResult {
    /// The test.
    pub config: SprtConfig,
    /// Log-likelihood ratio after the last pair counted.
    pub llr: f64,
    /// The verdict.
    pub verdict: SprtVerdict,
}

impl std::fmt::Display for SprtResult {
    /// `LLR 1.23 [-2.94, 2.94] (elo0 0, elo1 5, alpha 0.05, beta 0.05): inconclusive`
    /// (`nelo0`, `nelo1` for normalized Elo).
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let (lower, upper) = self.config.bounds();
        let verdict = match self.verdict {
            SprtVerdict::H0 => "H0 accepted",
            SprtVerdict::H1 => "H1 accepted",
            SprtVerdict::Inconclusive => "inconclusive",
        };
        let name = self.config.model.name();
        write!(
            f,
            "LLR {:.2} [{:.2}, {:.2}] ({name}0 {}, {name}1 {}, alpha {}, beta {}): {verdict}",
            self.llr,
            lower,
            upper,
            self.config.elo0,
            self.config.elo1,
            self.config.alpha,
            self.config.beta
        )
    }
}
