//! The entering-king declaration (入玉宣言), 27-point rule, as the CSA protocol
//! (`%KACHI`) and USI (`bestmove win`) use it.
//!
//! The side to move may declare a win when all of these hold:
//! 1. its king is in the enemy camp (the opponent's three ranks);
//! 2. at least 10 of its other pieces are in the enemy camp;
//! 3. its points reach 28 for Black (sente) or 27 for White (gote), counting 5 for
//!    each rook or bishop (promoted or not) and 1 for each other piece, over its
//!    pieces in the enemy camp (king excluded) and in hand;
//! 4. its king is not in check.
//!
//! (The remaining-time condition is the clock's business, not the position's.)

use crate::shogi::{BitBoard, Color, Piece, Position, Rank, HAND_PIECES};

/// The enemy camp of `color`: the three ranks nearest the opponent.
fn enemy_camp(color: Color) -> BitBoard {
    let ranks = match color {
        Color::Black => [Rank::A, Rank::B, Rank::C],
        Color::White => [Rank::G, Rank::H, Rank::I],
    };
    ranks
        .iter()
        .fold(BitBoard::EMPTY, |bb, &r| bb | r.bitboard())
}

fn points(piece: Piece) -> u32 {
    match piece {
        Piece::Rook | Piece::Bishop | Piece::PRook | Piece::PBishop => 5,
        Piece::King => 0,
        _ => 1,
    }
}

/// May the side to move declare a win by entering king now?
pub fn can_declare_win(pos: &Position) -> bool {
    let us = pos.side_to_move();
    let camp = enemy_camp(us);
    if !camp.has(pos.king(us)) || pos.in_check() {
        return false;
    }
    let board = pos.board();
    let ours_in_camp = board.colors(us) & camp;
    let mut count = 0;
    let mut total = 0;
    for piece in Piece::ALL {
        if piece == Piece::King {
            continue;
        }
        let n = (board.pieces(piece) & ours_in_camp).len();
        count += n;
        total += n * points(piece);
    }
    for piece in HAND_PIECES {
        total += u32::from(pos.hand_count(us, piece)) * points(piece);
    }
    let needed = if us == Color::Black { 28 } else { 27 };
    count >= 10 && total >= needed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn declaration_needs_king_ten_pieces_and_the_points() {
        // Black king on 5b with 10 pieces in camp: +R +B (10 points) + 8 golds/silvers/
        // tokins (8) = 18 on the board, plus 10 pawns in hand = 28.
        let yes = "GGSS4k/+P+PSS+R+BK2/9/9/9/9/9/9/9 b 10P 1";
        assert!(can_declare_win(&Position::from_sfen(yes).unwrap()));
        // One point short (9 pawns in hand): 27 is enough for White only.
        let short = "GGSS4k/+P+PSS+R+BK2/9/9/9/9/9/9/9 b 9P 1";
        assert!(!can_declare_win(&Position::from_sfen(short).unwrap()));
        // The same material for White, mirrored: 27 points suffice.
        let white = "9/9/9/9/9/9/9/2k+b+rss+p+p/K4ssgg w 9p 1";
        assert!(can_declare_win(&Position::from_sfen(white).unwrap()));
        // King outside the camp.
        let outside = "GGSS4k/+P+PSS+R+B3/9/4K4/9/9/9/9/9 b 10P 1";
        assert!(!can_declare_win(&Position::from_sfen(outside).unwrap()));
        // Only 9 pieces in camp, points from hand.
        let few = "GGSS4k/+P+PSS+R1K2/9/9/9/9/9/9/9 b B10P 1";
        assert!(!can_declare_win(&Position::from_sfen(few).unwrap()));
        assert!(!can_declare_win(&Position::startpos()));
    }
}
