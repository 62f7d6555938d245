//! Move agreement: how often the move played in a game is among an evaluator's best moves.
//!
//! For every position of a game (with the move played from it), all legal moves
//! are valued from the mover's point of view and ranked, by the sibling each
//! leads to (`shogi::Siblings`):
//! - no depth (static): `−evaluate(sibling)` (the evaluator speaks for the side
//!   to move of the sibling, the opponent); a move that checkmates is valued at
//!   `MATE − 1`;
//! - depth D: `−value(sibling, D)`, the engine's search of D plies below the
//!   sibling, then the quiescence (D = 0: the sibling's quiescence only); the
//!   one meaning of depth of `extract`, `fit` and recipes (`docs/search.md`).
//!
//! Ties are counted fairly: if `b` moves are strictly better than the game's move
//! and `t` moves (the game's move included) share its value, a top-k hit counts as
//! the probability that a random order of the tied moves puts the game's move within
//! the first k: `clamp((k − b) / t, 0, 1)` ([`hit_probability`]).
//!
//! Every position of a game counts, forced moves (one legal move) included. Phases
//! go by the ply number of the move played: 1–30, 31–80, 81 and later (a game
//! starting from an SFEN numbers its plies from the SFEN's move number).

use rayon::prelude::*;

use crate::eval::Evaluator;
use crate::record::Game;
use crate::search::{
    game_path, Control, DepthRange, Limits, PathEntry, SearchMemory, Searcher, TranspositionTable,
    MATE,
};
use crate::shogi::{Move, Position, Siblings};

/// The k of the top-k rates reported.
pub const TOP_K: [usize; 3] = [1, 3, 5];

/// The game phases reported, by ply number of the move played.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    /// Plies 1–30.
    Opening,
    /// Plies 31–80.
    Middle,
    /// Plies 81 and later.
    End,
}

impl Phase {
    /// All phases, in order.
    pub const ALL: [Phase; 3] = [Phase::Opening, Phase::Middle, Phase::End];

    /// The phase of the move with this 1-based ply number.
    pub fn of_ply(ply: usize) -> Self {
        match ply {
            0..=30 => Phase::Opening,
            31..=80 => Phase::Middle,
            _ => Phase::End,
        }
    }

    /// The name used in tables and CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Phase::Opening => "1-30",
            Phase::Middle => "31-80",
            Phase::End => "81+",
        }
    }
}

/// The tie rule lives in `eval` (learners use it too and must not import the
/// engine); re-exported here, where the agreement measure is defined.
pub use crate::eval::hit_probability;

/// Top-k hit probabilities (for [`TOP_K`]) of `game_move` among valued moves;
/// `None` if the game's move is not among them.
pub fn position_hits(values: &[(Move, i32)], game_move: Move) -> Option<[f64; 3]> {
    let (_, v) = *values.iter().find(|(m, _)| *m == game_move)?;
    let better = values.iter().filter(|(_, w)| *w > v).count();
    let tied = values.iter().filter(|(_, w)| *w == v).count();
    Some(TOP_K.map(|k| hit_probability(better, tied, k)))
}

/// Positions counted and summed hit probabilities for one group of positions.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    /// Positions counted.
    pub positions: u64,
    /// Sum of hit probabilities for each k of [`TOP_K`].
    pub hits: [f64; 3],
}

impl Tally {
    fn add(&mut self, hits: [f64; 3]) {
        self.positions += 1;
        for (sum, h) in self.hits.iter_mut().zip(hits) {
            *sum += h;
        }
    }

    fn merge(&mut self, other: &Tally) {
        self.positions += other.positions;
        for (sum, h) in self.hits.iter_mut().zip(other.hits) {
            *sum += h;
        }
    }

    /// Top-k rates as fractions (0 when no position was counted).
    pub fn rates(&self) -> [f64; 3] {
        self.hits.map(|h| {
            if self.positions == 0 {
                0.0
            } else {
                h / self.positions as f64
            }
        })
    }
}

/// Agreement over all positions and by phase.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Agreement {
    /// All positions.
    pub all: Tally,
    /// By [`Phase::ALL`] order.
    pub phases: [Tally; 3],
}

