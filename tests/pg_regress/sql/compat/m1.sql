-- Measure 1 (simhash 4.x's: every digit read as 0) stays reachable under the names ending in
-- _m1 (sql/compat/m1.sql), with 4.0.0's values: the same inputs as 4.0.0's similarity,
-- similarity_pairs and similarity_shard tests give, through the _m1 objects, the outputs of
-- their 4.0.0 expected files (git show cbefacb:tests/pg_regress/expected/similarity.out).
-- Each measure's index answers its own predicates only. (4.0.0's explain rows are in
-- similarity.sql, section 7, beside measure 2's.)
CREATE EXTENSION IF NOT EXISTS simhash;

-- 1. 4.0.0's golden values and index keys.
SELECT simhash_similarity_m1('中共中央总书记、国家主席江泽民发表新年讲话', '中共中央总书记江泽民发表了新年讲话') AS similarity,
       simhash_containment_m1('江泽民发表新年讲话', '中共中央总书记、国家主席江泽民发表新年讲话') AS contained,
       simhash_containment_m1('中共中央总书记、国家主席江泽民发表新年讲话', '江泽民发表新年讲话') AS containing,
       simhash_similarity_m1('Changed in version 3.6: Accepts a path-like object.',
                             'Changed in version 3.8: Accepts a path-like object and a bytes object on Windows.') AS english,
       simhash_similarity_m1('中共中央總書記、國家主席江澤民發表新年講話', '中共中央总书记、国家主席江泽民发表新年讲话') AS traditional,
       simhash_similarity_m1('ＡＢＣ　ＤＥＦ，１９９８年', 'abc def, 2024年') AS folded;
SELECT simhash_keys_m1('中共中央总书记、国家主席江泽民发表新年讲话') AS keys,
       simhash_keys_m1('The quick brown fox jumps over the lazy dog.') AS english_keys;
SELECT simhash_similarity_m1('', '') AS empty, simhash_similarity_m1('，。！', 'abc') AS punctuation,
       simhash_containment_m1('', 'abc') AS empty_in, simhash_containment_m1('abc', '') AS in_empty,
       simhash_similarity_m1('ab', 'ab') AS short_same, simhash_similarity_m1(NULL, 'a') IS NULL AS null_in,
       simhash_keys_m1('') AS no_keys;
SELECT pg_typeof(simhash_similarity_m1('a', 'b')) AS type,
       round(simhash_similarity_m1('abcdefgh', 'abcdefgx')::numeric, 4) AS rounded,
       simhash_similarity_m1('abcdefgh', 'abcdefgx') >= 0.4 AS ge, 0.4 < simhash_similarity_m1('abcdefgh', 'abcdefgx') AS lt;
SELECT regress_try($$SELECT simhash_similarity_at_least_m1('a', 'b', 1.5)$$);
SELECT regress_try($$SELECT simhash_query_m1('a', 'similar', 0.5)$$);
SELECT simhash_query_m1('a', 'row_in_query', 0.5) AS q, pg_typeof(simhash_query_m1('a', 'row_in_query', 0.5)) AS type;

-- 2. A simhash_ops_m1 index against the scan, as 4.0.0's similarity.sql section 4 ran it
-- (the same rows, queries and thresholds): the same counts, the same misses.
CREATE TABLE sim1_docs AS SELECT id, body FROM corpus WHERE id % 12 = 0;
INSERT INTO sim1_docs
SELECT 100000 + id, regexp_replace(body, '([^。]*。)', '', '') FROM corpus WHERE id % 600 = 0 AND body LIKE '%。%。%'
UNION ALL SELECT 200000 + id, overlay(body placing '某' from 5 for 1) FROM corpus WHERE id % 600 = 0 AND length(body) > 20
UNION ALL SELECT 300000 + id, '（新华社北京１月１日电）' || body FROM corpus WHERE id % 600 = 300;
CREATE INDEX sim1_docs_m1 ON sim1_docs USING gin (body simhash_ops_m1);
ANALYZE sim1_docs;
CREATE TEMP TABLE sim1_queries AS
SELECT id AS qid, body AS q FROM corpus WHERE id % 1200 IN (0, 300) OR id % 3989 = 1;
CREATE TEMP VIEW sim1_matches AS
SELECT 'similarity ' || t AS kind, s.qid, d.id, simhash_similarity_m1(s.q, d.body)::float8 AS value, length(d.body) AS inner_length
  FROM unnest(ARRAY[0.2, 0.5, 0.8]) t CROSS JOIN sim1_queries s JOIN sim1_docs d ON simhash_similarity_m1(d.body, s.q) >= t
UNION ALL
SELECT 'query in row ' || t, s.qid, d.id, simhash_containment_m1(s.q, d.body)::float8, length(s.q)
  FROM unnest(ARRAY[0.4, 0.8]) t CROSS JOIN sim1_queries s JOIN sim1_docs d ON simhash_containment_m1(s.q, d.body) >= t
UNION ALL
SELECT 'row in query ' || t, s.qid, d.id, simhash_containment_m1(d.body, s.q)::float8, length(d.body)
  FROM unnest(ARRAY[0.4, 0.8]) t CROSS JOIN sim1_queries s JOIN sim1_docs d ON simhash_containment_m1(d.body, s.q) >= t;
SET enable_seqscan = off;
SELECT count(*) AS index_lookups FROM regress_plan('SELECT * FROM sim1_matches') p
 WHERE p LIKE '%Bitmap Index Scan on sim1_docs_m1%';
CREATE TEMP TABLE by_index AS SELECT * FROM sim1_matches;
RESET enable_seqscan;
SET enable_bitmapscan = off;
CREATE TEMP TABLE by_scan AS SELECT * FROM sim1_matches;
RESET enable_bitmapscan;
SELECT s.kind, count(*) AS pairs, count(*) - count(i.id) AS missed,
       count(*) FILTER (WHERE i.id IS NULL AND s.inner_length >= 50) AS missed_50_chars
  FROM by_scan s LEFT JOIN by_index i USING (kind, qid, id, value) GROUP BY s.kind ORDER BY s.kind;
SELECT count(*) AS only_index FROM (TABLE by_index EXCEPT ALL TABLE by_scan) x;
SELECT count(*) AS direct FROM sim1_docs WHERE body @% simhash_query_m1('国家主席江泽民发表新年讲话', 'similarity', 0.3);

-- 3. Each measure's predicates are answered from its own index only, even with sequential
-- scans off: simhash_ops_m1 for measure 1's, and not for measure 2's (a scan filters them)...
SET enable_seqscan = off;
SELECT regress_plan($$SELECT id FROM sim1_docs WHERE simhash_similarity_m1(body, '国家主席江泽民发表新年讲话') >= 0.6$$) AS "QUERY PLAN";
SELECT regress_plan($$SELECT id FROM sim1_docs WHERE simhash_containment_m1(body, '国家主席江泽民发表新年讲话') > 0.8$$) AS "QUERY PLAN";
SELECT regress_plan($$SELECT id FROM sim1_docs WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话') >= 0.6$$) AS "QUERY PLAN";
-- ... and simhash_ops for measure 2's, and not for measure 1's: with both indexes each
-- predicate reads its own; with simhash_ops alone, measure 1's is a scan's filter.
CREATE INDEX sim1_docs_m2 ON sim1_docs USING gin (body simhash_ops);
SELECT regress_plan($$SELECT id FROM sim1_docs WHERE simhash_similarity_m1(body, '国家主席江泽民发表新年讲话') >= 0.6$$) AS "QUERY PLAN";
SELECT regress_plan($$SELECT id FROM sim1_docs WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话') >= 0.6$$) AS "QUERY PLAN";
DROP INDEX sim1_docs_m1;
SELECT regress_plan($$SELECT id FROM sim1_docs WHERE simhash_similarity_m1(body, '国家主席江泽民发表新年讲话') >= 0.6$$) AS "QUERY PLAN";
SELECT regress_plan($$SELECT id FROM sim1_docs WHERE body @% simhash_query('国家主席江泽民发表新年讲话', 'similarity', 0.6)$$) AS "QUERY PLAN";
RESET enable_seqscan;
DROP VIEW sim1_matches;
DROP TABLE sim1_docs;

-- 4. Bulk pairs and clusters against brute force, on 4.0.0's similarity_pairs rows: 4.0.0's
-- counts (1626, 229, 147, 91 pairs; 215 rows in clusters), every pair with its similarity.
CREATE TABLE sp1_docs AS SELECT id::bigint, body FROM corpus WHERE id % 32 = 0;
INSERT INTO sp1_docs
SELECT 100000 + id, regexp_replace(body, '[^。]*。', '') FROM corpus WHERE id % 320 = 0 AND body LIKE '%。%。%'
UNION ALL SELECT 200000 + id, overlay(body placing '某' from 7 for 1) FROM corpus WHERE id % 320 = 0 AND length(body) > 20
UNION ALL SELECT 300000 + id, '（新华社北京１月１日电）' || body FROM corpus WHERE id % 320 = 160
UNION ALL SELECT 400000 + id, '' FROM corpus WHERE id % 4000 = 0;
SET client_min_messages = warning;
CREATE TEMP TABLE sp1_brute AS
SELECT t, id1, id2, s
FROM (SELECT a.id AS id1, b.id AS id2, simhash_similarity_m1(a.body, b.body)::float8 AS s
      FROM sp1_docs a JOIN sp1_docs b ON a.id < b.id) p, unnest(ARRAY[0.05, 0.3, 0.5, 0.8]) t
WHERE s >= t;
CREATE TEMP TABLE sp1_bulk AS
SELECT t, p.* FROM unnest(ARRAY[0.05, 0.3, 0.5, 0.8]) t,
     simhash_similarity_pairs_m1('SELECT id, body FROM sp1_docs', t) p;
SELECT t, count(*) AS pairs FROM sp1_brute GROUP BY t ORDER BY t;
SELECT (SELECT count(*) FROM (SELECT * FROM sp1_bulk EXCEPT ALL SELECT * FROM sp1_brute) x) AS only_bulk,
       (SELECT count(*) FROM (SELECT * FROM sp1_brute EXCEPT ALL SELECT * FROM sp1_bulk) x) AS only_brute;
CREATE TEMP TABLE sp1_clusters AS SELECT * FROM simhash_similarity_clusters_m1('SELECT id, body FROM sp1_docs', 0.5);
SELECT (SELECT count(*) FROM (TABLE sp1_clusters EXCEPT ALL
                              SELECT * FROM simhash_components('SELECT id1, id2 FROM sp1_brute WHERE t = 0.5')) x) AS only_clusters,
       (SELECT count(*) FROM (SELECT * FROM simhash_components('SELECT id1, id2 FROM sp1_brute WHERE t = 0.5')
                              EXCEPT ALL TABLE sp1_clusters) x) AS only_components,
       (SELECT count(*) FROM sp1_clusters) AS rows_in_clusters;
RESET client_min_messages;
DROP TABLE sp1_docs;

-- 5. Where a text's copies go under measure 1 (4.0.0's similarity_shard golden values), and
-- one shard's pairs over 3 shards: together one node's, each once (4.0.0: 298 pairs).
SELECT simhash_similarity_owners_m1('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府。', 16) AS owners,
       simhash_similarity_owners_m1('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府。', 16)
       = ARRAY(SELECT DISTINCT simhash_similarity_key_owner(k, 16)
                 FROM unnest(simhash_keys_m1('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府。')) k
                ORDER BY 1) AS owners_are_the_keys_owners;
SELECT simhash_similarity_owners_m1('国家主席江泽民发表新年讲话', 5) AS short, simhash_similarity_owners_m1('，。', 2) AS empty,
       simhash_similarity_owners_m1(NULL, 3) AS null_text;
CREATE TABLE sim1_shard_texts AS
SELECT g::bigint AS id, CASE WHEN g % 3 = 0 THEN b || '又一次' ELSE b END AS body
  FROM (SELECT g, repeat(md5((g / 3)::text), 3) AS b FROM generate_series(1, 300) g) x;
SET client_min_messages = warning;
CREATE TEMP TABLE sim1_shard_got AS
SELECT s, p.* FROM generate_series(0, 2) s,
     simhash_similarity_owned_pairs_m1(format('SELECT id, body FROM sim1_shard_texts WHERE %s = ANY (simhash_similarity_owners_m1(body, 3))', s), 0.5, s, 3) p;
CREATE TEMP TABLE sim1_one_node AS SELECT * FROM simhash_similarity_pairs_m1('SELECT id, body FROM sim1_shard_texts', 0.5);
RESET client_min_messages;
SELECT count(*) AS pairs, count(DISTINCT (id1, id2)) AS distinct_pairs, (SELECT count(*) FROM sim1_one_node) AS one_node,
       (SELECT count(*) FROM ((SELECT id1, id2, similarity FROM sim1_shard_got EXCEPT ALL TABLE sim1_one_node)
                              UNION ALL (TABLE sim1_one_node EXCEPT ALL SELECT id1, id2, similarity FROM sim1_shard_got)) x) AS differ
  FROM sim1_shard_got;
DROP TABLE sim1_shard_texts;

-- 6. The dedup trigger of measure 1 took two invoices that differ only in their figures for
-- one (similarity 1), and rejects the second; measure 2's takes both. Each finds its
-- candidates through its own measure's index.
\set inv1 'Invoice 1041: 12 units of item 305 at 19.90 EUR, total 238.80 EUR, due 2024-03-01'
\set inv2 'Invoice 7782: 5 units of item 118 at 240.00 EUR, total 1,200.00 EUR, due 2025-11-30'
SELECT simhash_similarity_m1(:'inv1', :'inv2') AS m1, round(simhash_similarity(:'inv1', :'inv2')::numeric, 3) AS m2;
CREATE TABLE inv_m1(id int PRIMARY KEY, body text);
CREATE INDEX ON inv_m1 USING gin (body simhash_ops_m1);
CREATE TRIGGER dedup BEFORE INSERT ON inv_m1
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger_m1('body', '0.7', 'reject');
CREATE TABLE inv_m2(id int PRIMARY KEY, body text);
CREATE INDEX ON inv_m2 USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT ON inv_m2
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'reject');
INSERT INTO inv_m1 VALUES (1, :'inv1');
INSERT INTO inv_m2 VALUES (1, :'inv1');
SELECT regress_try(format('INSERT INTO inv_m1 VALUES (2, %L)', :'inv2')) AS measure_1,
       regress_try(format('INSERT INTO inv_m2 VALUES (2, %L)', :'inv2')) AS measure_2;
SELECT (SELECT count(*) FROM inv_m1) AS rows_m1, (SELECT count(*) FROM inv_m2) AS rows_m2;
-- The check queries name their own measure's functions and index; measure 1's trigger on
-- a table with only a simhash_ops index has none to read.
SELECT simhash_similarity_dedup_query_m1('inv_m1', 'body', '0.7', 'reject') AS m1_query;
SELECT substring(simhash_similarity_dedup_query_m1('inv_m2', 'body', '0.7', 'reject') FROM '/\*.*') AS m1_on_simhash_ops,
       substring(simhash_similarity_dedup_query('inv_m1', 'body', '0.7', 'reject') FROM '/\*.*') AS m2_on_simhash_ops_m1;
DROP TABLE inv_m1, inv_m2;
