-- The work items of the segment dedup tests (segments_dedup_concurrency.sh, segments_crash.sh):
-- 600 real paragraphs of the corpus table src(id, body) and their reposts (an exact copy, the
-- first or the last sentence dropped, a sentence added; with :k > 0 instead a copy and a copy
-- with a word changed in every sentence but one, below), as work(item, g, body): a group g
-- is a paragraph and its reposts. Every two texts of a group resemble each other at :theta or
-- more, with segments matched within :k bits (default 0, exactly), and share a segment
-- exactly, as the trigger's candidates must; no two texts of different groups do (checked
-- here, by PostgreSQL's own array operators). So a correct dedup trigger keeps exactly one
-- row per group. Creates the target table docs(id, body, segs) with its GIN index, and
-- resembling_pairs(theta [, k]), the number of pairs of docs rows that share a segment and
-- resemble each other at theta or more within k bits (brute force over shared segments),
-- and with k = 0 are the same passage (the 6.0 trigger's decision).
\if :{?k}
\else
\set k 0
\endif
-- Within k bits: definition 2's segments, as the trigger's option names it (definition 3's
-- are shingle hashes, which the trigger refuses to match within k bits).
SELECT CASE WHEN :k > 0 THEN 'simhash_segments_v2' ELSE 'simhash_segments' END AS segfn \gset
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
SELECT :k > 0 AS within_k \gset
\if :within_k
-- Within k bits, the hardest case for the locks: a group is a paragraph, its copy, and a copy
-- with the last two characters of every sentence but one changed, that shares exactly one
-- segment with the paragraph, and one outside the prefix of segments (ascending as unsigned)
-- that exact matching would lock for one of the two. Locking only that prefix lets the two
-- be inserted side by side.
CREATE FUNCTION pg_temp.locked_prefix(s bigint[], theta float8) RETURNS bigint[] LANGUAGE sql AS $$
    SELECT ARRAY(SELECT y FROM (SELECT DISTINCT y FROM unnest(s) y) d
                 ORDER BY y # (-9223372036854775808)::bigint
                 LIMIT cardinality(ARRAY(SELECT DISTINCT unnest(s)))
                       + 1 - greatest(1, ceil(theta * cardinality(ARRAY(SELECT DISTINCT unnest(s))) / (2 - theta) - 1e-9))::int)
$$;
DELETE FROM cand WHERE var > 1;
INSERT INTO cand
SELECT DISTINCT ON (g) g, 5, body FROM (
    SELECT p.g, j, v.body, :segfn(v.body) AS vs, :segfn(p.body) AS ps
    FROM para p, LATERAL generate_series(1, (SELECT max(i) FROM sent t WHERE t.g = p.g)) j,
         LATERAL (SELECT string_agg(CASE WHEN s.i = j THEN s.sentence
                                    ELSE regexp_replace(s.sentence, '..([。！？])$', '某某\1') END, '' ORDER BY s.i) AS body
                  FROM sent s WHERE s.g = p.g) v) x
WHERE cardinality(ARRAY(SELECT unnest(vs) INTERSECT SELECT unnest(ps))) = 1
  AND simhash_resemblance(vs, ps, :k) >= :theta
  AND NOT (pg_temp.locked_prefix(vs, :theta) && pg_temp.locked_prefix(ps, :theta))
ORDER BY g, j;
DELETE FROM cand c WHERE NOT EXISTS (SELECT FROM cand o WHERE o.g = c.g AND o.var = 5);
\endif
ALTER TABLE cand ADD COLUMN segs bigint[];
UPDATE cand SET segs = :segfn(body) WHERE body IS NOT NULL;
DELETE FROM cand WHERE coalesce(cardinality(segs), 0) = 0;
-- Within a group, every two texts resemble each other at theta or more, and (exact
-- matching, the 6.0 trigger's) the dedup decision calls them the same passage: 6.0 keeps
-- apart a paragraph and its repost with a sentence added when the sentence outweighs what
-- it shares with the other repost. Within k bits the rounds run 5.x's trigger (_d1), which
-- decides by resemblance alone, since a word changed in every sentence is a frame-mate.
DELETE FROM cand c WHERE EXISTS (SELECT 1 FROM cand o WHERE o.g = c.g AND o.var <> c.var
                                 AND NOT (o.segs && c.segs AND simhash_resemblance(o.segs, c.segs, :k) >= :theta
                                          AND (:k > 0 OR simhash_same_passage(o.body, c.body))));
-- Across groups, no two do: drop both groups of any such pair.
CREATE TABLE cand_seg AS SELECT g, var, unnest(segs) AS seg FROM cand;
DELETE FROM cand WHERE g IN (
    SELECT x FROM (SELECT DISTINCT a.g AS ag, a.var AS av, b.g AS bg, b.var AS bv
                   FROM cand_seg a JOIN cand_seg b ON a.seg = b.seg AND a.g < b.g) p
    JOIN cand ca ON ca.g = p.ag AND ca.var = p.av JOIN cand cb ON cb.g = p.bg AND cb.var = p.bv,
    LATERAL (VALUES (p.ag), (p.bg)) v(x)
    WHERE simhash_resemblance(ca.segs, cb.segs, :k) >= :theta);
CREATE TABLE work AS
SELECT (row_number() OVER (ORDER BY g, var) - 1)::int AS item, g, body FROM cand;
ALTER TABLE work ADD PRIMARY KEY (item);
CREATE TABLE docs(id int PRIMARY KEY, body text, segs bigint[]);
CREATE INDEX docs_segs ON docs USING gin (segs);
CREATE FUNCTION resembling_pairs(theta float8, k int DEFAULT 0) RETURNS bigint LANGUAGE sql AS $$
    SELECT count(*) FROM (SELECT DISTINCT a.id, b.id FROM docs a JOIN docs b ON a.id < b.id AND a.segs && b.segs
                          WHERE simhash_resemblance(a.segs, b.segs, k) >= theta
                            AND (k > 0 OR simhash_same_passage(a.body, b.body))) x
$$;
