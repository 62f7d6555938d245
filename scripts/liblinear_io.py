"""Reading libsvm rows and writing liblinear text models, shared by the peer
fitters (`scripts/sklearn_fit.py`, `scripts/spark/fit_l2.py`): one copy of
what a kifulearn dataset folder is and of the bytes `kifulearn fit` writes.
"""

import glob
import os
import sys
import tomllib

import numpy as np


def dataset_files(paths):
    """The libsvm files of each path (a dataset folder's `rows/*.svm`, a
    folder's `*.svm`, or a file) and the dataset.toml keys found (if any)."""
    files, meta = [], {}
    for p in paths:
        if os.path.isdir(p):
            rows = os.path.join(p, "rows")
            folder = rows if os.path.isdir(rows) else p
            found = sorted(glob.glob(os.path.join(glob.escape(folder), "*.svm")))
            if not found:
                sys.exit(f"{p}: no *.svm files (looked in {folder})")
            files += found
            toml = os.path.join(p, "dataset.toml")
            if os.path.exists(toml):
                with open(toml, "rb") as f:
                    try:
                        m = tomllib.load(f)
                    except tomllib.TOMLDecodeError as e:
                        sys.exit(f"{toml}: {e}")
                for key in ("dimension", "features"):
                    if key in m:
                        if key in meta and meta[key] != m[key]:
                            sys.exit(f"{toml}: {key} = {m[key]!r} differs from "
                                     f"another dataset's {meta[key]!r}")
                        meta[key] = m[key]
        elif os.path.isfile(p):
            files.append(p)
        else:
            sys.exit(f"{p}: no such file or folder")
    return files, meta


def toml_string(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_model(path, w, nr_feature):
    """liblinear's text model, the bytes `kifulearn fit` writes."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(f"solver_type L2R_L2LOSS_SVR\nnr_class 2\nnr_feature {nr_feature}\nbias -1\nw\n")
        for j in range(nr_feature):
            v = float(w[j]) if j < len(w) else 0.0
            f.write("%.17g \n" % (v + 0.0))  # + 0.0: no "-0"
    os.replace(tmp, path)


def write_fitted(path, used, w_used, features, fields, files):
    """The model whose weights are `w_used` at the 0-based columns `used`
    (ascending), and its MODEL.meta.toml: `features`, then `fields` (pairs of
    key and TOML value text, in order), then what every sidecar ends with."""
    nr_feature = int(used[-1]) + 1  # the largest index, as liblinear writes it
    w = np.zeros(nr_feature)
    w[used] = w_used
    write_model(path, w, nr_feature)
    data = ", ".join(toml_string(f) for f in files)
    lines = [f"features = {toml_string(features)}"]
    lines += [f"{key} = {value}" for key, value in fields]
    lines += ["binary = false", "monotone_hand = false", f"data = [{data}]"]
    tmp = path + ".meta.toml.tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path + ".meta.toml")
