-- The band index (5.2.0; docs/similarity.md, "The band index"): the GIN operator class
-- simhash_band_ops, whose keys are a text's 56 MinHash band keys. Its keys, the index against
-- the scan (similarity from 0.5 on answered from keys; below, and containment, by reading
-- the whole index), the planner's choice between it and simhash_ops, and the similarity
-- dedup trigger on it: what it finds, the locks its check query is described with.
CREATE EXTENSION IF NOT EXISTS simhash;

-- 1. Keys: 56 band keys a text (fewer only if two bands hash alike), the same for the same
-- shingles, none for a text without shingles; NULL in, NULL out.
SELECT cardinality(simhash_band_keys(body)) AS keys, count(*) AS texts
  FROM corpus WHERE id % 500 = 0 GROUP BY 1 ORDER BY 1;
SELECT simhash_band_keys('新年钟声即将敲响，人类社会就要进入新的一年。')
     = simhash_band_keys('新年钟声即将敲响  人类社会就要进入新的一年') AS same_shingles_same_keys,
       simhash_band_keys('，。') AS no_shingles, simhash_band_keys(NULL) IS NULL AS null_in;
-- Keys are ascending and distinct.
SELECT bool_and(k = (SELECT array_agg(DISTINCT x ORDER BY x) FROM unnest(k) x)) AS ascending
  FROM (SELECT simhash_band_keys(body) k FROM corpus WHERE id % 500 = 0) s;

-- 2. The index against the scan. Reposts of some paragraphs, as similarity.sql's.
CREATE TABLE band_docs AS SELECT id, body FROM corpus WHERE id % 12 = 0;
INSERT INTO band_docs
SELECT 100000 + id, regexp_replace(body, '([^。]*。)', '', '') FROM corpus WHERE id % 600 = 0 AND body LIKE '%。%。%'
UNION ALL SELECT 200000 + id, overlay(body placing '某' from 5 for 1) FROM corpus WHERE id % 600 = 0 AND length(body) > 20
UNION ALL SELECT 300000 + id, '（新华社北京１月１日电）' || body FROM corpus WHERE id % 600 = 300;
CREATE INDEX band_docs_body ON band_docs USING gin (body simhash_band_ops);
ANALYZE band_docs;
CREATE TEMP TABLE band_queries AS
SELECT id AS qid, body AS q FROM corpus WHERE id % 1200 IN (0, 300) OR id % 3989 = 1;
CREATE TEMP VIEW band_matches AS
SELECT 'similarity ' || t AS kind, s.qid, d.id, simhash_similarity(s.q, d.body)::float8 AS value
  FROM unnest(ARRAY[0.3, 0.5, 0.8]) t CROSS JOIN band_queries s JOIN band_docs d ON simhash_similarity(d.body, s.q) >= t
UNION ALL
SELECT 'query in row ' || t, s.qid, d.id, simhash_containment(s.q, d.body)::float8
  FROM unnest(ARRAY[0.8]) t CROSS JOIN band_queries s JOIN band_docs d ON simhash_containment(s.q, d.body) >= t;
SET enable_seqscan = off;
SELECT regress_plan($q$SELECT id FROM band_docs WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话') >= 0.6$q$) AS "QUERY PLAN";
CREATE TEMP TABLE by_index AS SELECT * FROM band_matches;
RESET enable_seqscan;
SET enable_bitmapscan = off;
CREATE TEMP TABLE by_scan AS SELECT * FROM band_matches;
RESET enable_bitmapscan;
-- Every pair the scan finds (the miss bound at 0.5 is 6e-4 a pair; these are fixed texts).
SELECT s.kind, count(*) AS pairs, count(*) - count(i.id) AS missed
  FROM by_scan s LEFT JOIN by_index i USING (kind, qid, id, value) GROUP BY s.kind ORDER BY s.kind;
SELECT count(*) AS only_index FROM (TABLE by_index EXCEPT ALL TABLE by_scan) x;
-- A query without shingles finds nothing; NULL queries nothing.
SET enable_seqscan = off;
SELECT count(*) AS no_shingles FROM band_docs WHERE body @% simhash_query('，。', 'similarity', 0.6);
SELECT count(*) AS null_query FROM band_docs WHERE body @% NULL::simhash_query;
RESET enable_seqscan;

-- 3. With both operator classes, lookups the bands do not answer from keys (similarity
-- below 0.5, containment) never plan on the band index, which would read all of it.
CREATE INDEX band_docs_ops ON band_docs USING gin (body simhash_ops);
ANALYZE band_docs;
SELECT q AS lookup, bool_and(line NOT LIKE '%band_docs_body%') AS not_on_bands
  FROM (VALUES ('similarity 0.3', $q$SELECT id FROM band_docs WHERE simhash_similarity(body, '国家主席江泽民发表新年讲话，新年钟声即将敲响') >= 0.3$q$),
               ('containment 0.8', $q$SELECT id FROM band_docs WHERE simhash_containment('国家主席江泽民发表新年讲话，新年钟声即将敲响，人类社会就要进入新的一年', body) >= 0.8$q$)) v(q, sql),
       LATERAL regress_plan(sql) line GROUP BY q ORDER BY q;

-- 4. The similarity dedup trigger on a band index: reposts rejected, the rest kept, as a
-- brute force over the same rows says; its check described; a threshold the bands do not
-- answer from keys locks the table.
CREATE TABLE band_dedup(id int PRIMARY KEY, body text);
CREATE INDEX ON band_dedup USING gin (body simhash_band_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON band_dedup
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.6', 'skip');
INSERT INTO band_dedup SELECT id, body FROM band_docs WHERE id % 600 IN (0, 300) OR id < 3000 OR id >= 100000 ORDER BY id % 100000, id;
-- Brute force: the rows in that order, each kept unless an earlier kept row is at 0.6 or more
-- and the same passage by the dedup decision.
CREATE TEMP TABLE kept(id int, body text);
DO $d$
DECLARE r record;
BEGIN
    FOR r IN SELECT id, body FROM band_docs WHERE id % 600 IN (0, 300) OR id < 3000 OR id >= 100000 ORDER BY id % 100000, id LOOP
        IF NOT EXISTS (SELECT 1 FROM kept k WHERE simhash_similarity(k.body, r.body) >= 0.6 AND simhash_same_passage(k.body, r.body)) THEN
            INSERT INTO kept VALUES (r.id, r.body);
        END IF;
    END LOOP;
END $d$;
SELECT (SELECT count(*) FROM band_dedup) AS kept_by_trigger, (SELECT count(*) FROM kept) AS kept_by_brute_force,
       (SELECT count(*) FROM (SELECT id FROM band_dedup EXCEPT SELECT id FROM kept) x) AS differ;
SELECT substring(simhash_similarity_dedup_query('band_dedup', 'body', '0.6', 'skip') FROM '/\*.*') AS at_0_6,
       substring(simhash_similarity_dedup_query('band_dedup', 'body', '0.4', 'skip') FROM '/\*.*') AS at_0_4;
-- With simhash_ops on the column too, the check may use either index, and locks both keys.
CREATE INDEX ON band_dedup USING gin (body simhash_ops);
SELECT substring(simhash_similarity_dedup_query('band_dedup', 'body', '0.6', 'skip') FROM '/\*.*') AS both_indexes;
DROP VIEW band_matches;
DROP TABLE band_dedup, band_docs;
