//! [`Position`]: a shogi position with SFEN and USI move notation, legal moves and play.

use std::fmt;

use haitaka::{BitBoard, Board, Color, Move, Piece, PieceMoves, Square};

use super::{piece_effect, piece_value, SLIDERS};

/// Pieces that can be held in hand, in SFEN's hand order (R B G S N L P).
pub const HAND_PIECES: [Piece; 7] = [
    Piece::Rook,
    Piece::Bishop,
    Piece::Gold,
    Piece::Silver,
    Piece::Knight,
    Piece::Lance,
    Piece::Pawn,
];

/// What went wrong when building a position or playing a move.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PositionError {
    /// The SFEN text did not describe a valid position.
    #[error("invalid SFEN {sfen:?}: {reason}")]
    InvalidSfen {
        /// The text found.
        sfen: String,
        /// Why it was rejected.
        reason: String,
    },
    /// The text is not a USI move (`7g7f`, `8h2b+`, `G*5b`).
    #[error("invalid USI move {text:?}: expected a move like 7g7f, 8h2b+ or G*5b")]
    MoveSyntax {
        /// The text found.
        text: String,
    },
    /// The move is well-formed but not legal in the position.
    #[error("illegal move {mv} in position {sfen}")]
    IllegalMove {
        /// The move, in USI notation.
        mv: String,
        /// The position, in SFEN.
        sfen: String,
    },
}

/// A shogi position: board, hands, side to move and move number.
///
/// Wraps `haitaka::Board`; the wrapper adds the pawn-drop-mate check to move
/// legality (and the hand check on drops), the material balance kept up to
/// date move by move, and the conversions the rest of kifulearn needs.
/// Cloning is cheap (a few hundred bytes, no heap).
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    board: Board,
    /// Black's material minus White's at [`piece_value`] (board pieces at
    /// their own value, held pieces at their unpromoted value, kings not
    /// counted): counted once when the position is made, then moved by each
    /// move's capture and promotion, so that reading it costs nothing (a
    /// full count is 26 128-bit population counts, which was an eighth of
    /// labelling with the material evaluator). A function of the board, so
    /// equality and hashing are unchanged by it.
    material: i32,
}

impl Default for Position {
    fn default() -> Self {
        Self::startpos()
    }
}

impl Position {
    /// The standard start position (`lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1`).
    pub fn startpos() -> Self {
        Self::with_board(Board::startpos())
    }

    /// Parses an SFEN string (`board side hands move-number`; the move number may be omitted).
    ///
    /// Both kings must be present and the side not to move must not be in check.
    pub fn from_sfen(sfen: &str) -> Result<Self, PositionError> {
        let trimmed = sfen.trim();
        let fields: Vec<&str> = trimmed.split_whitespace().collect();
        let text = match fields.len() {
            3 => format!("{trimmed} 1"),
            4 => trimmed.to_string(),
            n => {
                return Err(PositionError::InvalidSfen {
                    sfen: sfen.to_string(),
                    reason: format!(
                        "expected 4 fields (board, side, hands, move number), found {n}"
                    ),
                })
            }
        };
        // haitaka rejects a move number of 0, which some tools write.
        let text = match text.rsplit_once(' ') {
            Some((head, "0")) => format!("{head} 1"),
            _ => text,
        };
        // haitaka's parser indexes its tables with counts from the text; guard the
        // shapes it does not check itself so that no input can make it panic.
        sanity_check_sfen(&text).map_err(|reason| PositionError::InvalidSfen {
            sfen: sfen.to_string(),
            reason,
        })?;
        let board = Board::from_sfen(&text).map_err(|e| PositionError::InvalidSfen {
            sfen: sfen.to_string(),
            reason: format!("{e:?}"),
        })?;
        if !board.has(Color::Black, Piece::King) || !board.has(Color::White, Piece::King) {
            return Err(PositionError::InvalidSfen {
                sfen: sfen.to_string(),
                reason: "both kings must be on the board".into(),
            });
        }
        Ok(Self::with_board(board))
    }

    fn with_board(board: Board) -> Self {
        let material = count_material(&board, Color::Black);
        Self { board, material }
    }

    /// Material of `color` minus material of its opponent, at [`piece_value`]
    /// (the [`crate::eval::Material`] evaluator's balance).
    #[inline(always)]
    pub fn material(&self, color: Color) -> i32 {
        match color {
            Color::Black => self.material,
            Color::White => -self.material,
        }
    }

    /// What `mv` (legal here) adds to the mover's material: the captured
    /// piece's value on the board plus its unpromoted value in hand, and a
    /// promotion's gain.
    #[inline(always)]
    pub fn material_gain(&self, mv: Move) -> i32 {
        let Move::BoardMove {
            from,
            to,
            promotion,
        } = mv
        else {
            return 0;
        };
        let board = &self.board;
        let mut gain = 0;
        if board.colors(!board.side_to_move()).has(to) {
            if let Some(victim) = board.piece_on(to) {
                gain += piece_value(victim) + piece_value(victim.unpromote());
            }
        }
        if promotion {
            if let Some(piece) = board.piece_on(from) {
                gain += piece_value(piece.promote()) - piece_value(piece);
            }
        }
        gain
    }

