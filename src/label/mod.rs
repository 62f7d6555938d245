//! Labels by the Mecha-Joshi rule (`DESIGN.md`, "Labels").
//!
//! For a position with legal moves m_1..m_k and the game's move g, each
//! sibling s_i (the position after m_i, from [`Siblings`]) is searched by the
//! one searcher in its labelling mode ([`Searcher::labelling`]: no table, the
//! full window, the principal variation returned) to the configured depth
//! with the labelling evaluator; v_i is its value for the side that moved,
//! clamped to ±10000 (a mate, ±([`MATE`] − ply) unclamped, is ±10000). Then
//! y_g = v_g + margin and y_i = min(v_i, y_g − margin) for every other
//! sibling, all clamped to ±10000, and divided by the scale. So the game's
//! move is the single best row, at least `margin` above every other.
//!
//! A label needs a sibling's value only up to the cap y_g − margin: above it,
//! every value gives the same label. So unless every exact value is asked for
//! ([`Labeller::set_exact_values`]), the game's move is searched first and every
//! other sibling with its search's window closed at the cap: a sibling at
//! least as good as the game's move is searched only until that is proved
//! (its [`Sibling::exact`] is false, its value a lower bound). The
//! quiescence values are kept from search to search in a table, since none
//! of the searches' lines are wanted. The labels are the same; extraction
//! is 1.3–1.8× faster with material, 1.2× with a model (`docs/speed.md`).

use crate::eval::{Evaluator, EVAL_LIMIT};
#[cfg(doc)]
use crate::search::MATE;
use crate::search::{Mode, Searcher};
use crate::shogi::{sibling, Move, Position, Siblings};

/// How labels are computed; [`LabelOptions::default`] is the Mecha-Joshi recipe.
///
/// | option | default | range |
/// |---|---|---|
/// | `margin` | 100 (a pawn, in centipawns) | 1..=10000 |
/// | `scale` | 10000 (labels in [−1, 1]) | finite, > 0 |
/// | `quiescence` | on | on/off |
/// | `depth` | 1 (the opponent's replies) | 0..=4 plies below the sibling |
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LabelOptions {
    /// How far the game's move is put above every other sibling, in centipawns.
    pub margin: i32,
    /// Labels are centipawns divided by this.
    pub scale: f64,
    /// Follow captures after the last full-width ply.
    pub quiescence: bool,
    /// Full-width plies searched below each sibling, before the quiescence
    /// (0: the sibling's quiescence only; 1: every reply of the opponent).
    pub depth: u32,
}

impl Default for LabelOptions {
    fn default() -> Self {
        Self {
            margin: 100,
            scale: f64::from(crate::model::LABEL_SCALE),
            quiescence: true,
            depth: 1,
        }
    }
}

/// An option out of its range, or a game move that is not legal.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LabelError {
    /// `--margin` outside 1..=10000.
    #[error("margin {0} is out of range: expected 1 to 10000 centipawns")]
    Margin(i32),
    /// `--scale` not a positive finite number.
    #[error("scale {0} is out of range: expected a positive finite number")]
    Scale(f64),
    /// `--depth` outside 0..=4.
    #[error("depth {0} is out of range: expected 0 to 4 plies")]
    Depth(u32),
    /// The game's move is not among the legal moves of its position.
    #[error("game move {mv} is not legal in {sfen}")]
    GameMove {
        /// The move, in USI.
        mv: String,
        /// The position, in SFEN.
        sfen: String,
    },
}

impl LabelError {
    /// What an option's range is, for messages that name the option
    /// themselves (a recipe's key); `None` for a game move.
    pub fn expected(&self) -> Option<&'static str> {
        match self {
            Self::Margin(_) => Some("a margin from 1 to 10000 centipawns"),
            Self::Scale(_) => Some("a positive finite scale"),
            Self::Depth(_) => Some("a depth from 0 to 4 plies"),
            Self::GameMove { .. } => None,
        }
    }
}

impl LabelOptions {
    /// Checks every option once, before any work starts (the one range check:
    /// `extract`'s flags and a recipe's `[labels]` both come here).
    pub fn check(self) -> Result<Self, LabelError> {
        if !(1..=EVAL_LIMIT).contains(&self.margin) {
            return Err(LabelError::Margin(self.margin));
        }
        if !(self.scale.is_finite() && self.scale > 0.0) {
            return Err(LabelError::Scale(self.scale));
        }
        if self.depth > 4 {
            return Err(LabelError::Depth(self.depth));
        }
        Ok(self)
    }

    /// Labels in centipawns from the siblings' values and the index of the game's move.
    ///
    /// The game's label is clamped to [−10000 + margin, 10000] so that
    /// `y_g − margin` is still within ±10000: the game's move stays the unique
    /// maximum by at least `margin` even when values hit the clamp. A value
    /// at or above the cap ([`LabelOptions::cap`]) may be any lower bound of
    /// the true value that reaches the cap: the label is the cap.
    pub fn rule(&self, values: &[i32], game: usize, out: &mut Vec<i32>) {
        out.clear();
        let cap = self.cap(values[game]);
        out.extend(values.iter().enumerate().map(|(i, &v)| {
            if i == game {
                cap + self.margin
            } else {
                v.clamp(-EVAL_LIMIT, EVAL_LIMIT).min(cap)
            }
        }));
    }

