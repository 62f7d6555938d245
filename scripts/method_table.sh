#!/usr/bin/env bash
# The method table: every learner, with rows at the sibling or at the
# quiescence leaf, with and without a prior, trained on the same development
# games and judged the same way: agreement on held-out games and matches
# against the material engine at depth 2 and depth 3. By default on the games
# bundled in fixtures/ (6 training, 6 held out); the table of docs/results.md
# was made on the development collection (-k $KIFU, not shipped).
#
# With -g, the table of generated self-play data instead (issue 35): every
# learner on one set of positions, `kifulearn generate --depth 3` from the
# bundled training openings (the test openings are never trained on).
#
# Usage:
#   scripts/method_table.sh [-o OUTDIR] [-n GAMES] [-k KIFU_DIR] [-t] [-m]
#   scripts/method_table.sh -g [-P POSITIONS] [-j JOBS] [-o OUTDIR] [-n GAMES] [-t] [-m]
#
#   -o OUTDIR   work and result folder (default runs/methods); rerunning resumes:
#               a step whose output exists is skipped
#   -n GAMES    match games per method and depth (default 200)
#   -k DIR      the game folder, laid out as the development collection's kifu/
#               (default fixtures, the bundled games)
#   -t          tiny: 20 match games, and with the development collection
#               6 training and 4 held-out games (a smoke test)
#   -m          skip the matches (agreement, time, memory and weights only)
#   -g          generated self-play data (below) instead of the game split
#   -P N        -g: positions to generate (default 120000; -t: 3000)
#   -j N        -g: threads of `generate` and `fit ranking` (default: all cores;
#               ranking's model depends on them)
#   -J N        threads of each match (default: all cores)
#
# Split (deterministic, by game; no game is in both parts; the counts are the
# development collection's, fixtures/ gives 5 + 1 and 2 + 4):
#   training  DIR/tournament/**/*.csa (47) + DIR/selfplay/fsf_selfplay_w1_00000..00149 (120 files)
#   held out  DIR/pro/*.csa (10) + DIR/selfplay/fsf_selfplay_w2_*.csa (314)
# Matches: `kifulearn match` from the bundled test openings
# (fixtures/openings/match.sfen, never trained on), colours swapped per opening.
# Features: relation,material,kp for every learner (the strength recipe's set).
# Rows (svr, streaming): extract with the material labeller (margin 100),
# `--rows-at sibling` (Mecha-Joshi) or `--rows-at leaf` (end of the labelling
# search's line). SVR: dual CD, C 0.01, p 0 (no tube); prior: `--prior material`.
# Ranking: 10 epochs AdaGrad; `--leaf`; prior: `--prior material
# --anchor-material`. Streaming: 5 epochs, no prior. Positions: leaves
# by construction; prior material (anchored, μ 1e-6, the strength recipe) or
# zero (`--prior zero --learn-material`).
# Output: OUTDIR/methods.csv and OUTDIR/methods.md (the README table).
#
# -g (default OUTDIR runs/methods-gen): `generate --out OUTDIR/gen --depth 3
# --positions N` (material self-play; a rerun resumes it, an existing gen/
# of the same options is reused), then one data set for every learner,
# features material,kp: position rows `positions gen --rows rows
# --result-weight 0 --qid` (labels the depth-3 search scores) for the SVR
# (`--prior material -p 0 -c 2e-3`) and the streaming learner (`--prior
# material --rate 0.005 --epochs 50 --min-frequency 300 --batch-games 1`);
# the games gen/games/ (every move past the opening and the random plies,
# ply 32, a depth-3 search's best move) for ranking (`--prior material
# --anchor-material --rate 1e-4 --epochs 2`, `--leaf` or `--research`); the position files
# for the positions learner (`--result-weight 0`, anchored, μ 1e-6, and
# with the piece values learned, μ 1e-8). No held-out agreement (no held-out
# games): the table is the matches.
# Needs: /usr/bin/time.
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/runs/methods"
games=200
kifu="$here/fixtures"
tiny=0
matches=1
gen=0
positions=""
jobs=()
match_jobs=()
out_set=0
while getopts "o:n:k:tmgP:j:J:h" opt; do
  case "$opt" in
    o) out="$OPTARG"; out_set=1 ;;
    g) gen=1 ;;
    P) positions="$OPTARG" ;;
    j) jobs=(--jobs "$OPTARG") ;;
    J) match_jobs=(--jobs "$OPTARG") ;;
    n) games="$OPTARG" ;;
    k) kifu="$OPTARG" ;;
    t) tiny=1 ;;
    m) matches=0 ;;
    *) sed -n '2,60p' "$0"; exit 2 ;;
  esac
