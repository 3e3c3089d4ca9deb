#!/usr/bin/env bash
# Fingerprinting throughput, first-call latency and per-backend memory (issue: foundation),
# definition 1 next to definition 0 in the same run (issue 10: at most 5% slower), and the
# wall-clock rate of fingerprinting a table with 1 and 2 processes (parallel CREATE TABLE AS).
# Single-process throughput is MB of UTF-8 text per CPU-second of the process doing the
# work (schedstat), so other load on a shared machine does not count against it.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
corpus=$root/target/corpus/peoples_daily_199801.txt
install_extension

# Baseline: jieba-rs cut alone, same text, same mode (no HMM), one core.
cargo run -q --release -p simhash-core --example throughput -- "$corpus" >target/bench-throughput.txt
cut=$(awk '/^jieba_cut_MBps/ {print $2}' target/bench-throughput.txt)
rust=$(awk '/^simhash_rust_MBps/ {print $2}' target/bench-throughput.txt)
rust0=$(awk '/^simhash_v0_rust_MBps/ {print $2}' target/bench-throughput.txt)

cpu_sql="(split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::float8 / 1e9)"
measure() { # cluster name → "v1 v0": MB/s of simhash(body) and simhash_v0(body) over the corpus, best of 3, interleaved
    in_cluster "$1" psql -At <<SQL
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS corpus;
CREATE TABLE corpus(body text);
\\copy corpus FROM '$corpus'
SELECT sum(simhash(body)) FROM corpus \\g /dev/null
CREATE TEMP TABLE runs(def int, s float8);
DO \$\$ DECLARE t0 float8; BEGIN
  FOR i IN 1..3 LOOP
    t0 := $cpu_sql;
    PERFORM sum(simhash(body)) FROM corpus;
    INSERT INTO runs VALUES (1, $cpu_sql - t0);
    t0 := $cpu_sql;
    PERFORM sum(simhash_v0(body)) FROM corpus;
    INSERT INTO runs VALUES (0, $cpu_sql - t0);
  END LOOP; END \$\$;
SELECT string_agg(round(((SELECT sum(octet_length(body)) FROM corpus) / 1e6 / s)::numeric, 2)::text, ' ' ORDER BY def DESC)
  FROM (SELECT def, min(s) AS s FROM runs GROUP BY def) b;
SQL
}
parallel() { # cluster name → "1proc 2proc": wall-clock MB/s of CREATE TABLE AS SELECT simhash(body), best of 2, interleaved
    local mb
    mb=$(in_cluster "$1" psql -At <<SQL
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS lines, docs;
CREATE TABLE lines(body text);
\\copy lines FROM '$corpus'
CREATE TABLE docs AS SELECT row_number() OVER () AS id, body FROM lines, generate_series(1, 8);
VACUUM ANALYZE docs;
SELECT sum(octet_length(body)) / 1e6 FROM docs;
SQL
)
    # Planner costs that let one worker join in on a table of this size (a big table needs
    # no such help); the leader also scans, so one worker is two processes.
    local runs=""
    for i in 1 2; do for w in 0 1; do runs+="SET max_parallel_workers_per_gather = $w;
DROP TABLE IF EXISTS fps;
\\echo procs $((w + 1))
CREATE TABLE fps AS SELECT id, simhash(body) AS fp FROM docs;
"; done; done
    in_cluster "$1" psql <<SQL | awk -v mb="$mb" '/^procs/ {p = $2; next} /^Time:/ && p {s = $2 / 1000; if (!(p in best) || s < best[p]) best[p] = s; p = 0}
        END {printf "%.2f %.2f\n", mb / best[1], mb / best[2]}'
SET parallel_setup_cost = 0; SET parallel_tuple_cost = 0; SET min_parallel_table_scan_size = 0;
\\timing on
$runs
SQL
}
first_call() { # cluster name → "first-call ms, private kB after it" in a new backend
    in_cluster "$1" psql -c "CREATE EXTENSION IF NOT EXISTS simhash"
    # ON_ERROR_STOP: a failing call must stop the bench, not be timed.
    in_cluster "$1" psql -At <<'SQL'
\timing on
SELECT simhash('第一次调用') \g /dev/null
\timing off
SELECT sum(regexp_replace(split_part(l, ':', 2), '[^0-9]', '', 'g')::bigint)
  FROM regexp_split_to_table(pg_read_file('/proc/self/smaps_rollup'), E'\n') l
 WHERE l ~ '^Private_(Clean|Dirty):';
SQL
}

own_cluster bench-plain >/dev/null
own_cluster bench-preload "shared_preload_libraries = 'simhash'" >/dev/null
read -r indb indb0 < <(measure bench-plain)
read -r par1 par2 < <(parallel bench-preload)
read -r plain_ms plain_kb < <(first_call bench-plain | awk '/^Time:/ {ms=$2} /^[0-9]+$/ {kb=$1} END {print ms, kb}')
read -r pre_ms pre_kb < <(first_call bench-preload | awk '/^Time:/ {ms=$2} /^[0-9]+$/ {kb=$1} END {print ms, kb}')

row_width=40
row name value baseline ratio
row "simhash(text) in PostgreSQL, MB/s" "$indb" "$cut" "$(ratio "$indb" "$cut")"
row "simhash pipeline in Rust, MB/s" "$rust" "$cut" "$(ratio "$rust" "$cut")"
row "definition 1 vs 0 in PostgreSQL, MB/s" "$indb" "$indb0" "$(ratio "$indb" "$indb0")"
row "definition 1 vs 0 in Rust, MB/s" "$rust" "$rust0" "$(ratio "$rust" "$rust0")"
row "CREATE TABLE AS, 2 vs 1 process, MB/s" "$par2" "$par1" "$(ratio "$par2" "$par1")"
row "jieba-rs cut only (baseline), MB/s" "$cut" "$cut" "$(ratio "$cut" "$cut")"
row "first call, preload ms (vs without)" "$pre_ms" "$plain_ms" "$(ratio "$pre_ms" "$plain_ms")"
row "backend private kB, preload (vs w/o)" "$pre_kb" "$plain_kb" "$(ratio "$pre_kb" "$plain_kb")"
