#!/usr/bin/env bash
# Dedup on insert and bulk pairs by similarity across postgres_fdw shards (issue 35;
# docs/scaling-out.md, "Dedup and bulk pairs by similarity across shards"): 2 coordinators
# and 3 shards (tests/harness/shards.sh, sim_shards.sh), Unix sockets only. Each document's
# copy goes to the owners of its index keys, where the shards' own
# simhash_similarity_dedup_trigger (link) sees its near-duplicates.
#   1. a repost inserted through a coordinator is rejected (23505, the similarity in DETAIL)
#      when its twin lives on another shard, and nothing of it is left anywhere; UPDATE and
#      DELETE keep the copies right (every document has exactly its copies);
#   2. 8 pgbench writers, 4 through each coordinator, insert paragraphs and their reposts
#      (tests/harness/similarity_items.sql: a group is a paragraph and its reposts), a group's
#      texts by different writers at once: similarity 0.6 with reject (READ COMMITTED) and
#      skip (REPEATABLE READ), and containment 0.8 either way with reject; afterwards every
#      item was done once, exactly one row per group is left (none lost, none doubled), no
#      two rows are close, and every document has exactly its copies;
#   3. skip and link, inserted in one order, keep the rows (and links) that
#      simhash_similarity_dedup_trigger keeps on one node;
#   4. bulk, by band keys: each shard's simhash_similarity_shard_pairs over its documents,
#      the keys of the shards it reads (a generated column) and their candidates' texts; the
#      union equals simhash_similarity_pairs on the gathered table, each pair once, and
#      simhash_components over it equals simhash_similarity_clusters; and by band ranges
#      (simhash_similarity_band_candidates on every shard, then
#      simhash_similarity_candidate_pairs): the same pairs, each once;
#   5. repair: a lost copy, an orphan (a copy of no document) and a copy with a stale text
#      are found and fixed by simhash_similarity_shard_repair;
#   6. cancel: an insert of a 33 MB text through a coordinator, and a shard's bulk pairs
#      read through it, end with 57014 under statement_timeout; nothing of the insert stays;
#   7. a 4.x deployment (measure 1, the _m1 functions since 5.0.0): copies routed by measure
#      1's keys, shards' simhash_similarity_dedup_trigger_m1 on simhash_ops_m1 indexes; two
#      invoices that differ only in their figures are linked there (measure 2's set-up
#      above does not link them), and the shards' pairs and the repair are measure 1's.
# Starts and stops its own clusters; needs the extension installed in target/pgroot.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
# shellcheck source=../harness/shards.sh
source "$h/shards.sh"
# shellcheck source=../harness/sim_shards.sh
source "$h/sim_shards.sh"
P=simshard N=3

shards_start $P $N
at_exit "bash $h/cluster.sh stop $P-d >/dev/null 2>&1"
bash "$h/cluster.sh" start "$P-d" "shared_preload_libraries = 'simhash'" "max_connections = 60" >/dev/null
d() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" on "$P-d" "$@"; }
sim_shards $P $N
sim_shard_dedup $P $N 0.6
sim_coordinator $P $P-c $N reject
sim_coordinator $P $P-d $N reject

# The corpus, and is_close (as similarity_items.sql's) on both coordinators.
for x in c d; do
    $x >/dev/null <<SQL
CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL);
\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'
CREATE FUNCTION is_close(a text, b text, theta float8, gamma float8) RETURNS boolean LANGUAGE sql AS \$\$
    SELECT simhash_similarity(a, b)::float8 >= theta
        OR (gamma <= 1 AND (simhash_containment(a, b)::float8 >= gamma OR simhash_containment(b, a)::float8 >= gamma)) \$\$;