    /// Plays `mv` on the board and moves the material balance with it.
    #[inline(always)]
    fn play_on_board(&mut self, mv: Move) {
        let gain = self.material_gain(mv);
        self.material += match self.board.side_to_move() {
            Color::Black => gain,
            Color::White => -gain,
        };
        self.board.play_unchecked(mv);
        debug_assert_eq!(
            self.material,
            count_material(&self.board, Color::Black),
            "material after {mv}"
        );
    }

    /// The position as SFEN, with the move number.
    pub fn to_sfen(&self) -> String {
        self.board.to_string()
    }

    /// The underlying `haitaka` board (for bitboard access on hot paths).
    #[inline(always)]
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The side to move.
    #[inline(always)]
    pub fn side_to_move(&self) -> Color {
        self.board.side_to_move()
    }

    /// The move number of the SFEN (1 for the start position).
    pub fn move_number(&self) -> u16 {
        self.board.move_number()
    }

    /// The piece and its owner on `square`, if any.
    #[inline(always)]
    pub fn piece_on(&self, square: Square) -> Option<(Color, Piece)> {
        let piece = self.board.piece_on(square)?;
        let color = self.board.color_on(square)?;
        Some((color, piece))
    }

    /// How many `piece` (unpromoted kind) `color` holds in hand.
    #[inline(always)]
    pub fn hand_count(&self, color: Color, piece: Piece) -> u8 {
        self.board.num_in_hand(color, piece)
    }

    /// Is the side to move in check?
    #[inline(always)]
    pub fn in_check(&self) -> bool {
        !self.board.checkers().is_empty()
    }

    /// The opponent pieces giving check to the side to move.
    pub fn checkers(&self) -> haitaka::BitBoard {
        self.board.checkers()
    }

    /// The square of `color`'s king.
    #[inline(always)]
    pub fn king(&self, color: Color) -> Square {
        self.board.king(color)
    }

    /// Zobrist hash of board, hands and side to move (not the move number).
    #[inline(always)]
    pub fn hash(&self) -> u64 {
        self.board.hash()
    }

    /// Same board, hands and side to move (the move number is ignored): the test for repetition.
    pub fn same_position(&self, other: &Position) -> bool {
        self.board.same_position(&other.board)
    }

    /// Is `mv` legal here, including the hand, promotion, double pawns and pawn-drop mate?
    pub fn is_legal(&self, mv: Move) -> bool {
        match mv {
            // haitaka's `is_legal_drop` does not look at the hand.
            Move::Drop { piece, .. } => {
                if piece == Piece::King || self.board.num_in_hand(self.side_to_move(), piece) == 0 {
                    return false;
                }
            }
            // haitaka's `is_legal_board_move` lets an already promoted piece "promote" again.
            Move::BoardMove {
                from,
                promotion: true,
                ..
            } => {
                if !self.board.piece_on(from).is_some_and(Piece::is_promotable) {
                    return false;
                }
            }
            Move::BoardMove { .. } => {}
        }
        if !self.board.is_legal(mv) {
            return false;
        }
        !self.is_pawn_drop_mate(mv)
    }

    /// A pawn drop that checkmates is illegal (打ち歩詰め). `haitaka`'s `is_legal`
    /// does not check it and its generator misses some cases, so we check it here.
    fn is_pawn_drop_mate(&self, mv: Move) -> bool {
        let Move::Drop {
            piece: Piece::Pawn,
            to,
        } = mv
        else {
            return false;
        };
        let us = self.side_to_move();
        let Some(front) = to.try_offset(0, if us == Color::Black { -1 } else { 1 }) else {
            return false;
        };
        if self.board.colored_pieces(!us, Piece::King).has(front) {
            let mut next = self.board.clone();
            next.play_unchecked(mv);
            return !next.generate_moves(|_| true);
        }
        false
    }

    /// Plays `mv` if it is legal; otherwise leaves the position unchanged and says why.
    pub fn play(&mut self, mv: Move) -> Result<(), PositionError> {
        if !self.is_legal(mv) {
            return Err(PositionError::IllegalMove {
                mv: mv.to_string(),
                sfen: self.to_sfen(),
            });
        }
        self.play_on_board(mv);
        Ok(())
    }

    /// Plays a move known to be legal (one from [`Position::for_each_legal_move`]).
    #[inline(always)]
    pub fn play_unchecked(&mut self, mv: Move) {
        self.play_on_board(mv);
    }

    /// The same position with the other side to move (a "null move", for
    /// the engine's null-move pruning); `None` when the side to move is in
    /// check, where passing would leave its king en prise.
    ///
    /// haitaka 0.3.2's `Board::null_move` sets the pins of the side that
    /// passed (its own pieces between its king and its own sliders) instead
    /// of those of the side now to move, whose move generation then lets a
    /// pinned piece leave the line: the search played illegal moves below a
    /// null move and captured a king (a panic with a `kp` model). Its move
    /// generation reads the pins only on the pieces of the side to move, so
    /// the board is kept as it is when those agree with the true pins
    /// (`pinned_pieces`), and otherwise rebuilt from its SFEN, which
    /// computes the pins afresh. (It was rebuilt whenever either set was not
    /// empty, which took 15% of the playing search's time in `perf`:
    /// `docs/search.md`.)
    #[inline]
    pub fn null_move(&self) -> Option<Position> {
        let mut board = self.board.null_move()?;
        let ours = board.colors(board.side_to_move());
        if board.pinned() & ours != pinned_pieces(&board) {
            board = Board::from_sfen(&board.to_string()).ok()?;
        }
        Some(Self {
            board,
            material: self.material,
        })
    }

