#!/usr/bin/env bash
# Exact similarity's costs (issue 34, "Cost"), each figure next to its baseline from the same
# run, on texts an order-3 character Markov chain trained on People's Daily writes
# (crates/simhash-core/examples/markov_corpus.rs: distinct texts that share n-grams at the
# corpus's rates, as a million distinct articles would, where copies of corpus paragraphs
# would make every paragraph a passage of hundreds of rows):
#   - key extraction throughput: simhash_keys() against simhash(), CPU seconds of the backend,
#     best of 3, on the corpus paragraphs of 100+ characters;
#   - index size against the text, and pg_trgm's GIN index (gin_trgm_ops) on the same texts:
#     SIZE_ROWS (default 100,000) texts of 60-200, 200-500 and 800-2,000 characters, and
#     English paragraphs of 200-500 (a chain trained on the English corpus);
#   - lookup p50: LOOKUP_ROWS (default 1,000,000) articles of 800-2,000 characters, 20
#     queries each an article of the table with its first sentence dropped, by
#     `simhash_similarity(body, q) >= 0.5` through a simhash_ops index against pg_trgm's
#     `body % q` through its GIN index at pg_trgm.similarity_threshold = 0.5, alternated, each
#     query run twice and the second timed; both find the query's original.
# PARTS (default "throughput size lookup") names the parts to run.
# Prints "name  value  baseline  ratio" lines.
#   SIZE_ROWS=100000 LOOKUP_ROWS=1000000 bash tests/bench/similarity.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
SIZE_ROWS=${SIZE_ROWS:-100000}
LOOKUP_ROWS=${LOOKUP_ROWS:-1000000}
QUERIES=${QUERIES:-20}
PARTS=${PARTS:-throughput size lookup}
part() { [[ " $PARTS " == *" $1 "* ]]; }
corpus=$root/target/corpus/peoples_daily_199801.txt
install_extension
own_cluster simbench "shared_buffers = 2GB" "maintenance_work_mem = 1GB" "max_wal_size = 16GB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0" "work_mem = 64MB"
q -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_trgm"
cpu_sql="(split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::float8 / 1e9)"
row_width=44
row name value baseline ratio

# --- Throughput --------------------------------------------------------------------------
if part throughput; then
q -c "CREATE TABLE lines(body text)" \
  -c "\\copy lines FROM '$corpus' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
  -c "CREATE TABLE paras AS SELECT body FROM lines WHERE char_length(body) >= 100"
q <<SQL
CREATE TEMP TABLE runs(what text, s float8);
DO \$\$ DECLARE t0 float8; BEGIN
  PERFORM sum(simhash(body)), sum(cardinality(simhash_keys(body))) FROM paras;
  FOR i IN 1..3 LOOP
    t0 := $cpu_sql; PERFORM sum(simhash(body)) FROM paras; INSERT INTO runs VALUES ('simhash', $cpu_sql - t0);
    t0 := $cpu_sql; PERFORM sum(cardinality(simhash_keys(body))) FROM paras; INSERT INTO runs VALUES ('keys', $cpu_sql - t0);
  END LOOP; END \$\$;
SELECT format('%-44s %14s %14s %10s', 'key_extraction_MBps_vs_simhash', round((mb / k.s)::numeric, 1),
              round((mb / b.s)::numeric, 1), round((b.s / k.s)::numeric, 2))
  FROM (SELECT sum(octet_length(body)) / 1e6::float8 AS mb FROM paras) m,
       (SELECT min(s) AS s FROM runs WHERE what = 'keys') k, (SELECT min(s) AS s FROM runs WHERE what = 'simhash') b;
SQL
fi

