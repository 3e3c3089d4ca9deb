#!/usr/bin/env bash
# Exact nearest-neighbour benchmark (issue 13, part 2). Release build, shared_buffers = 2GB.
# N random fingerprints (default 10M), simhash_create_blocks(fps, fp): 4 generated block
# columns + btree. Then p50/p99 latency of simhash_nearest for n = 1 and n = 10, over Q
# queries of two kinds: "near" (an existing fingerprint with 3 bits flipped) and "random"
# (a fingerprint not in the table), against the same question as a sequential scan,
#   SELECT id, fp FROM fps ORDER BY bit_count((fp # q)::bit(64)), ctid LIMIT n
# (median of SEQ_Q, as it is slow). Latencies are EXPLAIN ANALYZE's planning + execution in
# one long-lived session, table and indexes prewarmed (as tests/bench/search.sh).
# Prints "name value baseline ratio" (ratio = baseline / value: how many times faster).
#   N=1000000 Q=100 SEQ_Q=3 bash tests/bench/nearest.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
N=${N:-10000000}
Q=${Q:-200}          # per kind, split evenly between near and random
SEQ_Q=${SEQ_Q:-5}
install_extension
own_cluster nearest_bench "shared_buffers = 2GB" "max_parallel_workers_per_gather = 0" \
    "maintenance_work_mem = 512MB"
row_width=32

row name value baseline ratio
row rows "$N" - -
t0=$(now)
psql -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_prewarm" \
     -c "CREATE TABLE fps(id bigint, fp bigint)" \
     -c "INSERT INTO fps SELECT g, hashint8extended(g, 1) FROM generate_series(1, $N) g" \
     -c "SELECT simhash_create_blocks('fps', 'fp')" -c "VACUUM ANALYZE fps" >/dev/null
row load_and_blocks4_seconds "$(since "$t0")" - -

# KIND COUNT: query fingerprints. near: rows spread over the table, 3 bits flipped;
# random: hashes with another seed, not in the table.
queries() {
    if [ "$1" = near ]; then
        psql -Atc "SELECT hashint8extended(g, 1) # (1::bigint << (g % 64)::int) # (1::bigint << ((g * 7) % 64)::int) # (1::bigint << ((g * 13 + 5) % 64)::int)
                   FROM generate_series(1, $2) i, LATERAL (SELECT (i * 7919::bigint) % $N + 1 AS g) s"
    else
        psql -Atc "SELECT hashint8extended(g, 2) FROM generate_series(1, $2) g"
    fi
}
{
    echo "SELECT pg_prewarm('fps') + sum(pg_prewarm(indexrelid)) FROM pg_index WHERE indrelid = 'fps'::regclass;"
    echo "SELECT count(*) FROM fps;"
    for n in 1 10; do
        for kind in near random; do
            queries $kind "$SEQ_Q" | while read -r q; do
                echo "EXPLAIN (ANALYZE, FORMAT JSON) SELECT id, fp FROM fps ORDER BY bit_count((fp # $q)::bit(64)), ctid LIMIT $n;"
            done
            queries $kind $((Q / 2)) | while read -r q; do
                echo "EXPLAIN (ANALYZE, FORMAT JSON) SELECT * FROM simhash_nearest('fps', 'fp', $q, $n);"
            done
        done
    done
} >"$tmp/queries.sql"
explain_times "$tmp/queries.sql" |
    awk -v s="$SEQ_Q" -v q="$((Q / 2))" '{
        i = (NR - 1) % (s + q); b = int((NR - 1) / (s + q))
        printf "%s %s %s %.3f\n", (b < 2 ? 1 : 10), (b % 2 ? "random" : "near"), (i < s ? "seq" : "mih"), $1 + $2 }' >"$tmp/latencies"
lat() { awk -v n="$1" -v k="$2" -v t="$3" '$1 == n && $2 == k && $3 == t {print $4}' "$tmp/latencies"; }
for n in 1 10; do
    for kind in near random; do
        s=$(lat $n $kind seq | pct 0.5)
        for p in 0.50 0.99; do
            f=$(lat $n $kind mih | pct $p)
            row "nearest_n${n}_${kind}_p${p#0.}_ms" "$f" "$s" "$(ratio "$s" "$f")"
        done
    done
done
