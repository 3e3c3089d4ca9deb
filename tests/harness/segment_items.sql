-- The work items of the segment dedup tests (segments_dedup_concurrency.sh, segments_crash.sh):
-- 600 real paragraphs of the corpus table src(id, body) and their reposts (an exact copy, the
-- first or the last sentence dropped, a sentence added), as work(item, g, body): a group g is a
-- paragraph and its reposts. Every two texts of a group resemble each other at :theta or more
-- and no two texts of different groups do (checked here, by PostgreSQL's own array
-- operators), so a correct dedup trigger keeps exactly one row per group. Creates the target
-- table docs(id, body, segs) with its GIN index, and resembling_pairs(theta), the number of
-- pairs of docs rows that resemble each other at theta or more (brute force over shared
-- segments).
-- 600 paragraphs of 3 or more sentences; the added sentence is the first of the next
-- corpus paragraph, so that it differs between groups.
CREATE TABLE para AS
SELECT row_number() OVER (ORDER BY id) AS g, id, body FROM src
WHERE length(body) BETWEEN 150 AND 400 AND id % 7 = 0
  AND array_length(regexp_split_to_array(body, '[。！？]'), 1) > 3
ORDER BY id LIMIT 600;
CREATE TABLE sent AS
SELECT p.g, s.i, s.sentence FROM para p,
    regexp_split_to_table(p.body, '(?<=[。！？])') WITH ORDINALITY s(sentence, i) WHERE s.sentence <> '';
CREATE TABLE cand AS
SELECT g, 0 AS var, body FROM para
UNION ALL SELECT g, 1, body FROM para
UNION ALL SELECT g, 2, (SELECT string_agg(s.sentence, '' ORDER BY s.i) FROM sent s WHERE s.g = p.g AND s.i > 1) FROM para p
UNION ALL SELECT g, 3, (SELECT string_agg(s.sentence, '' ORDER BY s.i) FROM sent s WHERE s.g = p.g
                        AND s.i < (SELECT max(t.i) FROM sent t WHERE t.g = p.g)) FROM para p
UNION ALL SELECT g, 4, p.body || substring(n.body FROM '^[^。！？]*[。！？]') FROM para p JOIN src n ON n.id = p.id + 1;
ALTER TABLE cand ADD COLUMN segs bigint[];
UPDATE cand SET segs = simhash_segments(body) WHERE body IS NOT NULL;
DELETE FROM cand WHERE coalesce(cardinality(segs), 0) = 0;
-- Within a group, every two texts resemble each other at theta or more.
DELETE FROM cand c WHERE EXISTS (SELECT 1 FROM cand o WHERE o.g = c.g AND o.var <> c.var
                                 AND simhash_resemblance(o.segs, c.segs) < :theta);
-- Across groups, no two do: drop both groups of any such pair.
CREATE TABLE cand_seg AS SELECT g, var, unnest(segs) AS seg FROM cand;
DELETE FROM cand WHERE g IN (
    SELECT x FROM (SELECT DISTINCT a.g AS ag, a.var AS av, b.g AS bg, b.var AS bv
                   FROM cand_seg a JOIN cand_seg b ON a.seg = b.seg AND a.g < b.g) p
    JOIN cand ca ON ca.g = p.ag AND ca.var = p.av JOIN cand cb ON cb.g = p.bg AND cb.var = p.bv,
    LATERAL (VALUES (p.ag), (p.bg)) v(x)
    WHERE simhash_resemblance(ca.segs, cb.segs) >= :theta);
CREATE TABLE work AS
SELECT (row_number() OVER (ORDER BY g, var) - 1)::int AS item, g, body FROM cand;
ALTER TABLE work ADD PRIMARY KEY (item);
CREATE TABLE docs(id int PRIMARY KEY, body text, segs bigint[]);
CREATE INDEX docs_segs ON docs USING gin (segs);
CREATE FUNCTION resembling_pairs(theta float8) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM (SELECT DISTINCT a.id, b.id FROM docs a JOIN docs b ON a.id < b.id AND a.segs && b.segs
                          WHERE simhash_resemblance(a.segs, b.segs) >= theta) x
$$;
