#!/usr/bin/env bash
# Seeds the fuzz corpora (fuzz/corpus/TARGET/, not committed) from the bundled
# inputs: records from fixtures/, the recipes of pipelines/, libsvm rows and
# liblinear models from fixtures/liblinear, and position files and binary
# models made here with the release binary (a 64-game depth-1 self-play run,
# two small fits). Idempotent: existing corpus files are kept (libFuzzer adds
# what it finds there). Usage: scripts/fuzz-seeds.sh
set -euo pipefail
cd "$(dirname "$0")/.."
C=fuzz/corpus
BIN=target/release/kifulearn
EXAMPLES=fixtures/liblinear
mkdir -p "$C"/{record_csa,record_kif,record_ki2,record_usi,record_kisen,libsvm,model_text,model_binary,recipe,positions_psv,positions_hcpe,usi_engine}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

seed() { # seed TARGET FILE...: copy files, named by content hash (no duplicates)
  local target=$1; shift
  for f in "$@"; do
    cp "$f" "$C/$target/seed-$(sha1sum "$f" | cut -c1-16)"
  done
}

seed record_csa $(find fixtures -name '*.csa')
seed record_kif $(find fixtures -name '*.kif' ! -path '*kisen*')
seed record_ki2 $(find fixtures -name '*.ki2' -o -name '*.ki2u')
seed record_usi $(find fixtures -name '*.sfen' -size -64k)
head -5 fixtures/openings/match.sfen >"$tmp/openings"
seed record_usi "$tmp/openings"
seed recipe pipelines/*.toml
# Kisen: the target's first byte chooses the .idx companion (odd: the last
# data[1] * 4 bytes); seed both forms from the bundled Kisen file.
for k in fixtures/kisen/*.kif; do
  printf '\x00' | cat - "$k" >"$tmp/plain"
  idx=${k%.kif}.idx
  if [ -f "$idx" ] && [ $(( $(stat -c %s "$idx") / 4 )) -le 255 ]; then
    n=$(( $(stat -c %s "$idx") / 4 ))
    { printf '\x01'; printf "\\x$(printf %02x "$n")"; cat "$k" "$idx"; } >"$tmp/with-idx"
    seed record_kisen "$tmp/with-idx"
  fi
  seed record_kisen "$tmp/plain"
done
# USI sessions: what a GUI sends, and the abuse cases of tests/usi_abuse.rs.
printf 'usi\nisready\nusinewgame\nposition startpos moves 7g7f 3c3d\ngo btime 1000 wtime 1000 byoyomi 100\nstop\nquit\n' >"$tmp/u1"
printf 'position sfen lnsgkgsnl/1r5b1/ppppppppp/9/9/9/PPPPPPPPP/1B5R1/LNSGKGSNL b - 1 moves 2g2f 8c8d 2f2e\ngo depth 3\nisready\ngo infinite\nstop\ngo ponder\nponderhit\nstop\n' >"$tmp/u2"
printf 'setoption name EvalNoise value 50\nsetoption name NoiseSeed value 7\nposition startpos moves 7g7f 7g7f\ngo\ngo byoyomi\ngo depth -1\ngo mate 1000\nposition sfen 9/9/9/9/4k4/9/9/9/4K4 b - 1\ngo nodes 100\ngameover win\n' >"$tmp/u3"
printf 'position sfen 8k/9/9/9/9/9/9/9/K8 b RBGSNLP2rb3g3s3n3l17p 1\ngo movetime 10\nposition sfen lnsgkgsnl/9/9/9/9/9/9/9/LNSGKGSNL w - 1\ngo depth 1\nsetoption name USI_Ponder value true\nsetoption name Foo\nxyzzy\n' >"$tmp/u4"
seed usi_engine "$tmp"/u[1-4]

# libsvm and text models (a sidecar after the marker line "#meta.toml").
head -c 4000 "$EXAMPLES/small.svm" | sed '$d' >"$tmp/s1"
printf '# comment\n1 qid:3 1:0.5 7:2 # inline\n-1\tqid:3\t2:1   9:-3e-2\n0.25 4:1\n' >"$tmp/s2"
seed libsvm "$tmp/s1" "$tmp/s2"
cp "$EXAMPLES/small_s11_bias.model" "$tmp/m1"
{ cat "$EXAMPLES/small_s11.model"; printf '\n#meta.toml\nfeatures = "relation"\nnr_feature = 1\n'; } >"$tmp/m2"
printf 'solver_type L2R_L2LOSS_SVR\nnr_class 2\nlabel 1 -1\nnr_feature 3\nbias 1\nw\n0.5 \n-0.25 \n1e-300 \n2 \n\n#meta.toml\nfeatures = "material"\n' >"$tmp/m3"
seed model_text "$tmp"/m[1-3]

# Position files and binary models, made with the release binary.
if [ ! -x "$BIN" ]; then cargo build --release --quiet; fi
"$BIN" generate --out "$tmp/gen" --positions 30 --depth 1 --jobs 1 >/dev/null 2>&1
psv=$(ls "$tmp"/gen/positions/*.psv | head -1)
"$BIN" positions "$psv" --convert "$tmp/all.hcpe" >/dev/null 2>&1
python3 - "$psv" "$tmp/all.hcpe" "$C" <<'PY'
import hashlib, os, sys
for path, size, target in ((sys.argv[1], 40, "positions_psv"), (sys.argv[2], 38, "positions_hcpe")):
    data = open(path, "rb").read()
    n = len(data) // size
    for k in range(24):  # 24 seeds of 1-3 records spread over the file
        i = (k * 97) % n
        chunk = data[i * size:(i + 1 + k % 3) * size]
        name = "seed-" + hashlib.sha1(chunk).hexdigest()[:16]
        open(os.path.join(sys.argv[3], target, name), "wb").write(chunk)
PY
printf '1 1:1 2:1\n-1 1:0.5 2:2\n0.5 3:1\n' >"$tmp/dense.svm"
"$BIN" fit svr "$tmp/dense.svm" --out "$tmp/dense.bin" --binary --features material >/dev/null 2>&1
"$BIN" fit svr "$EXAMPLES/small.svm" --out "$tmp/sparse.bin" --binary --features relation --max-iter 2 >/dev/null 2>&1
{ cat "$tmp/sparse.bin"; printf '\n#meta.toml\nfeatures = "relation"\n'; } >"$tmp/sparse-meta.bin"
seed model_binary "$tmp/dense.bin" "$tmp/sparse.bin" "$tmp/sparse-meta.bin"

for d in "$C"/*/; do printf '%-16s %4d seeds\n' "$(basename "$d")" "$(ls "$d" | wc -l)"; done
