#!/bin/sh
# Do two kifulearn binaries print the same while fitting? (issue 14: one
# progress mechanism for the learners must leave what the CLI prints alone.)
#
#   scripts/same_printed.sh OLD_BINARY NEW_BINARY [WORK_DIR]
#
# Extracts the bundled tournament games once per binary, then runs every
# learner (SVR primal and dual, streaming, ranking, positions in memory and
# streamed), each with and without -v, and compares stdout+stderr. Seconds
# (`1.23s`) are masked. Progress bars are not drawn off a terminal. Exit
# status 0 when all are the same. scripts/same_outputs.sh compares the files.
set -eu

old=$(realpath "$1")
new=$(realpath "$2")
work=${3:-$(mktemp -d)}
repo=$(realpath "$(dirname "$0")/..")

printed() {
    bin=$1
    out=$2
    rm -rf "$out"
    mkdir -p "$out"
    (
        cd "$out"
        "$bin" extract "$repo/fixtures/tournament" --out x --features relation,material \
            --skip-opening 30 --max-plies 40 --jobs 1 >/dev/null 2>&1
        games="$repo/fixtures/tournament"
        for v in "" -v; do
            RAYON_NUM_THREADS=1 "$bin" fit x --max-iter 5 --out svr.model $v >"svr$v.txt" 2>&1
            RAYON_NUM_THREADS=1 "$bin" fit x --solver dual --max-iter 5 --out dual.model $v >"dual$v.txt" 2>&1
            RAYON_NUM_THREADS=1 "$bin" fit x --method streaming --epochs 2 --out st.model $v >"streaming$v.txt" 2>&1
            "$bin" fit "$games" --method ranking --features relation,material --epochs 2 --jobs 1 \
                --out r.model $v >"ranking$v.txt" 2>&1
            "$bin" fit "$games" --method positions --features relation,material --epochs 2 \
                --out p.model $v >"positions$v.txt" 2>&1
            "$bin" fit "$games" --method positions --features relation,material --epochs 2 \
                --chunk 500 --out ps.model $v >"positions-stream$v.txt" 2>&1
        done
        rm -rf x ./*.model ./*.toml
        sed -i -E 's/[0-9]+\.[0-9]+s\b/Ts/g' ./*.txt
    )
}

printed "$old" "$work/old"
printed "$new" "$work/new"
if diff -r "$work/old" "$work/new"; then
    echo "same printed lines: $(ls "$work/new" | wc -l) files identical ($work)"
else
    echo "printed lines differ ($work)"
    exit 1
fi
