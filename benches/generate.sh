#!/usr/bin/env bash
# Positions per second and peak RSS of `kifulearn generate` (depth 3, material).
#
# Usage: benches/generate.sh [POSITIONS] [JOBS]   (defaults: 20000, all cores)
# Env: KIFU_GEN_ARGS: more options (e.g. "--nodes 3000" or "--evaluator MODEL").
# The issue's target: 1,000,000 positions in 30 minutes on 2 cores, i.e.
# >= 556 positions/s. Small chunks (--chunk-games 4) keep the work thrown
# away at the end (the chunks under way past the target) small in a short run.
# Prints the load average too: on a shared machine the figure is that of the
# cores this run got, not of 2 idle cores. Needs a release build.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/kifulearn
[[ -x $BIN ]] || (cd "$HERE" && cargo build --release --bin kifulearn)
N=${1:-20000}
JOBS=${2:-$(nproc)}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg), cores: $(nproc), jobs: $JOBS"
# shellcheck disable=SC2086
/usr/bin/time -v "$BIN" generate --out "$TMP/gen" --depth 3 --evaluator material \
  --positions "$N" --jobs "$JOBS" --chunk-games 4 ${KIFU_GEN_ARGS:-} > "$TMP/out" 2> "$TMP/time"
cat "$TMP/out"
awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; w=s}
            /Maximum resident set size/ {r=$2/1024}
            /Percent of CPU/ {c=$2}
            END {printf "wall %.1f s, CPU %s, peak RSS %.0f MB\n", w, c, r}' "$TMP/time"
W=$(awk -F': ' '/Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; print s}' "$TMP/time")
P=$(find "$TMP/gen/positions" -name '*.psv' -printf '%s\n' | awk '{s+=$1} END {print s/40}')
awk -v p="$P" -v w="$W" 'BEGIN {printf "positions/s (whole process, startup included): %.0f (target 556: %s)\n", p/w, (p/w >= 556 ? "hit" : "missed")}'
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
