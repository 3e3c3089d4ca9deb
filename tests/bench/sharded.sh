#!/usr/bin/env bash
# Scaling out (issue 12): a coordinator and 3 shards on this machine (tests/harness/
# shards.sh, Unix sockets), keys cut for k = 3, each figure next to its one-node baseline
# from the same run. All four clusters share this machine's cores, so the shards' work
# does not run on separate machines as it would in production.
#   1. lookup latency, p50 and p99 over LOOKUP_SECONDS of one pgbench client:
#      simhash_near(fp, q, 3) on N rows through the coordinator (fan-out to 3 shards,
#      async append) against the same query on one node holding all N rows;
#   2. insert throughput of 4 pgbench clients, real paragraphs, action reject: through
#      the coordinator (simhash_shard_trigger, key rows on the shards) against
#      simhash_dedup_trigger on one node;
#   3. bulk detection over N documents, 1 in 10 a near copy (1 to 3 bits) of another:
#      every shard's simhash_shard_duplicates at once (doc_pairs, async append) against
#      simhash_duplicates on the coordinator gathering every (id, fp) from the shards, and
#      against simhash_duplicates on one node's local table; the slowest shard run alone
#      (what one machine per shard would take); the same for clusters.
# Prints "name value baseline ratio" (ratio = value / baseline).
#   N=1000000 LOOKUP_SECONDS=10 INSERT_SECONDS=15 bash tests/bench/sharded.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
N=${N:-1000000} LOOKUP_SECONDS=${LOOKUP_SECONDS:-10} INSERT_SECONDS=${INSERT_SECONDS:-15}
P=shardbench S=3 K=3
install_extension
# shellcheck source=../harness/shards.sh
source "$h/shards.sh"
shards_start $P $S
shards_schema $P $S $K reject
csecs() { num "$(secs c -c "$1")"; }   # csecs SQL: seconds of SQL on the coordinator
num() { awk -v a="$1" 'BEGIN {printf "%.3f", a}'; }
row_width=52
row name value baseline ratio

# --- 1. Lookups ------------------------------------------------------------------------
for i in $(seq 0 $((S - 1))); do
    on $P-$i -c "CREATE TABLE lk (id bigint PRIMARY KEY, fp bigint)" >/dev/null
done
c <<SQL
CREATE TABLE lk (id bigint NOT NULL, fp bigint) PARTITION BY HASH (id);
$(for i in $(seq 0 $((S - 1))); do echo "CREATE FOREIGN TABLE lk_$i PARTITION OF lk FOR VALUES WITH (MODULUS $S, REMAINDER $i) SERVER shard$i OPTIONS (table_name 'lk', batch_size '10000');"; done)
CREATE TABLE lk_one (id bigint PRIMARY KEY, fp bigint);
INSERT INTO lk_one SELECT g, hashint8extended(g, 1) FROM generate_series(1, $N) g;
INSERT INTO lk SELECT * FROM lk_one;
SELECT simhash_create_blocks('lk_one', 'fp', 4);
VACUUM ANALYZE lk_one;
SQL
for i in $(seq 0 $((S - 1))); do
    on $P-$i -c "SELECT simhash_create_blocks('lk', 'fp', 4)" -c "VACUUM ANALYZE lk" >/dev/null
done
# A query: an existing row's fingerprint with 2 bits flipped, so each lookup finds a row.
for t in lk lk_one; do
    printf '%s\n' "\\set i random(1, $N)" \
        "SELECT count(*) FROM $t WHERE simhash_near(fp, hashint8extended(:i, 1) # 5, 3);" >"$tmp/$t.sql"
    in_cluster $P-c pgbench -n -c 1 -T 2 -f "$tmp/$t.sql" postgres >/dev/null   # warm caches and connections
    (cd "$tmp" && in_cluster $P-c pgbench -n -c 1 -T "$LOOKUP_SECONDS" -l --log-prefix="$t" -f "$tmp/$t.sql" postgres >/dev/null)
done
logged_ms() { cat "$@" | awk '{print $3 / 1000}'; }   # logged_ms FILE...: pgbench's logged latencies in ms
for p in 0.50 0.99; do
    f=$(logged_ms "$tmp"/lk.* | pct $p); o=$(logged_ms "$tmp"/lk_one.* | pct $p)
    row "lookup_k3_p${p#0.}_ms fan-out 3 shards / one node" "$f" "$o" "$(ratio "$f" "$o")"
done

# --- 2. Inserts with dedup -------------------------------------------------------------
c >/dev/null <<SQL
CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL);
\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'
CREATE TABLE paras AS SELECT row_number() OVER (ORDER BY id) AS rn, body FROM src WHERE length(body) >= 20;
ALTER TABLE paras ADD PRIMARY KEY (rn);
CREATE TABLE one_node (id bigint PRIMARY KEY, body text, fp bigint);
SELECT simhash_create_blocks('one_node', 'fp', 4);
CREATE TRIGGER dedup BEFORE INSERT ON one_node FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '$K', 'reject');
CREATE FUNCTION try_insert(tbl text, n bigint) RETURNS void LANGUAGE plpgsql AS \$\$
BEGIN
    EXECUTE format('INSERT INTO %I(id, body) SELECT \$1, body FROM paras WHERE rn = 1 + \$1 %% (SELECT count(*) FROM paras)', tbl) USING n;