done
[ "$gen" = 1 ] && [ "$out_set" = 0 ] && out="$here/runs/methods-gen"
kifu="$(cd "$kifu" && pwd)"
cargo build --release --manifest-path "$here/Cargo.toml" >&2
mkdir -p "$out"
out="$(cd "$out" && pwd)"
# One binary for the whole table, resumes included: a rebuild of the tree
# while the table runs must not mix two programs in one table.
[ -x "$out/kifulearn" ] || cp "${CARGO_TARGET_DIR:-$here/target}/release/kifulearn" "$out/kifulearn"
bin="$out/kifulearn"
set_="relation,material,kp"

# Runs a command once: skipped when $1 exists; records "seconds peak_kB" in $1.time.
timed() {
  local done_file="$1"; shift
  [ -e "$done_file" ] && return 0
  /usr/bin/time -f "%e %M" -o "$done_file.time.tmp" "$@" >&2
  mv "$done_file.time.tmp" "$done_file.time"
}

if [ "$gen" = 1 ]; then
  [ "$tiny" = 1 ] && games=20
  [ -n "$positions" ] || { [ "$tiny" = 1 ] && positions=3000 || positions=120000; }
  g="material,kp"
  # The settings chosen on this data (docs/results.md, "The seeds' own learners").
  streaming=(--rate 0.005 --epochs 50 --min-frequency 300 --batch-games 1 --seed 1)
  ranking=(--anchor-material --rate 1e-4 --epochs 2)
  # --- the data: self-play positions and their games ---------------------------------
  if [ ! -e "$out/gen.done" ]; then
    timed "$out/gen.done" "$bin" generate --out "$out/gen" --positions "$positions" --depth 3 "${jobs[@]}" -q
    touch "$out/gen.done"
  fi
  if [ ! -e "$out/rows.done" ]; then
    rm -rf "$out/rows"
    timed "$out/rows.done" "$bin" positions "$out/gen" --rows "$out/rows" --features "$g" \
      --result-weight 0 --qid
    touch "$out/rows.done"
  fi
  echo "data: $(ls "$out/gen/games" | wc -l) games, $(grep -m1 '^rows' "$out/rows/dataset.toml" || true)" >&2
  # --- learning ----------------------------------------------------------------------
  timed "$out/svr-position-prior.txt" "$bin" fit svr "$out/rows" --prior material -p 0 -c 2e-3 \
    --out "$out/svr-position-prior.txt"
  timed "$out/streaming-position-prior.txt" "$bin" fit streaming "$out/rows" --prior material \
    "${streaming[@]}" --out "$out/streaming-position-prior.txt"
  for leaf in leaf research; do
    timed "$out/ranking-$leaf-prior.txt" "$bin" fit ranking "$out/gen/games" --features "$g" \
      --"$leaf" --prior material --skip-opening 32 "${ranking[@]}" "${jobs[@]}" --out "$out/ranking-$leaf-prior.txt"
  done
  timed "$out/positions-leaf-prior.txt" "$bin" fit positions "$out/gen" --features "$g" \
    --result-weight 0 --out "$out/positions-leaf-prior.txt"
  timed "$out/positions-learned-prior.txt" "$bin" fit positions "$out/gen" --features "$g" \
    --result-weight 0 --learn-material --mu 1e-8 --out "$out/positions-learned-prior.txt"
  methods="material svr-position-prior streaming-position-prior ranking-leaf-prior ranking-research-prior"
  methods="$methods positions-leaf-prior positions-learned-prior"
fi

if [ "$gen" = 0 ]; then