    /// Parses a USI move and checks that it is legal here.
    pub fn parse_move(&self, text: &str) -> Result<Move, PositionError> {
        let mv = parse_usi_move(text)?;
        if self.is_legal(mv) {
            Ok(mv)
        } else {
            Err(PositionError::IllegalMove {
                mv: text.to_string(),
                sfen: self.to_sfen(),
            })
        }
    }

    /// Parses a USI move, checks it and plays it.
    pub fn play_usi(&mut self, text: &str) -> Result<Move, PositionError> {
        let mv = self.parse_move(text)?;
        self.play_on_board(mv);
        Ok(mv)
    }

    /// Calls `f` with every legal move (board moves and drops), without allocating.
    #[inline]
    pub fn for_each_legal_move(&self, mut f: impl FnMut(Move)) {
        self.for_each_move_set(|moves| {
            for mv in moves {
                f(mv);
            }
        });
    }

    /// Calls `f` with the legal moves grouped as `haitaka` generates them (one
    /// piece's board moves, or one kind's drops, as a bitboard of targets):
    /// the fastest way to pick out captures or count moves.
    #[inline]
    pub fn for_each_move_set(&self, mut f: impl FnMut(PieceMoves)) {
        let mate_drop = self.pawn_drop_mate_square();
        self.board.generate_moves(|moves| {
            match (mate_drop, moves) {
                (
                    Some(square),
                    PieceMoves::Drops {
                        color,
                        piece: Piece::Pawn,
                        to,
                    },
                ) => f(PieceMoves::Drops {
                    color,
                    piece: Piece::Pawn,
                    to: to.rm(square),
                }),
                _ => f(moves),
            }
            false
        });
    }

    /// The legal board-move sets (as [`Position::for_each_move_set`] gives
    /// them, without the drops) of just the pieces that attack an enemy piece:
    /// every capture is in them, in the same order, and neither drops nor the
    /// pieces that can capture nothing are generated.
    pub fn for_each_capture_set(&self, mut f: impl FnMut(PieceMoves)) {
        let board = &self.board;
        let us = self.side_to_move();
        let own = board.colors(us);
        let theirs = board.colors(!us);
        let occupied = board.occupied();
        // Step pieces, all of a kind at once: a piece on `s` whose step `v`
        // reaches an enemy piece stands on the enemy set moved back by `v`.
        // `v` is (files west, ranks south) from Black's side; White's steps
        // point the other way along the file.
        let forward = if us == Color::Black { 1 } else { -1 };
        let back = |west: i32, south: i32| {
            theirs
                .shift_along_file(-south * forward)
                .shift_along_rank(-west)
        };
        let (n, ne, nw) = (back(0, -1), back(-1, -1), back(1, -1));
        let (e, w, s, se, sw) = (back(-1, 0), back(1, 0), back(0, 1), back(-1, 1), back(1, 1));
        let gold = n | ne | nw | e | w | s;
        let golds = board.pieces(Piece::Gold)
            | board.pieces(Piece::Tokin)
            | board.pieces(Piece::PLance)
            | board.pieces(Piece::PKnight)
            | board.pieces(Piece::PSilver);
        let mut attackers = own
            & ((board.pieces(Piece::Pawn) & n)
                | (board.pieces(Piece::Knight) & (back(-1, -2) | back(1, -2)))
                | (board.pieces(Piece::Silver) & (n | ne | nw | se | sw))
                | (golds & gold));
        // The king apart: `haitaka` would test its safety on every square
        // it can step to, and only the captures are wanted.
        let king_captures = !(own & board.pieces(Piece::King) & (gold | se | sw)).is_empty();
        // Sliders one by one.
        for piece in SLIDERS {
            for square in board.pieces(piece) & own {
                if !(piece_effect(us, piece, square, occupied) & theirs).is_empty() {
                    attackers |= square.bitboard();
                }
            }
        }
        if !attackers.is_empty() {
            board.generate_board_moves_for(attackers, |moves| {
                f(moves);
                false
            });
        }
        // Last, as in `haitaka`'s order.
        if king_captures {
            let from = board.king(us);
            let mut to = haitaka::king_attacks(us, from) & theirs;
            for square in to {
                if !self.king_safe_on(square) {
                    to ^= square.bitboard();
                }
            }
            if !to.is_empty() {
                f(PieceMoves::BoardMoves {
                    color: us,
                    piece: Piece::King,
                    from,
                    to,
                    prom_status: haitaka::PromotionStatus::CannotPromote,
                });
            }
        }
    }

