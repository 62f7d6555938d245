//! Perft: count the leaf nodes of the legal-move tree, the standard check of a move generator.

use haitaka::Board;

use super::Position;

/// Number of leaf positions `depth` plies below `pos`, through our [`Position`] layer
/// (bulk-counted at the last ply, as haitaka's own perft does).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => pos.count_legal_moves() as u64,
        _ => {
            let mut nodes = 0;
            pos.for_each_legal_move(|mv| {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                nodes += perft(&child, depth - 1);
            });
            nodes
        }
    }
}

/// The same count straight on `haitaka::Board`, the baseline for the layer-cost benchmark.
pub fn perft_haitaka(board: &Board, depth: u32) -> u64 {
    match depth {
        0 => 1,
        1 => {
            let mut n = 0;
            board.generate_moves(|moves| {
                n += moves.into_iter().len() as u64;
                false
            });
            n
        }
        _ => {
            let mut nodes = 0;
            board.generate_moves(|moves| {
                for mv in moves {
                    let mut child = board.clone();
                    child.play_unchecked(mv);
                    nodes += perft_haitaka(&child, depth - 1);
                }
                false
            });
            nodes
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MIDGAME: &str = "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1";
    const MAX_MOVES: &str = "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1";

    #[test]
    fn perft_start_position_depths_1_to_4() {
        let pos = Position::startpos();
        let expected = [30, 900, 25470, 719731];
        for (d, n) in expected.into_iter().enumerate() {
            assert_eq!(perft(&pos, d as u32 + 1), n, "depth {}", d + 1);
        }
    }

    #[test]
    fn perft_start_position_depth_5() {
        assert_eq!(perft(&Position::startpos(), 5), 19_861_490);
    }

    #[test]
    fn perft_midgame_depths_1_to_3() {
        let pos = Position::from_sfen(MIDGAME).unwrap();
        assert_eq!(perft(&pos, 1), 207);
        assert_eq!(perft(&pos, 2), 28684);
        assert_eq!(perft(&pos, 3), 4_809_015);
    }

    #[test]
    fn perft_maximum_legal_moves() {
        let pos = Position::from_sfen(MAX_MOVES).unwrap();
        assert_eq!(perft(&pos, 1), 593);
        // Every generated move is accepted by the legality check, and vice versa.
        for mv in pos.legal_moves() {
            assert!(pos.is_legal(mv), "{mv}");
        }
    }

    #[test]
    fn our_layer_counts_as_haitaka_does() {
        let pos = Position::from_sfen(MIDGAME).unwrap();
        assert_eq!(perft(&pos, 2), perft_haitaka(pos.board(), 2));
    }
}
