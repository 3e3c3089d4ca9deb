#!/usr/bin/env bash
# Benchmark of simhash_duplicates (issue 5): 1M and 10M random fingerprints with planted
# near-duplicate groups at k=3, 1M at k=6, and the baseline from the same run: the same 1M
# pairs through a SQL self-join over btree indexes on four 16-bit blocks (pigeonhole: k=3
# pairs agree on at least one block); and seomoz's simhash-cpp find_all (permuted sorted
# tables, tests/bench/simhash_cpp/) on the 1M set's distinct fingerprints, against
# simhash_duplicates on the same, both finding the same pairs. Release build, its own
# cluster. Prints
#   name  value  baseline  ratio
# BATCH_QUICK=1: only the 1M set at k=3 against simhash-cpp (tests/bench/majors.sh).
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
install_extension
own_cluster batchbench "shared_buffers = 1GB" "work_mem = 256MB" "max_parallel_workers_per_gather = 0"

q -c "CREATE EXTENSION simhash"
# Rows g: 7 of every 10 random; the other 3 are copies of one base with 0, 1 and 2 bits
# flipped, so each group holds pairs at distance 1..3.
gen() { # gen TABLE N
    q -c "CREATE UNLOGGED TABLE $1 AS SELECT g AS id,
         CASE WHEN g % 10 >= 3 THEN hashint8extended(g, 0)
              ELSE hashint8extended(g / 10, 1)
                   # CASE WHEN g % 10 >= 1 THEN 1::bigint << (hashint8extended(g, 2) & 31)::int ELSE 0 END
                   # CASE WHEN g % 10 >= 2 THEN 1::bigint << (32 + (hashint8extended(g, 3) & 31))::int ELSE 0 END
         END AS fp
       FROM generate_series(1::bigint, $2) g"
    q -c "VACUUM ANALYZE $1"
}
quick=${BATCH_QUICK:-0}
gen b1m 1000000

# simhash-cpp takes a set of fingerprints: both sides get the distinct ones.
cpp=$(bash "$root/tests/bench/simhash_cpp/build.sh")
q -c "CREATE UNLOGGED TABLE b1m_distinct AS SELECT min(id) AS id, fp FROM b1m GROUP BY fp"
q -c "COPY b1m_distinct(fp) TO STDOUT" >"$tmp/fps"
read -r pc tc < <("$cpp" 3 <"$tmp/fps")
td=$(secs q -c "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM b1m_distinct', 3)"); pd=$(cat "$tmp/out")
if [ "$pc" != "$pd" ]; then echo "MISMATCH: simhash-cpp found $pc pairs, simhash_duplicates $pd" >&2; exit 1; fi
cpp_row=$(printf '%-34s %10.2f %10.2f %7sx' "duplicates_1M_distinct_k3_s ($pd pairs)" "$td" "$tc" "$(ratio "$tc" "$td")")
if [ "$quick" = 1 ]; then
    printf '%-34s %10s %10s %8s\n' name value baseline ratio
    echo "$cpp_row"
    exit 0
fi
gen b10m 10000000

t1=$(secs q -c "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM b1m', 3)"); p1=$(cat "$tmp/out")
t6=$(secs q -c "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM b1m', 6)"); p6=$(cat "$tmp/out")
t10=$(secs q -c "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM b10m', 3)"); p10=$(cat "$tmp/out")

ti=$(secs q -c "CREATE INDEX ON b1m (((fp >> 48) & 65535)); CREATE INDEX ON b1m (((fp >> 32) & 65535));
           CREATE INDEX ON b1m (((fp >> 16) & 65535)); CREATE INDEX ON b1m ((fp & 65535)); ANALYZE b1m")
tj=$(secs q -c "SELECT count(*) FROM b1m a JOIN b1m b ON a.id < b.id
             AND (((a.fp >> 48) & 65535) = ((b.fp >> 48) & 65535) OR ((a.fp >> 32) & 65535) = ((b.fp >> 32) & 65535)
               OR ((a.fp >> 16) & 65535) = ((b.fp >> 16) & 65535) OR (a.fp & 65535) = (b.fp & 65535))
             AND bit_count((a.fp # b.fp)::bit(64)) <= 3"); pj=$(cat "$tmp/out")
if [ "$pj" != "$p1" ]; then echo "MISMATCH: self-join found $pj pairs, simhash_duplicates $p1" >&2; exit 1; fi

# Cancellation: how long past a statement_timeout the 10M search keeps running, once while
# it reads rows through the cursor (timeout 1 s) and once while it searches (timeout at
# 3/4 of its measured run time, past the reading phase).
cancel() { # cancel TIMEOUT_SECONDS
    cancel_delay "$(echo "$1 * 1000 / 1" | bc)" "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM b10m', 3)"
}
late_timeout=$(echo "scale=1; $t10 * 3 / 4" | bc)
c_read=$(cancel 1); c_search=$(cancel "$late_timeout")

printf '%-34s %10s %10s %8s\n' name value baseline ratio
printf '%-34s %10.2f %10.2f %7sx\n' "duplicates_1M_k3_s ($p1 pairs)" "$t1" "$tj" "$(ratio "$tj" "$t1")"
echo "$cpp_row"
printf '%-34s %10.2f %10s %8s\n' "duplicates_10M_k3_s ($p10 pairs)" "$t10" - -
printf '%-34s %10.2f %10s %8s\n' "duplicates_1M_k6_s ($p6 pairs)" "$t6" - -
printf '%-34s %10.2f %10s %8s\n' "selfjoin_1M_k3_s (baseline)" "$tj" - -
printf '%-34s %10.2f %10s %8s\n' "selfjoin_1M_index_build_s" "$ti" - -
printf '%-34s %10.2f %10s %8s\n' "simhash_cpp_1M_distinct_k3_s (baseline)" "$tc" - -
printf '%-34s %10.3f %10s %8s\n' "cancel_while_reading_s (after 1 s)" "$c_read" - -
printf '%-34s %10.3f %10s %8s\n' "cancel_while_searching_s (after ${late_timeout} s)" "$c_search" - -
