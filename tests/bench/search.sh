#!/usr/bin/env bash
# Near-duplicate lookup benchmark (issue 3). Release build, shared_buffers = 2GB.
# N random fingerprints (default 10M) plus N/100 planted near-duplicates (2 bits away).
#   1. simhash_create_blocks(fps, fp): 4 generated block columns + btree (the default);
#   2. then 3 more expression indexes, simhash_block(fp, i, 3): the planner takes the set
#      with the fewest expected candidates for each constant k.
# After each: build time and index sizes, then p50/p99 latency of Q lookups at k = 3 and
# k = 7 against the same lookups as a sequential scan with PostgreSQL's built-in
# bit_count((fp # q)::bit(64)) <= k (median of SEQ_Q). Prints "name value baseline ratio".
#   N=1000000 Q=100 SEQ_Q=3 bash tests/bench/search.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
N=${N:-10000000}
Q=${Q:-200}
SEQ_Q=${SEQ_Q:-5}   # sequential scans are slow: the median of a few is the baseline
install_extension
own_cluster search_bench "shared_buffers = 2GB" "max_parallel_workers_per_gather = 0" \
    "maintenance_work_mem = 512MB"
row_width=28

psql -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_prewarm"
psql -c "CREATE TABLE fps(id bigint, fp bigint)" \
     -c "INSERT INTO fps SELECT g, hashint8extended(g, 1) FROM generate_series(1, $N) g" \
     -c "INSERT INTO fps SELECT $N + g, hashint8extended(g, 1) # (1::bigint << (g % 64)) # (1::bigint << ((g * 7) % 64))
         FROM generate_series(1, $N / 100) g"

# Latencies, as an application with a connection pool sees them: one long-lived session,
# the table and its indexes in shared_buffers (pg_prewarm), and a sequential scan first so
# that this backend has already mapped the table's buffers. A fresh connection per query
# would time a new backend's relcache misses and page faults on shared memory instead:
# measured at 10M rows that way, k = 3 took 2.18 ms at p50, not about 1 ms.
# For each k: SEQ_Q sequential scans with bit_count, then Q block-index lookups, each
# through EXPLAIN ANALYZE. Output lines: "k kind planning+execution_ms execution_ms".
queries() { psql -Atc "SELECT fp # (1::bigint << (id % 64)::int) FROM fps WHERE id % 997 = 1 ORDER BY id LIMIT $1"; }
measure() { # LABEL
    {
        echo "SELECT pg_prewarm('fps') + sum(pg_prewarm(indexrelid)) FROM pg_index WHERE indrelid = 'fps'::regclass;"
        for k in 3 7; do
            queries "$SEQ_Q" | while read -r q; do
                echo "EXPLAIN (ANALYZE, FORMAT JSON) SELECT id FROM fps WHERE bit_count((fp # $q)::bit(64)) <= $k;"
            done
            queries "$Q" | while read -r q; do
                echo "EXPLAIN (ANALYZE, FORMAT JSON) SELECT id FROM fps WHERE simhash_near(fp, $q, $k);"
            done
        done
    } >"$tmp/lookups.sql"
    explain_times "$tmp/lookups.sql" |
        awk -v s="$SEQ_Q" -v q="$Q" '{
            i = (NR - 1) % (s + q); k = (NR <= s + q) ? 3 : 7
            printf "%s %s %.3f %.3f\n", k, (i < s ? "seq" : "index"), $1 + $2, $2 }' >"$tmp/latencies"
    for k in 3 7; do
        local s f p
        s=$(lat $k seq 3 | pct 0.5)
        for p in 0.50 0.99; do
            f=$(lat $k index 3 | pct $p)
            row "$1_k${k}_p${p#0.}_ms" "$f" "$s" "$(ratio "$s" "$f")"
        done
        # Execution alone (no planning), as EXPLAIN ANALYZE reports it.
        f=$(lat $k index 4 | pct 0.5); s=$(lat $k seq 4 | pct 0.5)
        row "$1_k${k}_p50_exec_only_ms" "$f" "$s" "$(ratio "$s" "$f")"
    done
}
# lat K KIND COLUMN: that column's values
lat() { awk -v k="$1" -v t="$2" -v c="$3" '$1 == k && $2 == t {print $c}' "$tmp/latencies"; }
index_bytes() { psql -Atc "SELECT sum(pg_relation_size(indexrelid)) FROM pg_index WHERE indrelid = 'fps'::regclass AND indexrelid::regclass::text LIKE '$1'"; }

row name value baseline ratio
row rows "$((N + N / 100))" - -

t0=$(now)
psql -c "SELECT simhash_create_blocks('fps', 'fp')" -c "VACUUM ANALYZE fps" >/dev/null
t1=$(since "$t0")
table_size=$(psql -Atc "SELECT pg_table_size('fps')")
row blocks4_build_seconds "$t1" - -
row blocks4_index_bytes "$(index_bytes 'fps_fp_block%')" "$table_size" "$(ratio "$(index_bytes 'fps_fp_block%')" "$table_size")"
measure blocks4

t0=$(now)
for i in 0 1 2; do psql -c "CREATE INDEX fps_b3_$i ON fps ((simhash_block(fp, $i, 3)))"; done
psql -c "ANALYZE fps"
row blocks3_build_seconds "$(since "$t0")" - -
row blocks3_index_bytes "$(index_bytes 'fps_b3_%')" "$table_size" "$(ratio "$(index_bytes 'fps_b3_%')" "$table_size")"
measure blocks3
