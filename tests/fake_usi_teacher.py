#!/usr/bin/env python3
"""A USI engine that misbehaves on purpose, for tests/teacher.rs.

    python3 fake_usi_teacher.py STATE_DIR

Each position is put in a class by K = the sum of the bytes of the SFEN's
first three fields (board, side to move, hands), which the test computes too:

    K % 10 == 0  crashes (exits) at every `go`
    K % 10 == 1  hangs at every `go` (never answers)
    K % 10 == 2  answers garbage at every `go` (`score cp banana`, or a
                 bestmove with no score before it)
    K % 10 == 3  crashes at the first `go` for this position, then answers
    K % 10 == 4  hangs at the first `go` for this position, then answers
    otherwise    answers `info depth 1 score cp (K % 2001 - 1000)`, `bestmove resign`

"First" is remembered across restarts with a file STATE_DIR/K.
"""
import os
import sys
import time


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


def main():
    state = sys.argv[1]
    key = None
    for line in sys.stdin:
        words = line.split()
        if not words:
            continue
        cmd = words[0]
        if cmd == "usi":
            out("id name fake-teacher")
            out("option name Hash type spin default 16 min 1 max 1024")
            out("option name Threads type spin default 1 min 1 max 4")
            out("usiok")
        elif cmd == "isready":
            out("readyok")
        elif cmd == "position":
            # position sfen BOARD SIDE HANDS MOVENUMBER
            key = sum(" ".join(words[2:5]).encode())
        elif cmd == "go":
            cls = key % 10
            first_file = os.path.join(state, str(key))
            first = not os.path.exists(first_file)
            if cls in (3, 4) and first:
                open(first_file, "w").close()
            if cls == 0 or (cls == 3 and first):
                sys.exit(3)
            if cls == 1 or (cls == 4 and first):
                time.sleep(3600)
            if cls == 2:
                if key % 20 < 10:
                    out("info depth 1 score cp banana")
                else:
                    out("info depth 1 nodes 5")
                out("bestmove resign")
                continue
            out("info string thinking")
            out("info depth 1 seldepth 1 score cp %d nodes 1 pv resign" % (key % 2001 - 1000))
            out("bestmove resign")
        elif cmd == "quit":
            return


main()