    /// Can the side to move's king step to `square` without being attacked
    /// there? `haitaka`'s own test (private to its generator), the king
    /// taken off its square first so that it blocks no slider.
    pub(super) fn king_safe_on(&self, square: Square) -> bool {
        let board = &self.board;
        let us = self.side_to_move();
        let theirs = board.colors(!us);
        let kings = board.pieces(Piece::King);
        let blockers =
            (board.occupied() ^ board.colored_pieces(us, Piece::King)) | square.bitboard();
        if !(haitaka::gold_attacks(us, square) & theirs & (board.pseudo_golds() | kings)).is_empty()
            || !(haitaka::silver_attacks(us, square) & theirs & (board.pseudo_silvers() | kings))
                .is_empty()
            || !(haitaka::knight_attacks(us, square) & theirs & board.pieces(Piece::Knight))
                .is_empty()
            || !(haitaka::pawn_attacks(us, square) & theirs & board.pieces(Piece::Pawn)).is_empty()
        {
            return false;
        }
        let diagonal = haitaka::bishop_pseudo_attacks(square)
            & (board.pieces(Piece::Bishop) | board.pieces(Piece::PBishop))
            & theirs;
        if !diagonal.is_empty()
            && !(diagonal & haitaka::get_bishop_moves(us, square, blockers)).is_empty()
        {
            return false;
        }
        let straight = haitaka::rook_pseudo_attacks(square)
            & (board.pieces(Piece::Rook) | board.pieces(Piece::PRook))
            & theirs;
        if !straight.is_empty()
            && !(straight & haitaka::get_rook_moves(us, square, blockers)).is_empty()
        {
            return false;
        }
        let lances =
            haitaka::lance_pseudo_attacks(us, square) & board.pieces(Piece::Lance) & theirs;
        lances.is_empty() || (lances & haitaka::get_lance_moves(us, square, blockers)).is_empty()
    }

    /// The square where a pawn drop would be an illegal mate, if there is one.
    ///
    /// `haitaka`'s generator is meant to leave such drops out but does not
    /// always (a test below has a real position where it yields one), so every
    /// move list from this type is filtered here. Only the square in front of
    /// the enemy king can hold a mating pawn drop, so this costs one lookup in
    /// almost every position.
    fn pawn_drop_mate_square(&self) -> Option<Square> {
        let us = self.side_to_move();
        if self.hand_count(us, Piece::Pawn) == 0 {
            return None;
        }
        let king = self.board.colored_pieces(!us, Piece::King).next_square()?;
        let front = king.try_offset(0, if us == Color::Black { 1 } else { -1 })?;
        let mv = Move::Drop {
            piece: Piece::Pawn,
            to: front,
        };
        (self.board.is_legal(mv) && self.is_pawn_drop_mate(mv)).then_some(front)
    }

    /// Appends every legal move to `out` (cleared first): reuse one buffer on hot paths.
    pub fn legal_moves_into(&self, out: &mut Vec<Move>) {
        out.clear();
        self.for_each_legal_move(|mv| out.push(mv));
    }

    /// Every legal move, in `haitaka`'s generation order.
    pub fn legal_moves(&self) -> Vec<Move> {
        let mut out = Vec::with_capacity(128);
        self.legal_moves_into(&mut out);
        out
    }

    /// Number of legal moves, counted in bulk.
    #[inline]
    pub fn count_legal_moves(&self) -> usize {
        let mut n = 0;
        self.for_each_move_set(|moves| n += moves.into_iter().len());
        n
    }

    /// Does the side to move have any legal move? (No legal move loses in shogi.)
    ///
    /// The same answer as `count_legal_moves() > 0`: `haitaka`'s generator can
    /// yield an illegal pawn-drop mate (in check it does not test for one at
    /// all, out of check it tests only one square), so the drop set is
    /// filtered as in [`Position::for_each_move_set`]. The search's mate tests
    /// rest on this.
    pub fn has_legal_move(&self) -> bool {
        let mut mate_drop = None;
        let mut looked = false;
        self.board.generate_moves(|moves| match moves {
            PieceMoves::Drops {
                piece: Piece::Pawn,
                to,
                ..
            } => {
                if !looked {
                    mate_drop = self.pawn_drop_mate_square();
                    looked = true;
                }
                match mate_drop {
                    Some(square) => !to.rm(square).is_empty(),
                    None => !to.is_empty(),
                }
            }
            _ => true,
        })
    }

    /// Is the side to move checkmated?
    pub fn is_checkmate(&self) -> bool {
        self.in_check() && !self.has_legal_move()
    }

    /// The piece `mv` would capture, if any.
    #[inline(always)]
    pub fn captured_by(&self, mv: Move) -> Option<Piece> {
        match mv {
            Move::BoardMove { to, .. } => self.board.piece_on(to),
            Move::Drop { .. } => None,
        }
    }

    /// Does `mv`, a legal move here, give check? Either the moved (or dropped)
    /// piece attacks the enemy king from its new square, or leaving its old
    /// square opens a line of one of the mover's rooks, bishops or lances (or
    /// their promoted forms) to the king. The same answer as playing the move
    /// and asking [`Position::in_check`], without playing it.
    pub fn gives_check(&self, mv: Move) -> bool {
        let us = self.side_to_move();
        let them = !us;
        let king = self.board.king(them);
        let occupied = self.board.occupied();
        match mv {
            Move::Drop { piece, to } => piece_effect(us, piece, to, occupied).has(king),
            Move::BoardMove { from, to, .. } => {
                let Some(piece) = self.piece_after(mv) else {
                    return false;
                };
                let after = (occupied & !from.bitboard()) | to.bitboard();
                if piece_effect(us, piece, to, after).has(king) {
                    return true;
                }
                // Discovered: a slider of ours (not the moved piece) now sees the king.
                let ours = self.board.colors(us) & !from.bitboard();
                let b = &self.board;
                let rooks = (b.pieces(Piece::Rook) | b.pieces(Piece::PRook)) & ours;
                let bishops = (b.pieces(Piece::Bishop) | b.pieces(Piece::PBishop)) & ours;
                let lances = b.pieces(Piece::Lance) & ours;
                // Line moves are symmetric, so the king's own rays find the sliders;
                // a lance of ours is met along the ray a lance of theirs would run.
                !(haitaka::get_rook_moves(them, king, after) & rooks).is_empty()
                    || !(haitaka::get_bishop_moves(them, king, after) & bishops).is_empty()
                    || !(haitaka::get_lance_moves(them, king, after) & lances).is_empty()
            }
        }
    }

