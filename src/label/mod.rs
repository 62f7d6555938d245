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

use crate::eval::{Evaluator, EVAL_LIMIT};
use crate::search::Searcher;
#[cfg(doc)]
use crate::search::MATE;
use crate::shogi::{Move, Position, Siblings};

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
            scale: 10_000.0,
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
    /// maximum by at least `margin` even when values hit the clamp.
    pub fn rule(&self, values: &[i32], game: usize, out: &mut Vec<i32>) {
        out.clear();
        let y_game = (values[game] + self.margin).clamp(-EVAL_LIMIT + self.margin, EVAL_LIMIT);
        out.extend(values.iter().enumerate().map(|(i, &v)| {
            if i == game {
                y_game
            } else {
                v.clamp(-EVAL_LIMIT, EVAL_LIMIT).min(y_game - self.margin)
            }
        }));
    }
}

/// One candidate move of a position, searched and labelled.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sibling {
    /// The move, from the parent position.
    pub mv: Move,
    /// Its search value for the side that moved, centipawns, clamped to ±10000.
    pub value: i32,
    /// Its label (centipawns after the rule, divided by the scale).
    pub label: f64,
}

/// Labels every legal move of a position, reusing its buffers between positions.
#[derive(Debug)]
pub struct Labeller<'e, E: Evaluator> {
    searcher: Searcher<'e, E>,
    options: LabelOptions,
    siblings: Siblings,
    values: Vec<i32>,
    labels: Vec<i32>,
}

impl<'e, E: Evaluator> Labeller<'e, E> {
    /// A labeller with evaluator `eval` and checked `options`.
    pub fn new(eval: &'e E, options: LabelOptions) -> Self {
        Self {
            searcher: Searcher::labelling(eval, options.quiescence),
            options,
            siblings: Siblings::new(),
            values: Vec::new(),
            labels: Vec::new(),
        }
    }

    /// Search nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.searcher.nodes()
    }

    /// Searches every legal move of `pos` and labels it; `game_move` is the move
    /// played. `on_sibling(i, mv, sibling)` sees each sibling position (in
    /// move-generation order) and the principal variation of its search (the
    /// moves to its leaf) while they are at hand, for building its features.
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
        for (i, (mv, sibling)) in self.siblings.iter(pos).enumerate() {
            let (v, line) = self.searcher.line(&sibling, &[], self.options.depth);
            on_sibling(i, mv, &sibling, line);
            self.values.push((-v).clamp(-EVAL_LIMIT, EVAL_LIMIT));
        }
        self.options.rule(&self.values, game, &mut self.labels);
        out.extend(
            self.siblings
                .moves()
                .iter()
                .zip(&self.values)
                .zip(&self.labels)
                .map(|((&mv, &value), &y)| Sibling {
                    mv,
                    value,
                    label: y as f64 / self.options.scale,
                }),
        );
        Ok(game)
    }
}

#[cfg(test)]
mod tests;