impl Agreement {
    /// Counts one position whose move had ply number `ply`.
    pub fn add(&mut self, ply: usize, hits: [f64; 3]) {
        self.all.add(hits);
        let i = Phase::ALL
            .iter()
            .position(|&p| p == Phase::of_ply(ply))
            .unwrap_or(0);
        self.phases[i].add(hits);
    }

    /// Adds another agreement's counts.
    pub fn merge(&mut self, other: &Agreement) {
        self.all.merge(&other.all);
        for (a, b) in self.phases.iter_mut().zip(other.phases.iter()) {
            a.merge(b);
        }
    }

    /// Rows `(phase name, tally)`: `all` first, then each phase.
    pub fn rows(&self) -> Vec<(&'static str, Tally)> {
        let mut rows = vec![("all", self.all)];
        for (p, t) in Phase::ALL.iter().zip(self.phases) {
            rows.push((p.name(), t));
        }
        rows
    }
}

/// Values every legal move of a position for the mover, with an evaluator and a depth.
pub struct MoveRanker<'a, E: Evaluator + ?Sized> {
    eval: &'a E,
    depth: Option<u32>,
    tt: TranspositionTable,
    control: Control,
    siblings: Siblings,
    /// One evaluation cache for every sibling's search, for a costly
    /// evaluator: siblings' searches meet the same positions (a move and a
    /// reply in either order), and each search alone is too short to fill a
    /// cache of its own ([`SearchMemory::for_evaluator`]).
    memory: SearchMemory,
}

impl<'a, E: Evaluator + ?Sized> MoveRanker<'a, E> {
    /// A ranker searching each sibling `depth` plies below it, then its
    /// quiescence; `None`: each sibling's static evaluation.
    pub fn new(eval: &'a E, depth: Option<u32>) -> Self {
        Self {
            eval,
            depth,
            tt: TranspositionTable::new(if depth.is_some() { 8 } else { 1 }),
            control: Control::new(),
            siblings: Siblings::new(),
            memory: match depth {
                Some(_) => SearchMemory::for_evaluator(eval),
                None => SearchMemory::default(),
            },
        }
    }

    /// `(move, value for the mover)` for every legal move of `pos`; `history` holds
    /// the game's positions before `pos` (for repetition).
    pub fn move_values(&mut self, pos: &Position, history: &[PathEntry]) -> Vec<(Move, i32)> {
        let mut out = Vec::new();
        let mut path = history.to_vec();
        path.push(PathEntry::of(pos));
        self.siblings.expand(pos);
        for (mv, child) in self.siblings.iter(pos) {
            let value = match self.depth {
                None if child.is_checkmate() => MATE - 1,
                None => -self.eval.evaluate(&child),
                Some(depth) => {
                    let mut s =
                        Searcher::new(self.eval, &mut self.tt, &self.control, Limits::default())
                            .with_memory(std::mem::take(&mut self.memory));
                    let value = -s.value(&child, &path, depth);
                    self.memory = s.take_memory();
                    value
                }
            };
            out.push((mv, value));
        }
        out
    }

    /// Agreement over every position of `game`.
    pub fn game(&mut self, game: &Game) -> Agreement {
        let mut agreement = Agreement::default();
        let path = game_path(&game.start, &game.moves);
        let first_ply = usize::from(game.start.move_number().max(1));
        for (i, (pos, mv)) in game.positions().enumerate() {
            let Some(mv) = mv else { break };
            let values = self.move_values(&pos, &path[..i]);
            if let Some(hits) = position_hits(&values, mv) {
                agreement.add(first_ply + i, hits);
            }
        }
        agreement
    }
}

/// The depths agreement is measured at, plies below each sibling: `evaluate
/// --depth` and a recipe's `[evaluate] depth` alike.
pub const DEPTHS: DepthRange = DepthRange::new(0, 5);

