#!/usr/bin/env python3
"""Spark trains, the engine plays: kifulearn's L2 fit (`kifulearn fit svr -p 0`)
as a Spark MLlib job, writing a model that `usi`, `evaluate` and `match` load.

Usage (local mode needs only `pip install -r scripts/spark/requirements.txt`
and Java 17; on a cluster, `spark-submit --master URL scripts/spark/fit_l2.py ...`):

    python3 scripts/spark/fit_l2.py DATASET... --out MODEL -c C \
        [--features SET] [--dimension N] [--master local[2]] \
        [--max-iter 1000] [--tol 1e-12] [--partitions P] [--dry-run]

DATASET is a folder written by `kifulearn extract --out DIR` (its rows are
`DIR/rows/*.svm` when `rows/` exists, else `DIR/*.svm`), or libsvm files.
`dimension` and `features` come from `DIR/dataset.toml` when it exists,
else from `--dimension` / `--features` (without a dimension Spark finds the
largest index itself, one more pass over the rows).

What it fits: Spark's `LinearRegression(elasticNetParam=0, fitIntercept=False,
standardization=False, solver="l-bfgs")`, whose objective is

    1/(2n) Σ (y − w·x)² + λ/(2σ_y) ‖w‖²        (σ_y: sample std of the labels)

(Spark scales the labels by σ_y internally and the penalty with them, as R's
glmnet does). kifulearn's `fit svr -p 0` minimises ½‖w‖² + C Σ (y − w·x)²; the
two have the same minimiser when λ = σ_y / (2 n C). docs/scale.md derives it.

Writes MODEL as liblinear's text model (`solver_type L2R_L2LOSS_SVR`, weights
as `%.17g`, `nr_feature` the largest index seen, like `kifulearn fit`) and
MODEL.meta.toml (features, C, λ, rows, objective, iterations, data).
Prints one `spark ...` summary line on stdout.
"""

import argparse
import math
import os
import re
import sys
import time

import numpy as np


# The shared reader and model writer live one folder up.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from liblinear_io import dataset_files, toml_string, write_fitted  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="dataset folders or libsvm files")
    ap.add_argument("--out", required=True, help="model file to write")
    ap.add_argument("-c", type=float, default=1.0, help="kifulearn's cost C")
    ap.add_argument("--features", help="feature set (when no dataset.toml names it)")
    ap.add_argument("--dimension", type=int, help="feature columns (when no dataset.toml)")
    ap.add_argument("--master", default=os.environ.get("SPARK_MASTER", "local[2]"))
    ap.add_argument("--max-iter", type=int, default=1000)
    ap.add_argument("--tol", type=float, default=1e-12,
                    help="L-BFGS relative tolerance (Spark's default 1e-6 stops early)")
    ap.add_argument("--partitions", type=int, help="repartition the rows into P parts")
    ap.add_argument("--driver-memory", default="2g")
    ap.add_argument("--dry-run", action="store_true",
                    help="print the files, dimension and features found, fit nothing")
    args = ap.parse_args()
    if not args.c > 0:
        sys.exit(f"-c {args.c}: C must be positive")

    files, meta = dataset_files(args.data)
    dimension = meta.get("dimension", args.dimension)
    features = meta.get("features", args.features or "unspecified")
    if args.dimension is not None and dimension != args.dimension:
        sys.exit(f"--dimension {args.dimension} disagrees with dataset.toml's {dimension}")
    if args.dry_run:
        print(f"files {len(files)}\ndimension {dimension}\nfeatures {features}")
        print("\n".join(files))
        return

    t0 = time.time()
    spark = spark_session(args.master, "kifulearn-fit-l2", args.driver_memory)
    t_start = time.time() - t0
    fit = fit_l2(spark, files, dimension, args.c, args.max_iter, args.tol, args.partitions)
    spark.stop()
    write_model(args.out, fit, features, args.c, args.tol, args.master, files)
    print(f"spark {args.master}: {fit['rows']} rows from {len(files)} file(s), C {args.c} -> "
          f"regParam {fit['reg_param']:.6g}; {fit['iterations']} iterations, "
          f"objective {fit['objective']:.10g}, read {t_start + fit['read_seconds']:.1f} s, "
          f"fit {fit['fit_seconds']:.1f} s, r2 {fit['r2']:.4f}")


