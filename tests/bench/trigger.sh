#!/usr/bin/env bash
# Insert throughput with simhash_dedup_trigger (issue 4). Release build, its own cluster.
# Two tables of N rows (default 1M: synthetic fingerprints, short bodies, loaded before the
# triggers exist), each with the NBLOCKS (default 4) block columns and indexes of
# simhash_create_blocks, the indexes carrying the fingerprint unless INCLUDE_FP=false:
#   baseline: simhash_update_trigger('fp', 'body')           (fingerprint maintenance only)
#   dedup:    simhash_dedup_trigger('fp', 'body', '3', 'skip') (fingerprint + lock + check)
# pgbench, 8 clients, inserts new rows whose body is two random People's Daily paragraphs
# joined (about 200-600 characters), DURATION seconds per run, the two alternated ROUNDS
# times; the rates are averaged over rounds. Rows inserted < statements: near-duplicates
# skipped (two random paragraphs joined rarely repeat). Prints "name  value  baseline  ratio" lines.
#   N=1000000 DURATION=20 ROUNDS=2 NBLOCKS=4 INCLUDE_FP=true bash tests/bench/trigger.sh
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
h=$root/tests/harness
N=${N:-1000000}
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-2}
# The trigger's index pre-check (src/probe.rs) at k = 3: with 4 blocks of 16 bits it probes
# 4 keys and tests the ~4N/65536 entries found (61 at 1M) on the index leaf when the index
# carries the fingerprint. Without it, 4 blocks always send the insert on to the check
# query; 2 blocks of 32 bits probe 2 x 33 keys and find about nothing (README.md figures).
NBLOCKS=${NBLOCKS:-4}
INCLUDE_FP=${INCLUDE_FP:-true}
CLIENTS=8
[ "${SKIP_INSTALL:-0}" = 1 ] || bash "$h/cluster.sh" install
bash "$h/cluster.sh" start trigbench "shared_buffers = 1GB" "max_wal_size = 8GB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0"
trap 'bash "$h/cluster.sh" stop trigbench' EXIT
eval "$(bash "$h/cluster.sh" env trigbench)"
q() { psql -X -q -v ON_ERROR_STOP=1 -At -c "SET client_min_messages = warning" -c "$1"; }
tmp=$(mktemp -d)

q "CREATE EXTENSION simhash"
psql -X -q -v ON_ERROR_STOP=1 -c "CREATE TABLE para(pid serial PRIMARY KEY, body text NOT NULL)" \
    -c "\\copy para(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
q "DELETE FROM para WHERE length(body) NOT BETWEEN 100 AND 300"
q "CREATE TABLE para2 AS SELECT row_number() OVER (ORDER BY pid)::int AS pid, body FROM para;
   ALTER TABLE para2 ADD PRIMARY KEY (pid)"
npara=$(q "SELECT count(*) FROM para2")
for t in baseline dedup; do
    q "CREATE TABLE $t(id bigserial PRIMARY KEY, body text, fp bigint)"
    q "INSERT INTO $t(body, fp) SELECT 'synthetic row ' || g, hashint8extended(g, 7) FROM generate_series(1, $N) g"
    q "SELECT simhash_create_blocks('$t', 'fp', $NBLOCKS, include_fingerprint => $INCLUDE_FP)" >/dev/null
    q "VACUUM ANALYZE $t"
done
q "CREATE TRIGGER fp BEFORE INSERT OR UPDATE OF body ON baseline
   FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body')"
q "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON dedup
   FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip')"
q "CHECKPOINT"

for t in baseline dedup; do
    cat >"$tmp/$t.sql" <<EOF
\\set a random(1, $npara)
\\set b random(1, $npara)
INSERT INTO $t(body) SELECT x.body || y.body FROM para2 x, para2 y WHERE x.pid = :a AND y.pid = :b;
EOF
done

declare -A tps rows stmts
tps[baseline]=0 tps[dedup]=0
for r in $(seq 1 "$ROUNDS"); do
    for t in baseline dedup; do
        before=$(q "SELECT count(*) FROM $t")
        pgbench -n -c $CLIENTS -j 2 -T "$DURATION" --random-seed="$r" -f "$tmp/$t.sql" >"$tmp/out" 2>&1
        after=$(q "SELECT count(*) FROM $t")
        rate=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$tmp/out")
        n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$tmp/out")
        stmts[$t]=$(( ${stmts[$t]:-0} + n ))
        tps[$t]=$(echo "${tps[$t]} + $rate" | bc)
        rows[$t]=$(( ${rows[$t]:-0} + after - before ))
    done
done
b=$(echo "scale=1; ${tps[baseline]} / $ROUNDS" | bc)
d=$(echo "scale=1; ${tps[dedup]} / $ROUNDS" | bc)
printf '%-28s %14s %14s %10s\n' name value baseline ratio
printf '%-28s %14s %14s %10s\n' table_rows "$N" - -
printf '%-28s %14s %14s %10s\n' block_columns "$NBLOCKS" - -
printf '%-28s %14s %14s %10s\n' fingerprint_in_index "$INCLUDE_FP" - -
printf '%-28s %14s %14s %10s\n' insert_tps_8_clients "$d" "$b" "$(echo "scale=2; $d / $b" | bc)"
printf '%-28s %14s %14s %10s\n' rows_inserted "${rows[dedup]}" "${rows[baseline]}" -
printf '%-28s %14s %14s %10s\n' statements "${stmts[dedup]}" "${stmts[baseline]}" -
rm -rf "$tmp"
