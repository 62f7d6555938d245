#!/usr/bin/env bash
# liblinear fits, the engine plays: `liblinear-train -s 11` on a dataset folder
# of libsvm rows (position rows from `kifulearn positions FILES --rows DIR`
# written without --qid, or rows from `kifulearn extract`), and the sidecar
# MODEL.meta.toml that names the rows' feature set, so that `kifulearn usi
# --model MODEL`, `kifulearn match --engine-a MODEL`, `predict` and `evaluate`
# load the model.
#
# Usage:
#   scripts/liblinear_fit.sh DIR MODEL [liblinear-train options...]
#
# Runs `liblinear-train -s 11 -p 0 -c 2e-3 -q OPTIONS ALL.svm MODEL`, where
# ALL.svm is DIR/rows/*.svm concatenated in name order (liblinear reads one
# file; the order is the one kifulearn reads the folder in), in a temporary
# file. Later options win, so `-c 1e-4` replaces the default C.
# -p 0: the labels are scores in model units (centipawns / 10000), so
# liblinear's default tube of 0.1 ignores every error under 1000 cp.
# The labels are fitted as they are (no prior): the piece values are learned
# with the rest (docs/formats.md, "Models from other learners").
# Then writes MODEL.meta.toml: `features = "SET"` from DIR/dataset.toml, and
# the command that fitted it.
set -euo pipefail
if (($# < 2)); then
  sed -n '2,/^set -e/p' "$0" | sed '$d; s/^# \{0,1\}//'
  exit 2
fi
dir=$1
model=$2
shift 2
toml="$dir/dataset.toml"
[[ -f $toml ]] || { echo "error: $toml not found (not a dataset folder)" >&2; exit 2; }
features=$(sed -n 's/^features = "\(.*\)"$/\1/p' "$toml")
[[ -n $features ]] || { echo "error: $toml names no feature set" >&2; exit 2; }
if grep -q '^qid = true' "$toml"; then
  echo "error: $dir has qid:N tokens, which liblinear-train refuses: write the rows without --qid" >&2
  exit 2
fi
shopt -s nullglob
rows=("$dir"/rows/*.svm)
((${#rows[@]})) || { echo "error: no $dir/rows/*.svm" >&2; exit 2; }
all=$(mktemp "${TMPDIR:-/tmp}/liblinear-rows.XXXXXX")
trap 'rm -f "$all"' EXIT
cat "${rows[@]}" >"$all"
cmd=(liblinear-train -s 11 -p 0 -c 2e-3 -q "$@")
"${cmd[@]}" "$all" "$model"
q() { local s=${1//\\/\\\\}; printf '"%s"' "${s//\"/\\\"}"; }
{
  printf 'features = %s\n' "$(q "$features")"
  printf 'solver = %s\n' "$(q "${cmd[*]}")"
  printf 'prior = "zero"\n'
  printf 'data = %s\n' "$(q "$dir")"
} >"$model.meta.toml.tmp"
mv "$model.meta.toml.tmp" "$model.meta.toml"
if grep -q '^prior = ' "$toml"; then
  echo "note: $dir holds residual rows: add their prior back with kifulearn dataset add-prior $model --rows $dir --out MODEL" >&2
fi
