#!/usr/bin/env bash
# Play a match between two USI engine configurations. With KIFULEARN_SHARED=DIR
# (the development collection, not shipped) it is refereed by cshogi
# (DIR/tools/usi_match.py) from DIR/kifu/floodgate2016-openings.sfen, as the
# figures that name this script were; without it, by `kifulearn match` from the
# bundled test openings (fixtures/openings/match.sfen), the engines as `usi:`.
#
# Usage:
#   scripts/match.sh [-n GAMES] [-d DEPTH] [-o OUTDIR] [-a "ENGINE_A"] [-b "ENGINE_B"] \
#                    [-- extra usi_match.py arguments]
#
# Defaults: 20 games at depth 2, both engines `target/release/kifulearn usi`,
# output in runs/match-<timestamp>. Game i starts from opening line i/2 and the
# engines swap colours every game, so each opening is played from both sides.
# Engine-specific USI options go after `--` (usi_match.py's, or `kifulearn
# match`'s options without KIFULEARN_SHARED), e.g.
#   scripts/match.sh -n 20 -d 2 -- --option-b EvalNoise=50
# or against Fairy-Stockfish (its hash option is `Hash`; it ignores gameover):
#   scripts/match.sh -n 4 -d 1 -b /usr/games/fairy-stockfish
# The summary on stdout gives W/L/D from A's view and an Elo estimate with a 95%
# interval; DIR holds one CSA file per game (and usi_match.py's results.jsonl
# and summary.json, or kifulearn's results.csv and summary.txt).
# Needs, with KIFULEARN_SHARED: python3 with cshogi (python3 -m pip install cshogi).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
games=20
depth=2
out=""
engine_a="$here/target/release/kifulearn usi"
engine_b="$here/target/release/kifulearn usi"
while getopts "n:d:o:a:b:h" opt; do
  case "$opt" in
    n) games="$OPTARG" ;;
    d) depth="$OPTARG" ;;
    o) out="$OPTARG" ;;
    a) engine_a="$OPTARG" ;;
    b) engine_b="$OPTARG" ;;
    *) sed -n '2,23p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ "${1:-}" = "--" ] && shift
[ -x "$here/target/release/kifulearn" ] || cargo build --release --manifest-path "$here/Cargo.toml"
out="${out:-$here/runs/match-$(date +%Y%m%d-%H%M%S)}"
if [ -n "${KIFULEARN_SHARED:-}" ]; then
  exec python3 "$KIFULEARN_SHARED/tools/usi_match.py" "$engine_a" "$engine_b" \
    --games "$games" --depth "$depth" \
    --openings "$KIFULEARN_SHARED/kifu/floodgate2016-openings.sfen" \
    --out "$out" "$@"
fi
exec "$here/target/release/kifulearn" match --engine-a "usi:$engine_a" --engine-b "usi:$engine_b" \
  --games "$games" --depth "$depth" --out "$out" "$@"
