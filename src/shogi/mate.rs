//! Mate in one (一手詰め): does the side to move have a move that mates now?
//!
//! The playing search asks this at the horizon of its quiescence, which
//! searches captures only and would otherwise stand pat in front of a drop
//! that mates (YaneuraOu's qsearch asks `Mate::mate_1ply` there for the same
//! reason). Written here rather than taken from a crate: `haitaka` generates
//! the checking moves (`Board::generate_checks`, drops and board moves,
//! discovered checks included, the illegal pawn-drop mate left out) but has
//! no mate test, and no shogi crate offers one over its boards. Each check is
//! played and the reply side asked for a legal move ([`Position::has_legal_move`],
//! which refuses an illegal pawn-drop mate as a reply too): exact, and slower
//! than YaneuraOu's pattern-based `mate_1ply`, which is why the search asks
//! only at the quiescence's first ply, and only where standing pat does not
//! already cut the node.

use haitaka::Move;

use super::Position;

impl Position {
    /// A move that checkmates at once, if the side to move has one; `None`
    /// in check (the search generates every evasion there anyway).
    ///
    /// Exact: `Some` exactly when some legal move leaves the other side in
    /// check with no legal move (a test compares with playing every legal
    /// move, on every position of the bundled tournament games and their
    /// children).
    pub fn mate_in_one(&self) -> Option<Move> {
        if self.in_check() {
            return None;
        }
        let mut found = None;
        self.board().generate_checks(|moves| {
            for mv in moves {
                let mut child = self.clone();
                child.play_unchecked(mv);
                if child.in_check() && !child.has_legal_move() {
                    found = Some(mv);
                    return true;
                }
            }
            false
        });
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every legal move of `pos` that mates, found by playing them all.
    fn mates_by_playing(pos: &Position) -> Vec<Move> {
        let mut out = Vec::new();
        pos.for_each_legal_move(|mv| {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            if child.is_checkmate() {
                out.push(mv);
            }
        });
        out
    }

    #[test]
    fn a_gold_dropped_on_the_kings_head_mates() {
        // White's king on 5a, Black's pawn on 5c guards 5b: G*5b mates.
        let pos = Position::from_sfen("4k4/9/4P4/9/9/9/9/9/4K4 b G 1").unwrap();
        assert_eq!(pos.mate_in_one(), Some(pos.parse_move("G*5b").unwrap()));
    }

    #[test]
    fn a_pawn_dropped_to_mate_is_not_a_mate_in_one() {
        // White's king on 1a, its own knight on 2a, Black's gold on 2c: P*1b
        // would mate, and is illegal for that (uchifuzume); nothing else mates.
        let pos = Position::from_sfen("7nk/9/7G1/9/9/9/9/9/4K4 b P 1").unwrap();
        assert!(!pos.is_legal(crate::shogi::parse_usi_move("P*1b").unwrap()));
        assert_eq!(pos.mate_in_one(), None);
        assert!(mates_by_playing(&pos).is_empty());
    }

    #[test]
    fn finds_a_mate_exactly_when_playing_every_move_does() {
        let mut mates = 0;
        let mut checked = 0;
        for pos in crate::testdata::tournament_positions(true) {
            if pos.in_check() || !pos.has_legal_move() {
                continue;
            }
            checked += 1;
            let all = mates_by_playing(&pos);
            match pos.mate_in_one() {
                Some(mv) => {
                    mates += 1;
                    assert!(all.contains(&mv), "{mv} does not mate in {}", pos.to_sfen());
                }
                None => assert!(all.is_empty(), "{:?} mate in {}", all, pos.to_sfen()),
            }
        }
        assert!(checked > 10_000, "{checked} positions");
        assert!(
            mates > 100,
            "only {mates} mates in one among {checked} positions"
        );
    }
}