    /// The highest label of a sibling other than the game's move, whose
    /// value is `game_value`: y_g − margin, in centipawns.
    pub fn cap(&self, game_value: i32) -> i32 {
        (game_value + self.margin).clamp(-EVAL_LIMIT + self.margin, EVAL_LIMIT) - self.margin
    }
}

/// One candidate move of a position, searched and labelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sibling {
    /// The move, from the parent position.
    pub mv: Move,
    /// Its search value for the side that moved, centipawns, clamped to ±10000;
    /// a lower bound when not [`Sibling::exact`].
    pub value: i32,
    /// Is `value` the exact search value? False for a sibling whose search
    /// stopped once it proved the sibling at least as good as the game's
    /// move (its label is the cap whatever its value).
    pub exact: bool,
    /// Its label (centipawns after the rule, divided by the scale).
    pub label: f64,
}

/// Labels every legal move of a position, reusing its buffers between positions.
#[derive(Debug)]
pub struct Labeller<'e, E: Evaluator> {
    eval: &'e E,
    searcher: Searcher<'e, E>,
    options: LabelOptions,
    siblings: Siblings,
    values: Vec<i32>,
    exact: Vec<bool>,
    labels: Vec<i32>,
    /// Search every sibling with the full window, lines and all.
    exact_values: bool,
}

impl<'e, E: Evaluator> Labeller<'e, E> {
    /// A labeller with evaluator `eval` and checked `options`.
    pub fn new(eval: &'e E, options: LabelOptions) -> Self {
        let mut labeller = Self {
            eval,
            searcher: Searcher::labelling(eval, options.quiescence),
            options,
            siblings: Siblings::new(),
            values: Vec::new(),
            exact: Vec::new(),
            labels: Vec::new(),
            exact_values: false,
        };
        labeller.set_exact_values(false);
        labeller
    }

    /// A new labeller with this one's evaluator and settings (exact values
    /// or not) and buffers of its own: another thread's, for labelling other
    /// positions of the same game. Labels, values and lines do not depend on
    /// which labeller searched a position, nor on what it searched before.
    pub fn fork(&self) -> Self {
        let mut labeller = Self::new(self.eval, self.options);
        labeller.set_exact_values(self.exact_values);
        labeller
    }

    /// With `exact`, every sibling is searched with the full window and no
    /// table, so every value is exact and every line reaches the position
    /// the value describes (rows at the leaf need that). Without (the
    /// default), the siblings at least as good as the game's move are
    /// searched only until that is proved, quiescence values are kept from
    /// search to search ([`crate::search::Mode::quiescence_table`]), and no
    /// lines are given. The labels are the same either way.
    pub fn set_exact_values(&mut self, exact: bool) {
        self.exact_values = exact;
        self.searcher.set_mode(Mode {
            quiescence_table: !exact,
            ..Mode::labelling(self.options.quiescence)
        });
    }

    /// Search nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.searcher.nodes()
    }

    /// Searches every legal move of `pos` and labels it; `game_move` is the move
    /// played. `on_sibling(i, mv, sibling, line)` sees each sibling position
    /// (in move-generation order) and, with exact values, the principal
    /// variation of its search (the moves to its leaf; empty otherwise)
    /// while they are at hand, for building its features.
    /// Fills `out` in the same order and returns the index of the game's move.
    pub fn label_position(
        &mut self,
        pos: &Position,
        game_move: Move,
        out: &mut Vec<Sibling>,
        mut on_sibling: impl FnMut(usize, Move, &Position, &[Move]),
    ) -> Result<usize, LabelError> {
        out.clear();
        self.siblings.expand(pos);
        let game = self
            .siblings
            .index_of(game_move)
            .ok_or_else(|| LabelError::GameMove {
                mv: game_move.to_string(),
                sfen: pos.to_sfen(),
            })?;
        self.values.clear();
        self.exact.clear();
        let depth = self.options.depth;
        // The game's move first, for the cap of the others' windows.
        let cap = if self.exact_values {
            None
        } else {
            let v = -self.searcher.value(&sibling(pos, game_move), &[], depth);
            let v = v.clamp(-EVAL_LIMIT, EVAL_LIMIT);
            Some((v, self.options.cap(v)))
        };
        for (i, (mv, sibling)) in self.siblings.iter(pos).enumerate() {
            let (v, exact) = match cap {
                Some((v, _)) if i == game => {
                    on_sibling(i, mv, &sibling, &[]);
                    (v, true)
                }
                Some((_, cap)) => {
                    // For the opponent at the sibling, −cap is the floor: a
                    // value at or below it means the sibling reaches the cap.
                    let u = self.searcher.value_above(&sibling, depth, -cap);
                    on_sibling(i, mv, &sibling, &[]);
                    (-u, -u < cap)
                }
                None => {
                    let (u, line) = self.searcher.line(&sibling, &[], depth);
                    on_sibling(i, mv, &sibling, line);
                    (-u, true)
                }
            };
            self.values.push(v.clamp(-EVAL_LIMIT, EVAL_LIMIT));
            self.exact.push(exact);
        }
        self.options.rule(&self.values, game, &mut self.labels);
        out.extend(
            self.siblings
                .moves()
                .iter()
                .zip(&self.values)
                .zip(&self.exact)
                .zip(&self.labels)
                .map(|(((&mv, &value), &exact), &y)| Sibling {
                    mv,
                    value,
                    exact,
                    label: y as f64 / self.options.scale,
                }),
        );
        Ok(game)
    }
}

#[cfg(test)]
mod tests;
