#!/usr/bin/env bash
# Runs every fuzz target of fuzz/ for SECONDS each (default 30), one after the
# other, and prints the executions of each (libFuzzer's
# stat::number_of_executed_units). Stops at the first crash, naming the
# reproducer in fuzz/artifacts/TARGET/. docs/fuzzing.md explains the targets.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]     e.g. scripts/fuzz.sh 20
#   FUZZ_RUNS=10000000 scripts/fuzz.sh 3600   stop a target at 10M executions
#   FUZZ_BUILD=dev scripts/fuzz.sh 10         unoptimised build (-D): builds in
#                                             half the time, runs ~10x fewer
#                                             executions (what .ci/run uses)
#
# Needs cargo-fuzz (`cargo install cargo-fuzz`); works on stable Rust, as it
# builds without a sanitizer (`-s none`: the library has no unsafe code, so
# AddressSanitizer would only slow it down). Exits 0 with a visible SKIPPED
# line when cargo-fuzz is missing (.ci/run installs it first). Seeds the
# corpora first (scripts/fuzz-seeds.sh). Logs: fuzz/logs/TARGET.log.
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${1:-30}
shift || true
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: SKIPPED, cargo-fuzz is not installed (cargo install cargo-fuzz)"
  exit 0
fi
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  mapfile -t TARGETS < <(cd fuzz && cargo fuzz list)
fi
case "${FUZZ_BUILD:-release}" in
  release) mode=-O ;;
  dev) mode=-D ;;
  *) echo "fuzz: FUZZ_BUILD is release or dev, not ${FUZZ_BUILD}" >&2; exit 2 ;;
esac
bash scripts/fuzz-seeds.sh >/dev/null
(cd fuzz && cargo fuzz build -s none "$mode")
mkdir -p fuzz/logs
RUNS=${FUZZ_RUNS:--1}
total=0
printf '%-16s %12s %8s %s\n' target executions seconds exec/s
for t in "${TARGETS[@]}"; do
  log=fuzz/logs/$t.log
  start=$(date +%s)
  if ! (cd fuzz && cargo fuzz run -s none "$mode" "$t" -- -max_total_time="$SECONDS_EACH" \
      -runs="$RUNS" -print_final_stats=1 -rss_limit_mb=2048 -timeout=10) >"$log" 2>&1; then
    echo "fuzz: $t FAILED; see $log and fuzz/artifacts/$t/" >&2
    grep -E "panicked|ERROR|SUMMARY|artifact_prefix|Test unit written" "$log" | head -20 >&2
    exit 1
  fi
  secs=$(( $(date +%s) - start ))
  n=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  total=$((total + ${n:-0}))
  printf '%-16s %12s %8s %s\n' "$t" "${n:-?}" "$secs" "$(( ${n:-0} / (secs > 0 ? secs : 1) ))"
done
echo "fuzz: ${#TARGETS[@]} targets, $total executions, 0 crashes"
