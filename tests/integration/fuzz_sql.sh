#!/usr/bin/env bash
# SQL-level fuzzing (issue 11, part 5): FUZZ_INPUTS random calls (default 20,000; `make
# fuzz`: 1,000,000) of simhash(text), simhash(text, jsonb), simhash_v0, simhash_features,
# simhash(text[], float8[]), hamming and <~>, simhash_block, simhash_probes, simhash_near
# and ~=, simhash_duplicates (both forms) and simhash_clusters, simhash_segments,
# simhash_resemblance and simhash_containment, simhash_similar, simhash_segment_pairs and
# simhash_segment_clusters, simhash_segments_dedup_query, simhash_similarity_dedup_query (and
# measure 1's _m1), and inserts and updates through simhash_segments_dedup_trigger,
# simhash_similarity_dedup_trigger (and simhash_similarity_dedup_trigger_m1 beside it), with
# inputs generated in the server (tests/fuzz/fuzz.sql) in batches of 10,000 calls, FUZZ_JOBS (2)
# sessions at a time.
# Passes when:
#   - no error is an internal one (SQLSTATE class XX: a Rust panic caught by pgrx, or
#     PostgreSQL's internal_error); the first ones are printed with their input;
#   - the server log written meanwhile shows no PANIC and no server process ended by a
#     signal (a crash restarts the whole cluster, which the batches would also notice).
# Prints the calls per function and SQLSTATE. Expects PGHOST/PGPORT/PGUSER of a running
# cluster (its log at $PGHOST/server.log, as tests/harness/cluster.sh makes it) with the
# extension installed.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
export PGDATABASE=simhash_fuzz
inputs=${FUZZ_INPUTS:-20000}
jobs=${FUZZ_JOBS:-2}
batch=10000
log=$PGHOST/server.log

log_start=$(stat -c %s "$log")
fresh_db "$PGDATABASE"
psql -c "CREATE EXTENSION simhash" \
     -c "CREATE TABLE corpus(id serial PRIMARY KEY, body text NOT NULL)" \
     -c "\\copy corpus(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
psql -f "$root/tests/fuzz/fuzz.sql" >/dev/null
psql -c "CREATE TABLE fuzz_outcome(target text, sqlstate text, calls bigint)"

start=$(now)
batches=$(( (inputs + batch - 1) / batch ))
# Batch b has seed b / (batches + 1): the same inputs on every run of the same size. Each
# runs in a child bash, which has no psql wrapper: its flags are spelled out. A batch is one
# transaction, whose dedup inserts hold their key locks to its end, so the two sessions
# deadlock now and then (78 times in 20,000 calls): found after 10 ms rather than the default
# second, which made 78 of the run's 85 s.
export PGOPTIONS="${PGOPTIONS:-} -c deadlock_timeout=10ms"
seq 0 $((batches - 1)) | xargs -P "$jobs" -I{} bash -c '
    n=$(( {} == '"$batches"' - 1 ? '"$inputs"' - {} * '"$batch"' : '"$batch"' ))
    psql -X -q -v ON_ERROR_STOP=1 -c "INSERT INTO fuzz_outcome
        SELECT * FROM fuzz_batch({}::float8 / ('"$batches"' + 1), $n)" || { echo "batch {} failed" >&2; exit 255; }'
elapsed=$(since "$start")

total=$(psql -Atc "SELECT sum(calls) FROM fuzz_outcome")
printf 'fuzz: %s calls in %.0f s (%s sessions)\n' "$total" "$elapsed" "$jobs"
psql -Atc "SELECT rpad(target, 36) || string_agg(sqlstate || ' ' || calls, ', ' ORDER BY sqlstate)
             FROM (SELECT target, sqlstate, sum(calls) AS calls FROM fuzz_outcome GROUP BY 1, 2) x
            GROUP BY target ORDER BY target"
echo "by SQLSTATE: $(psql -Atc "SELECT string_agg(sqlstate || ' ' || calls, ', ' ORDER BY calls DESC)
                                 FROM (SELECT sqlstate, sum(calls) AS calls FROM fuzz_outcome GROUP BY 1) x")"
check "calls made" "$total" "$inputs"
internal=$(psql -Atc "SELECT coalesce(sum(calls), 0) FROM fuzz_outcome WHERE sqlstate LIKE 'XX%'")
if [ "$internal" != 0 ]; then
    fail "$internal internal errors (SQLSTATE XX...), the first:"
    psql -Atc "SELECT target || ' ' || sqlstate || ': ' || message || E'\n    input: ' || left(coalesce(input, '?'), 300)
                 FROM fuzz_internal LIMIT 10"
fi
tail -c +$((log_start + 1)) "$log" >"$tmp/log"
crashes=$(grep -c 'PANIC\|terminated by signal\|server process .* was terminated' "$tmp/log" || true)
if [ "$crashes" != 0 ]; then
    fail "the server log shows $crashes crash lines:"; grep -m5 'PANIC\|terminated by signal\|server process .* was terminated' "$tmp/log"
else
    echo "ok   server log: no PANIC, no process ended by a signal"
fi
[ $status = 0 ] && echo "ok   no internal errors"
exit $status
