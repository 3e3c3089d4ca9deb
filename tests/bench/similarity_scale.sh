#!/usr/bin/env bash
# Lookups and dedup inserts as the table grows (issue 39: "lookup p50 at 1M articles <= 3x
# p50 at 100k; dedup inserts per second at 1M rows >= 0.7x the rate at 100k"), release
# build, its own cluster. For each of SIZES (default "100000 1000000") a table docs of that
# many articles of 800-2,000 characters (an order-3 Markov chain trained on People's Daily,
# as similarity.sh's lookups: the first lines of one file for every size) with a simhash_ops
# index (fastupdate off, as similarity_dedup.sh), then:
#   - lookup p50 (and p90): QUERIES (default 20) queries, each an article of the table with
#     its first sentence dropped, `WHERE simhash_similarity(body, q) >= 0.5`, each run twice
#     and the second timed (similarity.sh's);
#   - dedup inserts per second: simhash_similarity_dedup_trigger('body', '0.5', 'skip') on
#     docs, pgbench with CLIENTS (default 8) clients, one row per transaction, DURATION
#     (default 15) seconds, ROUNDS (default 2) rounds alternating two workloads: fresh (a
#     Markov paragraph of 200-500 characters from a pool of 50,000 that are in no article:
#     no near-duplicate, the common case, inserted) and reposts (an article of the table with
#     its first sentence dropped: skipped).
# Each size's figures against the first size's, from the same run; and where a lookup's time
# goes (index scan, recheck, candidates, buffers: EXPLAIN ANALYZE). SHARED_BUFFERS (default
# 2GB; 8GB holds the 1M table and its index) sets the cache.
# OPCLASS (default simhash_ops; simhash_band_ops for the band index, 5.2.0) names the index's
# operator class.
# Prints "name  value  baseline  ratio" lines (ratio = value / baseline).
#   OPCLASS=simhash_ops SIZES="100000 1000000" SHARED_BUFFERS=2GB QUERIES=20 CLIENTS=8 DURATION=15 ROUNDS=2 bash tests/bench/similarity_scale.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
SIZES=${SIZES:-100000 1000000}
QUERIES=${QUERIES:-20} CLIENTS=${CLIENTS:-8} DURATION=${DURATION:-15} ROUNDS=${ROUNDS:-2}
OPCLASS=${OPCLASS:-simhash_ops}
corpus=$root/target/corpus/peoples_daily_199801.txt
largest=$(printf '%s\n' $SIZES | sort -n | tail -1)
articles=$(markov "zh_articles_$largest" "$corpus" "$largest" 800 2000)
pool=$(markov zh_paragraphs_50000 "$corpus" 50000 200 500 seed=2026)
install_extension
own_cluster simscalebench "shared_buffers = ${SHARED_BUFFERS:-2GB}" "maintenance_work_mem = 1GB" "max_wal_size = 16GB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0" "work_mem = 64MB"
q -c "CREATE EXTENSION simhash" \
  -c "CREATE TABLE pool(pid serial PRIMARY KEY, body text NOT NULL)" \
  -c "\\copy pool(body) FROM '$pool' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')"
npool=$(q -c "SELECT count(*) FROM pool")
row_width=60
row name value baseline ratio
declare -A p50 p90 fresh_tps repost_tps idx_ms heap_ms cands bufs reads
first=""
for n in $SIZES; do
    q -c "DROP TABLE IF EXISTS docs" \
      -c "CREATE TABLE docs(id bigserial PRIMARY KEY, body text NOT NULL)" \
      -c "\\copy docs(body) FROM PROGRAM 'head -n $n $articles' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')"
    t0=$(now)
    q -c "CREATE INDEX docs_sim ON docs USING gin (body $OPCLASS) WITH (fastupdate = off)"
    row "articles $n: $OPCLASS index_build_s (not measured against)" "$(printf %.0f "$(since "$t0")")" - -
    row "articles $n: $OPCLASS index_mb (not measured against)" "$(q -c "SELECT pg_relation_size('docs_sim') / 1048576")" - -
    q -c "VACUUM ANALYZE docs" -c "CHECKPOINT"
    # Lookups.
    read -r p50[$n] p90[$n] found < <(q -F' ' <<SQL
CREATE TEMP TABLE queries AS
SELECT row_number() OVER () AS qid, id AS original, regexp_replace(body, '^[^。！？]*[。！？]', '') AS q
  FROM docs WHERE id % ($n / $QUERIES) = 7 LIMIT $QUERIES;
CREATE TEMP TABLE times(qid bigint, ms float8, found boolean);
DO \$\$ DECLARE r record; t0 timestamptz; n bigint; ok boolean; BEGIN
  FOR r IN SELECT * FROM queries ORDER BY qid LOOP
    FOR pass IN 1..2 LOOP
      t0 := clock_timestamp();
      SELECT count(*), bool_or(id = r.original) INTO n, ok FROM docs WHERE simhash_similarity(body, r.q) >= 0.5;
      IF pass = 2 THEN INSERT INTO times VALUES (r.qid, extract(epoch FROM clock_timestamp() - t0) * 1000, ok); END IF;
    END LOOP;
  END LOOP; END \$\$;
SELECT round(percentile_disc(0.5) WITHIN GROUP (ORDER BY ms)::numeric, 2),
       round(percentile_disc(0.9) WITHIN GROUP (ORDER BY ms)::numeric, 2), count(*) FILTER (WHERE found) FROM times;
SQL
    )
    [ "$found" = "$QUERIES" ] || fail "lookups at $n: $found of $QUERIES found their original"
    # Where a lookup's time goes (EXPLAIN ANALYZE, BUFFERS of each query, warm): the index
    # scan's time and the heap scan's (the recheck: every candidate's text read and
    # measured), candidates (rows the index returned), and buffers touched (hit + read).
    read -r idx_ms[$n] heap_ms[$n] cands[$n] bufs[$n] reads[$n] < <(q -F' ' <<SQL
CREATE TEMP TABLE queries AS
SELECT row_number() OVER () AS qid, id AS original, regexp_replace(body, '^[^。！？]*[。！？]', '') AS q
  FROM docs WHERE id % ($n / $QUERIES) = 7 LIMIT $QUERIES;
CREATE FUNCTION pg_temp.plan(q text) RETURNS jsonb LANGUAGE plpgsql AS \$f\$
DECLARE j json; BEGIN EXECUTE 'EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ' || q INTO j; RETURN j::jsonb; END \$f\$;
CREATE TEMP TABLE plans AS
SELECT qid, jsonb_path_query_first(p, 'strict \$.**?(@."Node Type" == "Bitmap Heap Scan")') AS heap,
            jsonb_path_query_first(p, 'strict \$.**?(@."Node Type" == "Bitmap Index Scan")') AS idx
  FROM queries, pg_temp.plan(format('SELECT count(*) FROM docs WHERE simhash_similarity(body, %L) >= 0.5', q)) p;
SELECT round(percentile_disc(0.5) WITHIN GROUP (ORDER BY (idx->>'Actual Total Time')::float8)::numeric, 2),
       round(percentile_disc(0.5) WITHIN GROUP (ORDER BY (heap->>'Actual Total Time')::float8 - (idx->>'Actual Total Time')::float8)::numeric, 2),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY (heap->>'Actual Rows')::bigint + coalesce((heap->>'Rows Removed by Index Recheck')::bigint, 0)),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY (heap->>'Shared Hit Blocks')::bigint + (heap->>'Shared Read Blocks')::bigint),
       percentile_disc(0.5) WITHIN GROUP (ORDER BY (heap->>'Shared Read Blocks')::bigint)
  FROM plans;
