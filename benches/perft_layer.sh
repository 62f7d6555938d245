#!/usr/bin/env bash
# Cost of our Position layer over haitaka, measured in instructions (callgrind),
# which stay the same however busy the shared machine is. Prints one line per
# position and the ratio kifulearn/haitaka (target: below 1.10). Start-up
# instructions (`perft 0`) are subtracted.
#
# Usage: benches/perft_layer.sh   (needs valgrind; builds the release binary)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/kifulearn
count() { # args... -> instructions executed
  local out; out=$(mktemp)
  valgrind --tool=callgrind --callgrind-out-file="$out" "$bin" "$@" >/dev/null 2>"$out.log"
  grep -E '^summary:|^totals:' "$out" | head -1 | awk '{print $2}'
  rm -f "$out" "$out.log"
}
midgame="l6nl/5+P1gk/2np1S3/p1p4Pp/3P2Sp1/1PPb2P1P/P5GS1/R8/LN4bKL w RGgsn5p 1"
# Process start-up and argument parsing, subtracted from every count.
startup=$(count perft 0)
printf '%-22s %16s %16s %8s\n' position kifulearn haitaka ratio
for spec in "startpos 4" "midgame 3"; do
  set -- $spec
  if [ "$1" = startpos ]; then args=(perft "$2"); else args=(perft "$2" --sfen "$midgame"); fi
  ours=$(( $(count "${args[@]}") - startup ))
  base=$(( $(count "${args[@]}" --baseline) - startup ))
  printf '%-22s %16s %16s %8.4f\n' "$1 depth $2" "$ours" "$base" "$(echo "$ours / $base" | bc -l)"
done
