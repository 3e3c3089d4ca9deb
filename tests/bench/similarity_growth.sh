#!/usr/bin/env bash
# How simhash_similarity_pairs grows with the rows (issue 39: "time(1M) / time(250k) <= 4.4,
# time(10M) / time(1M) <= 11, peak memory of the backend <= 4 GB at 10M"), release build,
# its own cluster. For each of SIZES (default "250000 500000 1000000"; the 10M run is
# similarity_growth_10m.sh) texts as similarity_pairs.sh builds them (90% Markov paragraphs of
# 200-500 characters, the first lines of one file for every size, and 10% reposts of them),
# in an unlogged table of their own, dropped after:
#   - simhash_similarity_pairs('SELECT id, body FROM t', 0.5) counted, server side: wall
#     seconds, and the ratio to the size before; the backend's CPU seconds (every thread,
#     /proc/self/stat), a figure the shared machine's other work does not inflate;
#   - the backend's peak resident memory (VmHWM, read from /proc/self/status inside the
#     backend after the run) above a baseline session's that reads every text of the table
#     (sum(length(body))), as tests/integration/similarity_bad_input.sh measures.
# The run's NOTICEs (phases, counters every 10 s), each with the seconds since its start, go
# to target/bench/similarity_growth_ROWS.notices.
# Prints "name  value  baseline  ratio" lines (ratio = value / baseline).
#   SIZES="250000 500000 1000000" bash tests/bench/similarity_growth.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
SIZES=${SIZES:-250000 500000 1000000}
largest=$(printf '%s\n' $SIZES | sort -n | tail -1)
f=$(markov "zh_paragraphs_$((largest * 9 / 10))" "$root/target/corpus/peoples_daily_199801.txt" "$((largest * 9 / 10))" 200 500 seed=2026)
install_extension
own_cluster simgrowthbench "shared_buffers = 1GB" "shared_preload_libraries = 'simhash'" \
    "max_parallel_workers_per_gather = 0" "work_mem = 64MB"
q -c "CREATE EXTENSION simhash"
mkdir -p "$root/target/bench"
row_width=60
row name value baseline ratio
hwm_sql="substring(pg_read_file('/proc/self/status') from 'VmHWM:\s*(\d+)')::bigint"
cpu_sql="(split_part(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ', 12)::float8
          + split_part(split_part(pg_read_file('/proc/self/stat'), ') ', 2), ' ', 13)::float8) / 100"
prev="" prev_s="" first="" first_s=""
for n in $SIZES; do
    fresh=$((n * 9 / 10))
    t0=$(now)
    q -c "CREATE UNLOGGED TABLE t(id bigserial, body text)" \
      -c "\\copy t(body) FROM PROGRAM 'head -n $fresh $f' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
      -c "$(reposts_sql t)" \
      -c "VACUUM ANALYZE t"
    rows=$(q -c "SELECT count(*) FROM t")
    row "rows $rows: load_s (not the run)" "$(printf %.0f "$(since "$t0")")" - -
    base=$(q -c "SELECT sum(length(body)) FROM t" -c "SELECT $hwm_sql" | tail -1)
    notices=$root/target/bench/similarity_growth_$n.notices
    t0=$(now)
    out=$(PGOPTIONS="-c client_min_messages=notice" psql -At -F' ' -c "CREATE TEMP TABLE x(n bigint, s float8)" -c "
DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); n bigint; BEGIN
  SELECT count(*) INTO n FROM simhash_similarity_pairs('SELECT id, body FROM t', 0.5);
  INSERT INTO x VALUES (n, extract(epoch FROM clock_timestamp() - t0)); END \$\$" \
        -c "SELECT n, s, $hwm_sql, $cpu_sql FROM x" 2> >(while IFS= read -r l; do
            printf '%8.1f s  %s\n' "$(since "$t0")" "$l"; done >"$notices"))
    read -r pairs s hwm cpu <<<"$out"
    if [ -n "$prev" ]; then
        row "pairs_s $n / $prev rows" "$(printf %.1f "$s")" "$(printf %.1f "$prev_s")" "$(ratio "$s" "$prev_s")"
    else
        row "pairs_s $n rows" "$(printf %.1f "$s")" - -
    fi
    row "  pairs found at $n" "$pairs" - -
    row "  backend_cpu_s at $n (all threads)" "$(printf %.1f "$cpu")" - -
    row "  peak_backend_MB at $n above a reading session's" "$(( (hwm - base) / 1024 ))" "$((base / 1024))" -
    row "  peak bytes a row above it" "$(( (hwm - base) * 1024 / rows ))" - -
    [ -z "$first" ] && first=$n first_s=$s
    prev=$n prev_s=$s
    q -c "DROP TABLE t"
done
[ "$prev" != "$first" ] && row "pairs_s $prev / $first rows" "$(printf %.1f "$prev_s")" "$(printf %.1f "$first_s")" "$(ratio "$prev_s" "$first_s")"
exit $status