/// Agreement of `eval` at `depth` (plies below each sibling; `None`: static)
/// over `games`, games in parallel.
pub fn games_agreement<E: Evaluator + ?Sized>(
    games: &[Game],
    eval: &E,
    depth: Option<u32>,
) -> Agreement {
    games
        .par_iter()
        .map(|g| MoveRanker::new(eval, depth).game(g))
        .reduce(Agreement::default, |mut a, b| {
            a.merge(&b);
            a
        })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::eval::Material;
    use crate::record::Source;

    /// Lines 215 and 853 of the floodgate-2016 opening set (the development
    /// collection, not shipped; `fixtures/README.md`), two bishop exchanges
    /// (角換わり), copied here so the tests run without it.
    const LINE_215: &str = "startpos moves 7g7f 3c3d 8h2b+ 3a2b 7i8h 2b3c 8h7g 8c8d 2h6h 7a6b 5i4h 5a4b 4h3h 4b3b 3h2h 4a4b 3i3h 5c5d 1g1f 1c1d 4g4f 6b5c 6i5h 4c4d";
    const LINE_853: &str = "startpos moves 7g7f 3c3d 8h2b+ 3a2b 7i6h 2b3c 6g6f 7a6b 6i7h 6c6d 6h6g 6b6c 3i4h 1c1d 1g1f 4a3b 4g4f 8c8d 4h4g 5a4b 3g3f 6a5b 4i5h 4b3a";

    /// Line `line_no` (1-based) of the floodgate openings: 215 and 853 from
    /// the constants above, the others from the bundled lines (`fixtures/`).
    fn floodgate_game(line_no: usize) -> Game {
        let line = match line_no {
            215 => LINE_215.to_string(),
            853 => LINE_853.to_string(),
            n => crate::testdata::floodgate_lines(n).pop().unwrap(),
        };
        let mut pos = Position::startpos();
        let mut game = Game::new(
            pos.clone(),
            Source {
                path: "floodgate2016-openings.sfen".into(),
                index: line_no - 1,
            },
        );
        for mv in line.split_whitespace().skip(2) {
            game.moves.push(pos.play_usi(mv).unwrap());
        }
        game
    }

    #[test]
    fn kakugawari_recapture_ties_with_the_rook_recapture() {
        // Line 215: 7g7f 3c3d 8h2b+ 3a2b ... White's 4th ply recaptures the horse with
        // the silver; the rook on 8b could recapture for the same material.
        let game = floodgate_game(215);
        let mut pos = Position::startpos();
        for mv in ["7g7f", "3c3d", "8h2b+"] {
            pos.play_usi(mv).unwrap();
        }
        let mut ranker = MoveRanker::new(&Material, None);
        let values = ranker.move_values(&pos, &[]);
        let best = values.iter().map(|v| v.1).max().unwrap();
        let top: Vec<String> = values
            .iter()
            .filter(|v| v.1 == best)
            .map(|v| v.0.to_string())
            .collect();
        assert_eq!(top.len(), 2, "{top:?}");
        assert!(top.contains(&"3a2b".to_string()) && top.contains(&"8b2b".to_string()));
        assert_eq!(position_hits(&values, game.moves[3]), Some([0.5, 1.0, 1.0]));
        // The first move of the game ties with all 30 legal moves at material 0.
        let first = ranker.move_values(&Position::startpos(), &[]);
        assert_eq!(first.len(), 30);
        assert_eq!(
            position_hits(&first, game.moves[0]),
            Some([1.0 / 30.0, 0.1, 5.0 / 30.0])
        );
    }

    #[test]
    fn games_are_counted_by_phase_and_depth_two_agrees_more_on_recaptures() {
        let games: Vec<Game> = [1, 4, 215, 853]
            .iter()
            .map(|&n| floodgate_game(n))
            .collect();
        let a = games_agreement(&games, &Material, None);
        assert_eq!(a.all.positions, 4 * 24);
        assert_eq!(a.phases[0].positions, 4 * 24);
        assert_eq!(a.phases[1].positions + a.phases[2].positions, 0);
        let [top1, top3, top5] = a.all.rates();
        assert!(top1 <= top3 && top3 <= top5 && top5 <= 1.0);
        let deeper = games_agreement(&games, &Material, Some(1));
        assert_eq!(deeper.all.positions, 4 * 24);
        // Depth 1 sees a capture as a gain and misses the recapture; a search does not,
        // so quiet moves stop losing to hanging "captures": agreement must not fall.
        assert!(deeper.all.hits[2] >= a.all.hits[2], "{deeper:?} vs {a:?}");
    }

    #[test]
    fn phases_by_ply() {
        assert_eq!(Phase::of_ply(1), Phase::Opening);
        assert_eq!(Phase::of_ply(30), Phase::Opening);
        assert_eq!(Phase::of_ply(31), Phase::Middle);
        assert_eq!(Phase::of_ply(80), Phase::Middle);
        assert_eq!(Phase::of_ply(81), Phase::End);
    }
}
