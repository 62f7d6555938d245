#!/usr/bin/env bash
# Speed and memory of `kifulearn fit` against liblinear-train 2.3.0, in one run.
#
# Usage: benches/fit_vs_liblinear.sh [FILE...]
#   default FILEs: /tmp/synth_300k.svm (made by ../shared/tools/gen_synthetic.py
#   with its defaults if missing: 300k rows x 2.56M dims x 100 nnz) and
#   ../shared/tools/examples/small.svm.
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
# exact primal objective of each saved model from primal_objective.py, and
# ratios against liblinear's best (fastest) run. Needs a release build.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
TOOLS=$HERE/../shared/tools
BIN=$HERE/target/release/kifulearn
[[ -x $BIN ]] || (cd "$HERE" && cargo build --release --bin kifulearn)
FILES=("$@")
if ((${#FILES[@]} == 0)); then
  [[ -s /tmp/synth_300k.svm ]] || python3 "$TOOLS/gen_synthetic.py" /tmp/synth_300k.svm
  FILES=(/tmp/synth_300k.svm "$TOOLS/examples/small.svm")
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
objective() { python3 "$TOOLS/primal_objective.py" "$1" "$2" | sed -n 's/^objective=\([^ ]*\).*/\1/p'; }

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
opt = min(r[3] for r in rows)
print("%-28s %8s %8s %14s %11s %6s %8s %7s" % ("run", "wall s", "RSS MB", "objective", "vs best obj", "iter", "time/ll", "RSS/ll"))
for n, w, r, o, it in rows:
    print(f"{n:28} {w:8.2f} {r:8.0f} {o:14.6f} {100*(o/opt-1):10.3f}% {it:>6} {w/best[1]:8.2f} {r/best[2]:7.2f}")
print(f"(ratios against liblinear best = {best[0]}; vs best obj = above the lowest objective in this table)")
'
done
