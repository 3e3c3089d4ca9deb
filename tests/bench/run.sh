#!/usr/bin/env bash
# `make bench`: every tests/bench/*.sh but this one, in name order. Each prints
# "name  value  baseline  ratio" lines whose baseline comes from the same run, because
# these machines are shared and noisy. Benchmarks are never part of `make test`.
#   run.sh [NAME...]   only tests/bench/NAME.sh (`make bench B=majors`: the headline ratios
#                      on PostgreSQL 15 and 17 side by side)
# The long runs, tests/bench/*_10m.sh, run only when named (B=similarity_growth_10m).
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tests/harness/cluster.sh install
export SKIP_INSTALL=1   # each script installs by itself only when run alone
benches=(tests/bench/*.sh)
[ $# -gt 0 ] && benches=("${@/#/tests/bench/}") && benches=("${benches[@]/%/.sh}")
for b in "${benches[@]}"; do
    [ "$(basename "$b")" = run.sh ] && continue
    [ $# -eq 0 ] && [[ $b == *_10m.sh ]] && continue
    [ -f "$b" ] || { echo "run.sh: no benchmark $b" >&2; exit 2; }
    echo "=== $(basename "$b" .sh)"
    bash "$b"
done