# --- the split, as folders of links -------------------------------------------
if [ ! -d "$out/train" ]; then
  rm -rf "$out/train.tmp" "$out/held.tmp"
  mkdir -p "$out/train.tmp" "$out/held.tmp"
  if [ "$tiny" = 1 ] && ls "$kifu"/selfplay/fsf_selfplay_w1_0000[0-5].csa >/dev/null 2>&1; then
    train=$(ls "$kifu"/selfplay/fsf_selfplay_w1_0000[0-5].csa)
    held=$(ls "$kifu"/selfplay/fsf_selfplay_w2_0000[0-3].csa)
  else
    train=$( (find "$kifu/tournament" -name '*.csa'; ls "$kifu"/selfplay/fsf_selfplay_w1_00[01][0-9][0-9].csa) \
      | grep -v 'w1_001[5-9][0-9]' | sort)
    held=$(ls "$kifu"/pro/*.csa "$kifu"/selfplay/fsf_selfplay_w2_*.csa)
  fi
  for f in $train; do ln -s "$f" "$out/train.tmp/$(basename "$(dirname "$f")")-$(basename "$f")"; done
  [ "$(ls "$out/train.tmp" | wc -l)" = "$(echo "$train" | wc -l)" ] || { echo "split: a name collides" >&2; exit 1; }
  for f in $held; do ln -s "$f" "$out/held.tmp/$(basename "$(dirname "$f")")-$(basename "$f")"; done
  mv "$out/held.tmp" "$out/held"
  mv "$out/train.tmp" "$out/train"
fi
[ "$tiny" = 1 ] && games=20
echo "split: $(ls "$out/train" | wc -l) training games, $(ls "$out/held" | wc -l) held out" >&2

# --- rows and learning ------------------------------------------------------------
for at in sibling leaf; do
  timed "$out/ex-$at.done" "$bin" extract "$out/train" --features "$set_" --rows-at "$at" --out "$out/ex-$at"
  touch "$out/ex-$at.done"
  timed "$out/svr-$at.txt" "$bin" fit svr "$out/ex-$at" --features "$set_" --solver dual -c 0.01 -p 0 \
    --out "$out/svr-$at.txt"
  timed "$out/svr-$at-prior.txt" "$bin" fit svr "$out/ex-$at" --features "$set_" --solver dual -c 0.01 -p 0 \
    --prior material --out "$out/svr-$at-prior.txt"
  timed "$out/streaming-$at.txt" "$bin" fit streaming "$out/ex-$at" --features "$set_" \
    --epochs 5 --seed 1 --out "$out/streaming-$at.txt"
done
timed "$out/ranking-sibling.txt" "$bin" fit ranking "$out/train" --features "$set_" \
  --out "$out/ranking-sibling.txt"
timed "$out/ranking-sibling-prior.txt" "$bin" fit ranking "$out/train" --features "$set_" \
  --prior material --anchor-material --out "$out/ranking-sibling-prior.txt"
timed "$out/ranking-leaf.txt" "$bin" fit ranking "$out/train" --features "$set_" \
  --leaf --out "$out/ranking-leaf.txt"
timed "$out/ranking-leaf-prior.txt" "$bin" fit ranking "$out/train" --features "$set_" \
  --leaf --prior material --anchor-material --out "$out/ranking-leaf-prior.txt"
timed "$out/positions-leaf-prior.txt" "$bin" fit positions "$out/train" --features "$set_" \
  --out "$out/positions-leaf-prior.txt"
timed "$out/positions-leaf.txt" "$bin" fit positions "$out/train" --features "$set_" \
  --prior zero --learn-material --out "$out/positions-leaf.txt"

# --- measuring --------------------------------------------------------------------
methods="material"
for m in svr-sibling svr-sibling-prior svr-leaf svr-leaf-prior streaming-sibling streaming-leaf \
  ranking-sibling ranking-sibling-prior ranking-leaf ranking-leaf-prior positions-leaf positions-leaf-prior; do
  methods="$methods $m"
done
fi
for name in $methods; do
  model="$out/$name.txt"
  [ "$name" = material ] && model=material
  if [ "$gen" = 0 ] && [ ! -e "$out/eval-$name.csv" ]; then
    "$bin" evaluate --evaluator "$model" "$out/held" --csv "$out/eval-$name.csv.tmp" >&2
    mv "$out/eval-$name.csv.tmp" "$out/eval-$name.csv"
  fi
  for depth in 2 3; do
    if [ "$matches" = 1 ] && [ "$name" != material ] && [ ! -e "$out/match-$name-d$depth/summary.txt" ]; then
      rm -rf "$out/match-$name-d$depth"
      "$bin" match --engine-a "$model" --engine-b material --depth "$depth" --games "$games" \
        "${match_jobs[@]}" -q --out "$out/match-$name-d$depth" >&2
    fi
  done
done

# --- the table ----------------------------------------------------------------------
python3 - "$out" "$methods" "$gen" <<'PY'
import csv, os, re, sys
out, methods, gen = sys.argv[1], sys.argv[2].split(), sys.argv[3] == "1"
# -g: what each learner learned from (the data set is one; the column says which view of it).
data_of = {"svr-position-prior": "position rows", "streaming-position-prior": "position rows",
           "ranking-leaf-prior": "games, material leaves", "ranking-research-prior": "games, re-searched leaves",
           "positions-leaf-prior": "positions, anchored", "positions-learned-prior": "positions, pieces learned"}
def read_time(path):
    try:
        s, kb = open(path).read().split()[-2:]
        return float(s), int(kb) / 1024
    except OSError:
        return None, None
def nonzero(model):
    lines = open(model).read().split("\n")
    w = lines[lines.index("w") + 1:]
    return sum(1 for x in w if x.strip() and float(x) != 0.0)
def match(name, depth):
    p = os.path.join(out, f"match-{name}-d{depth}", "summary.txt")
    if not os.path.exists(p):
        return None
    t = open(p).read()
    m = re.search(r"\+(\d+) -(\d+) =(\d+), score ([0-9.]+), Elo ([+-]?[0-9.]+|[+-]?inf)(?: ± [0-9.]+)? \[([^,]+), ([^\]]+)\]", t)
    return m.groups() if m else None
rows = []
for name in methods:
    ev = {}
    if not gen:
        with open(os.path.join(out, f"eval-{name}.csv")) as f:
            for r in csv.DictReader(f):
                if r["phase"] == "all":
                    ev = r
    learner, _, rest = name.partition("-")
    at = "–" if learner == "material" else (data_of[name] if gen else rest.split("-")[0])
    prior = "material" if name.endswith("-prior") else ("–" if learner == "material" else "zero")
    row = {"learner": learner, "rows": at, "prior": prior, "positions": ev.get("positions", ""),
           "top1": ev.get("top1", ""), "top3": ev.get("top3", "")}
    for d in (2, 3):
        g = match(name, d) if learner != "material" else None
        row[f"d{d}_wld"] = f"{g[0]}–{g[1]}–{g[2]}" if g else ""
        row[f"d{d}_score"] = g[3] if g else ("0.500" if learner == "material" else "")
        row[f"d{d}_elo"] = f"{float(g[4]):+.0f} [{float(g[5]):+.0f}, {float(g[6]):+.0f}]" if g else ""
    model = os.path.join(out, f"{name}.txt")
    secs, mb = read_time(model + ".time") if learner != "material" else (None, None)
    row["train_s"] = "" if secs is None else f"{secs:.0f}"
    row["peak_mb"] = "" if mb is None else f"{mb:.0f}"
    row["nonzero_weights"] = "" if learner == "material" else nonzero(model)
    rows.append(row)
with open(os.path.join(out, "methods.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
head = ["learner", "rows at", "prior", "held-out top-1", "top-3", "depth 2: W–L–D", "score", "Elo (95%)",
        "depth 3: W–L–D", "score", "Elo (95%)", "training s", "peak MB", "non-zero weights"]
cols = ["learner", "rows", "prior", "top1", "top3", "d2_wld", "d2_score", "d2_elo", "d3_wld", "d3_score", "d3_elo",
        "train_s", "peak_mb", "nonzero_weights"]
if gen:
    head[1] = "learned from"
    del head[3:5], cols[3:5]
md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
for r in rows:
    cells = [str(r[c]) for c in cols]
    if not gen:
        for i in (3, 4):
            cells[i] = f"{float(cells[i]):.4f}"
    md.append("| " + " | ".join(cells) + " |")
open(os.path.join(out, "methods.md"), "w").write("\n".join(md) + "\n")
print("\n".join(md))
if gen:
    t = [read_time(os.path.join(out, f"{s}.done.time"))[0] for s in ("gen", "rows")]
    print(f"generation and rows s: {t}; files: {out}/methods.csv, {out}/methods.md")
    sys.exit(0)
ex = [read_time(os.path.join(out, f"ex-{a}.done.time"))[0] for a in ("sibling", "leaf")]
print(f"held-out positions: {rows[0]['positions']}; extraction s (sibling, leaf): {ex}; files: {out}/methods.csv, {out}/methods.md")
PY
