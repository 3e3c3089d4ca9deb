#!/usr/bin/env bash
# Crash recovery of segment dedup (issue 19, "the crash test covers the new paths"), on a
# cluster of its own (target/run/segcrash), as crash.sh does for the Hamming trigger:
# 8 pgbench clients insert the 600 paragraphs and their reposts of segment_items.sql into
# docs(id, body, segs) with a GIN index and simhash_segments_dedup_trigger (reject); once a
# third of the items are done, the postmaster and all its children are killed with SIGKILL
# (cluster.sh kill), and the cluster is started again on the same data directory. Then:
#   - the GIN index answers as a scan does: for every segment of every work item (inserted
#     or not), the rows found through the index (`&&`, bitmap scan) equal those a sequential
#     scan finds;
#   - no two committed rows resemble each other at 0.5 (brute force over shared segments);
#   - the writers process the remaining items on the recovered cluster, and the table ends
#     with exactly one row per group, no two resembling, and the index still equal to a scan.
# The server log must show no PANIC and no process ended by a signal other than the kill.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
name=segcrash
theta=0.5
clients=8
own_cluster $name "shared_buffers = 128MB" "max_wal_size = 1GB"
log=$run_dir/$name/server.log
export PGDATABASE=segcrash

createdb $PGDATABASE
load_segment_items $theta
psql -c "CREATE TRIGGER docs_dedup BEFORE INSERT OR UPDATE OF body ON docs FOR EACH ROW
         EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '$theta', 'reject')"
# Every distinct segment of the work items, to probe the index with after the crash.
psql -c "CREATE TABLE probe AS SELECT DISTINCT unnest(simhash_segments(body)) AS seg FROM work"
echo "items $items in $groups groups, $clients clients, 2 items per transaction; $(psql -Atc "SELECT count(*) FROM probe") segments to probe"

# Rows per probe segment through the GIN index against a sequential scan: the number of
# (segment, row) results that differ, then the number found.
index_vs_scan() {
    psql -At <<SQL
SET enable_seqscan = off; SET enable_indexscan = off; SET enable_bitmapscan = on;
CREATE TEMP TABLE via_index AS SELECT p.seg, d.id FROM probe p JOIN docs d ON d.segs && ARRAY[p.seg];
RESET enable_seqscan; SET enable_bitmapscan = off;
CREATE TEMP TABLE via_scan AS SELECT p.seg, d.id FROM probe p JOIN docs d ON d.segs && ARRAY[p.seg];
SELECT (SELECT count(*) FROM ((SELECT * FROM via_index EXCEPT ALL SELECT * FROM via_scan)
                              UNION ALL (SELECT * FROM via_scan EXCEPT ALL SELECT * FROM via_index)) x)
       || ' ' || (SELECT count(*) FROM via_index);
SQL
}
index_plan() {
    psql -At -c "SET enable_seqscan = off" -c "SET enable_indexscan = off" \
        -c "EXPLAIN (COSTS OFF) SELECT p.seg, d.id FROM probe p JOIN docs d ON d.segs && ARRAY[p.seg]" | tr '\n' ' '
}

# The writers, until killed: a transaction per 2 items, more transactions than items.
dedup_writers $clients $(( items / clients + 10 )) 2 "read committed" &
bench=$!; kill_at_exit "$bench"
for _ in $(seq 6000); do
    done_=$(psql -Atc "SELECT count(*) FROM outcome")
    [ "$done_" -ge $((items / 3)) ] && break
    sleep 0.02
done
bash "$h/cluster.sh" kill $name
set +e; wait "$bench"; bench_rc=$?; set -e
echo "killed the postmaster and its children with SIGKILL after $done_ items seen done; pgbench exit $bench_rc"
check "pgbench was writing when killed (exit status non-zero)" "$([ "$bench_rc" -ne 0 ] && echo yes || echo no)" yes
bash "$h/cluster.sh" restart $name
check "crash recovery ran" "$(grep -c 'database system was not properly shut down; automatic recovery in progress' "$log")" 1

rows=$(psql -Atc "SELECT count(*) FROM docs")
done_=$(psql -Atc "SELECT count(*) FROM outcome")
echo "after recovery: $rows rows, $done_ items done of $items"
check "the probe reads the GIN index" "$(grep -c 'Bitmap Index Scan on docs_segs' <<<"$(index_plan)")" 1
read -r diff found < <(index_vs_scan)
check "segment lookups through the GIN index that differ from a scan ($found rows found)" "$diff" 0
check "pairs resembling at $theta among the $rows committed rows" "$(psql -Atc "SELECT resembling_pairs($theta)")" 0

# The recovered cluster takes the items whose transactions did not commit.
psql -c "CREATE TABLE work_all AS TABLE work" -c "DELETE FROM work w USING outcome o WHERE o.item = w.item"
dedup_writers $clients $(( items / clients + 10 )) 2 "read committed" || {
    fail "pgbench after recovery:"; tail -5 "$tmp/pgbench.err"; }
read -r done_ rows not_one < <(psql -AtF' ' <<SQL
SELECT (SELECT count(*) FROM outcome), (SELECT count(*) FROM docs),
       (SELECT count(*) FROM (SELECT w.g FROM work_all w LEFT JOIN docs d ON d.id = w.item
                              GROUP BY w.g HAVING count(d.id) <> 1) x);
SQL
)
check "items done after the second run" "$done_" "$items"
check "rows after the second run (one per group)" "$rows" "$groups"
check "groups without exactly one row" "$not_one" 0
check "pairs resembling at $theta after the load finished" "$(psql -Atc "SELECT resembling_pairs($theta)")" 0
read -r diff found < <(index_vs_scan)
check "segment lookups through the GIN index that differ from a scan, after the load ($found rows found)" "$diff" 0

check "server log: PANICs and processes ended by a signal" \
    "$(grep -c 'PANIC\|terminated by signal\|server process .* was terminated' "$log" || true)" 0
exit $status
