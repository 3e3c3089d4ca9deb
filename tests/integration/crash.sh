#!/usr/bin/env bash
# Crash recovery (issue 11, part 4), on a cluster of its own (target/run/crash):
#
# 1. Kill during writes. 8 pgbench clients insert real paragraphs and planted variants
#    within distance 3 (tests/harness/dedup_items.sql) into a table with covering block
#    indexes and the dedup trigger (reject); once a third of the items are handed out,
#    the postmaster and all its children are killed with SIGKILL (cluster.sh kill), and
#    the cluster is started again on the same data directory (crash recovery). Then:
#    - amcheck's bt_index_parent_check(heapallindexed) is clean on the primary key and
#      every block index;
#    - simhash_near through the planner rewrite (bitmap scans of the block indexes)
#      returns the same rows as brute force (PostgreSQL's bit_count) for 500 queries and
#      every k from 0 to 6;
#    - brute force finds 0 pairs within 3 that the dedup decision calls the same passage
#      (simhash_same_passage; 6.0 keeps a pair within 3 whose figures differ, such as a
#      planted '某' in place of a digit) among the committed rows; and again after the
#      writers have inserted the remaining items on the recovered cluster. The items hold
#      such pairs, so the check can fail.
# 2. Kill during an index build. A CREATE INDEX CONCURRENTLY of the fourth block
#    expression index of a 1,000,000-row table is ended by pg_terminate_backend (SIGTERM
#    to that backend only; the cluster stays up) once its build has started, leaving an
#    INVALID index. A session holding an old snapshot keeps the build from finishing
#    before the kill, whatever the machine's speed. Then:
#    - the rewrite ignores the invalid index: the block set is incomplete, the plan scans
#      the table, and simhash_near equals brute force for every k from 0 to 6;
#    - after REINDEX INDEX CONCURRENTLY the index is valid, amcheck is clean, the plan
#      uses all four block indexes again, and the results still equal brute force.
# The server log must show no PANIC and no process ended by a signal other than the kill.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
name=crash
k=3
clients=8
own_cluster $name "shared_buffers = 128MB" "max_wal_size = 1GB"
log=$run_dir/$name/server.log

# amcheck on every btree index of a table; prints the number of indexes checked.
amcheck() { # amcheck DB TABLE
    psql -d "$1" -At <<SQL
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS amcheck;
SELECT count(bt_index_parent_check(i.indexrelid, heapallindexed => true))
  FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
 WHERE i.indrelid = '$2'::regclass AND c.relam = (SELECT oid FROM pg_am WHERE amname = 'btree');
SQL
}

