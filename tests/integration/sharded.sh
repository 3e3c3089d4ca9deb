#!/usr/bin/env bash
# Scaling out over postgres_fdw shards (issue 12; README.md, "Scaling out"): a coordinator
# and 3 shard clusters (tests/harness/shards.sh), Unix sockets only, keys cut for k = 3.
#   1. lookups: simhash_near(fp, q, k) through the coordinator equals a single-node brute
#      force for k = 0..8, and ships to the shards (EXPLAIN); ~= does not ship;
#   2. a near-duplicate inserted through the coordinator is rejected (23505) when its twin
#      lives on another shard, and nothing of it is left anywhere; UPDATE and DELETE keep
#      the key rows right;
#   3. 8 concurrent pgbench writers through the coordinator (reject, then skip; 40001
#      retried) leave 0 pairs within 3 across the cluster (brute force), lose no item
#      without a near-duplicate, refuse none without one, and every document has exactly
#      its key rows;
#   4. skip and link, inserted in one order, give the same rows (and links) as
#      simhash_dedup_trigger on one node;
#   5. bulk: the shards' pairs (simhash_shard_duplicates, each pair from one shard) equal
#      simhash_duplicates on the gathered table, and simhash_components over them equals
#      simhash_clusters;
#   6. a shard killed during its COMMIT (the others committed) leaves orphans, which
#      simhash_shard_repair removes or restores: twice, once the document's shard, once a
#      key row's;
#   7. similarity: simhash_similarity(body, q) >= t and simhash_containment either way ship
#      to every shard as simhash_*_at_least (constants, a generic plan's $n, a join's outer
#      column with use_remote_estimate; not without extensions 'simhash'), every shard runs
#      every lookup it gets as a bitmap scan of its simhash_ops index (auto_explain in its
#      log; cursor_tuple_fraction = 1), and 20 queries at similarity 0.5 and 0.8 and
#      containment 0.8 both ways find through the coordinator what one node finds, by its
#      index and by a scan.
# Starts and stops its own clusters; needs the extension installed in target/pgroot.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
# shellcheck source=../harness/shards.sh
source "$h/shards.sh"
P=shardtest N=3 K=3

shards_start $P $N
shards_schema $P $N $K reject

# Consistency of the key rows: every document with a fingerprint has exactly one key row
# on each shard of simhash_key_owners(fp, K, N), with its fingerprint, and no key row is
# anyone else's. Prints the number of rows that break it.
c -c "CREATE FUNCTION key_mismatches() RETURNS bigint LANGUAGE sql AS \$\$
    SELECT count(*) FROM
        (SELECT o AS shard, d.id, d.fp FROM docs d, unnest(simhash_key_owners(d.fp, $K, $N)) o
          WHERE d.fp IS NOT NULL) e
        FULL JOIN doc_keys k ON k.shard = e.shard AND k.id = e.id AND k.fp = e.fp
     WHERE e.id IS NULL OR k.id IS NULL \$\$"

# --- 1. Lookups ------------------------------------------------------------------------
for i in $(seq 0 $((N - 1))); do
    on $P-$i -c "CREATE TABLE lk (id bigint PRIMARY KEY, fp bigint)" \
             -c "SELECT simhash_create_blocks('lk', 'fp', 4)" >/dev/null
done
c >/dev/null <<SQL
CREATE TABLE lk (id bigint NOT NULL, fp bigint) PARTITION BY HASH (id);
$(for i in $(seq 0 $((N - 1))); do echo "CREATE FOREIGN TABLE lk_$i PARTITION OF lk FOR VALUES WITH (MODULUS $N, REMAINDER $i) SERVER shard$i OPTIONS (table_name 'lk', batch_size '1000');"; done)
-- 16,000 uniform fingerprints and 200 clusters of 20 within 0..8 bits of their centre.
CREATE TABLE lk_local AS
SELECT g AS id, hashint8extended(g, 0) AS fp FROM generate_series(1, 16000) g
UNION ALL
SELECT 100000 + 20 * c + j, (SELECT bit_xor(1::bigint << (hashint8extended(c * 1000 + j * 10 + b, 1) & 63)::int)
                              FROM generate_series(1, j % 9) b) # hashint8extended(c, 2)
  FROM generate_series(0, 199) c, generate_series(0, 19) j;
