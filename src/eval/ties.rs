//! The tie rule for move rankings, shared by the engine's agreement measure
//! (`engine::agreement`) and the ranking learner's held-out scores
//! (`train::ranking`): learning takes it from here, never from the engine.

/// Probability that a game move with `better` strictly better moves and `tied`
/// moves sharing its value (itself included) lands in the top `k` of a random
/// order of the tied moves: `clamp((k − better) / tied, 0, 1)`.
pub fn hit_probability(better: usize, tied: usize, k: usize) -> f64 {
    if tied == 0 || k <= better {
        return 0.0;
    }
    ((k - better) as f64 / tied as f64).min(1.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tie_rule_exact_numbers() {
        assert_eq!(hit_probability(0, 1, 1), 1.0);
        assert_eq!(hit_probability(0, 2, 1), 0.5);
        assert_eq!(hit_probability(0, 30, 3), 0.1);
        assert_eq!(hit_probability(2, 4, 3), 0.25);
        assert_eq!(hit_probability(2, 4, 5), 0.75);
        assert_eq!(hit_probability(3, 4, 3), 0.0);
        assert_eq!(hit_probability(4, 1, 5), 1.0);
        assert_eq!(hit_probability(1, 10, 5), 0.4);
    }
}