EXCEPTION WHEN unique_violation THEN
END \$\$;
CREATE SEQUENCE ids;
SQL
for t in docs one_node; do
    printf '%s\n' "SELECT try_insert('$t', nextval('ids'));" >"$tmp/ins_$t.sql"
    c -c "SELECT setval('ids', 1)" >/dev/null
    in_cluster $P-c pgbench -n -c 4 -j 2 -T "$INSERT_SECONDS" --max-tries=100 -f "$tmp/ins_$t.sql" postgres >"$tmp/ins_$t.out" 2>&1
    num "$(sed -n 's/^tps = \([0-9.]*\).*/\1/p' "$tmp/ins_$t.out")" >"$tmp/tps_$t"
done
row "insert_reject_rows_per_s coordinator / one node" "$(cat "$tmp/tps_docs")" "$(cat "$tmp/tps_one_node")" \
    "$(ratio "$(cat "$tmp/tps_docs")" "$(cat "$tmp/tps_one_node")")"

# --- 3. Bulk detection -----------------------------------------------------------------
# N documents: 9 in 10 random, 1 in 10 a near copy of an earlier one. Loaded as a bulk
# load would be, with the shards' dedup trigger disabled, key rows written alongside.
for i in $(seq 0 $((S - 1))); do
    on $P-$i -c "TRUNCATE docs, doc_keys" -c "ALTER TABLE doc_keys DISABLE TRIGGER dedup" >/dev/null
done
t0=$(now)
c <<SQL
$(for i in $(seq 0 $((S - 1))); do echo "ALTER FOREIGN TABLE docs_$i OPTIONS (ADD batch_size '10000'); ALTER FOREIGN TABLE doc_keys_$i OPTIONS (ADD batch_size '10000');"; done)
DROP TRIGGER a_fp ON docs;
DROP TRIGGER b_keys ON docs;
CREATE TABLE bulk_one AS
SELECT g AS id,
       CASE WHEN g % 10 = 0 THEN hashint8extended(g / 10, 4)
                                 # (1::bigint << (hashint8extended(g, 5) & 63)::int)
                                 # CASE WHEN g % 20 = 0 THEN 1::bigint << (hashint8extended(g, 6) & 63)::int ELSE 0 END
            ELSE hashint8extended(g, 4) END AS fp
FROM generate_series(1::bigint, $N) g;
INSERT INTO docs(id, fp) SELECT id, fp FROM bulk_one;
INSERT INTO doc_keys(shard, id, fp) SELECT o, id, fp FROM bulk_one, unnest(simhash_key_owners(fp, $K, $S)) o;
ANALYZE bulk_one;
SQL
row "bulk_load_${N}_docs_and_keys_s" "$(num "$(since "$t0")")" - -
for i in $(seq 0 $((S - 1))); do on $P-$i -c "VACUUM ANALYZE doc_keys" -c "VACUUM ANALYZE docs" >/dev/null; done
keys=$(c -At -c "SELECT count(*) FROM doc_keys")
formula=$(awk -v s=$S -v k=$K 'BEGIN {printf "%.2f", s * (1 - ((s - 1) / s) ^ (k + 1))}')
row "key_rows_per_doc / s(1-(1-1/s)^(k+1))" "$(ratio "$keys" "$N")" "$formula" "$(ratio "$(ratio "$keys" "$N")" "$formula")"
bytes=0
for i in $(seq 0 $((S - 1))); do
    bytes=$((bytes + $(on $P-$i -At -c "SELECT pg_total_relation_size('doc_keys')")))
done
row "key_row_bytes (heap, 4 block indexes, primary key)" "$((bytes / keys))" - -
ts=$(csecs "SELECT count(*) FROM doc_pairs")
tg=$(csecs "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM docs', $K)")
to=$(csecs "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM bulk_one', $K)")
pairs=$(c -At -c "SELECT count(*) FROM doc_pairs")
# What one machine per shard would take: each shard's run alone, the slowest of them.
tmax=$(slowest_shard $P $S "SELECT count(*) FROM doc_pairs")
row "bulk_pairs_${N}_s shards / gathering ($pairs pairs)" "$ts" "$tg" "$(ratio "$ts" "$tg")"
row "bulk_pairs_${N}_s slowest shard alone / gathering" "$tmax" "$tg" "$(ratio "$tmax" "$tg")"
row "bulk_pairs_${N}_s shards / one node" "$ts" "$to" "$(ratio "$ts" "$to")"
tcs=$(csecs "SELECT count(*) FROM simhash_components('SELECT id1, id2 FROM doc_pairs')")
tcg=$(csecs "SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM docs', $K)")
row "bulk_clusters_${N}_s shards+components / gathering" "$tcs" "$tcg" "$(ratio "$tcs" "$tcg")"
