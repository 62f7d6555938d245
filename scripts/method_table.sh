#!/usr/bin/env bash
# The method table: every learner, with and without mirror tying, trained on the
# same development games and measured the same way.
#
# Usage:
#   scripts/method_table.sh [-o OUTDIR] [-n GAMES] [-d DEPTH] [-k KIFU_DIR] [-t] [-m]
#
#   -o OUTDIR   work and result folder (default runs/methods); rerunning resumes:
#               a step whose output exists is skipped
#   -n GAMES    match games per method against the material engine (default 200)
#   -d DEPTH    fixed search depth of both engines in the matches (default 2)
#   -k DIR      the development games (default ../shared/kifu)
#   -t          tiny: 6 training and 4 held-out games, 20 match games (a smoke test)
#   -m          skip the matches (agreement, time, memory and weights only)
#
# Split (deterministic, by game; no game is in both parts):
#   training  DIR/tournament/**/*.csa (47) + DIR/selfplay/fsf_selfplay_w1_00000..00149 (120 files)
#   held out  DIR/pro/*.csa (10) + DIR/selfplay/fsf_selfplay_w2_*.csa (314)
# Methods (features `relation` or `relation,material`, each also `,mirror`):
#   material             the built-in material evaluator (no training; has no squares to mirror)
#   relation + SVR       extract (material labeller, margin 100) → fit --solver primal -e 0.001 (C 1, p 0.1)
#   relation,material + SVR   the same on the combined set
#   ranking              fit --method ranking on the training records (relation,material, defaults)
#   streaming            fit --method streaming --epochs 5 --seed 1 on the relation,material rows
# Columns: held-out top-1/top-3 (kifulearn evaluate, depth 1, fair ties), match
# score against `kifulearn usi` (material) at equal fixed depth from the
# floodgate-2016 openings (cshogi referee), training seconds and peak RSS of the
# learning step (extract counted separately), non-zero weights in the model.
# Output: OUTDIR/methods.csv and OUTDIR/methods.md (the README table).
# Needs: /usr/bin/time, python3 with cshogi (.ci/install-peers.sh installs both).
set -euo pipefail
here="$(cd "$(dirname "$0")/.." && pwd)"
out="$here/runs/methods"
games=200
depth=2
kifu="$here/../shared/kifu"
tiny=0
matches=1
while getopts "o:n:d:k:tmh" opt; do
  case "$opt" in
    o) out="$OPTARG" ;;
    n) games="$OPTARG" ;;
    d) depth="$OPTARG" ;;
    k) kifu="$OPTARG" ;;
    t) tiny=1 ;;
    m) matches=0 ;;
    *) sed -n '2,32p' "$0"; exit 2 ;;
  esac
done
kifu="$(cd "$kifu" && pwd)"
cargo build --release --manifest-path "$here/Cargo.toml" >&2
bin="$here/target/release/kifulearn"
mkdir -p "$out"
out="$(cd "$out" && pwd)"

# --- the split, as folders of links -------------------------------------------
if [ ! -d "$out/train" ]; then
  mkdir -p "$out/train.tmp" "$out/held.tmp"
  if [ "$tiny" = 1 ]; then
    train=$(ls "$kifu"/selfplay/fsf_selfplay_w1_0000[0-5].csa)
    held=$(ls "$kifu"/selfplay/fsf_selfplay_w2_0000[0-3].csa)
    games=20
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

# Runs a command once: skipped when $1 exists; records "seconds peak_kB" in $1.time.
timed() {
  local done_file="$1"; shift
  [ -e "$done_file" ] && return 0
  /usr/bin/time -f "%e %M" -o "$done_file.time.tmp" "$@" >&2
  mv "$done_file.time.tmp" "$done_file.time"
}

slug() { echo "$1" | tr ',' '+'; }

# --- extraction and learning ----------------------------------------------------
for f in relation relation,mirror relation,material relation,material,mirror; do
  s=$(slug "$f")
  timed "$out/ex-$s.done" "$bin" extract "$out/train" --features "$f" --out "$out/ex-$s"
  touch "$out/ex-$s.done"
  timed "$out/svr-$s.txt" "$bin" fit "$out/ex-$s" --features "$f" --solver primal -e 0.001 \
    --out "$out/svr-$s.txt"
done
for f in relation,material relation,material,mirror; do
  s=$(slug "$f")
  timed "$out/ranking-$s.txt" "$bin" fit --method ranking "$out/train" --features "$f" \
    --out "$out/ranking-$s.txt"
  timed "$out/streaming-$s.txt" "$bin" fit --method streaming "$out/ex-$s" --features "$f" \
    --epochs 5 --seed 1 --out "$out/streaming-$s.txt"
done

# --- measuring --------------------------------------------------------------------
methods="material:material"
for f in relation relation,mirror relation,material relation,material,mirror; do
  methods="$methods svr-$(slug "$f"):$out/svr-$(slug "$f").txt"
