#!/usr/bin/env bash
# Runs the README's command examples (every line of its ```sh blocks), top to
# bottom, in a scratch folder where their outputs go, and stops at the first
# failure. The commands are read from README.md when the script runs, so they
# cannot drift from it.
#
#   scripts/readme_examples.sh          run them (379 s in CI on 2 cores, 2026-11-28)
#   scripts/readme_examples.sh --list   print what would run (README line → command), run nothing
#   KEEP=1 scripts/readme_examples.sh   keep the scratch folder
#   WORK=DIR scripts/readme_examples.sh  use DIR (empty or new) as the scratch
#                                        folder and keep it (.ci/run reads the
#                                        quick start's output there)
#
# `cargo run --release -- ARGS` runs target/release/kifulearn ARGS (built once
# first); `scripts/...` runs the repository's script. The scratch folder holds
# `fixtures` and `pipelines` (links to the repository's), so paths resolve as
# they do in a checkout.
#
# What is changed, and why (each is printed when it applies; a rule whose
# README line is gone fails the run, so the list stays true):
#   - long runs are shortened: match games 400/200 → 20, 2000 games of 20000
#     nodes → 10 of 2000, generated positions 100000/200000 → 2000/4000, the
#     strength recipe plays 20 games (a copy of the recipe), the method table
#     with -t -m (no matches; its matches need cshogi);
#   - the primal SVR stops after 4 Newton steps (--max-iter 4);
#   - the relabelling with a model reads the first 12 plies of fixtures/pro
#     only (all of it took 378 s here);
#   - `cargo test --release` is not run here (.ci/run runs it after this);
#   - files the README names as the reader's own (teacher.bin, data.hcpe,
#     A.model, B.model) are made first: a 64-game self-play .psv, its HCPE
#     conversion, and the ranking and positions models of the earlier lines.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
list_only=0
[ "${1:-}" = "--list" ] && list_only=1

# README command (comment stripped) → the command run instead ("" = skipped).
declare -A CHANGED=(
  ["cargo test --release"]=""
  ["cargo run --release -- pipeline run pipelines/strength.toml --out runs/strength"]="cargo run --release -- pipeline run pipelines-ci/strength.toml --out runs/strength"
  ["cargo run --release -- match --engine-a runs/strength/final.model --engine-b material --depth 3 --games 400"]="cargo run --release -- match --engine-a runs/strength/final.model --engine-b material --depth 3 --games 20"
  ["cargo run --release -- generate --out gen --positions 100000 --depth 3"]="cargo run --release -- generate --out gen --positions 2000 --depth 3"
  ["cargo run --release -- generate --out gen --positions 200000 --depth 3"]="cargo run --release -- generate --out gen --positions 4000 --depth 3"
  ["cargo run --release -- extract fixtures/tournament fixtures/pro fixtures/selfplay --out out/rows2 --evaluator out/model.txt"]="cargo run --release -- extract fixtures/pro --out out/rows2 --evaluator out/model.txt --max-plies 12"
  ["cargo run --release -- match --engine-a out/rank.txt --engine-b material --depth 2 --games 200 --out out/match"]="cargo run --release -- match --engine-a out/rank.txt --engine-b material --depth 2 --games 20 --out out/match"
  ["cargo run --release -- match --engine-a A.model --engine-b B.model --nodes 20000 --games 2000 --elo0 0 --elo1 10"]="cargo run --release -- match --engine-a A.model --engine-b B.model --nodes 2000 --games 10 --elo0 0 --elo1 10"
  ["scripts/method_table.sh"]="scripts/method_table.sh -t -m -o runs/methods"
  ["cargo run --release -- match --engine-a out/rank.txt --engine-b usi:/usr/games/fairy-stockfish --movetime 100 --games 20"]="cargo run --release -- match --engine-a out/rank.txt --engine-b usi:/usr/games/fairy-stockfish --movetime 100 --games 2"
  ["cargo run --release -- fit svr out/rows --features relation --out out/model.txt --solver primal -c 1 -p 0.1"]="cargo run --release -- fit svr out/rows --features relation --out out/model.txt --solver primal -c 1 -p 0.1 --max-iter 4"
)
declare -A WHY=(
  ["cargo test --release"]="skipped: .ci/run runs the tests after this script"
  ["cargo run --release -- pipeline run pipelines/strength.toml --out runs/strength"]="plays 20 match games instead of 400 (pipelines-ci/strength.toml is a copy with [match] games = 20)"
  ["cargo run --release -- match --engine-a runs/strength/final.model --engine-b material --depth 3 --games 400"]="20 games instead of 400"
  ["cargo run --release -- generate --out gen --positions 100000 --depth 3"]="2000 positions instead of 100000"
  ["cargo run --release -- generate --out gen --positions 200000 --depth 3"]="4000 positions instead of 200000: the first run's chunk of 64 games already holds more, so it resumes and adds nothing"
  ["cargo run --release -- extract fixtures/tournament fixtures/pro fixtures/selfplay --out out/rows2 --evaluator out/model.txt"]="fixtures/pro only (2 of the 15 games), plies 0-11 (--max-plies 12): with a model the labeller is slow on middle games (all of fixtures/pro took 378 s here, 38 rows/s)"
  ["cargo run --release -- match --engine-a out/rank.txt --engine-b material --depth 2 --games 200 --out out/match"]="20 games instead of 200"
  ["cargo run --release -- match --engine-a A.model --engine-b B.model --nodes 20000 --games 2000 --elo0 0 --elo1 10"]="10 games of 2000 nodes a move instead of 2000 of 20000 (20 games took 182 s here); A.model and B.model are copies of out/rank.txt and out/pos.txt"
  ["cargo run --release -- fit svr out/rows --features relation --out out/model.txt --solver primal -c 1 -p 0.1"]="4 Newton steps (--max-iter 4): the default stop takes about 25 steps, 5 CPU-minutes, on these 126k rows"
  ["scripts/method_table.sh"]="-t -m: the tiny split without matches (about 35 minutes otherwise; its matches need cshogi)"
  ["cargo run --release -- match --engine-a out/rank.txt --engine-b usi:/usr/games/fairy-stockfish --movetime 100 --games 20"]="2 games instead of 20 (about 10 s instead of 90 s on 2 cores)"
)

