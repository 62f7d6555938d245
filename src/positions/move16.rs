//! The two 16-bit move codes: YaneuraOu's `Move16` (PackedSfenValue's `move`)
//! and Apery's/cshogi's `move16` (HCPE's `bestMove16`).
//!
//! Both put the destination square in bits 0–6 and the origin in bits 7–13.
//! - YaneuraOu (`types.h`): a drop has the piece type (1..=7) as origin and
//!   `MOVE_DROP` (bit 14); a promotion sets `MOVE_PROMOTE` (bit 15). Its special
//!   moves have origin = destination: `MOVE_NULL` (129), `MOVE_RESIGN` (258),
//!   `MOVE_WIN` (387).
//! - Apery/cshogi (`move.hpp`): a drop has origin 80 + piece type (81..=87); a
//!   promotion sets bit 14; bit 15 is unused. `MoveNull` is 129.
//!
//! cshogi's `move16_to_psv` / `move16_from_psv` convert between the two the
//! same way. Code 0 (no move) and the special moves read as no move.

use super::numbering::{drop_kind, drop_type, square_from_number, square_number, SQUARE_COUNT};
use crate::shogi::Move;

const TO_MASK: u16 = 0x7f;
const PSV_DROP: u16 = 1 << 14;
const PSV_PROMOTE: u16 = 1 << 15;
const HCPE_PROMOTE: u16 = 1 << 14;

/// The move-code conventions of the two formats.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum MoveCode {
    /// YaneuraOu's `Move16`.
    YaneuraOu,
    /// Apery's / cshogi's `move16`.
    Apery,
}

impl MoveCode {
    /// The 16-bit code of `mv`; 0 for no move.
    pub(super) fn encode(self, mv: Option<Move>) -> u16 {
        let Some(mv) = mv else { return 0 };
        match (self, mv) {
            (
                _,
                Move::BoardMove {
                    from,
                    to,
                    promotion,
                },
            ) => {
                let promote = match self {
                    MoveCode::YaneuraOu => PSV_PROMOTE,
                    MoveCode::Apery => HCPE_PROMOTE,
                };
                u16::from(square_number(to))
                    | u16::from(square_number(from)) << 7
                    | if promotion { promote } else { 0 }
            }
            (MoveCode::YaneuraOu, Move::Drop { piece, to }) => {
                u16::from(square_number(to)) | drop_type(piece).unwrap_or(0) << 7 | PSV_DROP
            }
            (MoveCode::Apery, Move::Drop { piece, to }) => {
                u16::from(square_number(to))
                    | (u16::from(SQUARE_COUNT) - 1 + drop_type(piece).unwrap_or(0)) << 7
            }
        }
    }

    /// The move a code stands for (`None` for no move or a special move), or
    /// why the code is not a move. Legality in a position is the caller's check.
    pub(super) fn decode(self, code: u16) -> Result<Option<Move>, String> {
        let to_n = (code & TO_MASK) as u8;
        let from_n = (code >> 7 & TO_MASK) as u8;
        if code == 0 || (to_n == from_n && code & (PSV_DROP | PSV_PROMOTE) == 0) {
            return Ok(None);
        }
        let to = square_from_number(to_n)
            .ok_or_else(|| format!("destination square number {to_n}, expected 0..81"))?;
        let (drop, promotion) = match self {
            MoveCode::YaneuraOu => (code & PSV_DROP != 0, code & PSV_PROMOTE != 0),
            MoveCode::Apery => {
                if code & 1 << 15 != 0 {
                    return Err("bit 15 is set (unused in cshogi's move16)".into());
                }
                (from_n >= SQUARE_COUNT, code & HCPE_PROMOTE != 0)
            }
        };
        if drop {
            let t = match self {
                MoveCode::YaneuraOu => u16::from(from_n),
                MoveCode::Apery => u16::from(from_n) + 1 - u16::from(SQUARE_COUNT),
            };
            let piece =
                drop_kind(t).ok_or_else(|| format!("dropped piece type {t}, expected 1..=7"))?;
            if promotion {
                return Err("a drop with the promotion flag".into());
            }
            return Ok(Some(Move::Drop { piece, to }));
        }
        let from = square_from_number(from_n)
            .ok_or_else(|| format!("origin square number {from_n}, expected 0..81"))?;
        Ok(Some(Move::BoardMove {
            from,
            to,
            promotion,
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::shogi::parse_usi_move;

    /// Codes printed by cshogi 1.1.0: `cshogi.move16(board.move_from_usi(m))` and
    /// `cshogi.move16_to_psv(...)` of it.
    const KNOWN: [(&str, u16, u16); 6] = [
        ("7g7f", 7739, 7739),
        ("3c3d", 2581, 2581),
        ("6f7g", 6460, 6460),
        ("6f7g+", 22844, 39228),
        ("S*3c", 10772, 16916),
        ("P*5e", 10408, 16552),
    ];

    #[test]
    fn codes_match_cshogi() {
        for (usi, apery, yaneuraou) in KNOWN {
            let mv = parse_usi_move(usi).unwrap();
            assert_eq!(MoveCode::Apery.encode(Some(mv)), apery, "{usi}");
            assert_eq!(MoveCode::YaneuraOu.encode(Some(mv)), yaneuraou, "{usi}");
            assert_eq!(MoveCode::Apery.decode(apery), Ok(Some(mv)));
            assert_eq!(MoveCode::YaneuraOu.decode(yaneuraou), Ok(Some(mv)));
        }
    }

    #[test]
    fn no_move_and_special_moves_read_as_none() {
        for code in [0, 129, 258, 387] {
            assert_eq!(MoveCode::YaneuraOu.decode(code), Ok(None));
        }
        assert_eq!(MoveCode::Apery.decode(129), Ok(None));
        assert_eq!(MoveCode::Apery.encode(None), 0);
        assert_eq!(MoveCode::YaneuraOu.encode(None), 0);
    }

    #[test]
    fn codes_that_are_no_move_say_why() {
        // to = 81
        assert!(MoveCode::Apery.decode(81 | 60 << 7).is_err());
        // drop of type 8 (king) and 0
        assert!(MoveCode::YaneuraOu.decode(40 | 8 << 7 | PSV_DROP).is_err());
        assert!(MoveCode::Apery.decode(40 | 88 << 7).is_err());
        // promoting drop
        assert!(MoveCode::YaneuraOu
            .decode(40 | 1 << 7 | PSV_DROP | PSV_PROMOTE)
            .is_err());
        assert!(MoveCode::Apery.decode(40 | 81 << 7 | HCPE_PROMOTE).is_err());
        assert!(MoveCode::Apery.decode(7739 | 1 << 15).is_err());
        // origin 100 on a board move
        assert!(MoveCode::YaneuraOu.decode(40 | 100 << 7).is_err());
    }

    #[test]
    fn every_square_pair_round_trips() {
        for from in crate::shogi::Square::ALL {
            for to in crate::shogi::Square::ALL {
                if from == to {
                    continue;
                }
                for promotion in [false, true] {
                    let mv = Some(Move::BoardMove {
                        from,
                        to,
                        promotion,
                    });
                    for code in [MoveCode::YaneuraOu, MoveCode::Apery] {
                        assert_eq!(code.decode(code.encode(mv)), Ok(mv));
                    }
                }
            }
        }
    }
}
