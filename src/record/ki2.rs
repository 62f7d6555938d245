//! KI2 records: moves without origin squares (`▲７六歩　△３四歩　▲２六歩`).
//!
//! KI2 is the notation of newspapers and professional game databases. Its
//! header lines (`先手：`, `手合割：`, board diagrams `|…|`), comments (`*`),
//! branches (`変化：N手`, only the main line is kept) and `まで…` summary lines
//! are KIF's, so a game is read by the KIF reader ([`super::kif`]), which
//! takes a line starting with a side mark (`▲`/`△`, also `☗`/`☖` and `▼`/`▽`)
//! as a run of KI2 moves. This module holds the notation itself: parsing one
//! move and resolving it against the legal moves, and ([`relative_words`])
//! the words a writer must add so that a reader finds the same move.
//!
//! # Resolving a move
//!
//! A move names its destination (`７六`, or `同` for the previous move's
//! square), the piece as it stands before the move, then optional words:
//! 右/左/直 (which piece, seen from the mover), 上/引/寄 (moving forward,
//! backward or sideways; `行` is an old spelling of 上), 打 (a drop), and
//! 成/不成 (`生` is an old spelling of 不成). The candidates are the origins
//! from which a piece of that kind has a legal move to the destination. The
//! words filter them as Kifu-for-JS (json-kifu-format's normalizer) does:
//! with `v` = destination − origin, mirrored for White so that "forward" is
//! negative, 上 keeps `v.rank < 0`, 引 `v.rank > 0`, 寄 `v.rank = 0`, 直
//! `v.file = 0` and `v.rank < 0`; then 左 keeps the candidates of smallest
//! `v.file` and 右 those of largest. One candidate left is the move; none or
//! several is an error naming the candidates. A single candidate needs no
//! word (a superfluous word is tolerated, as Kifu-for-JS does). Without
//! candidates on the board, the move is a drop from the hand.

use std::path::Path;

use super::{Game, RecordError};
use crate::shogi::{Color, Move, Piece, Position, Square};

/// Reads every game of a KI2 text (already decoded, see [`super::decode_text`]).
///
/// A game with an unparsable line, an illegal move, or a move its words do
/// not single out becomes one `Err` naming the line; the other games of the
/// text are still read.
pub fn read(text: &str, path: &Path) -> Vec<Result<Game, RecordError>> {
    super::kif::read(text, path)
}

/// The marks that begin a KI2 move: Black's, then White's.
pub(crate) const BLACK_MARKS: [char; 3] = ['▲', '☗', '▼'];
/// White's move marks.
pub(crate) const WHITE_MARKS: [char; 3] = ['△', '☖', '▽'];

/// True when `c` marks a KI2 move.
pub(crate) fn is_mark(c: char) -> bool {
    BLACK_MARKS.contains(&c) || WHITE_MARKS.contains(&c)
}

/// The side a mark names.
pub(crate) fn mark_color(c: char) -> Option<Color> {
    if BLACK_MARKS.contains(&c) {
        Some(Color::Black)
    } else if WHITE_MARKS.contains(&c) {
        Some(Color::White)
    } else {
        None
    }
}

/// Which piece among several, seen from the mover (右, 左, 直).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Side {
    Right,
    Left,
    Straight,
}

/// Which way the piece moves, seen from the mover (上, 引, 寄).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Motion {
    Up,
    Back,
    Sideways,
}

/// The words after a KI2 piece name.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Words {
    pub side: Option<Side>,
    pub motion: Option<Motion>,
    pub drop: bool,
    /// `Some(true)` for 成, `Some(false)` for 不成/生, `None` when neither is written.
    pub promote: Option<bool>,
}

impl Words {
    /// True when a word picks a piece among several (右 左 直 上 引 寄).
    pub fn picks(&self) -> bool {
        self.side.is_some() || self.motion.is_some()
    }
}

/// Reads the words at the start of `s` (any order, each at most once a kind)
/// and returns them with the rest of `s`.
pub(crate) fn parse_words(mut s: &str) -> (Words, &str) {
    let mut w = Words::default();
    loop {
        if let Some(r) = s.strip_prefix("不成") {
            w.promote = Some(false);
            s = r;
            continue;
        }
        let mut chars = s.chars();
        let Some(c) = chars.next() else { break };
        match c {
            '右' => w.side = Some(Side::Right),
            '左' => w.side = Some(Side::Left),
            '直' => w.side = Some(Side::Straight),
            '上' | '行' => w.motion = Some(Motion::Up),
            '引' => w.motion = Some(Motion::Back),
            '寄' => w.motion = Some(Motion::Sideways),
            '打' => w.drop = true,
            '成' => w.promote = Some(true),
            '生' => w.promote = Some(false),
            _ => break,
        }
        s = chars.as_str();
    }
    (w, s)
}

