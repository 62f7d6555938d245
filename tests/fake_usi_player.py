#!/usr/bin/env python3
"""A USI player that misbehaves on purpose, for tests/match_usi.rs.

    python3 fake_usi_player.py FAULT K STATE ENGINE [ARGS...]

It runs ENGINE ARGS (a real USI engine: `kifulearn usi`) and passes every
line both ways, except at the K-th `go` of the process (1-based), where it
makes FAULT:

    crash    exits at once (status 3)
    hang     never answers that `go`
    illegal  answers `bestmove 5a5a` (no move) without asking the engine
    overrun  passes the engine's `bestmove` on 600 ms late
    none     nothing

The fault is made once per test: the first time, it creates the file STATE;
a process that finds STATE already there plays cleanly, so after the
restart the match goes on with a healthy engine. Every process start is
counted by a line appended to STATE.starts.
"""
import os
import subprocess
import sys
import threading
import time


def main():
    fault, k, state = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    with open(state + ".starts", "a") as f:
        f.write("start\n")
    armed = fault != "none" and not os.path.exists(state)
    engine = subprocess.Popen(
        sys.argv[4:], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
    )
    lock = threading.Lock()
    late = threading.Event()  # the next bestmove is passed on late

    def out(line):
        with lock:
            sys.stdout.write(line)
            sys.stdout.flush()

    def pass_engine_output():
        for line in engine.stdout:
            if line.startswith("bestmove") and late.is_set():
                late.clear()
                time.sleep(0.6)
            out(line)

    threading.Thread(target=pass_engine_output, daemon=True).start()
    gos = 0
    for line in sys.stdin:
        words = line.split()
        if words and words[0] == "go":
            gos += 1
            if armed and gos == k:
                open(state, "w").close()
                if fault == "crash":
                    os._exit(3)
                if fault == "hang":
                    continue
                if fault == "illegal":
                    out("info depth 1 nodes 1 time 0\nbestmove 5a5a\n")
                    continue
                if fault == "overrun":
                    late.set()
        engine.stdin.write(line)
        engine.stdin.flush()
        if words and words[0] == "quit":
            break
    engine.stdin.close()
    engine.wait()


main()
