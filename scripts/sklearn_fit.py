#!/usr/bin/env python3
"""scikit-learn fits, the engine plays: a Ridge regression on libsvm rows
(position rows from `kifulearn positions FILES --rows DIR`, or any rows
`kifulearn extract` writes), written as a model that `usi --evaluator`,
`match --engine-a`, `predict` and `evaluate` load.

Usage:

    python3 scripts/sklearn_fit.py DATASET... --out MODEL [-c 2e-3] \
        [--features SET] [--dimension N] [--tol 1e-10] [--predictions FILE]

DATASET is a folder (its rows are `DIR/rows/*.svm` when `rows/` exists,
else `DIR/*.svm`, in name order, as kifulearn reads them) or libsvm files.
`features` and `dimension` come from `DIR/dataset.toml` when it exists,
else from `--features` / `--dimension`.

What it fits: `sklearn.linear_model.Ridge(alpha=1/(2C), fit_intercept=False)`,
which minimises ‖y − Xw‖² + α‖w‖², the same minimiser as liblinear's `-s 11
-p 0 -c C` and `kifulearn fit -p 0 -c C` (½‖w‖² + C Σ (y − w·x)²) without a
prior: the labels are fitted as they are (raw scores: the piece values are
learned with the rest). Read by `load_svmlight_files`, fitted on the columns
the rows use (a column no row uses gets weight 0 in every one of these fits).

Writes MODEL as liblinear's text model (`solver_type L2R_L2LOSS_SVR`, weights
as `%.17g`, `nr_feature` the largest index seen, as liblinear-train and
`kifulearn fit` write it) and MODEL.meta.toml, whose `features` line is what
lets kifulearn evaluate positions with it. `--predictions FILE` writes the
fitted model's prediction of every row, one a line, in the rows' order.
Prints one `sklearn ...` summary line on stdout.
"""

import argparse
import os
import sys
import time

import numpy as np


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from liblinear_io import dataset_files, write_fitted  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("data", nargs="+", help="dataset folders or libsvm files")
    ap.add_argument("--out", required=True, help="model file to write")
    ap.add_argument("-c", type=float, default=2e-3,
                    help="liblinear's cost C (alpha = 1/(2C)); default 2e-3, "
                         "the C that plays best on position rows")
    ap.add_argument("--features", help="feature set (when no dataset.toml names it)")
    ap.add_argument("--dimension", type=int, help="feature columns (when no dataset.toml)")
    ap.add_argument("--tol", type=float, default=1e-10, help="Ridge's tolerance")
    ap.add_argument("--predictions", help="write each row's prediction to this file")
    args = ap.parse_args()
    if not args.c > 0:
        sys.exit(f"-c {args.c}: C must be positive")

    from scipy import sparse
    from sklearn.datasets import load_svmlight_files
    from sklearn.linear_model import Ridge

    files, meta = dataset_files(args.data)
    dimension = meta.get("dimension", args.dimension)
    features = meta.get("features", args.features)
    if features is None:
        sys.exit("no dataset.toml names the feature set: give --features SET")
    if args.features is not None and args.features != features:
        sys.exit(f"--features {args.features} disagrees with dataset.toml's {features}")
    t0 = time.time()
    loaded = load_svmlight_files(files, n_features=dimension, zero_based=False,
                                 dtype=np.float64)
    X = sparse.vstack(loaded[0::2]).tocsc()
    y = np.concatenate(loaded[1::2])
    if X.shape[0] == 0:
        sys.exit(f"{len(files)} file(s): no rows")
    # Only the columns the rows use; the weights go back to their columns.
    used = np.flatnonzero(np.diff(X.indptr))
    if len(used) == 0:
        sys.exit(f"{len(files)} file(s): no feature in any row")
    Xu = X[:, used].tocsr()
    t_read = time.time() - t0

    alpha = 1.0 / (2.0 * args.c)
    t1 = time.time()
    ridge = Ridge(alpha=alpha, fit_intercept=False, solver="sparse_cg", tol=args.tol)
    ridge.fit(Xu, y)
    t_fit = time.time() - t1
    w_used = ridge.coef_
    pred = Xu @ w_used
    sse = float(((y - pred) ** 2).sum())
    objective = 0.5 * float((w_used * w_used).sum()) + args.c * sse
    r2 = 1.0 - sse / float(((y - y.mean()) ** 2).sum())

    write_fitted(args.out, used, w_used, features, [
        ("solver", '"scikit-learn Ridge sparse_cg"'), ("c", repr(args.c)),
        ("p", "0.0"), ("bias", "-1.0"), ("prior", '"zero"'), ("alpha", repr(alpha)),
        ("rows", str(X.shape[0])), ("tolerance", repr(args.tol)),
        ("objective", repr(objective)),
    ], files)
    if args.predictions:
        with open(args.predictions, "w") as f:
            f.writelines("%.17g\n" % v for v in pred)
    print(f"sklearn Ridge: {X.shape[0]} rows from {len(files)} file(s), "
          f"{len(used)} columns used, C {args.c} -> alpha {alpha:.6g}; "
          f"objective {objective:.10g}, r2 {r2:.4f}, "
          f"read {t_read:.1f} s, fit {t_fit:.1f} s")


if __name__ == "__main__":
    main()