    /// Squares that bound which moves can give check here, for
    /// [`Position::gives_check_near`]: computed once per position, they let
    /// most moves of a position be cleared with two bit tests.
    pub fn check_zone(&self) -> CheckZone {
        let them = !self.side_to_move();
        let king = self.board.king(them);
        let occupied = self.board.occupied();
        CheckZone {
            lines: haitaka::get_rook_moves(them, king, occupied)
                | haitaka::get_bishop_moves(them, king, occupied),
            near: haitaka::king_attacks(them, king) | haitaka::knight_attacks(them, king),
        }
    }

    /// [`Position::gives_check`], first cleared against `zone` (from
    /// [`Position::check_zone`] of this position): a move that leaves no square
    /// the enemy king sees along a line, and lands neither on such a square nor
    /// a step or a knight's jump from the king, gives no check.
    #[inline]
    pub fn gives_check_near(&self, zone: &CheckZone, mv: Move) -> bool {
        let (from, to) = match mv {
            Move::Drop { to, .. } => (None, to),
            Move::BoardMove { from, to, .. } => (Some(from), to),
        };
        let possible = (zone.lines | zone.near).has(to) || from.is_some_and(|f| zone.lines.has(f));
        possible && self.gives_check(mv)
    }

    /// The piece that makes `mv` (before promotion); `None` if the origin is empty.
    #[inline(always)]
    pub fn moving_piece(&self, mv: Move) -> Option<Piece> {
        match mv {
            Move::BoardMove { from, .. } => self.board.piece_on(from),
            Move::Drop { piece, .. } => Some(piece),
        }
    }

    /// The piece `mv` leaves on its destination: the moving piece, promoted
    /// if the move promotes; `None` if the origin is empty.
    #[inline(always)]
    pub fn piece_after(&self, mv: Move) -> Option<Piece> {
        let piece = self.moving_piece(mv)?;
        Some(if mv.is_promotion() {
            piece.promote()
        } else {
            piece
        })
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.board)
    }
}

/// Where checks can come from in one position: see [`Position::check_zone`].
///
/// `lines` are the squares the enemy king sees along ranks, files and
/// diagonals (up to and including the first piece each way): a slider checks
/// only from one of them, and a discovered check needs the moving piece to
/// leave one. `near` are the king's step and knight-jump squares, the only
/// squares a stepping piece checks from. (A slider's direct check through the
/// square it left would need that square on a line too.)
#[derive(Clone, Copy, Debug)]
pub struct CheckZone {
    lines: haitaka::BitBoard,
    near: haitaka::BitBoard,
}

/// Material of `color` minus its opponent's on `board`, counted piece by piece
/// ([`Position::material`] keeps it up to date after that).
fn count_material(board: &Board, color: Color) -> i32 {
    let mut v = 0;
    for piece in Piece::ALL {
        if piece == Piece::King {
            continue;
        }
        let bb = board.pieces(piece);
        let own = (bb & board.colors(color)).len() as i32;
        let theirs = (bb & board.colors(!color)).len() as i32;
        v += piece_value(piece) * (own - theirs);
    }
    for piece in HAND_PIECES {
        let own = board.num_in_hand(color, piece) as i32;
        let theirs = board.num_in_hand(!color, piece) as i32;
        v += piece_value(piece) * (own - theirs);
    }
    v
}

/// Parses USI move text (`7g7f`, `8h2b+`, `G*5b`) without looking at a position.
pub fn parse_usi_move(text: &str) -> Result<Move, PositionError> {
    let bad = || PositionError::MoveSyntax {
        text: text.to_string(),
    };
    let b = text.as_bytes();
    let square = |f: u8, r: u8| -> Option<Square> {
        if (b'1'..=b'9').contains(&f) && (b'a'..=b'i').contains(&r) {
            Some(Square::index((f - b'1') as usize * 9 + (r - b'a') as usize))
        } else {
            None
        }
    };
    match b {
        [p, b'*', f, r] => {
            let piece = match p {
                b'P' => Piece::Pawn,
                b'L' => Piece::Lance,
                b'N' => Piece::Knight,
                b'S' => Piece::Silver,
                b'G' => Piece::Gold,
                b'B' => Piece::Bishop,
                b'R' => Piece::Rook,
                _ => return Err(bad()),
            };
            Ok(Move::Drop {
                piece,
                to: square(*f, *r).ok_or_else(bad)?,
            })
        }
        [f1, r1, f2, r2, rest @ ..] => {
            let promotion = match rest {
                [] => false,
                [b'+'] => true,
                _ => return Err(bad()),
            };
            let from = square(*f1, *r1).ok_or_else(bad)?;
            let to = square(*f2, *r2).ok_or_else(bad)?;
            if from == to {
                return Err(bad());
            }
            Ok(Move::BoardMove {
                from,
                to,
                promotion,
            })
        }
        _ => Err(bad()),
    }
}

