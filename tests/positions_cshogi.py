#!/usr/bin/env python3
"""Checks kifulearn's position files in cshogi, and writes files with cshogi for kifulearn.

  positions_cshogi.py check EXPECTED.tsv FILE.psv FILE.hcpe
      cshogi reads both files (numpy dtypes PackedSfenValue and
      HuffmanCodedPosAndEval, Board.set_psfen / Board.set_hcp) and every record
      must match the TSV line: position (SFEN without move number), score, move
      (USI text and the 16-bit code), ply (PSV) and result.
  positions_cshogi.py write EXPECTED.tsv OUT.psv OUT.hcpe
      cshogi writes one record per TSV line (Board.to_psfen, Board.to_hcp,
      cshogi.move16(board.move_from_usi(...)), cshogi.move16_to_psv).

TSV columns: sfen, score, move (USI, or - for none), ply, result (win, loss,
draw or unknown, for the side to move). Exit status 1 on any mismatch.
"""

import sys

import cshogi
import numpy as np

PSV_RESULT = {"win": 1, "loss": -1, "draw": 0, "unknown": 0}


def read_tsv(path):
    rows = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            sfen, score, move, ply, result = line.rstrip("\n").split("\t")
            rows.append((sfen, int(score), move, int(ply), result))
    return rows


def without_move_number(sfen):
    return " ".join(sfen.split()[:3])


def hcpe_result(result, turn):
    if result == "win":
        return cshogi.BLACK_WIN if turn == cshogi.BLACK else cshogi.WHITE_WIN
    if result == "loss":
        return cshogi.WHITE_WIN if turn == cshogi.BLACK else cshogi.BLACK_WIN
    return cshogi.DRAW


def move_codes(board, usi):
    """(cshogi move16, YaneuraOu move16) of a USI move, (0, 0) for none."""
    if usi == "-":
        return 0, 0
    move = board.move_from_usi(usi)
    if move == 0 or not board.is_legal(move):
        raise ValueError(f"cshogi: {usi} is not legal in {board.sfen()}")
    m16 = cshogi.move16(move)
    return m16, cshogi.move16_to_psv(m16)


def check(tsv, psv_path, hcpe_path):
    rows = read_tsv(tsv)
    psvs = np.fromfile(psv_path, dtype=cshogi.PackedSfenValue)
    hcpes = np.fromfile(hcpe_path, dtype=cshogi.HuffmanCodedPosAndEval)
    errors = []
    if len(psvs) != len(rows) or len(hcpes) != len(rows):
        errors.append(f"{len(rows)} rows, {len(psvs)} psv and {len(hcpes)} hcpe records")
    board = cshogi.Board()
    for i, ((sfen, score, usi, ply, result), psv, hcpe) in enumerate(zip(rows, psvs, hcpes)):
        want = without_move_number(cshogi.Board(sfen).sfen())
        for name, set_position in (
            ("psv", lambda: board.set_psfen(np.ascontiguousarray(psv["sfen"]))),
            ("hcpe", lambda: board.set_hcp(np.ascontiguousarray(hcpe["hcp"]))),
        ):
            set_position()
            got = without_move_number(board.sfen())
            if got != want:
                errors.append(f"{i} {name}: position {got!r}, expected {want!r}")
                continue
            m16, psv16 = move_codes(board, usi)
            if name == "psv":
                code, expected_code = int(psv["move"]), psv16
                move = board.move_from_psv(code) if code else 0
                fields = (int(psv["score"]), int(psv["gamePly"]), int(psv["game_result"]))
                expected = (score, ply, PSV_RESULT[result])
            else:
                code, expected_code = int(hcpe["bestMove16"]) & 0xFFFF, m16
                move = board.move_from_move16(code) if code else 0
                fields = (int(hcpe["eval"]), int(hcpe["gameResult"]))
                expected = (score, hcpe_result(result, board.turn))
            got_usi = cshogi.move_to_usi(move) if move else "-"
            if got_usi != usi or code != expected_code:
                errors.append(f"{i} {name}: move {got_usi} ({code}), expected {usi} ({expected_code})")
            if fields != expected:
                errors.append(f"{i} {name}: fields {fields}, expected {expected}")
    report(errors, f"cshogi read {len(rows)} records of each format as written")


def write(tsv, psv_path, hcpe_path):
    rows = read_tsv(tsv)
    psvs = np.zeros(len(rows), dtype=cshogi.PackedSfenValue)
    hcpes = np.zeros(len(rows), dtype=cshogi.HuffmanCodedPosAndEval)
    psfen = np.zeros(1, dtype=cshogi.PackedSfen)
    hcp = np.zeros(1, dtype=cshogi.HuffmanCodedPos)
    board = cshogi.Board()
    for i, (sfen, score, usi, ply, result) in enumerate(rows):
        board.set_sfen(sfen)
        board.to_psfen(psfen)
        board.to_hcp(hcp)
        m16, psv16 = move_codes(board, usi)
        psvs[i] = (psfen[0]["sfen"], score, psv16, ply, PSV_RESULT[result], 0)
        hcpes[i] = (hcp[0]["hcp"], score, np.uint16(m16).astype(np.int16), hcpe_result(result, board.turn), 0)
    psvs.tofile(psv_path)
    hcpes.tofile(hcpe_path)
    print(f"cshogi wrote {len(rows)} records of each format")


def report(errors, ok):
    if errors:
        for e in errors[:20]:
            print(e, file=sys.stderr)
        print(f"{len(errors)} mismatches", file=sys.stderr)
        sys.exit(1)
    print(ok)


if __name__ == "__main__":
    if len(sys.argv) != 5 or sys.argv[1] not in ("check", "write"):
        sys.exit(__doc__)
    {"check": check, "write": write}[sys.argv[1]](*sys.argv[2:])
