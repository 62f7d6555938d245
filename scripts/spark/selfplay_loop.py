#!/usr/bin/env python3
"""Spark runs the self-play loop: generation shards in parallel, merged into
one run, converted to position rows, fitted, and a model that plays.

Usage (local mode needs pyspark and Java 17, as `fit_l2.py`):

    python3 scripts/spark/selfplay_loop.py --kifulearn BIN --out DIR \\
        --shards N --games M [--depth D | --nodes N] [--master local[2]] \\
        [--features material,kp] [-c 2e-3] [--generate-option=--seed=3 ...]

1. One Spark task per shard (`mapPartitions` over `range(N)`, N partitions)
   runs `BIN generate --out DIR/shards/K --games M --shard K/N --jobs J`;
   every task writes into DIR, so on a cluster DIR must be a file system all
   workers and the driver share (NFS, a mounted bucket) and BIN must run on
   every worker at the same path (docs/scale.md).
2. The driver joins the shards: `BIN dataset merge DIR/shards/* --out
   DIR/gen`, byte for byte the folder `BIN generate --out DIR/gen --games M`
   writes.
3. The driver writes one row per position: `BIN positions DIR/gen --rows
   DIR/rows --features F --result-weight 0` (labels: the search's scores).
4. Spark fits kifulearn's L2 regression on the rows (`fit_l2.py`'s `fit_l2`:
   `fit svr -p 0 -c C`, no prior; C 2e-3 on `material,kp` is the fit that
   played best in docs/results.md, "liblinear and scikit-learn on position
   rows") and writes DIR/model.txt with its sidecar, which `kifulearn usi`
   and `match` load.

Prints one `loop ...` line with the seconds of each step. A rerun into the
same DIR resumes each shard (`generate` resumes) and redoes the rest.
"""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from fit_l2 import fit_l2, spark_session, write_model  # noqa: E402
from liblinear_io import dataset_files  # noqa: E402


def shard_command(kifulearn, out, k, n, games, jobs, options):
    """The `generate` command of shard K/N."""
    return [kifulearn, "generate", "--out", os.path.join(out, "shards", str(k)),
            "--games", str(games), "--shard", f"{k}/{n}", "--jobs", str(jobs), "-q"] + options


def run(command):
    """Runs `command` on the driver; exits with its stderr when it fails."""
    done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{' '.join(command)} failed ({done.returncode}):\n{done.stderr}")
    return done.stdout + done.stderr


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--kifulearn", required=True, help="the kifulearn binary (on every worker)")
    ap.add_argument("--out", required=True, help="the loop's folder (shared by all workers)")
    ap.add_argument("--shards", type=int, default=2, help="generation shards, one Spark task each")
    ap.add_argument("--games", type=int, required=True, help="games of the run (0..M)")
    ap.add_argument("--depth", type=int, help="search depth of every move (generate's default 3)")
    ap.add_argument("--nodes", type=int, help="node limit of every move instead of a depth")
    ap.add_argument("--evaluator", default="material", help="evaluator of both sides")
    ap.add_argument("--jobs-per-shard", type=int, default=1,
                    help="generate --jobs of each task (1: a task is a core)")
    ap.add_argument("--generate-option", action="append", default=[],
                    help="one more generate option, e.g. --generate-option=--seed=3 (repeatable)")
    ap.add_argument("--features", default="material,kp", help="feature sets of the rows")
    ap.add_argument("-c", type=float, default=2e-3, help="kifulearn's cost C")
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--tol", type=float, default=1e-12)
    ap.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[2]"))
    ap.add_argument("--driver-memory", default="2g")
    args = ap.parse_args()
    if args.shards < 1 or args.games < 1 or not args.c > 0:
        sys.exit("--shards, --games and -c must be positive")
    kifulearn = os.path.abspath(args.kifulearn)
    out = os.path.abspath(args.out)
    options = ["--evaluator", args.evaluator]
    if args.depth is not None:
        options += ["--depth", str(args.depth)]
    if args.nodes is not None:
        options += ["--nodes", str(args.nodes)]
    options += args.generate_option

    t0 = time.time()
    spark = spark_session(args.master, "kifulearn-selfplay-loop", args.driver_memory)
    t_start = time.time() - t0

    n, games, jobs = args.shards, args.games, args.jobs_per_shard

    def generate_shards(ks):
        for k in ks:
            command = shard_command(kifulearn, out, k, n, games, jobs, options)
            started = time.time()
            done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True)
            yield (k, done.returncode, done.stderr[-2000:], time.time() - started)

    t1 = time.time()
    results = (spark.sparkContext.parallelize(range(n), n)
               .mapPartitions(generate_shards).collect())
    t_generate = time.time() - t1
    failed = [(k, code, err) for k, code, err, _ in results if code != 0]
    if failed:
        spark.stop()
        sys.exit("\n".join(f"shard {k}/{n} failed ({code}):\n{err}" for k, code, err in failed))
    shard_seconds = max(s for *_, s in results)

    t2 = time.time()
    shards = [os.path.join(out, "shards", str(k)) for k in range(n)]
    gen, rows = os.path.join(out, "gen"), os.path.join(out, "rows")
    merged = run([kifulearn, "dataset", "merge", *shards, "--out", gen]).strip()
    t_merge = time.time() - t2
    t3 = time.time()
    run([kifulearn, "positions", gen, "--rows", rows, "--features", args.features,
         "--result-weight", "0", "-q"])
    t_rows = time.time() - t3

    files, meta = dataset_files([rows])
    fit = fit_l2(spark, files, meta.get("dimension"), args.c, args.max_iter, args.tol)
    spark.stop()
    model = os.path.join(out, "model.txt")
    write_model(model, fit, meta.get("features", args.features), args.c, args.tol,
                args.master, files)
    print(merged)
    print(f"loop {args.master}: {n} shards, {games} games, {fit['rows']} positions -> {model}; "
          f"start {t_start:.1f} s, generate {t_generate:.1f} s (slowest shard "
          f"{shard_seconds:.1f} s), merge {t_merge:.1f} s, rows {t_rows:.1f} s, "
          f"read {fit['read_seconds']:.1f} s, fit {fit['fit_seconds']:.1f} s "
          f"({fit['iterations']} iterations, objective {fit['objective']:.10g}), "
          f"total {time.time() - t0:.1f} s")


if __name__ == "__main__":
    main()