SQL
done
# Work items of MODE at THETA and GAMMA on both coordinators (made in a scratch database).
items() { # MODE THETA GAMMA
    c -c "DROP DATABASE IF EXISTS items" -c "CREATE DATABASE items" >/dev/null
    c -d items >/dev/null <<SQL
CREATE EXTENSION simhash;
CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL);
\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'
SQL
    c -d items -v mode="$1" -v theta="$2" -v gamma="$3" -f "$h/similarity_items.sql" >/dev/null
    for x in c d; do
        $x -c "DROP TABLE IF EXISTS work, outcome" -c "DROP FUNCTION IF EXISTS try_item, try_items" \
           -c "CREATE TABLE work(item int PRIMARY KEY, g bigint, body text)" >/dev/null
        c -d items -c "COPY work TO STDOUT" | $x -c "COPY work FROM STDIN"
        $x -f "$h/try_item.sql" >/dev/null
    done
    items=$(c -At -c "SELECT count(*) FROM work")
    groups=$(c -At -c "SELECT count(DISTINCT g) FROM work")
}
# Close pairs among the documents (gathered on the coordinator): candidates from an index at
# lower thresholds, the exact measures decide (as similarity_items.sql does across groups).
close_pairs() { # THETA GAMMA
    c -At <<SQL
DROP TABLE IF EXISTS gathered;
CREATE TABLE gathered AS SELECT id, body FROM docs;
CREATE INDEX ON gathered USING gin (body simhash_ops);
ANALYZE gathered;
SET enable_seqscan = off;
SELECT count(*) FROM gathered a JOIN gathered b ON b.id > a.id
    AND (simhash_similarity(b.body, a.body) >= 0.3 OR simhash_containment(b.body, a.body) >= 0.5
         OR simhash_containment(a.body, b.body) >= 0.5)
 WHERE is_close(a.body, b.body, $1, $2);
SQL
}
# Sets the coordinators' action (and the shards' thresholds), and empties the tables.
setup() { # ACTION THETA [OPTIONS]
    local link="" x
    [ "$1" = link ] && link=", 'dup_of'"
    sim_shard_dedup $P $N "$2" "${3:-}"
    for x in c d; do
        $x >/dev/null <<SQL
TRUNCATE docs, doc_copies;
TRUNCATE outcome;
DROP TRIGGER b_copies ON docs;
CREATE TRIGGER b_copies BEFORE INSERT OR UPDATE OR DELETE ON docs FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_shard_trigger('id', 'body', 'public.doc_copies', '$N', '$1'$link);
SQL
    done
}