# --- Index size ----------------------------------------------------------------------------
part size && for set in "zh_short $corpus 60 200" "zh_paragraphs $corpus 200 500" "zh_articles $corpus 800 2000" \
           "en_paragraphs $root/target/corpus/english.txt 200 500 order=4"; do
    read -r name src lo hi order <<<"$set"
    f=$(markov "${name}_$SIZE_ROWS" "$src" "$SIZE_ROWS" "$lo" "$hi" ${order:-})
    q -c "CREATE TABLE s_$name(id serial PRIMARY KEY, body text)" \
      -c "\\copy s_$name(body) FROM '$f' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
      -c "CREATE INDEX s_${name}_sim ON s_$name USING gin (body simhash_ops)" \
      -c "CREATE INDEX s_${name}_trgm ON s_$name USING gin (body gin_trgm_ops)"
    q -c "SELECT format('%-44s %14s %14s %10s', 'index_bytes_vs_text_$name', i, t, round(i::numeric / t, 3)),
                 format('%-44s %14s %14s %10s', 'pg_trgm_index_bytes_vs_text_$name', g, t, round(g::numeric / t, 3))
            FROM (SELECT sum(octet_length(body)) AS t FROM s_$name) x,
                 (SELECT pg_relation_size('s_${name}_sim') AS i, pg_relation_size('s_${name}_trgm') AS g) y" |
        tr '|' '\n'
    q -c "DROP TABLE s_$name"
done

# --- Lookups at LOOKUP_ROWS articles ----------------------------------------------------------
if part lookup; then
f=$(markov "zh_articles_$LOOKUP_ROWS" "$corpus" "$LOOKUP_ROWS" 800 2000)
q -c "CREATE TABLE docs(id serial PRIMARY KEY, body text)" \
  -c "\\copy docs(body) FROM '$f' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')"
t0=$(now); q -c "CREATE INDEX docs_sim ON docs USING gin (body simhash_ops)"; t_sim=$(since "$t0")
t0=$(now); q -c "CREATE INDEX docs_trgm ON docs USING gin (body gin_trgm_ops)"; t_trgm=$(since "$t0")
q -c "VACUUM ANALYZE docs"
row "lookup_rows" "$LOOKUP_ROWS" - -
row "index_build_s_vs_pg_trgm" "$(printf %.0f "$t_sim")" "$(printf %.0f "$t_trgm")" "$(ratio "$t_sim" "$t_trgm")"
q -c "SELECT format('%-44s %14s %14s %10s', 'lookup_index_bytes_vs_pg_trgm', pg_relation_size('docs_sim'),
                    pg_relation_size('docs_trgm'), round(pg_relation_size('docs_sim')::numeric / pg_relation_size('docs_trgm'), 3))"
q <<SQL
SET pg_trgm.similarity_threshold = 0.5;
CREATE TEMP TABLE queries AS
SELECT row_number() OVER () AS qid, id AS original, regexp_replace(body, '^[^。！？]*[。！？]', '') AS q
  FROM docs WHERE id % ($LOOKUP_ROWS / $QUERIES) = 7 LIMIT $QUERIES;
CREATE TEMP TABLE times(what text, qid bigint, ms float8, found boolean);
DO \$\$ DECLARE r record; which text; t0 timestamptz; n bigint; ok boolean; BEGIN
  FOR r IN SELECT * FROM queries ORDER BY qid LOOP
    FOR pass IN 1..2 LOOP
      -- Alternated: the order of the two systems flips with each query.
      FOR which IN SELECT unnest(CASE WHEN r.qid % 2 = 0 THEN ARRAY['simhash', 'pg_trgm'] ELSE ARRAY['pg_trgm', 'simhash'] END) LOOP
        t0 := clock_timestamp();
        IF which = 'simhash' THEN
          SELECT count(*), bool_or(id = r.original) INTO n, ok FROM docs WHERE simhash_similarity(body, r.q) >= 0.5;
        ELSE
          SELECT count(*), bool_or(id = r.original) INTO n, ok FROM docs WHERE body % r.q;
        END IF;
        IF pass = 2 THEN
          INSERT INTO times VALUES (which, r.qid, extract(epoch FROM clock_timestamp() - t0) * 1000, ok);
        END IF;
      END LOOP;
    END LOOP;
  END LOOP; END \$\$;
SELECT format('%-44s %14s %14s %10s', 'lookup_p50_ms_vs_pg_trgm_' || $LOOKUP_ROWS, round(s::numeric, 2), round(g::numeric, 1),
              round((g / s)::numeric, 1) || 'x')
  FROM (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS s FROM times WHERE what = 'simhash') a,
       (SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY ms) AS g FROM times WHERE what = 'pg_trgm') b;
SELECT format('%-44s %14s %14s %10s', 'lookups_finding_the_original', count(*) FILTER (WHERE found AND what = 'simhash'),
              count(*) FILTER (WHERE found AND what = 'pg_trgm'), count(*) / 2) FROM times;
SQL
fi
bash "$h/cluster.sh" stop simbench