# simhash_near (rewritten when a complete block set exists) against brute force, for every
# query of table q(qid, q) and k = 0..6: prints the number of (query, k, row) results that
# differ, then the number of matches. Brute force computes each distance once.
near_vs_brute() { # near_vs_brute DB TABLE
    psql -d "$1" -At <<SQL
CREATE TEMP TABLE brute AS
SELECT q.qid, t.id, bit_count((t.fp # q.q)::bit(64)) AS d
  FROM q, $2 t WHERE bit_count((t.fp # q.q)::bit(64)) <= 6;
SET enable_seqscan = off;
CREATE TEMP TABLE via_near AS
SELECT q.qid, k, t.id FROM q CROSS JOIN generate_series(0, 6) k JOIN $2 t ON simhash_near(t.fp, q.q, k);
RESET enable_seqscan;
SELECT (SELECT count(*) FROM ((SELECT qid, k, id FROM via_near
                               EXCEPT ALL SELECT qid, k, id FROM brute, generate_series(0, 6) k WHERE d <= k)
                              UNION ALL
                              (SELECT qid, k, id FROM brute, generate_series(0, 6) k WHERE d <= k
                               EXCEPT ALL SELECT qid, k, id FROM via_near)) x)
       || ' ' || (SELECT count(*) FROM via_near);
SQL
}

# The plan of the query near_vs_brute runs, as one line.
near_plan() { # near_plan DB TABLE
    psql -d "$1" -At -c "SET enable_seqscan = off" -c "EXPLAIN (COSTS OFF)
        SELECT q.qid, k, t.id FROM q CROSS JOIN generate_series(0, 6) k JOIN $2 t ON simhash_near(t.fp, q.q, k)" | tr '\n' ' '
}

### 1. Kill during writes
db=crash_writes
createdb $db
psql -d $db -c "CREATE EXTENSION simhash" \
     -c "CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL)" \
     -c "\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
psql -d $db -v k=$k -v stride=1 -v paragraphs=4000 -f "$h/dedup_items.sql" >/dev/null
psql -d $db >/dev/null <<SQL
CREATE TABLE docs(id int PRIMARY KEY, body text, fp bigint);
SELECT simhash_create_blocks('docs', 'fp', 4, include_fingerprint => true);
CREATE TRIGGER docs_dedup BEFORE INSERT OR UPDATE OF body ON docs FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '$k', 'reject');
-- Items are handed out in order, so a paragraph and its variants go to different clients
-- at the same moment. A near-duplicate is rejected (23505) and skipped.
CREATE SEQUENCE next_item MINVALUE 0 START 0;
CREATE FUNCTION write_items(per_tx int) RETURNS void LANGUAGE plpgsql AS \$\$
DECLARE n int; b text;
BEGIN
    FOR j IN 1 .. per_tx LOOP
        n := nextval('next_item');
        SELECT body INTO b FROM work WHERE item = n;
        CONTINUE WHEN NOT FOUND;
        BEGIN
            INSERT INTO docs(id, body) VALUES (n, b);
        EXCEPTION WHEN unique_violation THEN NULL;
        END;
    END LOOP;
END \$\$;
SQL
items=$(psql -d $db -Atc "SELECT count(*) FROM work")
echo "items $items (planted variants $(psql -d $db -Atc "SELECT count(*) FROM cand WHERE var > 0")), $clients clients, 2 items per transaction"
printf 'BEGIN;\nSELECT write_items(2);\nCOMMIT;\n' >"$tmp/write.sql"

# pgbench until killed; deadlocks between two items' locks are retried.
PGOPTIONS="-c deadlock_timeout=50ms" pgbench -n -c $clients -j 2 -T 600 --max-tries=1000 \
    -f "$tmp/write.sql" $db >"$tmp/pgbench1.out" 2>"$tmp/pgbench1.err" &
bench=$!; kill_at_exit "$bench"
for _ in $(seq 1200); do
    handed=$(psql -d $db -Atc "SELECT last_value FROM next_item")
    [ "$handed" -ge $((items / 3)) ] && break
    sleep 0.1
done
before=$(psql -d $db -Atc "SELECT count(*) FROM docs")
bash "$h/cluster.sh" kill $name
set +e; wait "$bench"; bench_rc=$?; set -e
echo "killed the postmaster and its children with SIGKILL after $handed items handed out ($before rows seen committed); pgbench exit $bench_rc: $(grep -m1 -i 'abort\|terminat\|connection' "$tmp/pgbench1.err" | cut -c1-120)"
check "pgbench was writing when killed (exit status non-zero)" "$([ "$bench_rc" -ne 0 ] && echo yes || echo no)" yes
bash "$h/cluster.sh" restart $name
check "crash recovery ran" "$(grep -c 'database system was not properly shut down; automatic recovery in progress' "$log")" 1

rows=$(psql -d $db -Atc "SELECT count(*) FROM docs")
echo "after recovery: $rows rows committed of $items items"
check "indexes of docs clean under bt_index_parent_check(heapallindexed)" "$(amcheck $db docs)" 5
psql -d $db >/dev/null <<SQL
SELECT setseed(0.5);
-- Every 16th item (in the table or not, variants of present rows among them), and 50
-- random fingerprints.
CREATE TABLE q AS
SELECT item AS qid, fp AS q FROM work WHERE item % 16 = 0 AND fp IS NOT NULL
UNION ALL
SELECT -g, ((random() * 4294967296)::bigint << 32) # (random() * 4294967296)::bigint FROM generate_series(1, 50) g;
ANALYZE docs, q;
SQL
plan=$(near_plan $db docs)
check "simhash_near is answered from the four block indexes" \
    "$(grep -o 'Bitmap Index Scan on docs_fp_block[0-3]_of4' <<<"$plan" | sort -u | wc -l)" 4
read -r diff matches < <(near_vs_brute $db docs)
check "simhash_near results that differ from brute force ($(psql -d $db -Atc "SELECT count(*) FROM q") queries, k = 0..6, $matches matches)" "$diff" 0
pairs_sql() { # pairs_sql TABLE ID: pairs within k that the decision calls the same passage
    echo "SELECT count(*) FROM $1 a JOIN $1 b ON a.$2 < b.$2 AND bit_count((a.fp # b.fp)::bit(64)) <= $k
          AND simhash_same_passage(a.body, b.body)"
}
check "items: pairs within $k that are the same passage (what the trigger must reject) > 0" \
    "$(psql -d $db -Atc "SELECT ($(pairs_sql work item)) > 0")" t
check "same-passage pairs within $k among the $rows committed rows" "$(psql -d $db -Atc "$(pairs_sql docs id)")" 0

# The recovered cluster takes the rest of the items: the trigger's locks and checks work
# as before the crash.
left=$(psql -d $db -Atc "SELECT greatest(0, $items - (SELECT last_value FROM next_item))")
PGOPTIONS="-c deadlock_timeout=50ms" pgbench -n -c $clients -j 2 -t $(( left / (2 * clients) + 2 )) \
    --max-tries=1000 -f "$tmp/write.sql" $db >"$tmp/pgbench2.out" 2>"$tmp/pgbench2.err" || {
    fail "pgbench after recovery:"; tail -5 "$tmp/pgbench2.err"; }
rows=$(psql -d $db -Atc "SELECT count(*) FROM docs")
check "items not handed out after the second run" "$(psql -d $db -Atc "SELECT count(*) FROM work WHERE item > (SELECT last_value FROM next_item)")" 0
check "same-passage pairs within $k among the $rows rows after the load finished" "$(psql -d $db -Atc "$(pairs_sql docs id)")" 0
check "indexes of docs clean after the load finished" "$(amcheck $db docs)" 5

### 2. Kill during CREATE INDEX CONCURRENTLY
db=crash_cic
createdb $db
psql -d $db >/dev/null <<SQL
CREATE EXTENSION simhash;
SELECT setseed(0.25);
CREATE TABLE big(id bigint, fp bigint);
INSERT INTO big SELECT g, ((random() * 4294967296)::bigint << 32) # (random() * 4294967296)::bigint
  FROM generate_series(1, 1000000) g;
-- 8 planted queries with 40 rows each 0 to 7 bits away, and 4 random queries.
CREATE TABLE q AS
SELECT g AS qid, ((random() * 4294967296)::bigint << 32) # (random() * 4294967296)::bigint AS q
  FROM generate_series(1, 12) g;
INSERT INTO big
SELECT 2000000 + 100 * q.qid + j,
       q.q # coalesce((SELECT bit_or(1::bigint << (random() * 63)::int) FROM generate_series(1, j % 8)), 0)
  FROM q, generate_series(0, 39) j WHERE q.qid <= 8;
CREATE INDEX CONCURRENTLY big_b0 ON big ((simhash_block(fp, 0, 4)));
CREATE INDEX CONCURRENTLY big_b1 ON big ((simhash_block(fp, 1, 4)));
CREATE INDEX CONCURRENTLY big_b2 ON big ((simhash_block(fp, 2, 4)));
ANALYZE big, q;
SQL
# An old snapshot: CREATE INDEX CONCURRENTLY waits for it at its end, so it cannot finish
# before it is killed.
psql -d $db -c "SELECT pg_sleep(600)" >/dev/null 2>&1 &
blocker=$!; kill_at_exit "$blocker"
until [ "$(psql -d $db -Atc "SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)' AND backend_xmin IS NOT NULL")" = 1 ]; do sleep 0.05; done
psql -d $db -c "CREATE INDEX CONCURRENTLY big_b3 ON big ((simhash_block(fp, 3, 4)))" >"$tmp/cic.out" 2>&1 &
cic=$!; kill_at_exit "$cic"
phase=
for _ in $(seq 6000); do
    # Killed once the build has begun (the scan of the table, usually) or anything after it.
    phase=$(psql -d $db -Atc "SELECT phase || ' (' || blocks_done || ' of ' || blocks_total || ' blocks)'
        FROM pg_stat_progress_create_index WHERE command = 'CREATE INDEX CONCURRENTLY' AND phase NOT IN ('initializing', 'waiting for writers before build')")
    [ -n "$phase" ] && break
    sleep 0.02
done
psql -d $db -Atc "SELECT pg_terminate_backend(pid) FROM pg_stat_progress_create_index WHERE command = 'CREATE INDEX CONCURRENTLY'" >/dev/null
set +e; wait "$cic"; set -e
kill "$blocker" 2>/dev/null || true
psql -d $db -Atc "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(600)'" >/dev/null
echo "terminated CREATE INDEX CONCURRENTLY big_b3 (pg_terminate_backend) in phase: $phase; it said: $(grep -m1 -o 'FATAL.*\|ERROR.*' "$tmp/cic.out" || true)"
check "big_b3 left behind, INVALID" "$(psql -d $db -Atc "SELECT indisvalid FROM pg_index WHERE indexrelid = 'big_b3'::regclass")" f
plan=$(near_plan $db big)
check "plan with an invalid block index: indexes used, sequential scans of big" \
    "$(grep -o 'Index' <<<"$plan" | wc -l), $(grep -o 'Seq Scan on big' <<<"$plan" | wc -l)" "0, 1"
read -r diff matches < <(near_vs_brute $db big)
check "simhash_near results that differ from brute force, invalid index ($(psql -d $db -Atc "SELECT count(*) FROM q") queries, k = 0..6, $matches matches)" "$diff" 0

psql -d $db -c "REINDEX INDEX CONCURRENTLY big_b3"
check "big_b3 valid after REINDEX INDEX CONCURRENTLY" "$(psql -d $db -Atc "SELECT indisvalid FROM pg_index WHERE indexrelid = 'big_b3'::regclass")" t
check "block indexes of big clean under bt_index_parent_check(heapallindexed)" "$(amcheck $db big)" 4
plan=$(near_plan $db big)
check "plan after REINDEX: bitmap scans of the four block indexes" \
    "$(grep -o 'Bitmap Index Scan on big_b[0-3]' <<<"$plan" | sort -u | wc -l)" 4
read -r diff matches < <(near_vs_brute $db big)
check "simhash_near results that differ from brute force after REINDEX ($matches matches)" "$diff" 0

check "server log: PANICs and processes ended by a signal" \
    "$(grep -c 'PANIC\|terminated by signal\|server process .* was terminated' "$log" || true)" 0
exit $status
