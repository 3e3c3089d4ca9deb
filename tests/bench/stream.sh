#!/usr/bin/env bash
# Bounded memory and prompt cancel (issue 11). Release build, its own cluster, preloaded.
#   - 100,000 rows with one fingerprint (5·10⁹ pairs): seconds to the 10 rows of
#     SELECT * FROM simhash_duplicates(...) LIMIT 10 (target < 1 s) and the backend's
#     peak RSS, VmHWM of /proc/self/status read in the same session after the query
#     (target < 100 MB); baseline: a fresh backend's VmHWM after SELECT 1.
#   - cancel delay: seconds from a statement_timeout to the statement's end (target
#     < 0.1 s), for count(*) over those 5·10⁹ pairs, for count(*) over 10M random
#     fingerprints at k = 3 (timeout while searching), and for simhash() of a 50 MB text;
#     baseline: the same timeout on pg_sleep (PostgreSQL's own cancel delay), same run;
#   - issue 55's: simhash() of a 47 MB text stored in a table (the corpus 9 times), timeout
#     0.3 s, preloaded and, in a cluster without shared_preload_libraries, as a session's
#     first call (the lexicon's load, 0.2 s, answers the cancel since 7.0.0); and under a
#     0.05 s timeout, which ends before PostgreSQL's own detoast of the text would (its
#     pglz_decompress has no check; the extension decompresses such a text itself since
#     7.0.0), beside md5() of the same text under the same timeout: PostgreSQL's detoast.
# Prints "name value baseline ratio" lines; no thresholds are checked.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
install_extension
own_cluster streambench "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0"
q -c "CREATE EXTENSION simhash"
q -c "CREATE UNLOGGED TABLE r10m AS SELECT g AS id, hashint8extended(g, 0) AS fp FROM generate_series(1::bigint, 10000000) g" -c "VACUUM ANALYZE r10m"
identical="SELECT i::bigint, 1234567890123::bigint FROM generate_series(1, 100000) i"

# First 10 rows and peak memory, in one session; psql's \timing gives the query's time.
out=$(q -c "\\timing on" -c "SELECT * FROM simhash_duplicates('$identical', 3) LIMIT 10" \
        -c "\\timing off" -c "SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s*(\d+)'))[1]")
first_ms=$(echo "$out" | grep -oE '^Time: [0-9.]+' | awk '{print $2}')
hwm_kb=$(echo "$out" | tail -1)
base_kb=$(q -c "SELECT 1" -c "SELECT (regexp_match(pg_read_file('/proc/self/status'), 'VmHWM:\s*(\d+)'))[1]" | tail -1)

best() { # best N TIMEOUT_MS SQL: smallest and largest of N cancel delays, "min max"
    local i v all=()
    for i in $(seq "$1"); do v=$(cancel_delay "$2" "$3"); all+=("$v"); done
    printf '%s\n' "${all[@]}" | sort -n | sed -n '1p;$p' | tr '\n' ' '
}
big="repeat('中共中央总书记、国家主席江泽民发表1998年新年讲话。', 700000)"   # 51 MB
c_sleep=$(best 3 300 "SELECT pg_sleep(2)")
c_ident=$(best 3 300 "SELECT count(*) FROM simhash_duplicates('$identical', 3)")
c_rand=$(best 3 3000 "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM r10m', 3)")
c_text=$(best 3 300 "SELECT simhash($big)")   # the lexicon is preloaded
t_text=$(secs q -c "SELECT simhash($big)")
stored="SELECT simhash(body) FROM big47"
big47() { # the corpus 9 times, stored (compressed, out of line)
    q -c "CREATE TABLE lines(line text)" \
      -c "\\copy lines FROM '$root/target/corpus/peoples_daily_199801.txt' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
      -c "CREATE TABLE big47 AS SELECT repeat(string_agg(line, E'\\n'), 9) AS body FROM lines"
}
big47
c_stored=$(best 3 300 "$stored")
c_stored50=$(best 3 50 "$stored")
c_md5_50=$(best 3 50 "SELECT md5(body) FROM big47")
# Last (its PGHOST replaces the first cluster's): a cluster that does not preload the lexicon,
# where each of these calls is its session's first.
own_cluster streambench-plain "max_parallel_workers_per_gather = 0"
q -c "CREATE EXTENSION simhash"
big47
c_first=$(best 3 300 "$stored")

printf '%-58s %12s %12s %8s\n' name value baseline ratio
printf '%-58s %12.3f %12s %8s\n' "first_10_rows_of_5e9_identical_pairs_s (target < 1)" "$(echo "$first_ms / 1000" | bc -l)" - -
printf '%-58s %12.1f %12.1f %7sx\n' "backend_peak_rss_MB after them (target < 100); base: SELECT 1" "$(echo "$hwm_kb / 1024" | bc -l)" "$(echo "$base_kb / 1024" | bc -l)" "$(ratio "$hwm_kb" "$base_kb")"
range_row() { set -- "$1" $2 $3; printf '%-58s %5.3f-%5.3f %5.3f-%5.3f\n' "$1" "$2" "$3" "$4" "$5"; }
range_row "cancel_s, 5e9 identical pairs, timeout 0.3 s (min-max of 3)" "$c_ident" "$c_sleep"
range_row "cancel_s, 10M random fps k=3, timeout 3 s (min-max of 3)" "$c_rand" "$c_sleep"
range_row "cancel_s, simhash() of 51 MB, timeout 0.3 s (min-max of 3)" "$c_text" "$c_sleep"
range_row "cancel_s, simhash() of 47 MB stored, timeout 0.3 s" "$c_stored" "$c_sleep"
range_row "cancel_s, simhash() of 47 MB stored, timeout 0.05 s; md5()" "$c_stored50" "$c_md5_50"
range_row "cancel_s, the same as a session's first call, no preload" "$c_first" "$c_sleep"
printf '%-58s %12.2f %12s %8s\n' "simhash_51MB_s (uncancelled, for scale)" "$t_text" - -
echo "(cancel baseline: pg_sleep under the same timeout, min-max of 3, but md5()'s where named; target < 0.1 s)"
