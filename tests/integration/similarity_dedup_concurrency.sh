#!/usr/bin/env bash
# simhash_similarity_dedup_trigger under concurrency (issue 34), as
# segments_dedup_concurrency.sh tests simhash_segments_dedup_trigger: 8 pgbench clients insert
# real paragraphs and their reposts (tests/harness/similarity_items.sql), arranged so that a
# paragraph and its reposts are inserted by different clients at the same moment. A group is
# a paragraph and its reposts; every two texts of a group are close and no two texts of
# different groups are (checked with simhash_similarity and simhash_containment). Similarity
# groups (a copy, a character changed, a source line, the last sentence dropped, a sentence
# appended) at similarity 0.6; excerpt groups (a copy, the first half, the paragraph with a
# sentence appended, the half with a source line) at similarity 0.9 or containment 0.8 either
# way (option min_containment); short groups (sentences of 20 to 40 characters: a copy, a
# prefix, a tag, a cut) at the same thresholds, whose containment lookups ask for every
# shingle's key and whose inserters lock those keys, not the table (issue 47), also with
# both operator classes on the column. For actions reject and skip, under READ COMMITTED and
# REPEATABLE READ, with 2 rows per transaction (lock order across rows) and 50 (the table-wide
# lock escalation), pgbench retrying 40001/40P01; once without the simhash_ops index, where
# the check scans and inserts take the table's key one at a time; and once on a
# simhash_band_ops index (5.2.0), whose band keys the inserters lock too:
#   - every item is processed exactly once (one outcome row each);
#   - the table ends with exactly one row per group (compared with the expected count);
#   - no two rows are close (brute force over all pairs, the measures as float8);
#   - pgbench reports no failed transaction and no aborted client;
# and an insert of a short text does not wait on an open transaction's unrelated short one.
# Expects PGHOST/PGPORT/PGUSER of a running cluster with the extension installed.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
export PGDATABASE=simhash_simdedup_conc
clients=8

# The work items of MODE (similarity or containment) at THETA and GAMMA (2: no containment).
items_for() {
    fresh_db "$PGDATABASE"
    psql -c "CREATE EXTENSION simhash" \
         -c "CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL)" \
         -c "\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
    psql -v mode="$1" -v theta="$2" -v gamma="$3" -f "$h/similarity_items.sql" >/dev/null
    psql -f "$h/try_item.sql" >/dev/null
    items=$(psql -Atc "SELECT count(*) FROM work")
    groups=$(psql -Atc "SELECT count(DISTINCT g) FROM work")
    echo "$1 items $items in $groups groups (a paragraph and its reposts), $clients clients"
}

items_mode=
while IFS=, read -r mode index action iso per_tx; do
    case $mode in
    similarity) theta=0.6 gamma=2 options= ;;
    containment|short) theta=0.9 gamma=0.8 options=", '{\"min_containment\": $gamma}'" ;;
    esac
    [ "$mode" = "$items_mode" ] || { items_for "$mode" $theta $gamma; items_mode=$mode; }
    q -c "DROP INDEX IF EXISTS docs_body, docs_body_bands" >/dev/null
    case $index in
    index) q -c "CREATE INDEX docs_body ON docs USING gin (body simhash_ops)" >/dev/null ;;
    band) q -c "CREATE INDEX docs_body ON docs USING gin (body simhash_band_ops)" >/dev/null ;;
    both) q -c "CREATE INDEX docs_body ON docs USING gin (body simhash_ops)" \
            -c "CREATE INDEX docs_body_bands ON docs USING gin (body simhash_band_ops)" >/dev/null ;;
    esac
    group_round "simhash_similarity_dedup_trigger('body', '$theta', '$action'$options)" "$per_tx" "$iso" \
        "$mode, $index, $action" "close_pairs($theta, $gamma)" "close pairs"
done <<'RUNS'
similarity,index,reject,read committed,2
similarity,index,reject,repeatable read,2
similarity,index,skip,read committed,2
similarity,index,skip,repeatable read,2
similarity,index,reject,read committed,50
similarity,index,skip,repeatable read,50
similarity,no index,reject,read committed,2
similarity,band,skip,read committed,2
containment,index,reject,read committed,2
containment,index,skip,repeatable read,50
short,index,reject,read committed,2
short,index,skip,repeatable read,2
short,index,skip,read committed,50
short,both,reject,read committed,2
RUNS

# Short texts with min_containment lock their keys, not the table (issue 47): a session that
# holds an uncommitted short insert does not hold up an unrelated one. The second insert runs
# while the first transaction is open; it must finish without ever waiting on a lock.
q -c "TRUNCATE docs" >/dev/null
trigger="simhash_similarity_dedup_trigger('body', '0.5', 'reject', '{\"min_containment\": 0.8}')"
q -c "DROP TRIGGER IF EXISTS docs_dedup ON docs" \
  -c "CREATE TRIGGER docs_dedup BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION $trigger" >/dev/null
psql -q >"$tmp/holder.out" 2>&1 <<'SQL' &
BEGIN;
INSERT INTO docs VALUES (1, '今天天气很好，我们去公园散步吧。');
SELECT pg_sleep(3600);
COMMIT;
SQL
holder=$!; kill_at_exit "$holder"
until [ "$(psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(3600)%' AND pid <> pg_backend_pid()")" = 1 ]; do sleep 0.1; done
psql -q -c "INSERT INTO docs VALUES (2, '新版手机明天上市，价格比去年低。')" >"$tmp/second.out" 2>&1 &
second=$!
waited=0
while kill -0 "$second" 2>/dev/null; do
    [ "$(psql -Atc "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT INTO docs VALUES (2%'")" = 0 ] || waited=1
    [ "$waited" = 1 ] && break
    sleep 0.05
done
psql -Atc "SELECT pg_cancel_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND query LIKE '%pg_sleep(3600)%' AND pid <> pg_backend_pid()" >/dev/null
wait "$second" || true
check "an unrelated short insert waited on the lock of an open one" "$waited" 0
check "rows after both (the second committed, the first cancelled)" "$(psql -Atc "SELECT string_agg(id::text, ',') FROM docs")" 2
exit $status