SQL
    )
    # Dedup inserts.
    q -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON docs
          FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'skip')"
    printf '%s\n' "\\set a random(1, $npool)" "INSERT INTO docs(body) SELECT body FROM pool WHERE pid = :a;" >"$tmp/fresh.sql"
    printf '%s\n' "\\set a random(1, $n)" \
        "INSERT INTO docs(body) SELECT regexp_replace(body, '^[^。！？]*[。！？]', '') FROM docs WHERE id = :a;" >"$tmp/repost.sql"
    before=$(q -c "SELECT count(*) FROM docs")
    fresh_tps[$n]=0 repost_tps[$n]=0
    for r in $(seq 1 "$ROUNDS"); do
        for w in fresh repost; do
            pgbench -n -c "$CLIENTS" -j 2 -T "$DURATION" --random-seed="$r" -f "$tmp/$w.sql" >"$tmp/out" 2>&1
            rate=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$tmp/out")
            if [ $w = fresh ]; then fresh_tps[$n]=$(echo "${fresh_tps[$n]} + ${rate:-0}" | bc)
            else repost_tps[$n]=$(echo "${repost_tps[$n]} + ${rate:-0}" | bc); fi
        done
    done
    fresh_tps[$n]=$(echo "scale=1; ${fresh_tps[$n]} / $ROUNDS" | bc)
    repost_tps[$n]=$(echo "scale=1; ${repost_tps[$n]} / $ROUNDS" | bc)
    row "  rows inserted by the fresh workload at $n (the reposts: skipped)" "$(( $(q -c "SELECT count(*) FROM docs") - before ))" - -
    [ -z "$first" ] && first=$n
    row "lookup_p50_ms at $n / at $first articles" "${p50[$n]}" "${p50[$first]}" "$(ratio "${p50[$n]}" "${p50[$first]}")"
    row "lookup_p90_ms at $n / at $first articles" "${p90[$n]}" "${p90[$first]}" "$(ratio "${p90[$n]}" "${p90[$first]}")"
    row "  lookup p50: index scan ms at $n / at $first" "${idx_ms[$n]}" "${idx_ms[$first]}" "$(ratio "${idx_ms[$n]}" "${idx_ms[$first]}")"
    row "  lookup p50: recheck ms (heap, measures) at $n / at $first" "${heap_ms[$n]}" "${heap_ms[$first]}" "$(ratio "${heap_ms[$n]}" "${heap_ms[$first]}")"
    row "  lookup p50: candidates rechecked at $n / at $first" "${cands[$n]}" "${cands[$first]}" "$(ratio "${cands[$n]}" "${cands[$first]}")"
    row "  lookup p50: buffers touched at $n / at $first (of them read: ${reads[$n]} / ${reads[$first]})" "${bufs[$n]}" "${bufs[$first]}" "$(ratio "${bufs[$n]}" "${bufs[$first]}")"
    row "dedup_fresh_inserts_per_s at $n / at $first rows ($CLIENTS clients)" "${fresh_tps[$n]}" "${fresh_tps[$first]}" "$(ratio "${fresh_tps[$n]}" "${fresh_tps[$first]}")"
    row "dedup_repost_inserts_per_s at $n / at $first rows (skipped)" "${repost_tps[$n]}" "${repost_tps[$first]}" "$(ratio "${repost_tps[$n]}" "${repost_tps[$first]}")"
done
exit $status
