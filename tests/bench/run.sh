#!/usr/bin/env bash
# `make bench`: every tests/bench/*.sh but this one, in name order. Each prints
# "name  value  baseline  ratio" lines whose baseline comes from the same run, because
# these machines are shared and noisy. Benchmarks are never part of `make test`.
set -euo pipefail
cd "$(dirname "$0")/../.."
bash tests/harness/cluster.sh install
export SKIP_INSTALL=1   # each script installs by itself only when run alone
for b in tests/bench/*.sh; do
    [ "$(basename "$b")" = run.sh ] && continue
    echo "=== $(basename "$b" .sh)"
    bash "$b"
done