done
for learner in ranking streaming; do
  for f in relation,material relation,material,mirror; do
    methods="$methods $learner-$(slug "$f"):$out/$learner-$(slug "$f").txt"
  done
done
for m in $methods; do
  name="${m%%:*}"; model="${m#*:}"
  if [ ! -e "$out/eval-$name.csv" ]; then
    "$bin" evaluate --model "$model" "$out/held" --csv "$out/eval-$name.csv.tmp" >&2
    mv "$out/eval-$name.csv.tmp" "$out/eval-$name.csv"
  fi
  if [ "$matches" = 1 ] && [ ! -e "$out/match-$name/summary.json" ]; then
    engine="$bin usi"
    [ "$model" = material ] || engine="$bin usi --model $model"
    rm -rf "$out/match-$name"
    python3 "$here/../shared/tools/usi_match.py" "$engine" "$bin usi" --games "$games" \
      --depth "$depth" --openings "$kifu/floodgate2016-openings.sfen" \
      --name-a "$name" --name-b material --out "$out/match-$name" | tail -3 >&2
  fi
done

# --- the table ----------------------------------------------------------------------
python3 - "$out" "$depth" "$methods" <<'PY'
import csv, json, os, sys
out, depth, methods = sys.argv[1], sys.argv[2], sys.argv[3].split()
label = {
    "material": ("material (built-in)", "–"),
    "svr-relation": ("relation + SVR (Mecha-Joshi)", "no"),
    "svr-relation+mirror": ("relation + SVR (Mecha-Joshi)", "yes"),
    "svr-relation+material": ("relation,material + SVR", "no"),
    "svr-relation+material+mirror": ("relation,material + SVR", "yes"),
    "ranking-relation+material": ("ranking (relation,material)", "no"),
    "ranking-relation+material+mirror": ("ranking (relation,material)", "yes"),
    "streaming-relation+material": ("streaming (relation,material)", "no"),
    "streaming-relation+material+mirror": ("streaming (relation,material)", "yes"),
}
def read_time(path):
    try:
        s, kb = open(path).read().split()[-2:]
        return float(s), int(kb) / 1024
    except OSError:
        return None, None
def nonzero(model):
    try:
        lines = open(model).read().split("\n")
    except OSError:
        return None
    w = lines[lines.index("w") + 1:]
    return sum(1 for x in w if x.strip() and float(x) != 0.0)
rows = []
for m in methods:
    name, model = m.split(":", 1)
    ev = {}
    with open(os.path.join(out, f"eval-{name}.csv")) as f:
        for r in csv.DictReader(f):
            if r["phase"] == "all":
                ev = r
    score = games = ""
    sj = os.path.join(out, f"match-{name}", "summary.json")
    if os.path.exists(sj):
        s = json.load(open(sj))
        score, games = s["score"], s["games"]
    secs, mb = read_time(model + ".time") if model != "material" else (None, None)
    ex_secs = None
    if name.startswith(("svr-", "streaming-")):
        ex_secs, _ = read_time(os.path.join(out, "ex-" + name.split("-", 1)[1] + ".done.time"))
    what, mirror = label[name]
    rows.append({
        "method": what, "mirror": mirror, "positions": ev.get("positions", ""),
        "top1": ev.get("top1", ""), "top3": ev.get("top3", ""),
        "score_vs_material": score, "match_games": games, "depth": depth,
        "train_s": "" if secs is None else f"{secs:.1f}",
        "extract_s": "" if ex_secs is None else f"{ex_secs:.1f}",
        "peak_mb": "" if mb is None else f"{mb:.0f}",
        "nonzero_weights": "" if model == "material" else nonzero(model),
    })
with open(os.path.join(out, "methods.csv"), "w", newline="") as f:
    w = csv.DictWriter(f, fieldnames=list(rows[0]))
    w.writeheader()
    w.writerows(rows)
cols = ["method", "mirror", "top1", "top3", "score_vs_material", "train_s", "extract_s", "peak_mb", "nonzero_weights"]
head = ["method", "mirror", "held-out top-1", "top-3", f"score vs material (depth {depth})", "training s", "extract s", "peak MB", "non-zero weights"]
md = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
for r in rows:
    cells = [str(r[c]) for c in cols]
    for i in (2, 3):
        cells[i] = f"{float(cells[i]):.4f}"
    if r["match_games"]:
        cells[4] = f"{float(r['score_vs_material']):.3f} ({r['match_games']} games)"
    md.append("| " + " | ".join(cells) + " |")
open(os.path.join(out, "methods.md"), "w").write("\n".join(md) + "\n")
print("\n".join(md))
print(f"held-out positions: {rows[0]['positions']}; files: {out}/methods.csv, {out}/methods.md")
PY