/// File (1–9) and rank (1–9) of a square.
pub(crate) fn file_rank(sq: Square) -> (i32, i32) {
    let i = sq as usize;
    ((i / 9) as i32 + 1, (i % 9) as i32 + 1)
}

/// `to − from` as (file, rank), mirrored for White so that forward is a negative rank.
fn vector(color: Color, from: Square, to: Square) -> (i32, i32) {
    let (ff, fr) = file_rank(from);
    let (tf, tr) = file_rank(to);
    let (x, y) = (tf - ff, tr - fr);
    if color == Color::Black {
        (x, y)
    } else {
        (-x, -y)
    }
}

/// The origins from which a piece of kind `piece` has a legal move to `to`,
/// in square order, each once (a piece that may or may not promote counts once).
pub(crate) fn candidates(pos: &Position, piece: Piece, to: Square) -> Vec<Square> {
    let side = pos.side_to_move();
    let mut out = Vec::new();
    pos.for_each_legal_move(|mv| {
        if let Move::BoardMove { from, to: t, .. } = mv {
            if t == to && pos.piece_on(from) == Some((side, piece)) && !out.contains(&from) {
                out.push(from);
            }
        }
    });
    out.sort_by_key(|&s| s as usize);
    out
}

/// A square as KIF writes an origin: file then rank, `77`.
pub(crate) fn origin_digits(sq: Square) -> String {
    let (f, r) = file_rank(sq);
    format!("{f}{r}")
}

/// Full-width file digit and kanji rank, `７六`.
pub(crate) fn square_name(sq: Square) -> String {
    const FILES: [char; 9] = ['１', '２', '３', '４', '５', '６', '７', '８', '９'];
    const RANKS: [char; 9] = ['一', '二', '三', '四', '五', '六', '七', '八', '九'];
    let (f, r) = file_rank(sq);
    format!("{}{}", FILES[f as usize - 1], RANKS[r as usize - 1])
}