# --- 1. Reject across shards -----------------------------------------------------------
items similarity 0.6 2
setup reject 0.6
# A paragraph and its repost with a character changed, as documents on different shards.
read -r twin copy < <(c -At -F' ' -c "SELECT a.item, b.item FROM work a JOIN work b ON b.g = a.g AND b.item > a.item
                                       AND satisfies_hash_partition('docs'::regclass, $N, 0, a.item::bigint)
                                       AND NOT satisfies_hash_partition('docs'::regclass, $N, 0, b.item::bigint)
                                       AND a.body <> b.body ORDER BY a.item LIMIT 1")
c -c "SELECT try_item($twin)" -c "SELECT try_item($copy)" >/dev/null
got=$(c -At -c "SELECT string_agg(result, ' ' ORDER BY item) || ', documents ' || (SELECT count(*) FROM docs)
                       || ', copies ' || (SELECT count(*) FROM doc_copies) || ', mismatches ' || copy_mismatches()
                  FROM outcome")
copies=$(c -At -c "SELECT cardinality(simhash_similarity_owners(body, $N)) FROM work WHERE item = $twin")
check "a repost of a document on another shard (items $twin, $copy)" "$got" "inserted rejected, documents 1, copies $copies, mismatches 0"
similarity=$(c -At -c "SELECT round(simhash_similarity(a.body, b.body)::numeric, 3) FROM work a, work b WHERE a.item = $twin AND b.item = $copy")
msg=$(d -c "INSERT INTO docs(id, body) SELECT 1000000 + $copy, body FROM work WHERE item = $copy" 2>&1 || true)
check "its error through the other coordinator" "$(grep -v CONTEXT <<<"$msg" | head -2)" "ERROR:  new row for relation \"docs\" is a near-duplicate of an existing row (trigger \"b_copies\")
DETAIL:  Key (id)=($twin) has similarity $similarity with it."
# Another group's paragraph, updated to the twin's text (rejected), to a third text, deleted.
read -r other third < <(c -At -F' ' -c "SELECT a.item, b.item FROM work a, work b, work t
                                         WHERE t.item = $twin AND a.g <> t.g AND b.g <> t.g AND b.g <> a.g
                                         ORDER BY a.item, b.item LIMIT 1")
c -c "SELECT try_item($other)" >/dev/null
upd=$(c -At -c "UPDATE docs SET body = (SELECT body FROM work WHERE item = $twin) WHERE id = $other" 2>&1 | head -1 || true)
check "update to the twin's text" "$upd; then: $(c -At -c "SELECT copy_mismatches()")" \
    "ERROR:  new row for relation \"docs\" is a near-duplicate of an existing row (trigger \"b_copies\"); then: 0"
c -c "UPDATE docs SET body = (SELECT body FROM work WHERE item = $third) WHERE id = $other" >/dev/null
check "update to another text moves the copies" "$(c -At -c "SELECT copy_mismatches()")" 0
c -c "DELETE FROM docs WHERE id = $other" >/dev/null
check "delete removes the copies" \
    "$(c -At -c "SELECT format('%s copies of the deleted, %s mismatches', (SELECT count(*) FROM doc_copies WHERE id = $other), copy_mismatches())")" \
    "0 copies of the deleted, 0 mismatches"

# --- 2. 8 writers through 2 coordinators ------------------------------------------------
printf 'BEGIN;\nSELECT try_items(:client_id + :off, :i, 1);\nCOMMIT;\n\\set i :i + 1\n' >"$tmp/insert.sql"
writers() { # ISOLATION: 4 pgbench clients on each coordinator, at once
    local txs=$(( (items + 7) / 8 )) x off=0 pids=() rc=0 pid
    for x in c d; do
        PGOPTIONS="-c default_transaction_isolation=${1// /\\ }" \
            in_cluster "$P-$x" pgbench -n -c 4 -j 2 -t $txs --max-tries=1000 -D i=0 -D off=$off -f "$tmp/insert.sql" postgres \
            >"$tmp/pgbench-$x.out" 2>"$tmp/pgbench-$x.err" &
        pids+=($!)
        off=4
    done
    for pid in "${pids[@]}"; do wait "$pid" || rc=$?; done
    return $rc
}
while IFS=, read -r mode theta gamma action iso; do
    options=""
    [ "$gamma" = 2 ] || options="{\"min_containment\": $gamma}"
    [ "$mode" = "${items_mode:-}" ] || { items "$mode" "$theta" "$gamma"; items_mode=$mode; }
    setup "$action" "$theta" "$options"
    rc=0
    writers "$iso" || rc=$?
    figure() { echo $(( $(pgbench_figure "$tmp/pgbench-c.out" "$1" || true) + $(pgbench_figure "$tmp/pgbench-d.out" "$1" || true) + 0 )); }
    failed=$(figure "number of failed transactions") retried=$(figure "number of transactions retried")
    d -c "DROP TABLE IF EXISTS outcome_d" -c "CREATE TABLE outcome_d AS SELECT * FROM outcome" >/dev/null
    c -c "DROP TABLE IF EXISTS outcome_d" -c "CREATE TABLE outcome_d (item int, result text)" >/dev/null
    d -c "COPY outcome_d TO STDOUT" | c -c "COPY outcome_d FROM STDIN"
    got=$(c -At <<SQL
SELECT format('done %s, inserted %s, rows %s, groups without exactly one %s, copy mismatches %s',
    (SELECT count(DISTINCT item) FROM (SELECT item FROM outcome UNION ALL SELECT item FROM outcome_d) o),
    (SELECT count(*) FROM (SELECT * FROM outcome UNION ALL SELECT * FROM outcome_d) o WHERE result = 'inserted'),
    (SELECT count(*) FROM docs),
    (SELECT count(*) FROM (SELECT w.g FROM work w LEFT JOIN docs x ON x.id = w.item GROUP BY w.g HAVING count(x.id) <> 1) x),
    copy_mismatches());
SQL
)
    check "$mode $theta/$gamma, $action, $iso: 8 writers via 2 coordinators, $items items in $groups groups (${retried} transactions retried, $failed failed, pgbench exit $rc)" \
        "$got, close pairs $(close_pairs "$theta" "$gamma")" \
        "done $items, inserted $groups, rows $groups, groups without exactly one 0, copy mismatches 0, close pairs 0"
    [ "$rc" = 0 ] && [ "$failed" = 0 ] || { tail -3 "$tmp"/pgbench-*.err; status=1; }
done <<'RUNS'
similarity,0.6,2,reject,read committed
similarity,0.6,2,skip,repeatable read
containment,0.9,0.8,reject,read committed
RUNS

# --- 3. skip and link equal one node ---------------------------------------------------
items similarity 0.6 2
for action in skip link; do
    link=""; [ $action = link ] && link=", 'dup_of'"
    setup $action 0.6
    c >/dev/null <<SQL
DROP TABLE IF EXISTS one_node;
CREATE TABLE one_node (id bigint PRIMARY KEY, body text, dup_of bigint);
CREATE INDEX ON one_node USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT ON one_node FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.6', '$action'$link);
SELECT try_item(item) FROM work ORDER BY item;
INSERT INTO one_node(id, body) SELECT item, body FROM work ORDER BY item;
SQL
    got=$(c -At -c "SELECT format('%s rows, %s linked, %s differ, copy mismatches %s',
                       (SELECT count(*) FROM docs), (SELECT count(dup_of) FROM docs),
                       (SELECT count(*) FROM ((SELECT id, body, dup_of FROM docs EXCEPT ALL SELECT id, body, dup_of FROM one_node)
                                              UNION ALL
                                              (SELECT id, body, dup_of FROM one_node EXCEPT ALL SELECT id, body, dup_of FROM docs)) x),
                       copy_mismatches())")
    expected=$(c -At -c "SELECT format('%s rows, %s linked, 0 differ, copy mismatches 0', count(*), count(dup_of)) FROM one_node")
    check "$action through the coordinator vs simhash_similarity_dedup_trigger on one node" "$got" "$expected"
done
linked=$(c -At -c "SELECT count(dup_of) FROM docs")
[ "$linked" -gt 100 ] || fail "link: only $linked rows linked, the data do not test much"

# --- 4. Bulk pairs over the shards -----------------------------------------------------
# The link run above kept every item; 3,000 more paragraphs are loaded in bulk (the shards'
# and the coordinator's triggers off, the copies written by their owners).
for i in $(seq 0 $((N - 1))); do on $P-$i -c "ALTER TABLE doc_copies DISABLE TRIGGER dedup" >/dev/null; done
c >/dev/null <<SQL
ALTER TABLE docs DISABLE TRIGGER b_copies;
INSERT INTO docs(id, body) SELECT 100000 + id, body FROM src WHERE id % 10 = 3 AND length(body) > 20 LIMIT 3000;
INSERT INTO doc_copies(shard, id, body)
SELECT o, id, body FROM docs, unnest(simhash_similarity_owners(body, $N)) o WHERE id >= 100000;
ALTER TABLE docs ENABLE TRIGGER b_copies;
SQL
for i in $(seq 0 $((N - 1))); do on $P-$i -c "ALTER TABLE doc_copies ENABLE TRIGGER dedup" >/dev/null; done
sim_shard_bulk $P $N 0.6
async=$(c -At -c "EXPLAIN (COSTS OFF) SELECT * FROM doc_pairs" | grep -c "Async Foreign Scan" || true)
check "every shard's pairs are computed at once (async append)" "$async" $N
got=$(c -At <<SQL
CREATE TEMP TABLE g AS SELECT id, body FROM docs;
CREATE TEMP TABLE sharded AS SELECT * FROM doc_pairs;
CREATE TEMP TABLE single AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM g', 0.6);
CREATE TEMP TABLE comp AS SELECT * FROM simhash_components('SELECT id1, id2 FROM doc_pairs');
CREATE TEMP TABLE clus AS SELECT * FROM simhash_similarity_clusters('SELECT id, body FROM g', 0.6);
SELECT format('%s pairs (%s distinct), %s differ; clusters: %s rows, %s differ',
    (SELECT count(*) FROM sharded), (SELECT count(DISTINCT (id1, id2)) FROM sharded),
    (SELECT count(*) FROM ((TABLE sharded EXCEPT ALL TABLE single) UNION ALL (TABLE single EXCEPT ALL TABLE sharded)) x),
    (SELECT count(*) FROM comp),
    (SELECT count(*) FROM ((TABLE comp EXCEPT ALL TABLE clus) UNION ALL (TABLE clus EXCEPT ALL TABLE comp)) x));
SQL
)
expected=$(c -At -c "SELECT format('%s pairs (%s distinct), 0 differ; clusters: %s rows, 0 differ',
                        (SELECT count(*) FROM simhash_similarity_pairs('SELECT id, body FROM docs', 0.6)),
                        (SELECT count(*) FROM simhash_similarity_pairs('SELECT id, body FROM docs', 0.6)),
                        (SELECT count(*) FROM simhash_similarity_clusters('SELECT id, body FROM docs', 0.6)))")
check "similarity pairs and clusters from the shards vs the gathered table ($(c -At -c "SELECT count(*) FROM docs") documents)" "$got" "$expected"
case $expected in "0 pairs"* | [0-9]" pairs"* | [0-9][0-9]" pairs"*) fail "bulk: few pairs, the data do not test much" ;; esac
# By band ranges: each shard reads its slice of every document (the shard pushed down to the
# others), makes its candidates; then the home shards measure; the same pairs, once.
sim_shard_band_ranges $P $N 0.6
remote=$(on $P-0 -At -c "EXPLAIN (VERBOSE, COSTS OFF) SELECT id, slice FROM public.all_band_slices WHERE shard = 0" |
    grep -c "Remote SQL: .*WHERE ((shard = 0))" || true)
check "a shard's slices are cut and filtered on the other shards" "$remote" $((N - 1))
sim_shard_band_candidates $P $N 0.6
got=$(c -At <<SQL
CREATE TEMP TABLE g AS SELECT id, body FROM docs;
CREATE TEMP TABLE ranges AS SELECT * FROM doc_band_pairs;
CREATE TEMP TABLE single AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM g', 0.6);
SELECT format('%s pairs (%s distinct), %s differ', count(*), count(DISTINCT (id1, id2)),
    (SELECT count(*) FROM ((TABLE ranges EXCEPT ALL TABLE single) UNION ALL (TABLE single EXCEPT ALL TABLE ranges)) x))
  FROM ranges;
SQL
)
n=$(c -At -c "SELECT count(*) FROM simhash_similarity_pairs('SELECT id, body FROM docs', 0.6)")
check "similarity pairs by band ranges vs the gathered table" "$got" "$n pairs ($n distinct), 0 differ"
for i in $(seq 0 $((N - 1))); do
    [ "$(on $P-$i -At -c "SELECT count(*) > 0 FROM band_candidates")" = t ] || fail "shard $i made no band candidates"
done
got=$(c -At -c "SELECT count(*) FROM docs_0" -c "SELECT sum(cardinality(simhash_similarity_owners(body, $N)))::float8 / count(*) FROM docs" | tr '\n' ' ')
echo "copies per document at $N shards: ${got#* }"

# --- 5. Repair -------------------------------------------------------------------------
# Two documents of the bulk load without a near-duplicate: one loses a copy, one copy's text
# goes stale; and a copy of no document (an orphan, as a crash between shard commits leaves).
read -r lost stale < <(c -At -F' ' -c "SELECT string_agg(id::text, ' ') FROM (SELECT d.id FROM docs d
    WHERE d.id >= 100000 AND length(d.body) > 100
      AND NOT EXISTS (SELECT FROM simhash_similarity_pairs('SELECT id, body FROM docs', 0.3) p WHERE d.id IN (p.id1, p.id2))
    ORDER BY d.id LIMIT 2) x")
c >/dev/null <<SQL
DELETE FROM doc_copies WHERE id = $lost AND shard = (SELECT min(o) FROM docs, unnest(simhash_similarity_owners(body, $N)) o WHERE id = $lost);
UPDATE doc_copies SET body = body || '又' WHERE id = $stale AND shard = (SELECT min(o) FROM docs, unnest(simhash_similarity_owners(body, $N)) o WHERE id = $stale);
INSERT INTO doc_copies(shard, id, body) VALUES (0, 999999, '一个没有文档的副本，崩溃在分片提交之间留下的。');
SQL
check "damage is seen" "$(c -At -c "SELECT copy_mismatches()")" 4
got=$(c -At -c "SELECT string_agg(format('%s %s', action, id), ', ' ORDER BY action, id)
                  FROM simhash_similarity_shard_repair('docs', 'id', 'body', 'doc_copies', $N)")
check "simhash_similarity_shard_repair" "$got; then $(c -At -c "SELECT copy_mismatches()")" \
    "deleted $stale, deleted 999999, inserted $lost, inserted $stale; then 0"

# --- 6. Cancel -------------------------------------------------------------------------
# A 33 MB text inserted through a coordinator (its routing reads it all), and a shard's
# bulk pairs over 200,000 texts read through the coordinator: statement_timeout ends both
# with 57014 (postgres_fdw cancels the remote query), and nothing of the insert is left.
on $P-0 -c "CREATE VIEW slow_pairs AS SELECT * FROM simhash_similarity_home_pairs(
    'SELECT i::bigint, md5(i::text) || md5((i % 7)::text) FROM generate_series(1, 200000) i',
    'SELECT id, band_keys FROM docs_1', 0.3)" >/dev/null
c -c "CREATE FOREIGN TABLE slow_pairs (id1 bigint, id2 bigint, similarity float8) SERVER shard0 OPTIONS (table_name 'slow_pairs')" >/dev/null
cancelled() { [ "$(in_cluster $P-c sqlstate -c "SET statement_timeout = '300ms'" -c "$1")" = 57014 ]; }
cancelled "INSERT INTO docs(id, body) SELECT 5000000, string_agg(md5(i::text), ' ') FROM generate_series(1, 1000000) i" ||
    fail "an insert of a 33 MB text through the coordinator was not cancelled (57014)"
cancelled "SELECT count(*) FROM slow_pairs" ||
    fail "a shard's bulk pairs read through the coordinator were not cancelled (57014)"
check "after the cancelled insert" "$(c -At -c "SELECT format('%s documents, %s copies', (SELECT count(*) FROM docs WHERE id = 5000000), (SELECT count(*) FROM doc_copies WHERE id = 5000000))")" \
    "0 documents, 0 copies"

# --- 7. A 4.x deployment: measure 1 ---------------------------------------------------
inv1="Invoice 1041 for order 5520 placed on 2024-02-11 by customer 88213: 12 units of item 305 (steel brackets, zinc plated) at 19.90 EUR each, shipping 7.50 EUR, total 246.30 EUR, due 2024-03-01."
inv2="Invoice 7782 for order 6904 placed on 2025-10-02 by customer 10457: 5 units of item 118 (steel brackets, zinc plated) at 240.00 EUR each, shipping 12.00 EUR, total 1,212.00 EUR, due 2025-11-30."
for i in $(seq 0 $((N - 1))); do
    on $P-$i >/dev/null <<SQL
CREATE TABLE doc_copies_m1 (shard int NOT NULL CHECK (shard = $i), id bigint PRIMARY KEY, body text NOT NULL, dup_of bigint);
CREATE INDEX ON doc_copies_m1 USING gin (body simhash_ops_m1);
CREATE TRIGGER dedup BEFORE INSERT ON doc_copies_m1 FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger_m1('body', '0.6', 'link', 'dup_of');
CREATE VIEW doc_pairs_m1 AS SELECT * FROM simhash_similarity_shard_pairs_m1('public.doc_copies_m1', 0.6, $N);
SQL
done
{
    echo "CREATE TABLE docs_m1 (id bigint PRIMARY KEY, body text, dup_of bigint);"
    echo "CREATE TABLE doc_copies_m1 (shard int NOT NULL, id bigint NOT NULL, body text NOT NULL, dup_of bigint) PARTITION BY LIST (shard);"
    for i in $(seq 0 $((N - 1))); do
        cat <<SQL
CREATE FOREIGN TABLE doc_copies_m1_$i PARTITION OF doc_copies_m1 FOR VALUES IN ($i)
    SERVER shard$i OPTIONS (table_name 'doc_copies_m1');
CREATE FOREIGN TABLE doc_pairs_m1_$i (id1 bigint, id2 bigint, similarity float8)
    SERVER shard$i OPTIONS (table_name 'doc_pairs_m1');
SQL
    done
    union_view doc_pairs_m1 "$N"
    cat <<SQL
CREATE TRIGGER b_copies BEFORE INSERT OR UPDATE OR DELETE ON docs_m1 FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_shard_trigger_m1('id', 'body', 'public.doc_copies_m1', '$N', 'link', 'dup_of');
CREATE FUNCTION copy_mismatches_m1() RETURNS bigint LANGUAGE sql AS \$\$
    SELECT count(*) FROM
        (SELECT o AS shard, d.id, d.body FROM docs_m1 d, unnest(simhash_similarity_owners_m1(d.body, $N)) o) e
        FULL JOIN doc_copies_m1 k ON k.shard = e.shard AND k.id = e.id AND k.body = e.body
     WHERE e.id IS NULL OR k.id IS NULL \$\$;
SQL
} | c >/dev/null
got=$(c -At -v inv1="$inv1" -v inv2="$inv2" <<SQL
INSERT INTO docs_m1(id, body) VALUES (1, :'inv1'), (2, :'inv2');
INSERT INTO docs(id, body) VALUES (7000001, :'inv1'), (7000002, :'inv2');
SELECT format('measure 1: linked to %s, %s copies on %s shards, %s mismatches; measure 2: linked to %s',
    (SELECT dup_of FROM docs_m1 WHERE id = 2), (SELECT count(*) FROM doc_copies_m1),
    (SELECT count(DISTINCT shard) FROM doc_copies_m1), copy_mismatches_m1(),
    (SELECT coalesce(dup_of::text, 'nothing') FROM docs WHERE id = 7000002));
SQL
)
read -r copies shards < <(c -At -F' ' -v inv1="$inv1" -v inv2="$inv2" <<SQL
SELECT cardinality(simhash_similarity_owners_m1(:'inv1', $N)) + cardinality(simhash_similarity_owners_m1(:'inv2', $N)),
       (SELECT count(DISTINCT o) FROM unnest(simhash_similarity_owners_m1(:'inv1', $N) || simhash_similarity_owners_m1(:'inv2', $N)) o);
SQL
)
check "measure 1 through the shards: invoices that differ only in their figures" "$got" \
    "measure 1: linked to 1, $copies copies on $shards shards, 0 mismatches; measure 2: linked to nothing"
got=$(c -At <<SQL
CREATE TEMP TABLE sharded AS SELECT * FROM doc_pairs_m1;
CREATE TEMP TABLE single AS SELECT * FROM simhash_similarity_pairs_m1('SELECT id, body FROM docs_m1', 0.6);
SELECT format('%s pairs (%s distinct), %s differ', (SELECT count(*) FROM sharded), (SELECT count(DISTINCT (id1, id2)) FROM sharded),
    (SELECT count(*) FROM ((TABLE sharded EXCEPT ALL TABLE single) UNION ALL (TABLE single EXCEPT ALL TABLE sharded)) x));
SQL
)
check "measure 1's pairs from the shards vs the gathered table" "$got" "1 pairs (1 distinct), 0 differ"
c -c "DELETE FROM doc_copies_m1 WHERE id = 2 AND shard = (SELECT min(o) FROM docs_m1, unnest(simhash_similarity_owners_m1(body, $N)) o WHERE id = 2)" >/dev/null
got=$(c -At -c "SELECT string_agg(format('%s %s %s', action, id, coalesce(dup_of::text, '-')), ', ' ORDER BY action, id)
                  FROM simhash_similarity_shard_repair_m1('docs_m1', 'id', 'body', 'doc_copies_m1', $N)")
check "simhash_similarity_shard_repair_m1 restores a lost copy, which meets its twin" "$got; then $(c -At -c "SELECT copy_mismatches_m1()")" \
    "inserted 2 -, near-duplicate 2 1; then 0"

exit $status