# The README's commands, one per line, without their trailing comments.
mapfile -t commands < <(awk '/^```sh$/ {f = 1; next} /^```/ {f = 0} f' "$here/README.md" \
  | sed -e 's/[[:space:]]#.*$//' -e 's/[[:space:]]*$//' | grep -v '^$')
declare -A seen=()
for c in "${commands[@]}"; do seen["$c"]=1; done
for c in "${!CHANGED[@]}"; do
  if [ -z "${seen[$c]:-}" ]; then
    echo "readme_examples: the rule for \`$c\` matches no README line: update scripts/readme_examples.sh" >&2
    exit 1
  fi
done

if [ "$list_only" = 1 ]; then
  for c in "${commands[@]}"; do
    if [ -n "${CHANGED[$c]+x}" ]; then
      printf '%s\n  → %s (%s)\n' "$c" "${CHANGED[$c]:-(not run)}" "${WHY[$c]}"
    else
      printf '%s\n' "$c"
    fi
  done
  exit 0
fi

cargo build --release --quiet --manifest-path "$here/Cargo.toml"
bin="$here/target/release/kifulearn"
if [ -n "${WORK:-}" ]; then
  mkdir -p "$WORK"
  [ -z "$(ls -A "$WORK")" ] || { echo "readme_examples: WORK=$WORK is not empty" >&2; exit 1; }
  top="$(cd "$WORK" && pwd)"
  KEEP=1
else
  top="$(mktemp -d)"
fi
if [ "${KEEP:-}" = 1 ]; then
  echo "readme_examples: scratch folder $top (kept)"
else
  trap 'rm -rf "$top"' EXIT
fi
work="$top/work"
mkdir -p "$work/pipelines-ci"
ln -s "$here/fixtures" "$work/fixtures"
ln -s "$here/pipelines" "$work/pipelines"
sed 's/^games = 400$/games = 20/' "$here/pipelines/strength.toml" >"$work/pipelines-ci/strength.toml"
grep -q '^games = 20$' "$work/pipelines-ci/strength.toml" \
  || { echo "readme_examples: pipelines/strength.toml has no 'games = 400' line to shorten" >&2; exit 1; }

# The commands as the README writes them, with these two names resolved.
cargo() {
  if [ "${1:-}" = run ] && [ "${2:-}" = --release ] && [ "${3:-}" = -- ]; then
    shift 3
    "$bin" "$@"
  else
    echo "readme_examples: unexpected cargo command: cargo $*" >&2
    return 1
  fi
}
scripts_dir="$here/scripts"

# The files the README leaves to the reader.
prepare() {
  case "$1" in
    *" teacher.bin"*)
      if [ ! -f teacher.bin ]; then
        echo "  (making teacher.bin: 64 self-play games at depth 1)"
        "$bin" generate --out "$top/teacher-gen" --positions 30 --depth 1 --jobs 1 >/dev/null
        cp "$top"/teacher-gen/positions/000000.psv teacher.bin
      fi ;;
    *" data.hcpe"*)
      [ -f data.hcpe ] || { echo "  (data.hcpe: a copy of teacher.hcpe)"; cp teacher.hcpe data.hcpe; } ;;
    *" A.model"*)
      echo "  (A.model, B.model: copies of out/rank.txt and out/pos.txt with their sidecars)"
      cp out/rank.txt A.model && cp out/rank.txt.meta.toml A.model.meta.toml
      cp out/pos.txt B.model && cp out/pos.txt.meta.toml B.model.meta.toml ;;
  esac
}

cd "$work"
n=0
start_all=$(date +%s)
for c in "${commands[@]}"; do
  n=$((n + 1))
  run="$c"
  if [ -n "${CHANGED[$c]+x}" ]; then
    run="${CHANGED[$c]}"
    echo "== [$n/${#commands[@]}] $c"
    echo "   changed: ${WHY[$c]}"
    [ -z "$run" ] && continue
    echo "   running: $run"
  else
    echo "== [$n/${#commands[@]}] $c"
  fi
  prepare "$run"
  run="${run/#scripts\//$scripts_dir/}"
  t0=$(date +%s)
  if ! eval "$run" >"$top/last.log" 2>&1; then
    tail -30 "$top/last.log"
    echo "readme_examples: FAILED: $c" >&2
    exit 1
  fi
  tail -2 "$top/last.log" | sed 's/^/   | /'
  echo "   ok, $(( $(date +%s) - t0 )) s"
done
echo "readme_examples: ${#commands[@]} README commands ok in $(( $(date +%s) - start_all )) s"
