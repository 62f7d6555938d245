#!/usr/bin/env python3
"""Top-1 of a USI engine's bestmove at a fixed depth against the moves of game records.

Usage:
  scripts/bestmove_top1.py DEPTH RECORDS_DIR ENGINE_CMD [USI_LINE...]

For every position of every record in RECORDS_DIR (`.csa` read by cshogi's CSA
parser, anything else by its KIF parser), in file order, the engine gets
`position sfen START moves ...` and `go depth DEPTH`; its bestmove counts as a
hit when it is the move the game played. No ties are shared: the engine picks
one move, as it does in a game. USI_LINEs (e.g. `setoption name ModelFile
value runs/selfplay-deep/final.bin`, or `setoption name UCI_Variant value
shogi` for Fairy-Stockfish) are sent after `usiok`.

This measures any engine the same way, ours or another, where
`kifulearn evaluate --depth D` ranks our evaluators' siblings with ties
shared (docs/reports.md, "Top-1 of engines' bestmoves"). Needs python3 with
cshogi (python3 -m pip install cshogi).
"""
import glob
import os
import subprocess
import sys

import cshogi
from cshogi import CSA, KIF


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    depth, folder, cmd = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    engine = subprocess.Popen(cmd, shell=True, stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, bufsize=1)

    def send(line):
        engine.stdin.write(line + "\n")

    def wait(prefix):
        while True:
            line = engine.stdout.readline()
            if not line:
                sys.exit(f"{cmd}: the engine ended before {prefix!r}")
            if line.startswith(prefix):
                return line

    send("usi")
    wait("usiok")
    for line in sys.argv[4:]:
        send(line)
    send("isready")
    wait("readyok")
    send("usinewgame")
    hits = total = 0
    for path in sorted(glob.glob(os.path.join(folder, "*"))):
        parser = CSA.Parser() if path.endswith(".csa") else KIF.Parser()
        try:
            parsed = parser.parse_file(path)
        except Exception as e:  # a record cshogi cannot read is named and skipped
            print(f"skipped {path}: {e}", file=sys.stderr)
            continue
        for game in parsed if isinstance(parsed, list) else [parser]:
            moves = [cshogi.move_to_usi(m) for m in game.moves]
            for i, played in enumerate(moves):
                tail = f" moves {' '.join(moves[:i])}" if i else ""
                send(f"position sfen {game.sfen}{tail}")
                send(f"go depth {depth}")
                best = wait("bestmove").split()[1]
                hits += best == played
                total += 1
    send("quit")
    print(f"{cmd} depth {depth}: {hits}/{total} = {hits / max(total, 1):.4f}")


if __name__ == "__main__":
    main()
