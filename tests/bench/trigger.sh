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
source "$(dirname "$0")/../harness/lib.sh"
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
install_extension
own_cluster trigbench "shared_buffers = 1GB" "max_wal_size = 8GB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0"

q -c "CREATE EXTENSION simhash"
load_paragraphs
for t in baseline dedup; do
    q -c "CREATE TABLE $t(id bigserial PRIMARY KEY, body text, fp bigint)"
    q -c "INSERT INTO $t(body, fp) SELECT 'synthetic row ' || g, hashint8extended(g, 7) FROM generate_series(1, $N) g"
    q -c "SELECT simhash_create_blocks('$t', 'fp', $NBLOCKS, include_fingerprint => $INCLUDE_FP)" >/dev/null
    q -c "VACUUM ANALYZE $t"
done
q -c "CREATE TRIGGER fp BEFORE INSERT OR UPDATE OF body ON baseline
   FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body')"
q -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON dedup
   FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip')"
q -c "CHECKPOINT"

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
        before=$(q -c "SELECT count(*) FROM $t")
        pgbench -n -c $CLIENTS -j 2 -T "$DURATION" --random-seed="$r" -f "$tmp/$t.sql" >"$tmp/out" 2>&1
        after=$(q -c "SELECT count(*) FROM $t")
        rate=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$tmp/out")
        n=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$tmp/out")
        stmts[$t]=$(( ${stmts[$t]:-0} + n ))
        tps[$t]=$(echo "${tps[$t]} + $rate" | bc)
        rows[$t]=$(( ${rows[$t]:-0} + after - before ))
    done
done
b=$(echo "scale=1; ${tps[baseline]} / $ROUNDS" | bc)
d=$(echo "scale=1; ${tps[dedup]} / $ROUNDS" | bc)
row_width=28
row name value baseline ratio
row table_rows "$N" - -
row block_columns "$NBLOCKS" - -
row fingerprint_in_index "$INCLUDE_FP" - -
row insert_tps_8_clients "$d" "$b" "$(ratio "$d" "$b")"
row rows_inserted "${rows[dedup]}" "${rows[baseline]}" -
row statements "${stmts[dedup]}" "${stmts[baseline]}" -