def spark_session(master, name, driver_memory="2g"):
    """A SparkSession on `master` with the UI and progress bars off."""
    from pyspark.sql import SparkSession

    spark = (SparkSession.builder.master(master).appName(name)
             .config("spark.driver.memory", driver_memory)
             .config("spark.ui.enabled", "false")
             .config("spark.ui.showConsoleProgress", "false")
             .config("spark.sql.shuffle.partitions", "4")
             .getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def fit_l2(spark, files, dimension, c, max_iter=1000, tol=1e-12, partitions=None):
    """kifulearn's `fit svr -p 0 -c C` on the libsvm `files` with Spark's
    LinearRegression: a dict with `used` (the 0-based columns some row uses),
    `weights` (theirs), `rows`, `label_std`, `reg_param`, `iterations`,
    `objective` (kifulearn's, at the result), `r2`, and the seconds taken
    to read the rows (`read_seconds`) and to fit (`fit_seconds`)."""
    from pyspark.sql import functions as F
    from pyspark.ml.linalg import Vectors
    from pyspark.ml.regression import LinearRegression

    t0 = time.time()
    reader = spark.read.format("libsvm")
    if dimension is not None:
        reader = reader.option("numFeatures", int(dimension))
    # Hadoop reads a path as a glob: [ ] { } * ? \ in a name are escaped.
    df = reader.load([re.sub(r"([\[\]{}*?\\])", r"\\\1", f) for f in files])
    if partitions:
        df = df.repartition(partitions)
    # Only the columns the rows use: a column no row uses gets weight 0 in
    # both fits (its gradient is the penalty's alone), and Spark's dense
    # per-column state (feature summaries, L-BFGS history: ~20 vectors) then
    # has the size of the used columns, not of the feature set (5.1M for
    # relation). The weights are put back at their columns on the way out.
    used = np.array(sorted(df.rdd.flatMap(lambda r: r.features.indices.tolist())
                           .distinct().collect()), dtype=np.int64)
    if len(used) == 0:
        sys.exit(f"{len(files)} file(s): no feature in any row")
    col_of = spark.sparkContext.broadcast(used)

    def compact(rows):
        cols = col_of.value
        for label, x in rows:
            yield (float(label), Vectors.sparse(len(cols), np.searchsorted(cols, x.indices).tolist(),
                                                x.values.tolist()))

    df = spark.createDataFrame(df.rdd.map(lambda r: (r.label, r.features)).mapPartitions(compact),
                               ["label", "features"]).cache()
    stats = df.agg(F.count("label").alias("n"), F.stddev_samp("label").alias("sd")).first()
    n, sd = stats["n"], stats["sd"]
    if n < 2 or not sd or not math.isfinite(sd):
        sys.exit(f"{len(files)} file(s): {n} rows with label std {sd}: nothing to fit")
    reg = sd / (2.0 * n * c)
    t_read = time.time() - t0

    lr = LinearRegression(regParam=reg, elasticNetParam=0.0, fitIntercept=False,
                          standardization=False, solver="l-bfgs",
                          maxIter=max_iter, tol=tol)
    t1 = time.time()
    model = lr.fit(df)
    t_fit = time.time() - t1
    w_used = model.coefficients.toArray()
    summary = model.summary
    # kifulearn's primal objective, to compare with `kifulearn fit`'s.
    sse = summary.meanSquaredError * n
    objective = 0.5 * float((w_used * w_used).sum()) + c * sse
    df.unpersist()
    return {"used": used, "weights": w_used, "rows": n, "label_std": sd, "reg_param": reg,
            "iterations": summary.totalIterations, "objective": objective, "r2": summary.r2,
            "read_seconds": t_read, "fit_seconds": t_fit}


def write_model(path, fit, features, c, tol, master, files):
    """The model of `fit` ([`fit_l2`]'s result) and its sidecar."""
    write_fitted(path, fit["used"], fit["weights"], features, [
        ("solver", '"spark LinearRegression l-bfgs"'), ("c", repr(c)),
        ("p", "0.0"), ("bias", "-1.0"), ("reg_param", repr(fit["reg_param"])),
        ("label_std", repr(fit["label_std"])), ("rows", str(fit["rows"])),
        ("tolerance", repr(tol)), ("iterations", str(fit["iterations"])),
        ("objective", repr(fit["objective"])), ("master", toml_string(master)),
    ], files)

if __name__ == "__main__":
    main()
