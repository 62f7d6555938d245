#!/usr/bin/env bash
# Installs the peer tools the integration tests and benches compare against
# (liblinear 2.3.0, GNU time, Fairy-Stockfish, scikit-learn, numpy, cshogi).
# Idempotent: does nothing for what is already there. Run as root on Debian.
set -euo pipefail
need_apt=()
command -v liblinear-train >/dev/null || need_apt+=(liblinear-tools)
[[ -x /usr/bin/time ]] || need_apt+=(time)
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
