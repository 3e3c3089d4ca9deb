#!/usr/bin/env bash
# Segment search built online, killed, and resumed (issue 19: "crash-safe", "the table stays
# writable", "every long loop cancels"), on a cluster of its own (target/run/segonline):
#
# 1. simhash_create_segments fills a 60,000-row table in batches of 20 pages while 4 pgbench
#    clients insert rows, update texts and update another column. Once about a third of the
#    rows are filled, the postmaster and all its children are killed with SIGKILL
#    (cluster.sh kill), and the cluster is started again on the same data directory. Then:
#    - every row either has NULL segments (not filled yet) or exactly simhash_segments(body);
#    - a second CALL resumes and fills the rest: no NULL left, none wrong;
#    - lookups through the GIN index (`&&`, sequential scans off) return the same rows as a
#      scan computing the containment, for 300 queries.
# 2. Cancel: simhash_segments of a 16 MB text under statement_timeout = 100ms ends with
#    57014 (query_canceled), not with a result; the time it took is printed, not judged.
# The server log must show no PANIC and no process ended by a signal other than the kill.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
name=segonline
own_cluster $name "shared_buffers = 128MB" "max_wal_size = 1GB"
log=$run_dir/$name/server.log
db=segonline
createdb $db
psql -d $db -q <<SQL
CREATE EXTENSION simhash;
CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL);
\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')
CREATE TABLE docs(id bigint PRIMARY KEY, body text, tag int NOT NULL DEFAULT 0);
INSERT INTO docs SELECT g, (SELECT body FROM src WHERE id = 1 + g % (SELECT count(*) FROM src))
                           || CASE WHEN g >= (SELECT count(*) FROM src) THEN '。第' || g || '号稿件。' ELSE '' END
  FROM generate_series(0, 59999) g;
CREATE SEQUENCE next_id START 100000;
SQL
cat >"$tmp/write.sql" <<'SQL'
\set r random(0, 59999)
INSERT INTO docs(id, body) SELECT nextval('next_id'), body || '。新增稿件。' FROM src WHERE id = 1 + :r % 19000;
UPDATE docs SET body = body || '。本报讯。' WHERE id = :r;
UPDATE docs SET tag = tag + 1 WHERE id = (:r * 7) % 60000;
SQL

### 1. Kill during the online build, with writers.
pgbench -n -c 4 -j 2 -T 600 -f "$tmp/write.sql" $db >"$tmp/pgbench.out" 2>"$tmp/pgbench.err" &
bench=$!; kill_at_exit "$bench"
psql -d $db -c "CALL simhash_create_segments('docs', 'body', batch_pages => 20)" >"$tmp/build.out" 2>&1 &
build=$!; kill_at_exit "$build"
filled=0
for _ in $(seq 3000); do
    filled=$(psql -d $db -Atc "SELECT count(*) FROM docs WHERE body_segments IS NOT NULL" 2>/dev/null || echo 0)
    [ "$filled" -ge 20000 ] && break
    sleep 0.1
done
bash "$h/cluster.sh" kill $name
set +e; wait "$build"; build_rc=$?; wait "$bench"; set -e
echo "killed the cluster with $filled rows filled; the CALL exited $build_rc: $(grep -m1 -o 'FATAL.*\|server closed.*' "$tmp/build.out" || true)"
check "the build was running when killed (CALL exit status non-zero)" "$([ "$build_rc" -ne 0 ] && echo yes || echo no)" yes
bash "$h/cluster.sh" restart $name
check "after recovery: rows whose segments are neither NULL nor exact" \
    "$(psql -d $db -Atc "SELECT count(*) FROM docs WHERE body_segments IS NOT NULL AND body_segments <> simhash_segments(body)")" 0
echo "after recovery: $(psql -d $db -Atc "SELECT count(*) FILTER (WHERE body_segments IS NULL) || ' of ' || count(*) FROM docs") rows still to fill"
psql -d $db -q -c "SET client_min_messages = warning" -c "CALL simhash_create_segments('docs', 'body', batch_pages => 200)"
check "after the second CALL: rows with NULL or wrong segments" \
    "$(psql -d $db -Atc "SELECT count(*) FROM docs WHERE body_segments IS DISTINCT FROM simhash_segments(body)")" 0
got=$(psql -d $db -At <<'SQL'
CREATE TEMP TABLE q AS SELECT id AS qid, body_segments AS q FROM docs WHERE id % 200 = 11;
CREATE TEMP TABLE brute AS SELECT q.qid, d.id FROM q, docs d WHERE simhash_containment(q.q, d.body_segments) > 0;
SET enable_seqscan = off;
CREATE TEMP TABLE via_index AS SELECT q.qid, d.id FROM q JOIN docs d ON d.body_segments && q.q;
SELECT (SELECT count(*) FROM ((TABLE via_index EXCEPT ALL TABLE brute) UNION ALL (TABLE brute EXCEPT ALL TABLE via_index)) x)
       || ' ' || (SELECT count(*) FROM q) || ' ' || (SELECT count(*) FROM via_index);
SQL
)
read -r diff queries matches <<<"$got"
check "GIN lookups that differ from a scan ($queries queries, $matches matches)" "$diff" 0

### 2. Cancel inside one long call.
# The text is built first and the dictionary loaded, so that the time is the call's alone.
got=$(psql -d $db -At -c "SELECT simhash_segments('预热。')" \
    -c "CREATE TEMP TABLE big AS SELECT repeat(string_agg(body, ''), 3) AS t FROM src" \
    -c "SET statement_timeout = '100ms'" -c '\timing on' -c "SELECT cardinality(simhash_segments(t)) FROM big" 2>&1 || true)
echo "simhash_segments of a $(psql -d $db -Atc "SELECT pg_size_pretty(3 * sum(octet_length(body))) FROM src") text under statement_timeout = 100ms: $(tr '\n' ' ' <<<"$got")"
check "simhash_segments of a long text is cancelled (57014)" "$(grep -c 'canceling statement due to statement timeout' <<<"$got")" 1

check "server log: PANICs and processes ended by a signal" \
    "$(grep -c 'PANIC\|terminated by signal\|server process .* was terminated' "$log" || true)" 0
exit $status
