-- The work items of the similarity dedup test (similarity_dedup_concurrency.sh): 250 real
-- paragraphs of the corpus table src(id, body) and their reposts, as work(item, g, body): a
-- group g is a paragraph and its reposts. Two texts are close when simhash_similarity
-- reaches :theta or, with :gamma at most 1, simhash_containment either way reaches :gamma.
-- Every two texts of a group are close and the same passage to the dedup decision
-- (simhash_same_passage); no two texts of different groups are close. So a correct dedup
-- trigger keeps exactly one row per group.
--   :mode similarity   an exact copy, a character changed, a source line prepended, the
--                      last sentence dropped, the next paragraph's first sentence appended
--   :mode containment  an exact copy, the first half of the sentences (an excerpt), the
--                      paragraph with the next one's first sentence (it holds the paragraph),
--                      and the excerpt with a source line prepended
--   :mode short        sentences of 20 to 40 characters: a copy, '转发：' prepended, a tag
--                      appended, two characters cut (containment from keys, issue 47)
-- Closeness within a group is checked on every pair. Across groups, the candidate pairs come
-- from a simhash_ops index at much lower thresholds (0.3 and 0.5), then the exact measures
-- decide: a close pair the index missed would leave a group without its row, a failure,
-- never a pass. Creates the target table docs(id, body) with its simhash_ops index, and
-- close_pairs(theta, gamma): how many pairs of docs rows are duplicates, over all pairs
-- (the measures as float8, so that no index answers).
SELECT :'mode' = 'short' AS short_mode \gset
\if :short_mode
-- Short texts: 400 sentences of 20 to 40 characters (under 48 shingles, whose containment
-- lookups ask for every shingle's key), each with a next text to append to.
CREATE TABLE para AS
SELECT row_number() OVER (ORDER BY id, i) AS g, id, s AS body FROM (
    SELECT DISTINCT ON (s) id, i, s FROM src, regexp_split_to_table(body, '(?<=[。！？])') WITH ORDINALITY x(s, i)
    WHERE id % 5 = 0 AND length(s) BETWEEN 20 AND 40 ORDER BY s, id) x
ORDER BY id, i LIMIT 400;
\else
CREATE TABLE para AS
SELECT row_number() OVER (ORDER BY id) AS g, id, body FROM src
WHERE length(body) BETWEEN 120 AND 300 AND id % 11 = 0
  AND array_length(regexp_split_to_array(body, '[。！？]'), 1) > 3
ORDER BY id LIMIT 250;
\endif
CREATE TABLE sent AS
SELECT p.g, s.i, s.sentence FROM para p,
    regexp_split_to_table(p.body, '(?<=[。！？])') WITH ORDINALITY s(sentence, i) WHERE s.sentence <> '';
CREATE TABLE cand(g bigint, var int, body text);
SELECT :'mode' = 'similarity' AS similarity_mode \gset
\if :similarity_mode
INSERT INTO cand
SELECT g, 0, body FROM para
UNION ALL SELECT g, 1, body FROM para
UNION ALL SELECT g, 2, overlay(body placing '某' from length(body) / 2 for 1) FROM para
UNION ALL SELECT g, 3, '（新华社北京１月１日电）' || body FROM para
UNION ALL SELECT g, 4, (SELECT string_agg(s.sentence, '' ORDER BY s.i) FROM sent s WHERE s.g = p.g
                        AND s.i < (SELECT max(t.i) FROM sent t WHERE t.g = p.g)) FROM para p
UNION ALL SELECT g, 5, p.body || substring(n.body FROM '^[^。！？]*[。！？]') FROM para p JOIN src n ON n.id = p.id + 1;
\elif :short_mode
-- A copy, a repost with a prefix, one with a tag appended, and the text without its last
-- two characters (each contained in another at 0.8 or more).
INSERT INTO cand
SELECT g, 0, body FROM para
UNION ALL SELECT g, 1, body FROM para
UNION ALL SELECT g, 2, '转发：' || body FROM para
UNION ALL SELECT g, 3, body || ' #新闻#' FROM para
UNION ALL SELECT g, 4, left(body, -3) || right(body, 1) FROM para;
\else
CREATE TABLE half AS
SELECT p.g, (SELECT string_agg(s.sentence, '' ORDER BY s.i) FROM sent s WHERE s.g = p.g
             AND s.i <= (SELECT (max(t.i) + 1) / 2 FROM sent t WHERE t.g = p.g)) AS body FROM para p;
INSERT INTO cand
SELECT g, 0, body FROM para
UNION ALL SELECT g, 1, body FROM para
UNION ALL SELECT g, 2, body FROM half
UNION ALL SELECT g, 3, p.body || substring(n.body FROM '^[^。！？]*[。！？]') FROM para p JOIN src n ON n.id = p.id + 1
UNION ALL SELECT g, 4, '（新华社北京１月１日电）' || body FROM half;
\endif
DELETE FROM cand WHERE body IS NULL OR body = '';
CREATE FUNCTION is_close(a text, b text, theta float8, gamma float8) RETURNS boolean LANGUAGE sql AS $$
    SELECT simhash_similarity(a, b)::float8 >= theta
        OR (gamma <= 1 AND (simhash_containment(a, b)::float8 >= gamma OR simhash_containment(b, a)::float8 >= gamma))
$$;
-- What the 6.0 trigger calls a duplicate: close, and the same passage to the dedup decision.
CREATE FUNCTION is_dup(a text, b text, theta float8, gamma float8) RETURNS boolean LANGUAGE sql AS $$
    SELECT is_close(a, b, theta, gamma) AND simhash_same_passage(a, b)
$$;
-- Within a group, every two texts are duplicates: drop the variants that are not, then the
-- groups left with fewer than three texts.
DELETE FROM cand c WHERE c.var > 0 AND EXISTS (
    SELECT 1 FROM cand o WHERE o.g = c.g AND o.var <> c.var AND NOT is_dup(o.body, c.body, :theta, :gamma));
DELETE FROM cand c WHERE (SELECT count(*) FROM cand o WHERE o.g = c.g) < 3;
-- Across groups, no two are: drop both groups of any close pair.
CREATE INDEX cand_body ON cand USING gin (body simhash_ops);
ANALYZE cand;
SET enable_seqscan = off;
CREATE TABLE cross_pairs AS
SELECT DISTINCT a.g AS ag, b.g AS bg FROM cand a JOIN cand b ON b.g <> a.g
    AND (simhash_similarity(b.body, a.body) >= 0.3 OR simhash_containment(b.body, a.body) >= 0.5
         OR simhash_containment(a.body, b.body) >= 0.5)
WHERE is_close(a.body, b.body, :theta, :gamma);
RESET enable_seqscan;
DELETE FROM cand WHERE g IN (SELECT ag FROM cross_pairs UNION SELECT bg FROM cross_pairs);
CREATE TABLE work AS
SELECT (row_number() OVER (ORDER BY g, var) - 1)::int AS item, g, body FROM cand;
ALTER TABLE work ADD PRIMARY KEY (item);
CREATE TABLE docs(id int PRIMARY KEY, body text);
CREATE INDEX docs_body ON docs USING gin (body simhash_ops);
CREATE FUNCTION close_pairs(theta float8, gamma float8) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE r record; n bigint := 0; c bigint;
BEGIN
    FOR r IN SELECT id, body FROM docs LOOP
        -- The text is a parameter: its shingle set is computed once per row.
        EXECUTE 'SELECT count(*) FROM docs b WHERE b.id > $1 AND is_dup(b.body, $2, $3, $4)'
            INTO c USING r.id, r.body, theta, gamma;
        n := n + c;
    END LOOP;
    RETURN n;
END $$;
