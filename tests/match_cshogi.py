#!/usr/bin/env python3
"""Check a `kifulearn match --out DIR` directory with cshogi as the referee.

Usage: match_cshogi.py DIR MAX_PLIES

For every row of DIR/results.csv: parse DIR/games/NNNN.csa with
cshogi.CSA.Parser, replay every move checking board.is_legal(move), check that
the game could not have ended earlier (no earlier four-fold repetition, no
earlier position where the side to move could declare), then judge the final
position with cshogi and compare with the ending and the result recorded in
the CSA file (Parser.win) and in results.csv (from A's view):

  checkmate        no legal move (is_game_over), %TORYO, side to move lost
  sennichite       4th occurrence, is_draw() == REPETITION_DRAW, %SENNICHITE, draw
  oute_sennichite  4th occurrence, is_draw() REPETITION_WIN/LOSE, %+/-ILLEGAL_ACTION
  kachi            is_nyugyoku(), %KACHI, side to move won
  max_plies        MAX_PLIES plies, none of the above, %JISHOGI, draw
  time_up          the side to move answered too late, %TIME_UP, it lost
  illegal_move     the side to move answered no legal move, %ILLEGAL_MOVE, it lost
  crash            the side to move crashed, %+/-ILLEGAL_ACTION naming it, it lost

Prints one line per problem and a last line `N games checked, M problems`;
exit status 1 if any problem.
"""
import csv
import os
import sys
from collections import Counter

import cshogi
from cshogi import CSA


def sfen_key(sfen):
    """Board, side to move and hands; the move number is left out."""
    return " ".join(sfen.split()[:3])


def check_game(path, row, max_plies):
    problems = []
    say = problems.append
    parsed = CSA.Parser.parse_file(path)
    if len(parsed) != 1:
        return [f"{path}: {len(parsed)} games in the file"]
    p = parsed[0]
    board = cshogi.Board(p.sfen)
    seen = Counter([board.zobrist_hash()])
    for i, mv in enumerate(p.moves):
        if not board.is_legal(mv):
            say(f"{path}: ply {i + 1} {cshogi.move_to_usi(mv)} is illegal")
            return problems
        if i >= int(row["opening_plies"]) and board.is_nyugyoku():
            say(f"{path}: ply {i + 1}: the side to move could have declared")
        board.push(mv)
        seen[board.zobrist_hash()] += 1
        if i + 1 < len(p.moves) and seen[board.zobrist_hash()] >= 4:
            say(f"{path}: ply {i + 1}: fourth occurrence but the game went on")
    ending = row["ending"]
    turn = board.turn  # 0 = Black
    winner = None  # 0 Black, 1 White, None draw
    if ending == "checkmate":
        if not board.is_game_over() or list(board.legal_moves):
            say(f"{path}: checkmate recorded but the side to move has legal moves")
        winner = 1 - turn
        want_end = "%TORYO"
    elif ending in ("sennichite", "oute_sennichite"):
        if seen[board.zobrist_hash()] != 4:
            say(f"{path}: {ending} but the final position occurred {seen[board.zobrist_hash()]} times")
        d = board.is_draw()
        if ending == "sennichite":
            if d != cshogi.REPETITION_DRAW:
                say(f"{path}: sennichite but cshogi is_draw() = {d}")
            want_end = "%SENNICHITE"
        else:
            if d == cshogi.REPETITION_WIN:
                winner = turn
            elif d == cshogi.REPETITION_LOSE:
                winner = 1 - turn
            else:
                say(f"{path}: oute_sennichite but cshogi is_draw() = {d}")
            want_end = "%-ILLEGAL_ACTION" if winner == 0 else "%+ILLEGAL_ACTION"
    elif ending == "kachi":
        if not board.is_nyugyoku():
            say(f"{path}: kachi but cshogi is_nyugyoku() is false")
        winner = turn
        want_end = "%KACHI"
    elif ending == "max_plies":
        if board.is_game_over() or board.is_nyugyoku() or len(p.moves) != max_plies:
            say(f"{path}: max_plies after {len(p.moves)} plies (limit {max_plies}), "
                f"game over {board.is_game_over()}, nyugyoku {board.is_nyugyoku()}")
        want_end = "%JISHOGI"
    elif ending in ("time_up", "illegal_move", "crash"):
        if board.is_game_over() or not row.get("detail"):
            say(f"{path}: {ending} but game over {board.is_game_over()}, detail {row.get('detail')!r}")
        winner = 1 - turn
        want_end = {
            "time_up": "%TIME_UP",
            "illegal_move": "%ILLEGAL_MOVE",
            "crash": "%+ILLEGAL_ACTION" if turn == 0 else "%-ILLEGAL_ACTION",
        }[ending]
    else:
        say(f"{path}: unexpected ending {ending!r}")
        return problems
    if p.endgame != want_end:
        say(f"{path}: CSA ending {p.endgame}, expected {want_end}")
    want_win = {None: cshogi.DRAW, 0: cshogi.BLACK_WIN, 1: cshogi.WHITE_WIN}[winner]
    if p.win != want_win:
        say(f"{path}: cshogi reads the winner as {p.win}, expected {want_win}")
    a = 0 if row["a_color"] == "black" else 1
    want_result = "draw" if winner is None else ("win" if winner == a else "loss")
    if row["result"] != want_result:
        say(f"{path}: results.csv says {row['result']}, cshogi's judgement gives {want_result}")
    if int(row["plies"]) != len(p.moves):
        say(f"{path}: results.csv says {row['plies']} plies, the record has {len(p.moves)}")
    if sfen_key(row["final_sfen"]) != sfen_key(board.sfen()):
        say(f"{path}: final sfen {row['final_sfen']} != cshogi's {board.sfen()}")
    return problems


def main():
    out, max_plies = sys.argv[1], int(sys.argv[2])
    with open(os.path.join(out, "results.csv")) as f:
        rows = list(csv.DictReader(f))
    problems = []
    endings = Counter()
    for row in rows:
        path = os.path.join(out, "games", "%04d.csa" % int(row["game"]))
        # The opening is the first 24 plies of every bundled line.
        row["opening_plies"] = 24
        problems += check_game(path, row, max_plies)
        endings[row["ending"]] += 1
    for p in problems:
        print(p)
    print(f"{len(rows)} games checked ({dict(endings)}), {len(problems)} problems")
    return 1 if problems or not rows else 0


if __name__ == "__main__":
    sys.exit(main())
