#!/usr/bin/env bash
# Near-duplicate lookup benchmark (issue 3). Release build, shared_buffers = 2GB.
# N random fingerprints (default 10M) with planted near-duplicates, simhash_create_blocks
# (build time, index sizes), then p50/p99 latency of 200 lookups at k=3 and k=7 through the
# block indexes against the same lookups as a sequential scan with PostgreSQL's built-in
# bit_count((fp # q)::bit(64)) <= k. Prints "name  value  baseline  ratio" lines.
#   N=1000000 bash tests/bench/search.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
h=$root/tests/harness
N=${N:-10000000}
Q=${Q:-200}
SEQ_Q=${SEQ_Q:-5}   # sequential scans are slow: median of a few is the baseline
bash "$h/cluster.sh" install
bash "$h/cluster.sh" start search_bench "shared_buffers = 2GB" "max_parallel_workers_per_gather = 0"
trap 'bash "$h/cluster.sh" stop search_bench' EXIT
eval "$(bash "$h/cluster.sh" env search_bench)"
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
now() { date +%s.%N; }

psql -c "CREATE EXTENSION simhash"
psql -c "CREATE TABLE fps(id bigint, fp bigint)" \
     -c "INSERT INTO fps SELECT g, hashint8extended(g, 1) FROM generate_series(1, $N) g" \
     -c "INSERT INTO fps SELECT $N + g, hashint8extended(g, 1) # (1::bigint << (g % 64)) # (1::bigint << ((g * 7) % 64))
         FROM generate_series(1, $N / 100) g"
t0=$(now)
psql -c "SELECT simhash_create_blocks('fps', 'fp')" -c "VACUUM ANALYZE fps"
t1=$(now)
build=$(echo "$t1 - $t0" | bc)
table_size=$(psql -Atc "SELECT pg_table_size('fps')")
idx_size=$(psql -Atc "SELECT sum(pg_relation_size(indexrelid)) FROM pg_index WHERE indrelid = 'fps'::regclass")

# Latency of one statement per query value, from EXPLAIN ANALYZE's execution time (ms).
latencies() { # SQL-template-with-%s count
    local tpl=$1 n=$2
    psql -Atc "SELECT fp # (1::bigint << (id % 64)::int) FROM fps WHERE id % 997 = 1 ORDER BY id LIMIT $n" |
    while read -r q; do
        psql -Atc "EXPLAIN (ANALYZE, FORMAT JSON) $(printf "$tpl" "$q")" |
            sed -n 's/.*"Execution Time": \([0-9.]*\).*/\1/p'
    done | sort -g
}
pct() { awk -v p="$1" '{a[NR]=$1} END {i=int((NR-1)*p+0.5)+1; print a[i]}'; }

printf '%-28s %14s %14s %10s\n' name value baseline ratio
printf '%-28s %14s %14s %10s\n' rows "$((N + N / 100))" - -
printf '%-28s %14s %14s %10s\n' create_blocks_seconds "$build" - -
printf '%-28s %14s %14s %10s\n' block_indexes_bytes "$idx_size" "$table_size" "$(echo "scale=3; $idx_size / $table_size" | bc)"
for k in 3 7; do
    fast=$(latencies "SELECT id FROM fps WHERE simhash_near(fp, %s, $k)" "$Q")
    slow=$(latencies "SELECT id FROM fps WHERE bit_count((fp # %s)::bit(64)) <= $k" "$SEQ_Q")
    for p in 0.50 0.99; do
        f=$(echo "$fast" | pct $p); s=$(echo "$slow" | pct 0.5)
        printf '%-28s %14s %14s %10s\n' "k${k}_p${p#0.}_ms" "$f" "$s" "$(echo "scale=1; $s / $f" | bc)"
    done
done