UPDATE lk_local SET fp = hashint8extended(id / 20, 2) WHERE fp IS NULL;
INSERT INTO lk SELECT * FROM lk_local;
-- 40 queries: 20 cluster centres, 20 uniform rows with 2 bits flipped.
CREATE TABLE q AS
SELECT c AS qid, hashint8extended(c, 2) AS fp FROM generate_series(0, 190, 10) c
UNION ALL
SELECT 1000 + g, hashint8extended(g * 97, 0) # (1::bigint << (g % 64)) # (1::bigint << ((g * 7 + 3) % 64))
  FROM generate_series(1, 20) g;
SQL
read -r found missing extra < <(c -At -F' ' <<SQL
CREATE TEMP TABLE remote AS
SELECT q.qid, k, r.id FROM q, generate_series(0, 8) k,
       LATERAL (SELECT id FROM lk WHERE simhash_near(lk.fp, q.fp, k)) r;
CREATE TEMP TABLE local AS
SELECT q.qid, k, l.id FROM q, generate_series(0, 8) k, lk_local l
 WHERE bit_count((l.fp # q.fp)::bit(64)) <= k;
SELECT (SELECT count(*) FROM local),
       (SELECT count(*) FROM (TABLE local EXCEPT ALL TABLE remote) x),
       (SELECT count(*) FROM (TABLE remote EXCEPT ALL TABLE local) x);
SQL
)
check "lookups k = 0..8 through the coordinator vs brute force ($found matches)" "$missing missing, $extra extra" "0 missing, 0 extra"
[ "$found" -gt 1000 ] || fail "lookups: only $found matches, the data do not test much"
shipped=$(c -At -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM lk WHERE simhash_near(fp, 42, 3)" | grep -c "Remote SQL: .*simhash_near(fp, 42::bigint, 3)" || true)
check "simhash_near ships to every shard (Remote SQL)" "$shipped" $N
async=$(c -At -c "EXPLAIN (COSTS OFF) SELECT id FROM lk WHERE simhash_near(fp, 42, 3)" | grep -c "Async Foreign Scan" || true)
check "the shards are scanned at once (async append)" "$async" $N
filtered=$(c -At -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM lk WHERE fp ~= 42" | grep -c "Filter: (.*fp ~= " || true)
check "~= is filtered on the coordinator (STABLE: postgres_fdw ships only IMMUTABLE functions)" "$filtered" $N

# --- 2. Reject across shards -----------------------------------------------------------
c >/dev/null <<SQL
CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL);
\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'
SQL
c -v k=$K -v stride=7 -v paragraphs=600 -f "$h/dedup_items.sql" >/dev/null
c -f "$h/try_item.sql" >/dev/null
# A paragraph and its planted exact copy, as documents on different shards.
read -r twin copy < <(c -At -F' ' -c "SELECT a.item, b.item FROM work a JOIN work b ON b.item > a.item AND a.body = b.body
                                       AND satisfies_hash_partition('docs'::regclass, $N, 0, a.item::bigint)
                                       AND NOT satisfies_hash_partition('docs'::regclass, $N, 0, b.item::bigint)
                                     ORDER BY a.item LIMIT 1")
c -c "SELECT try_item($twin)" -c "SELECT try_item($copy)" >/dev/null
got=$(c -At -c "SELECT string_agg(result, ' ' ORDER BY item) || ', documents ' || (SELECT count(*) FROM docs)
                       || ', key rows ' || (SELECT count(*) FROM doc_keys) || ', mismatches ' || key_mismatches()
                  FROM outcome")
keys=$(c -At -c "SELECT cardinality(simhash_key_owners(fp, $K, $N)) FROM work WHERE item = $twin")
check "copy of a document on another shard (items $twin, $copy)" "$got" "inserted rejected, documents 1, key rows $keys, mismatches 0"
msg=$(c -c "INSERT INTO docs(id, body) SELECT 1000000 + $copy, body FROM work WHERE item = $copy" 2>&1 || true)
check "its error" "$(grep -v CONTEXT <<<"$msg" | head -2)" "ERROR:  new row for relation \"docs\" is a near-duplicate of an existing row (trigger \"b_keys\")
DETAIL:  Key (id)=($twin) is at Hamming distance 0 (max_distance $K)."

# Updates and deletes keep the key rows: another paragraph, updated to the twin's text
# (rejected), to a third text, then deleted.
read -r other third < <(c -At -F' ' -c "SELECT a.item, b.item FROM work a, work b
                                         WHERE a.item % 3 = 1 AND b.item % 3 = 1 AND b.item > a.item + 30
                                           AND bit_count((a.fp # b.fp)::bit(64)) > $K
                                           AND NOT EXISTS (SELECT FROM work t WHERE t.item = $twin AND bit_count((t.fp # a.fp)::bit(64)) <= $K)
                                           AND NOT EXISTS (SELECT FROM work t WHERE t.item = $twin AND bit_count((t.fp # b.fp)::bit(64)) <= $K)
                                         ORDER BY 1, 2 LIMIT 1")
c -c "SELECT try_item($other)" >/dev/null
upd=$(c -At -c "UPDATE docs SET body = (SELECT body FROM work WHERE item = $twin) WHERE id = $other" 2>&1 | head -1 || true)
got=$(c -At -c "SELECT format('%s; then: %s', '$upd', key_mismatches())")
check "update to the twin's text" "$got" "ERROR:  new row for relation \"docs\" is a near-duplicate of an existing row (trigger \"b_keys\"); then: 0"
c -c "UPDATE docs SET body = (SELECT body FROM work WHERE item = $third) WHERE id = $other" >/dev/null
got=$(c -At -c "SELECT format('fingerprint %s, key mismatches %s', (SELECT fp FROM docs WHERE id = $other) = (SELECT fp FROM work WHERE item = $third), key_mismatches())")
check "update to another text moves the key rows" "$got" "fingerprint t, key mismatches 0"
c -c "DELETE FROM docs WHERE id = $other" >/dev/null
got=$(c -At -c "SELECT format('key rows of the deleted %s, key mismatches %s', (SELECT count(*) FROM doc_keys WHERE id = $other), key_mismatches())")
check "delete removes the key rows" "$got" "key rows of the deleted 0, key mismatches 0"

# --- 3. Concurrent writers -------------------------------------------------------------
c >/dev/null <<SQL
CREATE TABLE lonely AS
SELECT item FROM work w WHERE NOT EXISTS
    (SELECT 1 FROM work o WHERE o.item <> w.item AND bit_count((o.fp # w.fp)::bit(64)) <= $K);
SQL
items=$(c -At -c "SELECT count(*) FROM work")
cat >"$tmp/insert.sql" <<'EOF'
SELECT try_item(8 * :i + :client_id);
\set i :i + 1
EOF
for action in reject skip; do
    c >/dev/null <<SQL
TRUNCATE docs, doc_keys, outcome;
DROP TABLE IF EXISTS gathered;
DROP TRIGGER b_keys ON docs;
CREATE TRIGGER b_keys BEFORE INSERT OR UPDATE OR DELETE ON docs FOR EACH ROW
    EXECUTE FUNCTION simhash_shard_trigger('id', 'fp', 'public.doc_keys', '$K', '$N', '$action');
SQL
    set +e
    in_cluster $P-c pgbench -n -c 8 -j 2 -t $(( (items + 7) / 8 )) --max-tries=1000 -D i=0 -f "$tmp/insert.sql" postgres \
        >"$tmp/pgbench.out" 2>"$tmp/pgbench.err"
    rc=$?
    set -e
    failed=$(pgbench_figure "$tmp/pgbench.out" "number of failed transactions")
    retried=$(pgbench_figure "$tmp/pgbench.out" "number of transactions retried")
    c -c "CREATE TABLE gathered AS SELECT id, fp FROM docs" >/dev/null
    got=$(c -At <<SQL
SELECT format('done %s, pairs within $K %s, lost %s, unjustified %s, key mismatches %s',
    (SELECT count(*) FROM outcome),
    (SELECT count(*) FROM gathered a JOIN gathered b ON a.id < b.id AND bit_count((a.fp # b.fp)::bit(64)) <= $K),
    (SELECT count(*) FROM lonely l WHERE NOT EXISTS (SELECT 1 FROM gathered d WHERE d.id = l.item)),
    (SELECT count(*) FROM outcome o JOIN work w USING (item) WHERE o.result <> 'inserted'
        AND NOT EXISTS (SELECT 1 FROM gathered d WHERE bit_count((d.fp # w.fp)::bit(64)) <= $K)),
    key_mismatches());
SQL
)
    refused=$(c -At -c "SELECT count(*) FROM outcome WHERE result <> 'inserted'")
    check "$action: 8 writers, $items items ($refused refused, ${retried:-?} transactions retried), pgbench exit $rc, failed ${failed:-?}" \
        "$got" "done $items, pairs within $K 0, lost 0, unjustified 0, key mismatches 0"
    [ "$rc" = 0 ] && [ "${failed:-1}" = 0 ] || { tail -5 "$tmp/pgbench.err"; status=1; }
done

# --- 4. skip and link equal one node ---------------------------------------------------
for action in skip link; do
    link=""; [ $action = link ] && link=", 'dup_of'"
    c >/dev/null <<SQL
SET client_min_messages = warning;
TRUNCATE docs, doc_keys, outcome;
DROP TRIGGER b_keys ON docs;
CREATE TRIGGER b_keys BEFORE INSERT OR UPDATE OR DELETE ON docs FOR EACH ROW
    EXECUTE FUNCTION simhash_shard_trigger('id', 'fp', 'public.doc_keys', '$K', '$N', '$action'$link);
DROP TABLE IF EXISTS one_node;
CREATE TABLE one_node (id bigint PRIMARY KEY, body text, fp bigint, dup_of bigint);
SELECT simhash_create_blocks('one_node', 'fp', 4);
CREATE TRIGGER dedup BEFORE INSERT ON one_node FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '$K', '$action'$link);
SELECT try_item(item) FROM work ORDER BY item;
INSERT INTO one_node(id, body) SELECT item, body FROM work ORDER BY item;
SQL
    got=$(c -At -c "SELECT format('%s rows, %s linked, %s differ, key mismatches %s',
                       (SELECT count(*) FROM docs), (SELECT count(dup_of) FROM docs),
                       (SELECT count(*) FROM ((SELECT id, fp, dup_of FROM docs EXCEPT ALL SELECT id, fp, dup_of FROM one_node)
                                              UNION ALL
                                              (SELECT id, fp, dup_of FROM one_node EXCEPT ALL SELECT id, fp, dup_of FROM docs)) x),
                       key_mismatches())")
    expected=$(c -At -c "SELECT format('%s rows, %s linked, 0 differ, key mismatches 0', count(*), count(dup_of)) FROM one_node")
    check "$action through the coordinator vs simhash_dedup_trigger on one node" "$got" "$expected"
done

# --- 5. Bulk detection over the shards -------------------------------------------------
async=$(c -At -c "EXPLAIN (COSTS OFF) SELECT * FROM doc_pairs" | grep -c "Async Foreign Scan" || true)
check "every shard's pairs are computed at once (async append)" "$async" $N
# The link run above kept every item, near-duplicates included.
c -c "DROP TABLE gathered" -c "CREATE TABLE gathered AS SELECT id, fp FROM docs WHERE fp IS NOT NULL" >/dev/null
got=$(c -At <<SQL
CREATE TEMP TABLE sharded AS SELECT * FROM doc_pairs;
CREATE TEMP TABLE single AS SELECT * FROM simhash_duplicates('SELECT id, fp FROM gathered', $K);
SELECT format('%s pairs (%s distinct), %s differ; clusters: %s rows, %s differ',
    (SELECT count(*) FROM sharded), (SELECT count(DISTINCT (id1, id2)) FROM sharded),
    (SELECT count(*) FROM ((TABLE sharded EXCEPT ALL TABLE single) UNION ALL (TABLE single EXCEPT ALL TABLE sharded)) x),
    (SELECT count(*) FROM simhash_components('SELECT id1, id2 FROM doc_pairs')),
    (SELECT count(*) FROM ((SELECT * FROM simhash_components('SELECT id1, id2 FROM doc_pairs')
                            EXCEPT ALL SELECT * FROM simhash_clusters('SELECT id, fp FROM gathered', $K))
                           UNION ALL
                           (SELECT * FROM simhash_clusters('SELECT id, fp FROM gathered', $K)
                            EXCEPT ALL SELECT * FROM simhash_components('SELECT id1, id2 FROM doc_pairs'))) x));
SQL
)
expected=$(c -At -c "SELECT format('%s pairs (%s distinct), 0 differ; clusters: %s rows, 0 differ',
                        (SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM gathered', $K)),
                        (SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM gathered', $K)),
                        (SELECT count(*) FROM simhash_clusters('SELECT id, fp FROM gathered', $K)))")
check "pairs and clusters from the shards vs the gathered table" "$got" "$expected"
case $expected in "0 pairs"*) fail "bulk: no pairs, the data do not test much" ;; esac

# --- 6. Repair after a shard killed during its COMMIT ----------------------------------
# A fresh paragraph whose keys go to 2 or more shards; document id chosen per case.
body_sql="SELECT body FROM src s WHERE length(body) BETWEEN 100 AND 300 AND NOT EXISTS (SELECT 1 FROM work w WHERE w.body = s.body)
            AND cardinality(simhash_key_owners(simhash(body), $K, $N)) >= 2 ORDER BY id LIMIT 1"
read -r owners < <(c -At -c "SELECT array_to_string(simhash_key_owners(simhash(body), $K, $N), ' ') FROM ($body_sql) b")
for case in document key; do
    # document: the shard of the document row dies; key: a shard holding only a key row.
    if [ $case = document ]; then
        victim=${owners%% *}
        id=$(c -At -c "SELECT min(g) FROM generate_series(900000, 900100) g WHERE satisfies_hash_partition('docs'::regclass, $N, $victim, g::bigint)")
        table=docs
    else
        victim=${owners##* }
        id=$(c -At -c "SELECT min(g) FROM generate_series(900000, 900100) g WHERE NOT satisfies_hash_partition('docs'::regclass, $N, $victim, g::bigint)")
        table=doc_keys
    fi
    PGOPTIONS="-c client_min_messages=warning" on $P-$victim >/dev/null <<SQL
CREATE OR REPLACE FUNCTION stall() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN PERFORM pg_sleep(600); RETURN NULL; END';
DROP TRIGGER IF EXISTS stall ON docs;
DROP TRIGGER IF EXISTS stall ON doc_keys;
CREATE CONSTRAINT TRIGGER stall AFTER INSERT ON $table DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW WHEN (NEW.id = $id) EXECUTE FUNCTION stall();
SQL
    c -c "INSERT INTO docs(id, body) SELECT $id, body FROM ($body_sql) b" >"$tmp/commit.out" 2>&1 &
    writer=$!
    for _ in $(seq 600); do
        [ "$(on $P-$victim -At -c "SELECT count(*) FROM pg_stat_activity WHERE wait_event = 'PgSleep'")" = 1 ] && break
        sleep 0.1
    done
    # The others got their COMMIT before the victim's reply was awaited (parallel_commit).
    sleep 1
    bash "$h/cluster.sh" kill $P-$victim
    wait $writer && fail "repair ($case): the coordinator's COMMIT succeeded"
    bash "$h/cluster.sh" restart $P-$victim
    on $P-$victim -c "DROP TRIGGER stall ON $table" >/dev/null
    before=$(c -At -c "SELECT key_mismatches()")
    repaired=$(c -At -F' ' -c "SELECT action, count(*) FROM simhash_shard_repair('docs', 'id', 'fp', 'doc_keys', $K, $N) GROUP BY 1 ORDER BY 1" | paste -sd, -)
    after=$(c -At -c "SELECT key_mismatches()")
    if [ "$before" -gt 0 ]; then
        check "repair after the $case shard ($victim) died in its COMMIT ($before mismatching key rows; repair: $repaired)" "$after" 0
    else
        fail "repair ($case): killing shard $victim in its COMMIT left no orphan: $(cat "$tmp/commit.out")"
    fi
done

# --- 7. Similarity across the shards ---------------------------------------------------
# sim: every shard's table with its simhash_ops index, hash-partitioned on the coordinator;
# sim_local: the same rows on one node, with its own index. 3,247 paragraphs, and 10 of
# them reposted 3 ways (a sentence dropped, a character changed, a source line added).
# The shards' tables are analyzed right after the load, with autovacuum off: every run sees
# the same statistics, and the rows still in the GIN pending list (a bitmap scan's cost).
for i in $(seq 0 $((N - 1))); do
    on $P-$i -c "CREATE TABLE sim (id bigint PRIMARY KEY, body text NOT NULL) WITH (autovacuum_enabled = false)" \
             -c "CREATE INDEX sim_body ON sim USING gin (body simhash_ops)" >/dev/null
done
c >/dev/null <<SQL
CREATE TABLE sim (id bigint NOT NULL, body text NOT NULL) PARTITION BY HASH (id);
$(for i in $(seq 0 $((N - 1))); do
    echo "CREATE FOREIGN TABLE sim_$i PARTITION OF sim FOR VALUES WITH (MODULUS $N, REMAINDER $i)
              SERVER shard$i OPTIONS (table_name 'sim', batch_size '1000', use_remote_estimate 'true');"
    # A shard plans postgres_fdw's cursors for their first tenth of rows, where a seq scan
    # beats a bitmap scan on a small table (docs/scaling-out.md).
    echo "ALTER SERVER shard$i OPTIONS (ADD options '-c cursor_tuple_fraction=1');"
done)
CREATE TABLE sim_local AS SELECT id::bigint AS id, body FROM src WHERE id % 6 = 0;
CREATE TEMP TABLE base AS
SELECT id, n FROM (SELECT id, row_number() OVER (ORDER BY id) AS n FROM sim_local
                    WHERE length(body) BETWEEN 120 AND 400 AND body LIKE '%。%。%') x
 WHERE n % 86 = 1;
INSERT INTO sim_local
SELECT 100000 + id, regexp_replace(body, '^[^。]*。', '') FROM sim_local JOIN base USING (id)
UNION ALL SELECT 200000 + id, overlay(body placing '某' from 5 for 1) FROM sim_local JOIN base USING (id)
UNION ALL SELECT 300000 + id, '（新华社北京１月１日电）' || body FROM sim_local JOIN base USING (id);
CREATE INDEX sim_local_body ON sim_local USING gin (body simhash_ops);
INSERT INTO sim SELECT * FROM sim_local;
ANALYZE sim_local, sim;
-- 20 queries: the 10 paragraphs and one repost of each.
CREATE TABLE sim_q AS
SELECT id AS qid, body AS q FROM sim_local JOIN base USING (id)
UNION ALL SELECT l.id, l.body FROM base b JOIN sim_local l ON l.id = (1 + b.n % 3) * 100000 + b.id;
-- The lookups, body being the row and %s the query.
CREATE TABLE measures (name text, kind text, pred text);
INSERT INTO measures VALUES
    ('s5', 'similarity 0.5',   'simhash_similarity(body, %s) >= 0.5'),
    ('s8', 'similarity 0.8',   'simhash_similarity(body, %s) >= 0.8'),
    ('qr', 'query in row 0.8', 'simhash_containment(%s, body) >= 0.8'),
    ('rq', 'row in query 0.8', 'simhash_containment(body, %s) >= 0.8');
CREATE TABLE found (form text, kind text, qid bigint, id bigint);
SQL
for i in $(seq 0 $((N - 1))); do on $P-$i -c "ANALYZE sim" >/dev/null; done

# Shipping: the comparison becomes the predicate on the coordinator, and the predicate goes
# to every shard, with constants, parameters of a generic plan and a join's outer column.
ships() { # NAME REGEX PSQL-ARGS...: N Remote SQL lines match REGEX, no Filter on the coordinator
    local name=$1 regex=$2 plan
    shift 2
    plan=$(c -At "$@")
    check "$name ships to every shard" \
        "$(grep "Remote SQL: " <<<"$plan" | grep -cE "$regex") remote, $(grep -c "Filter: " <<<"$plan") filtered here" \
        "$N remote, 0 filtered here"
}
new_year="中共中央总书记、国家主席江泽民发表新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！"
ships "simhash_similarity(body, 'q') >= 0.6" \
    "WHERE \(public\.simhash_similarity_at_least\(body, '国家主席江泽民发表新年讲话'::text, 0\.6::double precision\)\)$" \
    -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM sim WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话') >= 0.6"
ships "0.6 < simhash_similarity('q', body)" \
    "WHERE \(public\.simhash_similarity_above\('国家主席江泽民发表新年讲话'::text, body, 0\.6::double precision\)\)$" \
    -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM sim WHERE 0.6 < simhash_similarity('国家主席江泽民发表新年讲话', body)"
ships "simhash_containment('long query', body) >= 0.8" \
    "WHERE \(public\.simhash_containment_at_least\('$new_year'::text, body, 0\.8::double precision\)\)$" \
    -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM sim WHERE simhash_containment('$new_year', body) >= 0.8"
ships "simhash_containment(body, 'long query') >= 0.8" \
    "WHERE \(public\.simhash_containment_at_least\(body, '$new_year'::text, 0\.8::double precision\)\)$" \
    -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM sim WHERE simhash_containment(body, '$new_year') >= 0.8"
ships "a generic plan of simhash_similarity(body, \$1) >= \$2 (text, float8)" \
    'WHERE \(public\.simhash_similarity_at_least\(body, \$1::text, \$2::double precision\)\)$' \
    -c 'PREPARE lookup(text, float8) AS SELECT id FROM sim WHERE simhash_similarity(body, $1) >= $2' \
    -c "SET plan_cache_mode = force_generic_plan" -c "EXPLAIN (VERBOSE, COSTS OFF) EXECUTE lookup('国家主席', 0.6)"
ships "a generic plan of simhash_similarity(body, \$1) >= \$2 (untyped: a score)" \
    'WHERE \(public\.simhash_similarity_at_least\(body, \$1::text, \$2::public\.simhash_score\)\)$' \
    -c 'PREPARE lookup AS SELECT id FROM sim WHERE simhash_similarity(body, $1) >= $2' \
    -c "SET plan_cache_mode = force_generic_plan" -c "EXPLAIN (VERBOSE, COSTS OFF) EXECUTE lookup('国家主席', 0.6)"
ships "a join on simhash_similarity(d.body, s.q) >= 0.5 (use_remote_estimate)" \
    'WHERE \(public\.simhash_similarity_at_least\(body, \$1::text, 0\.5::double precision\)\)$' \
    -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT s.qid, d.id FROM sim_q s JOIN sim d ON simhash_similarity(d.body, s.q) >= 0.5"
plan=$(c -At -c "ALTER SERVER shard0 OPTIONS (DROP extensions)" \
             -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id FROM sim WHERE simhash_similarity(body, '国家主席') >= 0.6" \
             -c "ALTER SERVER shard0 OPTIONS (ADD extensions 'simhash')")
check "without extensions 'simhash', shard 0's rows are fetched and filtered on the coordinator" \
    "$(grep -c "Remote SQL: .*simhash_similarity_at_least" <<<"$plan") remote, $(grep -c "Filter: simhash_similarity_at_least" <<<"$plan") filtered here" \
    "$((N - 1)) remote, 1 filtered here"

# The lookups through the coordinator, 3 ways: each query written into the statement, a
# prepared statement's generic plan, and a join of the queries with sim. auto_explain logs
# every remote query's plan in the shards' logs: each must be a bitmap scan of sim_body.
for i in $(seq 0 $((N - 1))); do
    c -c "ALTER SERVER shard$i OPTIONS (SET options '-c cursor_tuple_fraction=1 -c session_preload_libraries=auto_explain -c auto_explain.log_min_duration=0')" >/dev/null
    offset[i]=$(wc -c <"$run_dir/$P-$i/server.log")
done
c >/dev/null <<'SQL'
SELECT format('INSERT INTO found SELECT %L, %L, %s, id FROM sim WHERE %s', 'literal', m.kind, s.qid, format(m.pred, quote_literal(s.q)))
  FROM measures m, sim_q s ORDER BY m.name, s.qid \gexec
SET plan_cache_mode = force_generic_plan;
SELECT format('PREPARE %s(bigint, text) AS INSERT INTO found SELECT %L, %L, $1, id FROM sim WHERE %s', m.name, 'generic', m.kind, format(m.pred, '$2'))
  FROM measures m \gexec
SELECT format('EXECUTE %s(%s, %L)', m.name, s.qid, s.q) FROM measures m, sim_q s ORDER BY m.name, s.qid \gexec
RESET plan_cache_mode;
SELECT format('INSERT INTO found SELECT %L, %L, s.qid, d.id FROM sim_q s JOIN sim d ON %s', 'join', m.kind, format(m.pred, 's.q'))
  FROM measures m \gexec
SQL
for i in $(seq 0 $((N - 1))); do
    c -c "ALTER SERVER shard$i OPTIONS (SET options '-c cursor_tuple_fraction=1')" >/dev/null
done
lookups=$(c -At -c "SELECT 3 * count(*) FROM measures, sim_q")
for i in $(seq 0 $((N - 1))); do
    # A plan is a log entry "duration: ... plan:" and its tab-indented lines; postgres_fdw's
    # scans are cursors (use_remote_estimate's EXPLAINs are logged too, not counted).
    got=$(tail -c +$((offset[i] + 1)) "$run_dir/$P-$i/server.log" | awk '
        function done_() {
            if (p ~ /Query Text: DECLARE/ && p ~ /FROM public\.sim[ )]/) {
                n++; if (p ~ /Bitmap Index Scan on sim_body/) b++; if (p ~ /Seq Scan/) s++
            }
            p = ""
        }
        / LOG:  duration: .* plan:$/ { done_(); p = $0; next }
        /^\t/ { if (p != "") p = p "\n" $0; next }
        { done_() }
        END { done_(); printf "%d remote lookups: %d bitmap scans of sim_body, %d seq scans\n", n, b, s }')
    check "shard $i runs each shipped lookup on its index (auto_explain)" "$got" \
        "$lookups remote lookups: $lookups bitmap scans of sim_body, 0 seq scans"
done

# Exactness: the same statements on one node, by its index and by a scan (each query written
# into its statement, as in the literal form: its shingles are computed once, not per row).
one_node() { # FORM PREFIX: the lookups over sim_local as (FORM, kind, qid, id), each after PREFIX
    c -At -v form="$1" -v prefix="$2" <<'SQL'
SELECT format('%s SELECT %L, %L, %s, id FROM sim_local WHERE %s', :'prefix', :'form', m.kind, s.qid, format(m.pred, quote_literal(s.q)))
  FROM measures m, sim_q s ORDER BY m.name, s.qid \gexec
SQL
}
nq=$(c -At -c "SELECT count(*) FROM sim_q")
check "one node looks each query up in its index" \
    "$(one_node local "EXPLAIN (COSTS OFF)" | grep -c "Bitmap Index Scan on sim_local_body")" $((4 * nq))
check "or scans its rows (enable_bitmapscan off)" \
    "$(PGOPTIONS="-c enable_bitmapscan=off" one_node scan "EXPLAIN (COSTS OFF)" | grep -c "^Seq Scan on sim_local")" $((4 * nq))
one_node local "INSERT INTO found" >/dev/null
PGOPTIONS="-c enable_bitmapscan=off" one_node scan "INSERT INTO found" >/dev/null
differ() { # FORM BASELINE: rows of either that the other lacks
    echo "(SELECT count(*) FROM ((SELECT kind, qid, id FROM found WHERE form = '$1' EXCEPT ALL SELECT kind, qid, id FROM found WHERE form = '$2')
                             UNION ALL (SELECT kind, qid, id FROM found WHERE form = '$2' EXCEPT ALL SELECT kind, qid, id FROM found WHERE form = '$1')) x)"
}
for form in literal generic join; do
    got=$(c -At -c "SELECT format('%s matches, %s differ from one node''s index, %s from its scan',
                                  (SELECT count(*) FROM found WHERE form = '$form'), $(differ $form local), $(differ $form scan))")
    expected=$(c -At -c "SELECT format('%s matches, 0 differ from one node''s index, 0 from its scan', count(*)) FROM found WHERE form = 'scan'")
    check "similarity 0.5 and 0.8, containment 0.8 both ways, $nq queries, $form, through the coordinator vs one node" "$got" "$expected"
done
# Each query finds itself; each measure must find more (the reposts).
fewest=$(c -At -c "SELECT min(c) FROM (SELECT count(f.id) AS c FROM measures m LEFT JOIN found f ON f.form = 'scan' AND f.kind = m.kind GROUP BY m.kind) x")
[ "$fewest" -gt $((2 * nq)) ] || fail "similarity: only $fewest matches for a measure, the data do not test much"

exit $status
