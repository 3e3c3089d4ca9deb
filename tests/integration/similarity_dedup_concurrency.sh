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
# way (option min_containment). For actions reject and skip, under READ COMMITTED and
# REPEATABLE READ, with 2 rows per transaction (lock order across rows) and 50 (the table-wide
# lock escalation), pgbench retrying 40001/40P01; once without the simhash_ops index, where
# the check scans and inserts take the table's key one at a time; and once on a
# simhash_band_ops index (5.2.0), whose band keys the inserters lock too:
#   - every item is processed exactly once (one outcome row each);
#   - the table ends with exactly one row per group (compared with the expected count);
#   - no two rows are close (brute force over all pairs, the measures as float8);
#   - pgbench reports no failed transaction and no aborted client.
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
    containment) theta=0.9 gamma=0.8 options=", '{\"min_containment\": $gamma}'" ;;
    esac
    [ "$mode" = "$items_mode" ] || { items_for "$mode" $theta $gamma; items_mode=$mode; }
    q -c "DROP INDEX IF EXISTS docs_body" >/dev/null
    case $index in
    index) q -c "CREATE INDEX docs_body ON docs USING gin (body simhash_ops)" >/dev/null ;;
    band) q -c "CREATE INDEX docs_body ON docs USING gin (body simhash_band_ops)" >/dev/null ;;
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
RUNS
exit $status
