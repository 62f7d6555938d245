#!/usr/bin/env bash
# Seconds per epoch, positions/s and peak RSS of the positions learner
# (`fit positions --features relation,material,kp --result-weight 0
# --mu 3e-7`, 2 epochs), streamed (`--chunk 65536`, leaf cache on) and in
# memory (`--chunk 0`), at each N given; then the peak-RSS ratio largest N /
# smallest N per mode (1.0 = memory independent of N).
#
# Usage: benches/positions_learner.sh [N...]   (default: 100000 1000000)
# Env:   DATA: folder of .psv files (default /work/gen1m/positions, else
#        runs/gen-d3/positions); MODES (default "stream memory").
# The N positions are the first N records of DATA's files in order; when
# DATA holds fewer, its records are repeated (said on the output): the cost
# of a position does not depend on having been seen. Epoch 1 reads, decodes
# and builds the quiescence leaves (streamed: and writes the leaf cache);
# epoch 2 reads the cache (streamed) or the leaves in memory. The in-memory
# learner builds its leaves before epoch 1: its "build" column is the wall
# time less its epochs. The issue's target: one epoch over 1M positions in
# under 2 minutes on 2 cores, peak RSS independent of N. On a shared machine
# the figures are those of the cores this run got: the load is printed.
set -euo pipefail
HERE=$(cd "$(dirname "$0")/.." && pwd)
BIN=$HERE/target/release/kifulearn
[[ -x $BIN ]] || (cd "$HERE" && cargo build --release --bin kifulearn)
SIZES=("$@")
[[ ${#SIZES[@]} -gt 0 ]] || SIZES=(100000 1000000)
DATA=${DATA:-/work/gen1m/positions}
[[ -d $DATA ]] || DATA=$HERE/runs/gen-d3/positions
MODES=${MODES:-stream memory}
TMP=$(mktemp -d); trap 'rm -rf "$TMP"' EXIT
mapfile -t FILES < <(find "$DATA" -name '*.psv' | sort)
[[ ${#FILES[@]} -gt 0 ]] || { echo "no .psv file under $DATA" >&2; exit 1; }
HAVE=$(cat "${FILES[@]}" | wc -c); HAVE=$((HAVE / 40))
echo "data: $DATA ($HAVE positions), cores: $(nproc), load average: $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-7s %9s %7s %9s %9s %9s %11s %11s %9s\n' mode positions chunks build_s epoch1_s epoch2_s epoch1_pos/s epoch2_pos/s peak_MB
declare -A RSS
for N in "${SIZES[@]}"; do
  # N records: DATA's records in order, repeated as often as needed.
  : > "$TMP/data.psv"
  while (( $(stat -c %s "$TMP/data.psv") < N * 40 )); do cat "${FILES[@]}" >> "$TMP/data.psv"; done
  truncate -s $((N * 40)) "$TMP/data.psv"
  (( N > HAVE )) && echo "note: N=$N > $HAVE positions in $DATA: records repeated"
  for MODE in $MODES; do
    CHUNK=65536; [[ $MODE == memory ]] && CHUNK=0
    /usr/bin/time -v "$BIN" fit positions "$TMP/data.psv" --features relation,material,kp \
      --result-weight 0 --mu 3e-7 --epochs 2 --chunk $CHUNK --out "$TMP/m.txt" \
      > /dev/null 2> "$TMP/err" || { cat "$TMP/err" >&2; exit 1; }
    C=$(sed -n 's/.* in \([0-9]*\) chunks .*/\1/p' "$TMP/err"); C=${C:-1}
    read -r W R E1 E2 < <(awk -F': ' '
      /Elapsed \(wall clock\)/ {n=split($2,a,":"); s=0; for(i=1;i<=n;i++) s=s*60+a[i]; w=s}
      /Maximum resident set size/ {r=$2/1024}
      /^epoch +1 / {e1=$0; sub(/s$/,"",e1); n=split(e1,b," "); e1=b[n]}
      /^epoch +2 / {e2=$0; sub(/s$/,"",e2); n=split(e2,b," "); e2=b[n]}
      END {print w, r, e1, e2}' "$TMP/err")
    awk -v m="$MODE" -v n="$N" -v c="$C" -v w="$W" -v r="$R" -v e1="$E1" -v e2="$E2" 'BEGIN {
      build = w - e1 - e2; if (m == "stream") build = 0
      printf "%-7s %9d %7d %9.1f %9.1f %9.1f %11.0f %11.0f %9.0f\n", m, n, c, build, e1, e2, n / e1, n / e2, r }'
    RSS[$MODE,$N]=$R
  done
done
FIRST=${SIZES[0]}; LAST=${SIZES[${#SIZES[@]}-1]}
for MODE in $MODES; do
  awk -v m="$MODE" -v a="${RSS[$MODE,$FIRST]}" -v b="${RSS[$MODE,$LAST]}" -v f="$FIRST" -v l="$LAST" \
    'BEGIN {printf "%s: peak RSS %d / %d positions = %.2f\n", m, l, f, b / a}'
done
echo "target: epoch over 1M positions < 120 s (streamed epoch 1 builds the leaves: the first and slowest epoch)"
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
