#!/usr/bin/env bash
# Bounded memory and prompt cancel in the bulk functions and simhash() (issue 11). No
# timing thresholds: each check is a liveness bound or an SQLSTATE.
#   - 100,000 rows with one fingerprint (5·10⁹ pairs): SELECT * FROM simhash_duplicates(...)
#     LIMIT 10 returns its 10 rows under statement_timeout = 60s (before 1.0.0 it built
#     every pair first: OOM, or minutes), and they are the first pairs in the documented order;
#   - counting all those pairs under statement_timeout = 200ms ends with 57014 (cancel),
#     not after 5·10⁹ pairs;
#   - simhash() of a 50 MB text under statement_timeout = 100ms ends with 57014 inside
#     simhash() (a sequence called after it does not move), and without a timeout gives
#     the fingerprint of the same sentence repeated 3 times (one piece);
#   - simhash_duplicates(batch, corpus) with 2 lookup threads: while it ran the backend had
#     3 threads; pg_cancel_backend then ends it with 57014, after which it has 1, and after
#     a pass stopped by LIMIT 1 also 1;
#   - a session's first simhash(), in a cluster that does not preload the library, loads the
#     lexicon on a thread of its own (about 0.2 s) while the backend answers cancels:
#     cancelled there, the session's next simhash() gives the fingerprint another session
#     gives, and the backend is left with 1 thread;
#   - the backend's peak memory after the LIMIT 10 query is printed (not checked).
# Expects PGHOST/PGPORT/PGUSER of a running cluster with the extension installed.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
export PGDATABASE=simhash_batch_stream
fresh_db "$PGDATABASE"
q -c "CREATE EXTENSION simhash"

# First, in a session that has not loaded the lexicon: in a cluster of its own, since the test
# cluster preloads the library (tests/harness/run_tests.sh). hamming() loads the library alone,
# so the cancel comes during simhash()'s load of the lexicon; psql without ON_ERROR_STOP
# (lib.sh's stops at the first error) goes on after the cancel.
doc="'中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》'"
want=$(q -c "SELECT simhash($doc)")
bash "$h/cluster.sh" start batch-stream-cold >/dev/null
at_exit "bash '$h/cluster.sh' stop batch-stream-cold"
in_cluster batch-stream-cold command psql -X -At -d postgres -c "CREATE EXTENSION simhash" >/dev/null
got=$(in_cluster batch-stream-cold command psql -X -At -d postgres -c "SHOW shared_preload_libraries" \
           -c "SELECT hamming(1, 2)" -c "SET statement_timeout = '1ms'" -c "SELECT simhash($doc)" \
           -c "SET statement_timeout = 0" -c "SELECT simhash($doc)" \
           -c "SELECT 'threads ' || substring(pg_read_file('/proc/self/status') from 'Threads:\s*(\d+)')" 2>&1 || true)
[ "$(head -1 <<<"$got")" = "" ] || fail "the cold cluster preloads '$(head -1 <<<"$got")'"
grep -q "canceling statement due to statement timeout" <<<"$got" || fail "the first simhash() under a 1 ms timeout was not cancelled: $got"
grep -qx -- "$want" <<<"$got" || fail "after a cancelled first simhash(), the next gave not $want: $got"
grep -qx "threads 1" <<<"$got" || fail "after the lexicon's load, the backend has not 1 thread: $got"

