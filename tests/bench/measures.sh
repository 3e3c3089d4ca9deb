#!/usr/bin/env bash
# Measure 2 against measure 1 in the same run (issue 38, "No other cost": index size within
# 10%, lookups, dedup inserts and bulk pairs no slower than 4.0.0's). Both live in one
# build: measure 1 is 4.0.0's objects under their _m1 names (simhash_ops_m1,
# simhash_similarity_m1, simhash_similarity_dedup_trigger_m1, simhash_similarity_pairs_m1).
# On ROWS (default 100,000) Markov paragraphs of 200-500 characters written from People's
# Daily (lib.sh, markov) and 10% reposts of them (the first sentence dropped):
#   - index size: a simhash_ops index and a simhash_ops_m1 index on the same texts;
#   - lookup p50: QUERIES (20) reposts looked up by `simhash_similarity(body, q) >= 0.5` and by
#     `simhash_similarity_m1(body, q) >= 0.5`, each through its index, alternated, each query
#     run twice and the second timed;
#   - dedup inserts: 8 pgbench clients for DURATION (10) seconds, ROUNDS (2) alternated, into
#     two tables of the texts, each with its index and trigger ('body', '0.5', 'skip');
#   - bulk pairs: simhash_similarity_pairs against simhash_similarity_pairs_m1, wall seconds.
# Prints "name  value  baseline  ratio" lines (baseline: measure 1).
#   ROWS=100000 bash tests/bench/measures.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
ROWS=${ROWS:-100000}
QUERIES=${QUERIES:-20}
DURATION=${DURATION:-10}
ROUNDS=${ROUNDS:-2}
CLIENTS=8
corpus=$root/target/corpus/peoples_daily_199801.txt
fresh=$((ROWS * 9 / 10))
f=$(markov "zh_paragraphs_$fresh" "$corpus" "$fresh" 200 500 seed=2026)
install_extension
own_cluster measuresbench "shared_buffers = 2GB" "maintenance_work_mem = 1GB" "max_wal_size = 16GB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0" "work_mem = 64MB"
q -c "CREATE EXTENSION simhash"
q -c "CREATE TABLE texts(id bigserial PRIMARY KEY, body text)" \
  -c "\\copy texts(body) FROM '$f' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
  -c "INSERT INTO texts(body) SELECT regexp_replace(body, '^[^。！？]*[。！？]', '') FROM texts WHERE id % 9 = 4"
row_width=44
row name value baseline ratio
row rows "$(q -c "SELECT count(*) FROM texts")" - -

# --- Index size and lookups ----------------------------------------------------------------
t0=$(now); q -c "CREATE INDEX texts_m2 ON texts USING gin (body simhash_ops)"; t2=$(since "$t0")
t0=$(now); q -c "CREATE INDEX texts_m1 ON texts USING gin (body simhash_ops_m1)"; t1=$(since "$t0")
q -c "VACUUM ANALYZE texts"
row index_build_s "$(printf %.1f "$t2")" "$(printf %.1f "$t1")" "$(ratio "$t2" "$t1")"
q -c "SELECT format('%-44s %14s %14s %10s', 'index_bytes', pg_relation_size('texts_m2'), pg_relation_size('texts_m1'),
                    round(pg_relation_size('texts_m2')::numeric / pg_relation_size('texts_m1'), 3))"
q <<SQL
CREATE TEMP TABLE queries AS
SELECT row_number() OVER () AS qid, regexp_replace(body, '^[^。！？]*[。！？]', '') AS q
  FROM texts WHERE id % ($ROWS / $QUERIES) = 7 LIMIT $QUERIES;
CREATE TEMP TABLE times(what text, ms float8);
DO \$\$ DECLARE r record; which text; t0 timestamptz; n bigint; BEGIN
  FOR r IN SELECT * FROM queries ORDER BY qid LOOP
    FOR pass IN 1..2 LOOP
      FOR which IN SELECT unnest(CASE WHEN r.qid % 2 = 0 THEN ARRAY['m2', 'm1'] ELSE ARRAY['m1', 'm2'] END) LOOP
        t0 := clock_timestamp();
        IF which = 'm2' THEN
          SELECT count(*) INTO n FROM texts WHERE simhash_similarity(body, r.q) >= 0.5;
        ELSE
          SELECT count(*) INTO n FROM texts WHERE simhash_similarity_m1(body, r.q) >= 0.5;
        END IF;
        IF pass = 2 THEN INSERT INTO times VALUES (which, extract(epoch FROM clock_timestamp() - t0) * 1000); END IF;
      END LOOP;
    END LOOP;
  END LOOP; END \$\$;
SELECT format('%-44s %14s %14s %10s', 'lookup_p50_ms', round(a::numeric, 2), round(b::numeric, 2), round((a / b)::numeric, 2))
  FROM (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS a FROM times WHERE what = 'm2') x,
       (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS b FROM times WHERE what = 'm1') y;
SQL

# --- Dedup inserts ---------------------------------------------------------------------------
load_paragraphs
for m in m2 m1; do
    ops=simhash_ops trig=simhash_similarity_dedup_trigger
    [ $m = m1 ] && ops=simhash_ops_m1 trig=simhash_similarity_dedup_trigger_m1
    q -c "CREATE TABLE dedup_$m(id bigserial PRIMARY KEY, body text)" \
      -c "INSERT INTO dedup_$m(body) SELECT body FROM texts" \
      -c "CREATE INDEX ON dedup_$m USING gin (body $ops) WITH (fastupdate = off)" \
      -c "CREATE TRIGGER dedup BEFORE INSERT ON dedup_$m FOR EACH ROW EXECUTE FUNCTION $trig('body', '0.5', 'skip')" \
      -c "VACUUM ANALYZE dedup_$m"
done
insert_rounds dedup_m2 dedup_m1
row dedup_tps_8_clients "${tps[dedup_m2]}" "${tps[dedup_m1]}" "$(ratio "${tps[dedup_m2]}" "${tps[dedup_m1]}")"

# --- Bulk pairs ------------------------------------------------------------------------------
for m in m2 m1; do
    fn=simhash_similarity_pairs; [ $m = m1 ] && fn=simhash_similarity_pairs_m1
    t0=$(now); n=$(q -c "SELECT count(*) FROM $fn('SELECT id, body FROM texts', 0.5)"); s=$(since "$t0")
    declare "bulk_$m=$s" "pairs_$m=$n"
done
row bulk_pairs_s "$(printf %.1f "$bulk_m2")" "$(printf %.1f "$bulk_m1")" "$(ratio "$bulk_m2" "$bulk_m1")"
row bulk_pairs_found "$pairs_m2" "$pairs_m1" "$(ratio "$pairs_m2" "$pairs_m1")"
bash "$h/cluster.sh" stop measuresbench
