#!/usr/bin/env bash
# Installs the peer tools the integration tests and benches compare against
# (liblinear 2.3.0, GNU time, Fairy-Stockfish, scikit-learn, numpy, cshogi, and
# pyspark with a Java runtime for scripts/spark and tests/dataset.rs).
# Idempotent: does nothing for what is already there. Run as root on Debian.
set -euo pipefail
need_apt=()
command -v liblinear-train >/dev/null || need_apt+=(liblinear-tools)
[[ -x /usr/bin/time ]] || need_apt+=(time)
command -v java >/dev/null || need_apt+=(openjdk-17-jre-headless)
[[ -x /usr/games/fairy-stockfish ]] || need_apt+=(fairy-stockfish)
if ((${#need_apt[@]})); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need_apt[@]}"
fi
need_pip=()
for mod in sklearn:scikit-learn numpy:numpy cshogi:cshogi; do
  python3 -c "import ${mod%%:*}" 2>/dev/null || need_pip+=("${mod##*:}")
done
if ((${#need_pip[@]})); then
  python3 -m pip install -q "${need_pip[@]}"
fi
python3 -c "import pyspark" 2>/dev/null ||
  python3 -m pip install -q -r "$(dirname "$0")/../scripts/spark/requirements.txt"