identical="SELECT i::bigint, 1234567890123::bigint FROM generate_series(1, 100000) i"
got=$(q -c "SET statement_timeout = '60s'" \
        -c "SELECT string_agg(id1 || '-' || id2 || '-' || distance, ' ')
              FROM (SELECT * FROM simhash_duplicates('$identical', 3) LIMIT 10) p" 2>&1) || true
want="1-2-0 1-3-0 1-4-0 1-5-0 1-6-0 1-7-0 1-8-0 1-9-0 1-10-0 1-11-0"
[ "$got" = "$want" ] || fail "LIMIT 10 over 100,000 identical fingerprints: got '$got', want '$want'"
hwm=$(q -c "SELECT * FROM simhash_duplicates('$identical', 3) LIMIT 10" \
        -c "SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s*(\d+)'))[1]" | tail -1)
echo "backend peak memory (VmHWM) after LIMIT 10 over 100,000 identical fingerprints: ${hwm} kB"
# Zero fingerprints (definition 0's "no features") are kept: the same stream.
got=$(q -c "SET statement_timeout = '60s'" \
        -c "SELECT count(*) FROM (SELECT * FROM simhash_duplicates('SELECT i::bigint, 0::bigint FROM generate_series(1, 100000) i', 3) LIMIT 10) p" 2>&1) || true
[ "$got" = 10 ] || fail "LIMIT 10 over 100,000 zero fingerprints: got '$got'"

# Cancel: SQLSTATE 57014 (query_canceled), from statement_timeout (lib.sh's sqlstate).
s=$(sqlstate -c "SET statement_timeout = '200ms'" -c "SELECT count(*) FROM simhash_duplicates('$identical', 3)")
[ "$s" = 57014 ] || fail "count(*) of 5·10⁹ identical pairs under a 200 ms timeout: $s, want 57014"
s=$(sqlstate -c "SET statement_timeout = '200ms'" -c "SELECT count(*) FROM simhash_clusters('SELECT i::bigint, hashint8extended(i, 0) FROM generate_series(1, 3000000) i', 3)")
[ "$s" = 57014 ] || fail "simhash_clusters over 3M rows under a 200 ms timeout: $s, want 57014"
# A batch against a corpus with lookup threads (simhash.batch_threads = 2): while it runs,
# the backend has its 2 workers (seen in /proc); once they are seen, pg_cancel_backend
# ends it with 57014, and then the backend has one thread again and the session goes on.
# The corpus is a cross join of two generate_series, 10^9 rows streamed (a single
# generate_series in FROM would be materialized first), so it is still running when the
# cancel comes, however fast the machine.
qbatch="SELECT i::bigint, hashint8extended(i, 1) FROM generate_series(1, 1000000) i"
qcorpus="SELECT a::bigint * 1000000 + b, hashint8extended(a::bigint * 1000000 + b, 2) FROM generate_series(1, 1000) a, generate_series(1, 1000000) b"
# For LIMIT: a corpus of 4 chunks that holds the batch's rows, so its first chunk has pairs.
qsame="SELECT i::bigint, hashint8extended(i, 1) FROM generate_series(1, 1000000) i"
out=$tmp/threads.out
: >"$out"
# ON_ERROR_STOP off: the statements after the cancelled one must still run.
psql -v ON_ERROR_STOP=0 -At -c "SELECT pg_backend_pid()" -c "SET simhash.batch_threads = 2" \
     -c "\\set VERBOSITY sqlstate" \
     -c "SELECT count(*) FROM simhash_duplicates('$qbatch', '$qcorpus', 3)" \
     -c "SELECT 'threads after', count(*) FROM pg_ls_dir('/proc/self/task') t" \
     -c "SELECT 'limit', count(*) FROM (SELECT * FROM simhash_duplicates('$qbatch', '$qsame', 3) LIMIT 1) p" \
     -c "SELECT 'threads after limit', count(*) FROM pg_ls_dir('/proc/self/task') t" >"$out" 2>&1 &
bg=$!
pid=
for _ in $(seq 600); do pid=$(head -1 "$out" | grep -oE '^[0-9]+$' || true); [ -n "$pid" ] && break; sleep 0.1; done
most=0 cancelled=0
for _ in $(seq 1200); do   # up to 60 s for the threads to appear
    kill -0 "$bg" 2>/dev/null || break
    n=$(ls "/proc/$pid/task" 2>/dev/null | wc -l)
    [ "$n" -gt "$most" ] && most=$n
    if [ "$most" -ge 3 ] && [ "$cancelled" = 0 ]; then
        q -c "SELECT pg_cancel_backend($pid)" >/dev/null
        cancelled=1
    fi
    [ "$cancelled" = 1 ] && break
    sleep 0.05
done
[ "$cancelled" = 1 ] || q -c "SELECT pg_cancel_backend($pid)" >/dev/null || true   # no threads seen: stop it anyway
wait "$bg" || true
[ "$most" = 3 ] || fail "batch against corpus: the backend had at most $most threads while it ran, want 3 (itself and 2 workers)"
grep -q 'ERROR:  57014' "$out" || fail "batch against corpus with threads, cancelled: $(tr '\n' ' ' <"$out"), want 57014"
grep -q '^threads after|1$' "$out" || fail "batch against corpus: after the cancel, $(grep 'threads after' "$out"), want 1 thread"
# LIMIT stops a pass with threads: they are joined at the end of that statement too.
grep -q '^limit|1$' "$out" || fail "batch against corpus, LIMIT 1: $(grep '^limit' "$out"), want 1 row"
grep -q '^threads after limit|1$' "$out" || fail "batch against corpus: after LIMIT 1, $(grep 'threads after limit' "$out"), want 1 thread"

big="repeat('中共中央总书记、国家主席江泽民发表1998年新年讲话。Crème brûlée 4.3亿元 ', 800000)"
q -c "SELECT simhash('预热 词典')" >/dev/null
# The cancel must happen inside simhash(): the sequence (not transactional) would move if
# the statement went on to nextval() after simhash() returned, as it did before 1.0.0,
# when the cancel came only once the whole text was fingerprinted.
q -c "CREATE SEQUENCE after_simhash"
s=$(sqlstate -c "SELECT simhash('预热 词典')" -c "SET statement_timeout = '100ms'" \
             -c "SELECT simhash($big) + 0 * nextval('after_simhash')")
[ "$s" = 57014 ] || fail "simhash() of a 50 MB text under a 100 ms timeout: $s, want 57014"
[ "$(q -c "SELECT is_called FROM after_simhash")" = f ] || fail "simhash() of a 50 MB text ran to its end under a 100 ms timeout"
# The long text's fingerprint is the one of the same words in one piece: every piece here
# is the same sentence, so its fingerprint is the short text's with counts × 800,000, and
# under definition 2, whose weights are linear in the counts, weights scale alike: same sign
# of every bit sum (definition 3 counts non-Han words as 1 + ln c, which does not scale).
whole=$(q -c "SELECT simhash($big, '{\"definition\": \"2\"}'::jsonb)
               = simhash(repeat('中共中央总书记、国家主席江泽民发表1998年新年讲话。Crème brûlée 4.3亿元 ', 3), '{\"definition\": \"2\"}'::jsonb)")
[ "$whole" = t ] || fail "simhash() of the 50 MB text differs from the same sentence repeated 3 times"

exit $status
