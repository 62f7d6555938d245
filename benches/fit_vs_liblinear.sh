#!/usr/bin/env bash
# Speed and memory of `kifulearn fit` against liblinear-train 2.3.0, in one run.
#
# Usage: benches/fit_vs_liblinear.sh [FILE...]
#   default FILE: fixtures/liblinear/small.svm; with KIFULEARN_SHARED=DIR (the
#   development collection, not shipped) also /tmp/synth_300k.svm, made by
#   DIR/tools/gen_synthetic.py with its defaults if missing (300k rows x 2.56M
#   dims x 100 nnz), the file docs/svr.md's figures come from.
# Env: KIFU_SOLVERS (default "default primal dual"): which kifulearn runs;
# "default" is `fit` with no solver option and no tolerance (what a user gets).
# KIFU_PRIMAL_E (default: unset, the primal solver's own default rule, the
# objective within 0.05% of the optimum; set it for liblinear's relative-gradient
# rule), KIFU_DUAL_E (default 0.001): our tolerances for the named solvers.
# KIFU_ARGS: the options of a run named "args" in KIFU_SOLVERS (a recipe's
# [solver], e.g. KIFU_SOLVERS="default args" KIFU_ARGS="--solver dual -e 0.1
# --max-iter 100" for pipelines/compare-relation.toml).
# KIFU_BEFORE=BIN adds runs of another build (e.g. main's) to the table, so
# before and after are measured in one run: KIFU_BEFORE_SOLVERS (default "dual";
# main's default solver was the primal, at 31x liblinear's time on 100k rows). KIFU_LIBLINEAR (default "11 12").
# For each file: liblinear -s 11 -e 0.001 and -s 12 -e 0.001, kifulearn's runs;
# wall time and peak RSS from /usr/bin/time -v (parsing included),
# exact primal objective of each saved model (0.5 w'w + C sum max(0, |w'x - y| - p)^2
# with C = 1, p = 0.1, the bias weight in w, computed below independently of
# both trainers), and ratios against liblinear's best (fastest) run. Needs
# liblinear-train and python3.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/kifulearn
[[ -x $BIN ]] || (cd "$HERE" && cargo build --release --bin kifulearn)
FILES=("$@")
if ((${#FILES[@]} == 0)); then
  FILES=("$HERE/fixtures/liblinear/small.svm")
  if [[ -n ${KIFULEARN_SHARED:-} ]]; then
    [[ -s /tmp/synth_300k.svm ]] || python3 "$KIFULEARN_SHARED/tools/gen_synthetic.py" /tmp/synth_300k.svm
    FILES=(/tmp/synth_300k.svm "${FILES[@]}")
  fi
fi
PE=${KIFU_PRIMAL_E:-}; DE=${KIFU_DUAL_E:-0.001}
SOLVERS=${KIFU_SOLVERS:-default primal dual}
BINS=("$BIN"); [[ -n ${KIFU_BEFORE:-} ]] && BINS+=("$KIFU_BEFORE")
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT

measure() { # name model log -- command...: prints "wall rss"
  local log=$1; shift
  /usr/bin/time -v "$@" > "$log.out" 2> "$log"
  awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; w=s}
              /Maximum resident set size/ {r=$2/1024} END {printf "%.2f %.0f\n", w, r}' "$log"
}
objective() { # MODEL DATA: the L2-loss SVR primal objective, C = 1, p = 0.1
  python3 - "$1" "$2" <<'PY'
import sys
with open(sys.argv[1]) as f:
    head = {}
    for line in f:
        t = line.split()
        if t and t[0] == "w":
            break
        if t:
            head[t[0]] = t[1]
    w = [float(x) for x in f.read().split()]
n, bias = int(head["nr_feature"]), float(head["bias"])
obj = 0.5 * sum(x * x for x in w)
for line in open(sys.argv[2]):
    t = line.split("#")[0].split()
    if not t:
        continue
    pred = w[n] * bias if bias >= 0 else 0.0
    for pair in t[1:]:
        i, v = pair.split(":")
        if i != "qid" and int(i) <= n:
            pred += w[int(i) - 1] * float(v)
    obj += max(0.0, abs(pred - float(t[0])) - 0.1) ** 2
print(f"{obj:.17g}")
PY
}

for F in "${FILES[@]}"; do
  echo "== $F ($(nproc) cores, other jobs may share them)"
  rows=()
  for s in ${KIFU_LIBLINEAR:-11 12}; do
    read -r w r < <(measure "$TMP/ll$s.log" liblinear-train -s $s -e 0.001 "$F" "$TMP/ll$s.model")
    if [[ $s == 11 ]]; then it=$(grep -c '^iter' "$TMP/ll$s.log.out" || true)
    else it=$(sed -n 's/.*#iter = \([0-9]*\).*/\1/p' "$TMP/ll$s.log.out"); fi
    rows+=("liblinear -s $s -e 0.001|$w|$r|$(objective "$TMP/ll$s.model" "$F")|$it")
  done
  for b in "${!BINS[@]}"; do
    name=kifulearn; ((b > 0)) && name=before
    solvers=$SOLVERS; ((b > 0)) && solvers=${KIFU_BEFORE_SOLVERS:-dual}
    for solver in $solvers; do
      e=$PE; [[ $solver == dual ]] && e=$DE
      opt=(--solver "$solver"); [[ -n $e ]] && opt+=(-e "$e")
      [[ $solver == default ]] && { opt=(); e=; }
      # shellcheck disable=SC2206 # the options are words on purpose
      [[ $solver == args ]] && { opt=(${KIFU_ARGS:-}); e=${KIFU_ARGS// /,}; }
      m="$TMP/k$b$solver.model"
      read -r w r < <(measure "$TMP/k$b$solver.log" "${BINS[$b]}" fit "${opt[@]}" --out "$m" "$F")
      it=$(sed -n 's/^iterations = //p' "$m.meta.toml")
      rows+=("$name $solver -e ${e:-default}|$w|$r|$(objective "$m" "$F")|$it")
    done
  done
  printf 'raw: %s\n' "${rows[@]}"
  printf '%s\n' "${rows[@]}" | python3 -c '
import sys
rows = [l.rstrip("\n").split("|") for l in sys.stdin if l.strip()]
rows = [(n, float(w), float(r), float(o), it) for n, w, r, o, it in rows]
ll = [r for r in rows if r[0].startswith("liblinear")]
best = min(ll, key=lambda r: r[1])
best_wall = max(best[1], 0.01)  # /usr/bin/time counts hundredths: a tiny file can take "0.00"
opt = min(r[3] for r in rows)
print("%-28s %8s %8s %14s %11s %6s %8s %7s" % ("run", "wall s", "RSS MB", "objective", "vs best obj", "iter", "time/ll", "RSS/ll"))
for n, w, r, o, it in rows:
    print(f"{n:28} {w:8.2f} {r:8.0f} {o:14.6f} {100*(o/opt-1):10.3f}% {it:>6} {w/best_wall:8.2f} {r/best[2]:7.2f}")
print(f"(ratios against liblinear best = {best[0]}; vs best obj = above the lowest objective in this table)")
'
done