fn list(origins: &[Square]) -> String {
    origins
        .iter()
        .map(|&s| origin_digits(s))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Resolves a KI2 move (`piece` to `to` with `words`) against the legal moves of `pos`.
///
/// The error says what was expected and names the candidate origins.
pub(crate) fn resolve(
    pos: &Position,
    piece: Piece,
    to: Square,
    words: Words,
) -> Result<Move, String> {
    let name = super::kif::piece_name(piece);
    let dest = square_name(to);
    let drop = Move::Drop { piece, to };
    let drop_legal = !piece.is_promoted() && piece != Piece::King && pos.is_legal(drop);
    if words.drop {
        return if drop_legal && words.promote != Some(true) && !words.picks() {
            Ok(drop)
        } else {
            Err(format!("a legal drop of {name} on {dest}"))
        };
    }
    let all = candidates(pos, piece, to);
    if all.is_empty() {
        return if drop_legal && words.promote.is_none() && !words.picks() {
            Ok(drop)
        } else {
            Err(format!(
                "a legal {name} move to {dest} (no {name} can go there)"
            ))
        };
    }
    let from = if all.len() == 1 {
        all[0]
    } else {
        let picked = filter(pos.side_to_move(), &all, to, words);
        match picked.as_slice() {
            [one] => *one,
            [] => {
                return Err(format!(
                    "a {name} that the words pick out: none of the {} {name} from {} moves so to {dest}",
                    all.len(),
                    list(&all)
                ))
            }
            many => {
                return Err(format!(
                    "one {name} picked out by 右, 左, 直, 上, 引 or 寄: {} {name} (from {}) can move to {dest}",
                    many.len(),
                    list(many)
                ))
            }
        }
    };
    let promotion = words.promote == Some(true);
    let mv = Move::BoardMove {
        from,
        to,
        promotion,
    };
    if pos.is_legal(mv) {
        Ok(mv)
    } else if promotion {
        Err(format!(
            "a legal move (the {name} from {} cannot promote on {dest})",
            origin_digits(from)
        ))
    } else {
        Err(format!(
            "成 (the {name} from {} must promote on {dest})",
            origin_digits(from)
        ))
    }
}

/// The candidates the words keep (see the module documentation).
fn filter(color: Color, all: &[Square], to: Square, words: Words) -> Vec<Square> {
    let mut kept: Vec<(Square, (i32, i32))> = all
        .iter()
        .map(|&from| (from, vector(color, from, to)))
        .filter(|&(_, (_, y))| match words.motion {
            Some(Motion::Up) => y < 0,
            Some(Motion::Back) => y > 0,
            Some(Motion::Sideways) => y == 0,
            None => true,
        })
        .collect();
    match words.side {
        Some(Side::Straight) => kept.retain(|&(_, (x, y))| x == 0 && y < 0),
        Some(Side::Left) => {
            let min = kept.iter().map(|&(_, (x, _))| x).min().unwrap_or(0);
            kept.retain(|&(_, (x, _))| x == min);
        }
        Some(Side::Right) => {
            let max = kept.iter().map(|&(_, (x, _))| x).max().unwrap_or(0);
            kept.retain(|&(_, (x, _))| x == max);
        }
        None => {}
    }
    kept.into_iter().map(|(s, _)| s).collect()
}

/// The words a KI2 writer puts after the piece name of `mv` (legal in `pos`)
/// so that `resolve` finds `mv` again: 右/左/直 and 上/引/寄 when several
/// pieces of the kind can go there, 打 for a drop where a board piece could
/// also go, 成 or 不成 when the piece could promote.
///
/// The choice follows Kifu-for-JS (json-kifu-format's `addRelativeInformation`):
/// the motion word when it alone is unique, else the side word, else both.
pub fn relative_words(pos: &Position, mv: Move) -> String {
    match mv {
        Move::Drop { piece, to } => {
            if candidates(pos, piece, to).is_empty() {
                String::new()
            } else {
                "打".to_string()
            }
        }
        Move::BoardMove {
            from,
            to,
            promotion,
        } => {
            let Some((color, piece)) = pos.piece_on(from) else {
                return String::new();
            };
            let mut out = String::new();
            let all = candidates(pos, piece, to);
            if all.len() >= 2 {
                let sign = |from: Square| {
                    let (x, y) = vector(color, from, to);
                    (x.signum(), y.signum())
                };
                let others: Vec<(i32, i32)> = all
                    .iter()
                    .filter(|&&s| s != from)
                    .map(|&s| sign(s))
                    .collect();
                let (x, y) = sign(from);
                let motion = |y: i32| match y {
                    0 => "寄",
                    y if y > 0 => "引",
                    _ => "上",
                };
                let side = |x: i32| match x {
                    0 => "直",
                    x if x > 0 => "右",
                    _ => "左",
                };
                if others.iter().all(|o| o.1 != y) {
                    out.push_str(motion(y));
                } else if others.iter().all(|o| o.0 != x) {
                    if matches!(piece, Piece::PBishop | Piece::PRook) && x == 0 {
                        // 直 is not used for a horse or dragon: left or right of the other.
                        out.push_str(if others.iter().all(|o| o.0 >= 0) {
                            "左"
                        } else {
                            "右"
                        });
                    } else {
                        out.push_str(side(x));
                    }
                } else if x == 0 {
                    out.push('直');
                } else {
                    out.push_str(side(x));
                    out.push_str(motion(y));
                }
            }
            if promotion {
                out.push('成');
            } else if pos.is_legal(Move::BoardMove {
                from,
                to,
                promotion: true,
            }) {
                out.push_str("不成");
            }
            out
        }
    }
}

/// One move in KI2 notation without its mark: `７六歩`, `同　歩`, `５二金右`, `２二角成`.
///
/// `last_to` is the previous move's destination (for `同`).
pub fn move_text(pos: &Position, mv: Move, last_to: Option<Square>) -> String {
    let (to, piece) = match mv {
        Move::Drop { piece, to } => (to, piece),
        Move::BoardMove { from, to, .. } => {
            (to, pos.piece_on(from).map_or(Piece::Pawn, |(_, p)| p))
        }
    };
    let dest = if last_to == Some(to) {
        "同　".to_string()
    } else {
        square_name(to)
    };
    format!(
        "{dest}{}{}",
        super::kif::piece_name(piece),
        relative_words(pos, mv)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pos_after(moves: &str) -> Position {
        let mut p = Position::startpos();
        for m in moves.split_whitespace() {
            p.play_usi(m).unwrap();
        }
        p
    }

    fn sq(usi: &str) -> Square {
        match crate::shogi::parse_usi_move(&format!("P*{usi}")).unwrap() {
            Move::Drop { to, .. } => to,
            Move::BoardMove { to, .. } => to,
        }
    }

    #[test]
    fn words_parse_in_any_order() {
        let (w, rest) = parse_words("右上成　");
        assert_eq!(
            w,
            Words {
                side: Some(Side::Right),
                motion: Some(Motion::Up),
                drop: false,
                promote: Some(true)
            }
        );
        assert_eq!(rest, "　");
        assert_eq!(parse_words("不成").0.promote, Some(false));
        assert_eq!(parse_words("生").0.promote, Some(false));
        assert!(parse_words("打").0.drop);
    }

    #[test]
    fn golds_left_right_and_straight() {
        // Black golds on 6i, 5i and 4i can all reach 5h.
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/9/K2GGG3 b - 1").unwrap();
        let to = sq("5h");
        let w = |s: &str| parse_words(s).0;
        let from = |s: &str| match resolve(&p, Piece::Gold, to, w(s)).unwrap() {
            Move::BoardMove { from, .. } => origin_digits(from),
            _ => unreachable!(),
        };
        assert_eq!(from("左"), "69");
        assert_eq!(from("右"), "49");
        assert_eq!(from("直"), "59");
        let e = resolve(&p, Piece::Gold, to, w("")).unwrap_err();
        assert_eq!(
            e,
            "one 金 picked out by 右, 左, 直, 上, 引 or 寄: 3 金 (from 49, 59, 69) can move to ５八"
        );
        let e = resolve(&p, Piece::Gold, to, w("引")).unwrap_err();
        assert_eq!(
            e,
            "a 金 that the words pick out: none of the 3 金 from 49, 59, 69 moves so to ５八"
        );
        for (from, words) in [("6i", "左"), ("5i", "直"), ("4i", "右")] {
            let mv = p.parse_move(&format!("{from}5h")).unwrap();
            assert_eq!(relative_words(&p, mv), words);
        }
    }

    #[test]
    fn white_sees_left_and_right_from_its_own_side() {
        // White golds on 6a and 4a both reach 5b: White's right is file 9's side.
        let p = pos_after("7g7f 3c3d 8h2b+ 3a2b B*4e");
        let (w, _) = parse_words("右");
        let mv = resolve(&p, Piece::Gold, sq("5b"), w).unwrap();
        assert_eq!(mv.to_string(), "6a5b");
        assert_eq!(relative_words(&p, mv), "右");
        let other = p.parse_move("4a5b").unwrap();
        assert_eq!(relative_words(&p, other), "左");
    }

    #[test]
    fn motion_word_before_side_word_and_dragons() {
        // Gold on 5i (up) and 4h (sideways) both reach 5h: 上 and 寄 suffice.
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/5G3/K3G4 b - 1").unwrap();
        let up = p.parse_move("5i5h").unwrap();
        let side = p.parse_move("4h5h").unwrap();
        assert_eq!(relative_words(&p, up), "上");
        assert_eq!(relative_words(&p, side), "寄");
        // Dragons on 9e and 1e both reach 5e: left and right.
        let p = Position::from_sfen("4k4/9/9/9/+R7+R/9/9/9/4K4 b - 1").unwrap();
        assert_eq!(relative_words(&p, p.parse_move("9e5e").unwrap()), "左");
        assert_eq!(relative_words(&p, p.parse_move("1e5e").unwrap()), "右");
        // Dragons on 5f and 4f reach 5e: the straight one is 左, never 直.
        let p = Position::from_sfen("k8/9/9/9/9/4+R+R3/9/9/4K4 b - 1").unwrap();
        let straight = p.parse_move("5f5e").unwrap();
        assert_eq!(relative_words(&p, straight), "左");
        assert_eq!(relative_words(&p, p.parse_move("4f5e").unwrap()), "右");
        let (w, _) = parse_words("左");
        assert_eq!(resolve(&p, Piece::PRook, sq("5e"), w).unwrap(), straight);
    }

    #[test]
    fn drop_needs_da_only_when_a_board_piece_could_go() {
        let p = pos_after("7g7f 3c3d 8h2b+ 3a2b");
        let drop = p.parse_move("B*5e").unwrap();
        assert_eq!(move_text(&p, drop, None), "５五角");
        let p = Position::from_sfen("4k4/9/9/9/9/9/9/4G4/4K4 b G 1").unwrap();
        let drop = p.parse_move("G*5g").unwrap();
        assert_eq!(move_text(&p, drop, None), "５七金打");
        let (w, _) = parse_words("打");
        assert_eq!(resolve(&p, Piece::Gold, sq("5g"), w).unwrap(), drop);
        let board = resolve(&p, Piece::Gold, sq("5g"), Words::default()).unwrap();
        assert_eq!(board.to_string(), "5h5g");
    }

    #[test]
    fn promotion_words() {
        let p = pos_after("7g7f 3c3d");
        let mv = p.parse_move("8h2b+").unwrap();
        assert_eq!(move_text(&p, mv, None), "２二角成");
        let mv = p.parse_move("8h2b").unwrap();
        assert_eq!(move_text(&p, mv, None), "２二角不成");
        let e = resolve(&p, Piece::Bishop, sq("5e"), parse_words("成").0).unwrap_err();
        assert_eq!(e, "a legal move (the 角 from 88 cannot promote on ５五)");
        let p2 = pos_after("7g7f 3c3d 8h2b+ 3a2b");
        let mv = p2.parse_move("B*3c").unwrap();
        assert_eq!(move_text(&p2, mv, Some(sq("2b"))), "３三角");
        let cap = pos_after("7g7f 3c3d 8h2b+");
        let mv = cap.parse_move("3a2b").unwrap();
        assert_eq!(move_text(&cap, mv, Some(sq("2b"))), "同　銀");
    }
}
