#!/usr/bin/env bash
# The headline ratios on each PostgreSQL major, side by side from one run (issue 28): the
# same three benchmarks, at the sizes below, for PG=15 and PG=17 (BENCH_MAJORS="15 17 18"
# for 18 too), each figure next to its baseline from the same major's run:
#   lookup   tests/bench/search.sh, 1M fingerprints: p50 of simhash_near at k = 3 through
#            4 block indexes, against a sequential scan with bit_count;
#   pairs    tests/bench/batch.sh BATCH_QUICK=1: simhash_duplicates over 1M distinct
#            fingerprints at k = 3, against seomoz simhash-cpp's find_all on the same set;
#   insert   tests/bench/trigger.sh, 1M rows: inserts/s with simhash_dedup_trigger, against
#            simhash_update_trigger (fingerprint maintenance alone), 8 clients.
# Prints one line per benchmark: for each major its value, baseline and ratio (baseline /
# value for times, value / baseline for rates: above 1 is better for simhash).
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
majors=${BENCH_MAJORS:-15 17}
out=$tmp/majors
mkdir -p "$out"

for m in $majors; do
    [ "${SKIP_INSTALL:-0}" = 1 ] && [ "$m" = "$pg_major" ] || PG=$m bash "$h/cluster.sh" install
    echo "=== PostgreSQL $m"
    PG=$m SKIP_INSTALL=1 N=1000000 Q=100 SEQ_Q=3 bash "$root/tests/bench/search.sh" | tee "$out/search.$m"
    PG=$m SKIP_INSTALL=1 BATCH_QUICK=1 bash "$root/tests/bench/batch.sh" | tee "$out/batch.$m"
    PG=$m SKIP_INSTALL=1 N=1000000 DURATION=15 ROUNDS=2 bash "$root/tests/bench/trigger.sh" | tee "$out/trigger.$m"
done

figure() { # FILE NAME: "value baseline ratio" of the row NAME (a prefix) in FILE
    awk -v n="$2" 'index($1, n) == 1 { print $(NF - 2), $(NF - 1), $NF; exit }' "$1"
}
echo "=== headline ratios by major (value baseline ratio)"
header=$(printf '%-34s' benchmark)
for m in $majors; do header+=$(printf ' | %-26s' "PostgreSQL $m"); done
echo "$header"
for b in "lookup_1M_k3_p50_ms search blocks4_k3_p50_ms" "pairs_1M_k3_s_vs_simhash_cpp batch duplicates_1M_distinct_k3_s" \
    "insert_dedup_tps_vs_plain trigger insert_tps_8_clients"; do
    read -r label file name <<<"$b"
    line=$(printf '%-34s' "$label")
    for m in $majors; do line+=$(printf ' | %-26s' "$(figure "$out/$file.$m" "$name")"); done
    echo "$line"
done
