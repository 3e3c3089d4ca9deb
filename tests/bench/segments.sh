#!/usr/bin/env bash
# Segment fingerprints (issue 19's cost targets), each figure next to its baseline from the
# same run:
# - simhash_segments throughput against simhash() (CPU seconds of the backend, best of 3);
# - storage of the segments column and its GIN index against the bytes of the texts, and
#   the same segments in a side table (segment, id) with a btree, the alternative design;
# - storage of pg_trgm's GIN index (gin_trgm_ops) on the same paragraphs, the peer's;
# - a lookup (simhash_similar for an article with one sentence dropped, resemblance 0.7)
#   against the scan that computes the resemblance of every row, p50 over the queries; then
#   the same lookup again against definition 2's segments (2.x's, resemblance 0.5) in a
#   second column, in alternating order;
# - inserts into a table with the segments trigger and GIN index against plain inserts.
# Articles are SEG_BENCH_ROWS (default 100,000) texts of four People's Daily paragraphs each,
# drawn in a different order per copy, each sentence marked with a word of its article's own,
# so that articles share no segment, as distinct texts do not.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
corpus=$root/target/corpus/peoples_daily_199801.txt
rows=${SEG_BENCH_ROWS:-100000}
queries=${SEG_BENCH_QUERIES:-50}
install_extension
own_cluster segbench "shared_buffers = 1GB" "maintenance_work_mem = 512MB"
cpu_sql="(split_part(pg_read_file('/proc/self/schedstat'), ' ', 1)::float8 / 1e9)"

in_cluster segbench psql -At -v rows="$rows" -v queries="$queries" <<SQL
\\set ON_ERROR_STOP on
CREATE EXTENSION simhash;
CREATE TABLE lines(body text);
\\copy lines FROM '$corpus' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')
CREATE TABLE paras AS SELECT row_number() OVER () - 1 AS i, body FROM lines WHERE char_length(body) >= 100;
SELECT count(*) AS n FROM paras \\gset
-- Throughput, best of 3, interleaved.
CREATE TEMP TABLE runs(what text, s float8);
DO \$\$ DECLARE t0 float8; BEGIN
  PERFORM sum(simhash(body)) FROM paras;
  FOR i IN 1..3 LOOP
    t0 := $cpu_sql; PERFORM sum(simhash(body)) FROM paras; INSERT INTO runs VALUES ('simhash', $cpu_sql - t0);
    t0 := $cpu_sql; PERFORM sum(cardinality(simhash_segments(body))) FROM paras;
    INSERT INTO runs VALUES ('segments', $cpu_sql - t0);
  END LOOP; END \$\$;
SELECT format('segments_throughput_MBps %s %s %s', round((mb / s.s)::numeric, 1), round((mb / b.s)::numeric, 1), round((b.s / s.s)::numeric, 2))
  FROM (SELECT sum(octet_length(body)) / 1e6::float8 AS mb FROM paras) m,
       (SELECT min(s) AS s FROM runs WHERE what = 'segments') s, (SELECT min(s) AS s FROM runs WHERE what = 'simhash') b;
-- Storage of distinct texts: the corpus paragraphs themselves.
CALL simhash_create_segments('paras', 'body');
VACUUM ANALYZE paras;
SELECT format('paragraph_storage_bytes %s %s %s', c + i, t, round((c + i)::numeric / t, 3))
  FROM (SELECT sum(pg_column_size(body_segments)) AS c, sum(octet_length(body)) AS t FROM paras) x,
       (SELECT pg_relation_size('paras_body_segments_idx') AS i) y;
CREATE EXTENSION pg_trgm;
CREATE INDEX paras_trgm ON paras USING gin (body gin_trgm_ops);
SELECT format('pg_trgm_paragraph_index_bytes %s %s %s', i, t, round(i::numeric / t, 3))
  FROM (SELECT sum(octet_length(body)) AS t FROM paras) x, (SELECT pg_relation_size('paras_trgm') AS i) y;
-- Articles.
CREATE TABLE docs(id bigint PRIMARY KEY, body text);
-- Each sentence gets a word of its article's own (w<hex id>), so that no two articles share
-- a segment, as distinct texts would not: a lookup then meets its original, not the other
-- articles that reuse a paragraph.
INSERT INTO docs
SELECT g, regexp_replace((SELECT string_agg(p.body, E'\n' ORDER BY k) FROM generate_series(0, 3) k
                          JOIN paras p ON p.i = (g + k * (1 + g / :n * 7919)) % :n),
                         '。', ' w' || to_hex(g) || '。', 'g')
FROM generate_series(0, :rows - 1) g;
\\timing on
CALL simhash_create_segments('docs', 'body', batch_pages => 100000);
\\timing off
VACUUM ANALYZE docs;
SELECT format('segments_storage_bytes %s %s %s', c + i, t, round((c + i)::numeric / t, 3))
  FROM (SELECT sum(pg_column_size(body_segments)) AS c, sum(octet_length(body)) AS t FROM docs) x,
       (SELECT pg_relation_size('docs_body_segments_idx') AS i) y;
CREATE TABLE side AS SELECT s AS segment, id FROM docs, unnest(body_segments) s;
CREATE INDEX ON side (segment);
VACUUM ANALYZE side;
SELECT format('side_table_storage_bytes %s %s %s', pg_total_relation_size('side'),
              c + pg_relation_size('docs_body_segments_idx'),
              round(pg_total_relation_size('side')::numeric / (c + pg_relation_size('docs_body_segments_idx')), 2))
  FROM (SELECT sum(pg_column_size(body_segments)) AS c FROM docs) x;