/// Builds an SFEN string from a piece placement (indexed by square index, see
/// [`crate::shogi::square_index`]), hands (counts in [`HAND_PIECES`] order per colour,
/// Black first), side to move and move number. Used by readers that describe
/// boards in their own notation (CSA `P1`–`P9`, KIF diagrams).
pub fn sfen_from_parts(
    squares: &[Option<(Color, Piece)>; 81],
    hands: &[[u8; 7]; 2],
    side: Color,
    move_number: u32,
) -> String {
    let mut s = String::with_capacity(96);
    for rank in 0..9 {
        let mut empty = 0;
        for file in (0..9).rev() {
            match squares[file * 9 + rank] {
                None => empty += 1,
                Some((color, piece)) => {
                    if empty > 0 {
                        s.push_str(&empty.to_string());
                        empty = 0;
                    }
                    s.push_str(&piece.to_str(color));
                }
            }
        }
        if empty > 0 {
            s.push_str(&empty.to_string());
        }
        if rank < 8 {
            s.push('/');
        }
    }
    s.push_str(if side == Color::Black { " b " } else { " w " });
    let mut any = false;
    for (ci, color) in [Color::Black, Color::White].into_iter().enumerate() {
        for (i, piece) in HAND_PIECES.into_iter().enumerate() {
            let n = hands[ci][i];
            if n == 0 {
                continue;
            }
            any = true;
            if n > 1 {
                s.push_str(&n.to_string());
            }
            s.push_str(&piece.to_str(color));
        }
    }
    if !any {
        s.push('-');
    }
    s.push_str(&format!(" {}", move_number.max(1)));
    s
}

/// Rejects SFEN shapes that `haitaka`'s parser does not check and could panic on:
/// wrong rank or file counts, absurd hand counts, stray characters.
fn sanity_check_sfen(text: &str) -> Result<(), String> {
    let fields: Vec<&str> = text.split(' ').collect();
    let [board, side, hands, number] = fields[..] else {
        return Err(
            "expected board, side, hands and move number separated by single spaces".into(),
        );
    };
    let ranks: Vec<&str> = board.split('/').collect();
    if ranks.len() != 9 {
        return Err(format!(
            "expected 9 ranks separated by '/', found {}",
            ranks.len()
        ));
    }
    for (i, rank) in ranks.iter().enumerate() {
        let mut files = 0usize;
        let mut promoted = false;
        for c in rank.chars() {
            match c {
                '1'..='9' if !promoted => files += c as usize - '0' as usize,
                '+' if !promoted => promoted = true,
                'p' | 'l' | 'n' | 's' | 'b' | 'r' | 'P' | 'L' | 'N' | 'S' | 'B' | 'R' => {
                    files += 1;
                    promoted = false;
                }
                'g' | 'k' | 'G' | 'K' if !promoted => files += 1,
                _ => return Err(format!("unexpected {c:?} in rank {}", i + 1)),
            }
        }
        if files != 9 || promoted {
            return Err(format!("rank {} has {files} files, expected 9", i + 1));
        }
    }
    if side != "b" && side != "w" {
        return Err(format!("side to move {side:?}, expected b or w"));
    }
    if hands != "-" {
        let mut count = String::new();
        for c in hands.chars() {
            match c {
                '0'..='9' => count.push(c),
                'p' | 'l' | 'n' | 's' | 'g' | 'b' | 'r' | 'P' | 'L' | 'N' | 'S' | 'G' | 'B'
                | 'R' => {
                    if !count.is_empty() && count.parse::<u32>().map_or(true, |n| n > 18) {
                        return Err(format!("hand count {count} is more than 18"));
                    }
                    count.clear();
                }
                _ => return Err(format!("unexpected {c:?} in hands")),
            }
        }
        if !count.is_empty() {
            return Err("hand count without a piece".into());
        }
    }
    match number.parse::<u32>() {
        Ok(n) if n <= u16::MAX as u32 => Ok(()),
        _ => Err(format!(
            "move number {number:?} is not a number up to 65535"
        )),
    }
}

