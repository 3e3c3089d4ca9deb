#!/usr/bin/env bash
# simhash_segments_dedup_trigger under concurrency (issue 19, item 4), as
# trigger_concurrency.sh tests simhash_dedup_trigger: 8 pgbench clients insert 600 real
# paragraphs and their reposts (an exact copy, the first or the last sentence dropped, a
# sentence added), arranged so that a paragraph and its reposts are inserted by different
# clients at the same moment. A group is a paragraph and its reposts; every two texts of a
# group resemble each other at 0.5 or more and are the same passage to the dedup decision,
# and no two texts of different groups resemble (checked here, by PostgreSQL's own array
# operators). For actions reject and skip, under READ
# COMMITTED and REPEATABLE READ, with 2 rows per transaction (lock order across rows) and 50
# (the table-wide lock escalation), pgbench retrying 40001/40P01; and with segments matched
# within 12 bits (option "max_distance", every segment locked; definition 2's segments;
# 5.x's trigger, _d1, which decides by resemblance alone) on groups of a paragraph, its
# copy, and a copy with a word changed in every sentence but one that shares only one segment
# with it, outside the prefix exact matching would lock (with only that prefix locked, 5 of 6
# such rounds ended with 1 to 12 groups of two rows or more):
#   - every item is processed exactly once (one outcome row each);
#   - the table ends with exactly one row per group (compared with the expected count);
#   - no two rows resemble each other at 0.5 or more (brute force over shared segments);
#   - pgbench reports no failed transaction and no aborted client.
# Expects PGHOST/PGPORT/PGUSER of a running cluster with the extension installed.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
export PGDATABASE=simhash_segdedup_conc
theta=0.5
clients=8

# The work items for segments matched within k bits (0: exactly; the option "max_distance").
items_for() {
    fresh_db "$PGDATABASE"
    load_segment_items $theta "$1"
    echo "items $items in $groups groups (a paragraph and its reposts), within $1 bits, $clients clients"
}

items_k=
while IFS=, read -r k action iso per_tx; do
    [ "$k" = "$items_k" ] || { items_for "$k"; items_k=$k; }
    # Within k bits, 5.x's trigger (_d1, the same locks): the groups' word-changed copies are
    # frame-mates to 6.0's decision (segment_items.sql).
    options= d1=
    [ "$k" = 0 ] || { options=", '{\"definition\": \"2\", \"max_distance\": $k}'"; d1=_d1; }
    group_round "simhash_segments_dedup_trigger$d1('segs', 'body', '$theta', '$action'$options)" "$per_tx" "$iso" \
        "within $k bits, $action" "resembling_pairs($theta, $k)" "pairs resembling at $theta"
done <<'RUNS'
0,reject,read committed,2
0,reject,repeatable read,2
0,skip,read committed,2
0,skip,repeatable read,2
0,reject,read committed,50
0,skip,repeatable read,50
12,reject,read committed,2
12,skip,repeatable read,2
RUNS
exit $status
