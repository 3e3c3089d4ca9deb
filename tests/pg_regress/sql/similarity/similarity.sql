-- Exact text similarity (issue 34; docs/similarity.md): the measures, the simhash_ops GIN
-- index and the planner's use of it.
CREATE EXTENSION IF NOT EXISTS simhash;

-- 1. Golden values: a change here is a change of the measure's contract (measure 2: digits
-- as written, the shingles' Jaccard index times the figures' agreement). The English pair
-- differs in its one figure (3.6, 3.8): (0 + 1) / (1 + 1), half its shingles' Jaccard index,
-- and half the share for containment; a text without figures keeps the share. Full-width
-- letters and digits fold to ASCII (NFKC) and case to lower: the same year is the same text;
-- another year shares 2 of 12 shingles and no figure, 1/6 * 1/2. Measure 1 read every digit
-- as 0, so the other year scored 1 there (folded_m1; similarity_m1.sql has 4.0.0's values).
SELECT simhash_similarity('中共中央总书记、国家主席江泽民发表新年讲话', '中共中央总书记江泽民发表了新年讲话') AS similarity,
       simhash_containment('江泽民发表新年讲话', '中共中央总书记、国家主席江泽民发表新年讲话') AS contained,
       simhash_containment('中共中央总书记、国家主席江泽民发表新年讲话', '江泽民发表新年讲话') AS containing,
       simhash_similarity('Changed in version 3.6: Accepts a path-like object.',
                          'Changed in version 3.8: Accepts a path-like object and a bytes object on Windows.') AS english,
       simhash_similarity('中共中央總書記、國家主席江澤民發表新年講話', '中共中央总书记、国家主席江泽民发表新年讲话') AS traditional;
SELECT simhash_similarity('ＡＢＣ　ＤＥＦ，１９９８年', 'abc def, 1998年') AS folded,
       simhash_similarity('ＡＢＣ　ＤＥＦ，１９９８年', 'abc def, 2024年') AS other_year,
       simhash_similarity_m1('ＡＢＣ　ＤＥＦ，１９９８年', 'abc def, 2024年') AS folded_m1,
       simhash_containment('Changed in version 3.6: Accepts a path-like object.',
                           'Changed in version 3.8: Accepts a path-like object and a bytes object on Windows.') AS english_in,
       simhash_containment('Accepts a path-like object.', 'Changed in version 3.6: Accepts a path-like object.') AS no_figure_in;
-- The index keys: a change here asks every simhash_ops index for a REINDEX.
SELECT simhash_keys('中共中央总书记、国家主席江泽民发表新年讲话') AS keys,
       simhash_keys('The quick brown fox jumps over the lazy dog.') AS english_keys;

-- 2. Texts without a letter or digit have no shingle: 0 with anything, NULL in, NULL out.
SELECT simhash_similarity('', '') AS empty, simhash_similarity('，。！', 'abc') AS punctuation,
       simhash_containment('', 'abc') AS empty_in, simhash_containment('abc', '') AS in_empty,
       simhash_similarity('ab', 'ab') AS short_same, simhash_similarity(NULL, 'a') IS NULL AS null_in,
       simhash_keys('') AS no_keys;
-- Thresholds outside [0, 1] (and NaN) are 22023, wherever they are given.
SELECT regress_try($$SELECT simhash_similarity_at_least('a', 'b', 1.5)$$);
SELECT regress_try($$SELECT simhash_containment('abc', 'abcd') >= -0.1$$);
SELECT regress_try($$SELECT 1.01 <= simhash_similarity('abc', 'abcd')$$);
SELECT regress_try($$SELECT simhash_similarity('abc', 'abcd') > 'NaN'::float8$$);
SELECT regress_try($$SELECT simhash_query('a', 'similar', 0.5)$$);
SELECT regress_try($$SELECT simhash_query('a', 'similarity', 2)$$);
SELECT simhash_query('a', 'row_in_query', 0.5) AS q;

-- 3. The measure's result is the domain simhash_score: float8 to clients and in arithmetic,
-- and every way of comparing it with a threshold is the same as float8's.
SELECT pg_typeof(simhash_similarity('a', 'b')) AS type, pg_typeof(simhash_similarity('abcdef', 'abcdefg') + 1) AS plus,
       round(simhash_similarity('abcdefgh', 'abcdefgx')::numeric, 4) AS rounded;
SELECT s >= 0.4 AS ge_numeric, s >= 0.4::float8 AS ge_float8, s > 0.4 AS gt, 0.4 <= s AS le, 0.4::float8 < s AS lt,
       s BETWEEN 0.4 AND 1 AS between_, s >= 1 AS ge_int, s = s AS eq
FROM (SELECT simhash_similarity('abcdefgh', 'abcdefgx') AS s) x;
PREPARE untyped AS SELECT simhash_similarity('abcdefgh', 'abcdefgx') >= $1 AS ge;
EXECUTE untyped('0.4');
DEALLOCATE untyped;

-- 4. The index against the scan, for similarity, for containment both ways and either way, at
-- thresholds above and below the lowest the keys answer (0.25 and 0.5). A similarity
-- lookup finds exactly what the scan finds; a containment lookup finds every row that shares
-- a run of 48 shingles with the query, and shorter overlaps by chance: here it misses only
-- rows or queries shorter than 50 characters (bylines contained in the queries; a short
-- query asks for every shingle's key, and a long row holding it has only some of them as
-- keys). No lookup returns a row the scan does not, and every value is the measure's.
CREATE TABLE sim_docs AS SELECT id, body FROM corpus WHERE id % 12 = 0;
-- Reposts of 30 of them: a sentence dropped, a character changed, a source line added.
INSERT INTO sim_docs
SELECT 100000 + id, regexp_replace(body, '([^。]*。)', '', '') FROM corpus WHERE id % 600 = 0 AND body LIKE '%。%。%'
UNION ALL SELECT 200000 + id, overlay(body placing '某' from 5 for 1) FROM corpus WHERE id % 600 = 0 AND length(body) > 20
UNION ALL SELECT 300000 + id, '（新华社北京１月１日电）' || body FROM corpus WHERE id % 600 = 300;
CREATE INDEX sim_docs_body ON sim_docs USING gin (body simhash_ops);
ANALYZE sim_docs;
CREATE TEMP TABLE sim_queries AS
SELECT id AS qid, body AS q FROM corpus WHERE id % 1200 IN (0, 300) OR id % 3989 = 1;
-- (t is an outer column: each threshold is its own lookup per query row.)
CREATE TEMP VIEW sim_matches AS
SELECT 'similarity ' || t AS kind, s.qid, d.id, simhash_similarity(s.q, d.body)::float8 AS value, length(d.body) AS inner_length
  FROM unnest(ARRAY[0.2, 0.5, 0.8]) t CROSS JOIN sim_queries s JOIN sim_docs d ON simhash_similarity(d.body, s.q) >= t
UNION ALL
SELECT 'query in row ' || t, s.qid, d.id, simhash_containment(s.q, d.body)::float8, length(s.q)
  FROM unnest(ARRAY[0.4, 0.8]) t CROSS JOIN sim_queries s JOIN sim_docs d ON simhash_containment(s.q, d.body) >= t
UNION ALL
SELECT 'row in query ' || t, s.qid, d.id, simhash_containment(d.body, s.q)::float8, length(d.body)
  FROM unnest(ARRAY[0.4, 0.8]) t CROSS JOIN sim_queries s JOIN sim_docs d ON simhash_containment(d.body, s.q) >= t
UNION ALL
SELECT 'either way ' || t, s.qid, d.id, greatest(simhash_containment(s.q, d.body), simhash_containment(d.body, s.q))::float8,
       least(length(s.q), length(d.body))
  FROM unnest(ARRAY[0.4, 0.8]) t CROSS JOIN sim_queries s JOIN sim_docs d ON d.body @% simhash_query(s.q, 'either_way', t);
SET enable_seqscan = off;
SELECT regress_plan('SELECT * FROM sim_matches') AS "QUERY PLAN";
CREATE TEMP TABLE by_index AS SELECT * FROM sim_matches;
RESET enable_seqscan;
SET enable_bitmapscan = off;
CREATE TEMP TABLE by_scan AS SELECT * FROM sim_matches;
RESET enable_bitmapscan;
SELECT s.kind, count(*) AS pairs, count(*) - count(i.id) AS missed,
       count(*) FILTER (WHERE i.id IS NULL AND s.inner_length >= 50) AS missed_50_chars
  FROM by_scan s LEFT JOIN by_index i USING (kind, qid, id, value) GROUP BY s.kind ORDER BY s.kind;
SELECT count(*) AS only_index FROM (TABLE by_index EXCEPT ALL TABLE by_scan) x;
-- Containment either way in one index scan (the dedup trigger's) finds every row either
-- containment's lookup finds.
SELECT count(*) AS either_way_missed FROM (
  SELECT qid, id, substr(kind, 14) FROM by_index WHERE kind LIKE 'query in row%' OR kind LIKE 'row in query%'
  EXCEPT SELECT qid, id, substr(kind, 12) FROM by_index WHERE kind LIKE 'either way%') x;

-- 5. The plans: the comparison becomes the predicate, and the predicate an index condition,
-- with constants, parameters (generic plans too), the threshold on either side, and joins.
EXPLAIN (COSTS OFF) SELECT id FROM sim_docs WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话') >= 0.6;
EXPLAIN (COSTS OFF) SELECT id FROM sim_docs WHERE 0.6 < simhash_similarity('国家主席江泽民发表新年讲话', body);
-- (A containment query of 48 shingles or more asks for its index keys, a shorter one for
-- the key of every shingle it has (issue 47; 5.x read every row): both from the index.)
EXPLAIN (COSTS OFF) SELECT id FROM sim_docs WHERE simhash_containment('中共中央总书记、国家主席江泽民发表新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！', body) >= 0.8;
EXPLAIN (COSTS OFF) SELECT id FROM sim_docs WHERE simhash_containment(body, '中共中央总书记、国家主席江泽民发表新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！') >= 0.8;
EXPLAIN (COSTS OFF) SELECT id FROM sim_docs WHERE simhash_containment(body, '国家主席江泽民发表新年讲话') >= 0.8;
PREPARE lookup(text, float8) AS SELECT id FROM sim_docs WHERE simhash_similarity(body, $1) >= $2;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE lookup('国家主席江泽民发表新年讲话', 0.6);
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) SELECT s.qid, d.id FROM sim_queries s JOIN sim_docs d ON simhash_similarity(s.q, d.body) >= 0.6;
-- A varchar column, and a view (the comparison is stored as written, and planned the same).
CREATE TABLE sim_varchar(id int, body varchar(500));
INSERT INTO sim_varchar SELECT id, body FROM sim_docs WHERE id < 1000;
CREATE INDEX ON sim_varchar USING gin (body simhash_ops);
EXPLAIN (COSTS OFF) SELECT id FROM sim_varchar WHERE simhash_similarity(body, 'abc') >= 0.6;
CREATE VIEW sim_view AS SELECT id FROM sim_docs WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话') >= 0.6;
-- The view keeps the comparison as written (PostgreSQL 16 and later print no table prefix).
SELECT replace(pg_get_viewdef('sim_view'::regclass), 'sim_docs.', '') AS definition;
EXPLAIN (COSTS OFF) SELECT * FROM sim_view;
-- A query text that depends on the indexed row is no lookup.
EXPLAIN (COSTS OFF) SELECT id FROM sim_docs WHERE simhash_similarity(body, body || 'x') >= 0.6;
-- No index: the predicate filters a scan.
EXPLAIN (COSTS OFF) SELECT id FROM corpus WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话') >= 0.6;

-- 6. The operator and type directly.
SELECT count(*) AS direct FROM sim_docs WHERE body @% simhash_query('国家主席江泽民发表新年讲话', 'similarity', 0.3);
SELECT count(*) AS null_query FROM sim_docs WHERE body @% NULL::simhash_query;
SELECT count(*) AS null_field FROM sim_docs WHERE body @% ROW(NULL, 'similarity', 0.5, NULL)::simhash_query;

DROP VIEW sim_view, sim_matches;
DROP TABLE sim_docs, sim_varchar;

-- 7. simhash_explain(a, b): the shingles and figures of both texts (kind), which add up to
-- the measures, over 200 corpus paragraphs each with a repost (71 of them with figures).
-- Measure 2 reads the years as written, and each as a figure: the texts share one shingle
-- and no figure. Measure 1 (simhash_explain_m1, 4.0.0's rows) read both years as 0000.
SELECT kind, item, in_a, in_b FROM simhash_explain('新闻2024年，中国经济。', '新闻1998年中国');
SELECT DISTINCT similarity, a_in_b, b_in_a FROM simhash_explain('新闻2024年，中国经济。', '新闻1998年中国');
SELECT shingle, in_a, in_b FROM simhash_explain_m1('新闻2024年，中国经济。', '新闻1998年中国');
SELECT DISTINCT similarity, a_in_b, b_in_a FROM simhash_explain_m1('新闻2024年，中国经济。', '新闻1998年中国');
-- The sums, in the measures' order of float8 operations (sql/similarity/explain.sql):
-- shingles' Jaccard index (or share) times (shared figures + 1) / (figures + 1).
WITH p AS (SELECT id, body AS a, regexp_replace(body, '[^。]*。', '') AS b FROM corpus WHERE id % 97 = 1),
e AS (SELECT p.id, p.a, p.b, x.* FROM p, simhash_explain(p.a, p.b) x),
c AS (SELECT id, a, b,
             count(*) FILTER (WHERE kind = 'shingle' AND in_a AND in_b)::float8 AS s_both,
             count(*) FILTER (WHERE kind = 'shingle') AS s_all,
             count(*) FILTER (WHERE kind = 'shingle' AND in_a) AS s_a,
             count(*) FILTER (WHERE kind = 'shingle' AND in_b) AS s_b,
             count(*) FILTER (WHERE kind = 'figure' AND in_a AND in_b) AS f_both,
             count(*) FILTER (WHERE kind = 'figure' AND in_a) AS f_a,
             count(*) FILTER (WHERE kind = 'figure' AND in_b) AS f_b,
             min(similarity) AS given_s, min(a_in_b) AS given_ab, min(b_in_a) AS given_ba
      FROM e GROUP BY id, a, b),
sums AS (SELECT *, coalesce(s_both / nullif(s_all, 0), 0) * ((f_both + 1)::float8 / (least(f_a, f_b) + 1)) AS s,
                coalesce(s_both / nullif(s_a, 0), 0) * ((f_both + 1)::float8 / (f_a + 1)) AS ab,
                coalesce(s_both / nullif(s_b, 0), 0) * ((f_both + 1)::float8 / (f_b + 1)) AS ba
         FROM c)
SELECT count(*) AS pairs, count(*) FILTER (WHERE f_a > 0) AS with_figures,
       count(*) FILTER (WHERE f_both < f_a) AS figures_dropped,
       count(*) FILTER (WHERE s = simhash_similarity(a, b) AND ab = simhash_containment(a, b)
                          AND ba = simhash_containment(b, a)
                          AND s = given_s AND ab = given_ab AND ba = given_ba) AS equal
FROM sums;
-- Texts without shingles: no shingle row, only the decision's word.
SELECT kind, item FROM simhash_explain('', '，。');
SELECT count(*) AS null_rows FROM simhash_explain(NULL, 'abc');