/// The pieces of the side to move that stand alone between its king and an
/// enemy slider's line to it.
fn pinned_pieces(board: &Board) -> BitBoard {
    use haitaka::{
        bishop_pseudo_attacks, get_between_rays, lance_pseudo_attacks, rook_pseudo_attacks,
    };
    let us = board.side_to_move();
    let king = board.king(us);
    let bishops = board.pieces(Piece::Bishop) | board.pieces(Piece::PBishop);
    let rooks = board.pieces(Piece::Rook) | board.pieces(Piece::PRook);
    let lances = board.pieces(Piece::Lance);
    let sliders = board.colors(!us)
        & ((bishop_pseudo_attacks(king) & bishops)
            | (rook_pseudo_attacks(king) & rooks)
            | (lance_pseudo_attacks(us, king) & lances));
    let occupied = board.occupied();
    let mut pinned = BitBoard::EMPTY;
    for s in sliders {
        let between = get_between_rays(s, king) & occupied;
        if between.len() == 1 {
            pinned |= between;
        }
    }
    pinned & board.colors(us)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A way of listing a position's move sets.
    type MoveSets<'a> = &'a dyn Fn(&mut dyn FnMut(PieceMoves));

    #[test]
    fn capture_sets_hold_every_capture_in_generation_order() {
        let captures = |pos: &Position, sets: MoveSets| {
            let theirs = pos.board().colors(!pos.side_to_move());
            let mut out = Vec::new();
            sets(&mut |moves| out.extend(moves.into_iter().filter(|m| theirs.has(m.to()))));
            out
        };
        let mut positions = crate::features::tests::floodgate_positions(300);
        positions.extend(crate::testdata::tournament_positions(true));
        let (mut total, mut in_check, mut by_king, mut king_kept_off) = (0, 0, 0, 0);
        for pos in &positions {
            let all = captures(pos, &|f| pos.for_each_move_set(f));
            let only = captures(pos, &|f| pos.for_each_capture_set(f));
            assert_eq!(all, only, "{}", pos.to_sfen());
            total += all.len();
            in_check += usize::from(pos.in_check() && !all.is_empty());
            let us = pos.side_to_move();
            let king = pos.king(us);
            let near = haitaka::king_attacks(us, king) & pos.board().colors(!us);
            let taken = all.iter().filter(|m| m.from() == Some(king)).count();
            by_king += taken;
            king_kept_off += near.len() as usize - taken;
        }
        // The king's captures (generated apart, `king_safe_on`) are covered:
        // legal ones, and pieces next to the king it may not take.
        assert!(total > 100_000, "{total} captures");
        assert!(
            in_check > 500,
            "{in_check} positions in check with a capture"
        );
        assert!(by_king > 1_000, "{by_king} captures by the king");
        assert!(
            king_kept_off > 500,
            "{king_kept_off} pieces next to a king it may not take"
        );
    }

    #[test]
    fn material_kept_move_by_move_agrees_with_counting_the_pieces() {
        // Every legal move of the positions of 300 floodgate lines: captures
        // of promoted pieces (the hand gets the unpromoted piece), promotions,
        // drops.
        let positions = crate::features::tests::floodgate_positions(300);
        let (mut moves, mut captures, mut promoted_captured, mut promotions) = (0, 0, 0, 0);
        for pos in &positions {
            assert_eq!(
                pos.material(Color::Black),
                count_material(pos.board(), Color::Black)
            );
            pos.for_each_legal_move(|mv| {
                let mut child = pos.clone();
                child.play_unchecked(mv);
                for color in [Color::Black, Color::White] {
                    assert_eq!(
                        child.material(color),
                        count_material(child.board(), color),
                        "{mv} in {}",
                        pos.to_sfen()
                    );
                }
                let mut played = pos.clone();
                played.play(mv).unwrap();
                assert_eq!(played.material(Color::Black), child.material(Color::Black));
                moves += 1;
                captures += usize::from(pos.captured_by(mv).is_some());
                promoted_captured +=
                    usize::from(pos.captured_by(mv).is_some_and(|p| p.is_promoted()));
                promotions += usize::from(mv.is_promotion());
            });
        }
        assert!(
            moves > 200_000 && captures > 5_000 && promoted_captured > 100 && promotions > 3_000,
            "{moves} moves, {captures} captures ({promoted_captured} of promoted pieces), {promotions} promotions"
        );
    }

    #[test]
    fn gives_check_agrees_with_playing_the_move() {
        let mut positions = crate::features::tests::floodgate_positions(300);
        // Discovered checks by rook, bishop and lance behind a piece that steps aside,
        // direct checks by drops, promotions and a promoted bishop's king step.
        for sfen in [
            "4k4/9/9/9/4N4/9/9/4R4/4K4 b GSLb 1",
            "k8/9/2S6/9/9/9/6B2/9/K8 b N 1",
            "4k4/4g4/4P4/9/9/9/9/4L4/K8 b - 1",
            "3k5/9/2P6/1B7/9/9/9/9/K8 b R 1",
            "4k4/9/3S5/9/9/9/9/9/K8 b - 1",
        ] {
            positions.push(Position::from_sfen(sfen).unwrap());
        }
        let (mut checks, mut moves) = (0, 0);
        for pos in &positions {
            for mv in pos.legal_moves() {
                let mut after = pos.clone();
                after.play_unchecked(mv);
                assert_eq!(
                    pos.gives_check(mv),
                    after.in_check(),
                    "{mv} in {}",
                    pos.to_sfen()
                );
                let zone = pos.check_zone();
                assert_eq!(
                    pos.gives_check_near(&zone, mv),
                    after.in_check(),
                    "{mv} in {}",
                    pos.to_sfen()
                );
                checks += usize::from(after.in_check());
                moves += 1;
            }
        }
        assert!(
            checks > 100 && moves > 100_000,
            "{checks} checks in {moves} moves"
        );
    }

    #[test]
    fn sfen_round_trips() {
        for sfen in [
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1",
            "l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1",
            "R8/2K1S1SSk/4B4/9/9/9/9/9/1L1L1L3 b RBGSNLP3g3n17p 1",
        ] {
            assert_eq!(Position::from_sfen(sfen).unwrap().to_sfen(), sfen);
        }
    }

    #[test]
    fn sfen_errors_say_why() {
        let err = Position::from_sfen("lnsgkgsnl/9 b - 1").unwrap_err();
        assert_eq!(
            err.to_string(),
            "invalid SFEN \"lnsgkgsnl/9 b - 1\": expected 9 ranks separated by '/', found 2"
        );
        assert!(Position::from_sfen("9/9/9/9/4k4/9/9/9/9 b - 1").is_err());
        assert!(Position::from_sfen("").is_err());
        assert!(Position::from_sfen(
            "lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b 99P 1"
        )
        .is_err());
    }

    #[test]
    fn usi_moves_parse_and_print() {
        let mut pos = Position::startpos();
        for mv in ["7g7f", "3c3d", "8h2b+", "3a2b"] {
            let played = pos.play_usi(mv).unwrap();
            assert_eq!(played.to_string(), mv);
        }
        let drop = pos.parse_move("B*5e").unwrap();
        assert_eq!(drop.to_string(), "B*5e");
        assert!(matches!(
            pos.parse_move("G*5e"),
            Err(PositionError::IllegalMove { .. })
        ));
        assert!(matches!(
            pos.parse_move("7g7"),
            Err(PositionError::MoveSyntax { .. })
        ));
        assert!(matches!(
            pos.parse_move("K*5e"),
            Err(PositionError::MoveSyntax { .. })
        ));
    }

    #[test]
    fn illegal_move_leaves_position_unchanged() {
        let mut pos = Position::startpos();
        let before = pos.clone();
        let err = pos.play_usi("7g7e").unwrap_err();
        assert_eq!(
            err.to_string(),
            "illegal move 7g7e in position lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1"
        );
        assert_eq!(pos, before);
    }

    #[test]
    fn pawn_drop_mate_is_illegal_but_pawn_drop_check_is_not() {
        let pos = Position::from_sfen("7nk/9/7G1/9/9/9/9/9/4K4 b P 1").unwrap();
        // 1a king with its knight on 2a: 2b covered by gold (2c), 1b pawn protected by gold.
        let mate = parse_usi_move("P*1b").unwrap();
        assert!(!pos.legal_moves().contains(&mate));
        assert!(!pos.is_legal(mate));
        let mut p2 = pos.clone();
        assert!(p2.play(mate).is_err());
        // The same drop without the gold is a plain check: legal.
        let pos = Position::from_sfen("7nk/9/9/9/9/9/9/9/4K4 b P 1").unwrap();
        assert!(pos.is_legal(mate));
    }

    #[test]
    fn generated_moves_leave_out_a_pawn_drop_mate_haitaka_lets_through() {
        // A real position (from a match against Fairy-Stockfish) where haitaka's
        // generator yields the mating drop P*7f.
        let pos = Position::from_sfen(
            "p3pp1p1/1+S1p2k1l/2+L5n/1p1g2g1p/P1s5s/6p1g/LPK2+p+p+b+n/7+rg/1+b1L3+pr w Nsn5p 230",
        )
        .unwrap();
        let mate = parse_usi_move("P*7f").unwrap();
        assert!(!pos.is_legal(mate));
        assert!(!pos.legal_moves().contains(&mate));
        assert_eq!(pos.count_legal_moves(), pos.legal_moves().len());
        let mut raw = 0;
        pos.board().generate_moves(|m| {
            raw += m.into_iter().len();
            false
        });
        assert_eq!(
            raw,
            pos.count_legal_moves() + 1,
            "haitaka still yields the drop"
        );
    }

    /// `has_legal_move` answers as the filtered move list does: on real
    /// positions (in check or not), on the position where haitaka yields an
    /// illegal pawn-drop mate, and on mates.
    #[test]
    fn has_legal_move_agrees_with_the_filtered_move_list() {
        // Every position of the bundled tournament games (played to the end:
        // checks and mates among them).
        let mut positions = crate::testdata::tournament_positions(false);
        positions.push(
            Position::from_sfen(
                "p3pp1p1/1+S1p2k1l/2+L5n/1p1g2g1p/P1s5s/6p1g/LPK2+p+p+b+n/7+rg/1+b1L3+pr w Nsn5p 230",
            )
            .unwrap(),
        );
        // Mated (head gold, protected), with and without a pawn in hand.
        positions.push(Position::from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w - 1").unwrap());
        positions.push(Position::from_sfen("4k4/4G4/4P4/9/9/9/9/9/4K4 w p 1").unwrap());
        let mut in_check = 0;
        for pos in &positions {
            assert_eq!(
                pos.has_legal_move(),
                pos.count_legal_moves() > 0,
                "{}",
                pos.to_sfen()
            );
            in_check += usize::from(pos.in_check());
        }
        assert!(in_check > 10, "only {in_check} positions in check");
        let n = positions.len();
        assert!(positions[n - 2].is_checkmate() && positions[n - 1].is_checkmate());
    }

    #[test]
    fn sfen_from_parts_builds_startpos() {
        let start = Position::startpos();
        let mut squares = [None; 81];
        for sq in Square::ALL {
            squares[sq as usize] = start.piece_on(sq);
        }
        let sfen = sfen_from_parts(&squares, &[[0; 7]; 2], Color::Black, 1);
        assert_eq!(sfen, start.to_sfen());
        let mut hands = [[0; 7]; 2];
        hands[1][6] = 3;
        hands[0][0] = 1;
        let sfen = sfen_from_parts(&squares, &hands, Color::White, 2);
        assert!(sfen.ends_with(" w R3p 2"), "{sfen}");
    }
}
