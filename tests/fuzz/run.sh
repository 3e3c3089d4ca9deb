#!/usr/bin/env bash
# `make fuzz`: the long fuzz profile (issue 11, part 5; README, Robustness testing).
#   1. the core's property tests on arbitrary input (crates/simhash-core/tests/fuzz.rs),
#      release build, SIMHASH_FUZZ_CASES cases per property (default 1,000,000; the
#      text-pipeline properties run a quarter of that);
#   2. FUZZ_INPUTS random SQL calls (default 1,000,000) against a cluster of its own
#      (target/run/fuzz), tests/integration/fuzz_sql.sh.
# Exits non-zero on any failure.
set -uo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
export SIMHASH_FUZZ_CASES=${SIMHASH_FUZZ_CASES:-1000000}
export FUZZ_INPUTS=${FUZZ_INPUTS:-1000000}

echo "=== core property tests, $SIMHASH_FUZZ_CASES cases per property"
start=$SECONDS
env -u RUST_BACKTRACE cargo test -q --release -p simhash-core --lib fuzz:: || status=1
echo "--- $((SECONDS - start)) s"

echo "=== SQL fuzz, $FUZZ_INPUTS calls"
bash "$h/cluster.sh" install || exit 1
own_cluster fuzz "shared_preload_libraries = 'simhash'"
start=$SECONDS
bash tests/integration/fuzz_sql.sh || status=1
echo "--- $((SECONDS - start)) s"
exit $status
