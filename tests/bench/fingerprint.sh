#!/usr/bin/env bash
# Fingerprinting throughput, first-call latency and per-backend memory (issue: foundation).
# Throughput is MB of UTF-8 text per CPU-second of the process doing the work (schedstat),
# so other load on a shared machine does not count against it.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
h=tests/harness
corpus=$root/target/corpus/peoples_daily_199801.txt
[ "${SKIP_INSTALL:-0}" = 1 ] || bash $h/cluster.sh install

# Baseline: jieba-rs cut alone, same text, same mode (no HMM), one core.
cargo run -q --release -p simhash-core --example throughput -- "$corpus" >target/bench-throughput.txt
cut=$(awk '/^jieba_cut_MBps/ {print $2}' target/bench-throughput.txt)
rust=$(awk '/^simhash_rust_MBps/ {print $2}' target/bench-throughput.txt)

cpu_sql="(split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::float8 / 1e9)"
measure() { # cluster name → prints MB/s of simhash(body) over the corpus, best of 3
    eval "$(bash $h/cluster.sh env "$1")"
    psql -X -q -v ON_ERROR_STOP=1 -At <<SQL
CREATE EXTENSION IF NOT EXISTS simhash;
DROP TABLE IF EXISTS corpus;
CREATE TABLE corpus(body text);
\\copy corpus FROM '$corpus'
SELECT sum(simhash(body)) FROM corpus \\g /dev/null
CREATE TEMP TABLE runs(s float8);
DO \$\$ DECLARE t0 float8; BEGIN
  FOR i IN 1..3 LOOP
    t0 := $cpu_sql;
    PERFORM sum(simhash(body)) FROM corpus;
    INSERT INTO runs VALUES ($cpu_sql - t0);
  END LOOP; END \$\$;
SELECT round(((SELECT sum(octet_length(body)) FROM corpus) / 1e6 / min(s))::numeric, 2) FROM runs;
SQL
}
first_call() { # cluster name → "first-call ms, private kB after it" in a new backend
    eval "$(bash $h/cluster.sh env "$1")"
    psql -X -q -c "CREATE EXTENSION IF NOT EXISTS simhash"
    # ON_ERROR_STOP: a failing call must stop the bench, not be timed.
    psql -X -q -At -v ON_ERROR_STOP=1 <<'SQL'
\timing on
SELECT simhash('第一次调用') \g /dev/null
\timing off
SELECT sum(regexp_replace(split_part(l, ':', 2), '[^0-9]', '', 'g')::bigint)
  FROM regexp_split_to_table(pg_read_file('/proc/self/smaps_rollup'), E'\n') l
 WHERE l ~ '^Private_(Clean|Dirty):';
SQL
}

bash $h/cluster.sh start bench-plain >/dev/null
bash $h/cluster.sh start bench-preload "shared_preload_libraries = 'simhash'" >/dev/null
trap 'bash $h/cluster.sh stop bench-plain; bash $h/cluster.sh stop bench-preload' EXIT
indb=$(measure bench-plain)
read -r plain_ms plain_kb < <(first_call bench-plain | awk '/^Time:/ {ms=$2} /^[0-9]+$/ {kb=$1} END {print ms, kb}')
read -r pre_ms pre_kb < <(first_call bench-preload | awk '/^Time:/ {ms=$2} /^[0-9]+$/ {kb=$1} END {print ms, kb}')

printf '%-40s %12s %12s %8s\n' name value baseline ratio
printf '%-40s %12s %12s %8.2f\n' "simhash(text) in PostgreSQL, MB/s" "$indb" "$cut" "$(echo "$indb / $cut" | bc -l)"
printf '%-40s %12s %12s %8.2f\n' "simhash pipeline in Rust, MB/s" "$rust" "$cut" "$(echo "$rust / $cut" | bc -l)"
printf '%-40s %12s %12s %8s\n' "jieba-rs cut only (baseline), MB/s" "$cut" "$cut" "1.00"
printf '%-40s %12s %12s %8.2f\n' "first call, preload ms (vs without)" "$pre_ms" "$plain_ms" "$(echo "$pre_ms / $plain_ms" | bc -l)"
printf '%-40s %12s %12s %8.2f\n' "backend private kB, preload (vs w/o)" "$pre_kb" "$plain_kb" "$(echo "$pre_kb / $plain_kb" | bc -l)"