SELECT format('segments_per_article %s', round(avg(cardinality(body_segments)), 1)) FROM docs;
-- Definition 2's segments (2.x), for the lookups' baseline.
ALTER TABLE docs ADD COLUMN body_segments_v2 bigint[];
UPDATE docs SET body_segments_v2 = simhash_segments(body, '{"definition": "2"}');
CREATE INDEX docs_v2_idx ON docs USING gin (body_segments_v2);
VACUUM ANALYZE docs;
-- Lookups: each query is an article with its first sentence dropped.
CREATE TEMP TABLE q AS
SELECT id, simhash_segments(t) AS segs, simhash_segments(t, '{"definition": "2"}') AS segs2
  FROM (SELECT id, regexp_replace(body, '^[^。]*。', '') AS t FROM docs
         WHERE id % (:rows / :queries) = 0 LIMIT :queries) x;
CREATE TEMP TABLE lat(what text, ms float8, found boolean);
DO \$\$ DECLARE r record; t0 timestamptz; hit boolean; k int; n int := 0; BEGIN
  FOR r IN SELECT * FROM q LOOP
    t0 := clock_timestamp();
    SELECT bool_or(d.id = r.id) INTO hit FROM simhash_similar('docs', 'body_segments', r.segs, 0.7) s
      JOIN docs d ON d.ctid = s.row_ctid;
    INSERT INTO lat VALUES ('index', extract(epoch FROM clock_timestamp() - t0) * 1000, coalesce(hit, false));
    -- Then again, definition 3 and definition 2 (2.x's segments and advice), in alternating
    -- order: both meet warm pages.
    n := n + 1;
    FOREACH k IN ARRAY CASE WHEN n % 2 = 0 THEN ARRAY[3, 2] ELSE ARRAY[2, 3] END LOOP
      t0 := clock_timestamp();
      IF k = 3 THEN
        SELECT bool_or(d.id = r.id) INTO hit FROM simhash_similar('docs', 'body_segments', r.segs, 0.7) s
          JOIN docs d ON d.ctid = s.row_ctid;
      ELSE
        SELECT bool_or(d.id = r.id) INTO hit FROM simhash_similar('docs', 'body_segments_v2', r.segs2, 0.5) s
          JOIN docs d ON d.ctid = s.row_ctid;
      END IF;
      INSERT INTO lat VALUES ('again' || k, extract(epoch FROM clock_timestamp() - t0) * 1000, coalesce(hit, false));
    END LOOP;
    t0 := clock_timestamp();
    SELECT bool_or(d.id = r.id) INTO hit FROM docs d WHERE simhash_resemblance(r.segs, d.body_segments) >= 0.7;
    INSERT INTO lat VALUES ('scan', extract(epoch FROM clock_timestamp() - t0) * 1000, coalesce(hit, false));
  END LOOP; END \$\$;
SELECT format('lookup_p50_ms %s %s %s', round(i::numeric, 2), round(s::numeric, 2), round((s / i)::numeric, 1))
  FROM (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS i FROM lat WHERE what = 'index') a,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS s FROM lat WHERE what = 'scan') b;
SELECT format('lookup_found_original %s of %s', count(*) FILTER (WHERE found), count(*)) FROM lat WHERE what = 'index';
-- The same lookups against definition 2's segments (2.x).
SELECT format('lookup_vs_definition_2_p50_ms %s %s %s', round(w::numeric, 2), round(i::numeric, 2), round((w / i)::numeric, 2))
  FROM (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS i FROM lat WHERE what = 'again2') a,
       (SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY ms) AS w FROM lat WHERE what = 'again3') b;
SELECT format('lookup_found_original_definition_2 %s of %s', count(*) FILTER (WHERE found), count(*)) FROM lat WHERE what = 'again2';
-- Inserts, one client: 20,000 articles into a table with the segments trigger and GIN
-- index, into one with a fingerprint kept by simhash_update_trigger, and into a plain one,
-- interleaved twice.
CREATE TABLE ins_plain(id bigint, body text);
CREATE TABLE ins_fp(id bigint, body text, fp bigint);
CREATE TRIGGER fp BEFORE INSERT ON ins_fp FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');
CREATE TABLE ins_seg(id bigint, body text);
CALL simhash_create_segments('ins_seg', 'body');
CREATE TEMP TABLE ins(what text, s float8);
DO \$\$ DECLARE t0 timestamptz; BEGIN
  FOR i IN 1..2 LOOP
    TRUNCATE ins_plain, ins_fp, ins_seg;
    t0 := clock_timestamp(); INSERT INTO ins_plain SELECT id, body FROM docs WHERE id < 20000;
    INSERT INTO ins VALUES ('plain', extract(epoch FROM clock_timestamp() - t0));
    t0 := clock_timestamp(); INSERT INTO ins_fp SELECT id, body FROM docs WHERE id < 20000;
    INSERT INTO ins VALUES ('fp', extract(epoch FROM clock_timestamp() - t0));
    t0 := clock_timestamp(); INSERT INTO ins_seg SELECT id, body FROM docs WHERE id < 20000;
    INSERT INTO ins VALUES ('segments', extract(epoch FROM clock_timestamp() - t0));
  END LOOP; END \$\$;
SELECT format('insert_rows_per_s %s %s %s', round((20000 / s)::numeric), round((20000 / p)::numeric), round((p / s)::numeric, 2))
  FROM (SELECT min(s) AS s FROM ins WHERE what = 'segments') a, (SELECT min(s) AS p FROM ins WHERE what = 'plain') b;
SELECT format('insert_vs_fingerprint_trigger %s %s %s', round((20000 / s)::numeric), round((20000 / p)::numeric), round((p / s)::numeric, 2))
  FROM (SELECT min(s) AS s FROM ins WHERE what = 'segments') a, (SELECT min(s) AS p FROM ins WHERE what = 'fp') b;
SQL
