-- Frame keys (issue 55; src/similarity/frame_keys.rs, docs/similarity.md "Templates"): a
-- simhash_query with a frame (the index keys of a table's template) keeps only rows that hold
-- two of its lookup's keys off the frame, so that a lookup for a row of a template does not read
-- every row of the frame; the dedup trigger learns the frame from its candidates.
CREATE EXTENSION IF NOT EXISTS simhash;
SET client_min_messages = warning;

CREATE TABLE fk(id int PRIMARY KEY, body text NOT NULL);
CREATE INDEX fk_body ON fk USING gin (body simhash_ops) WITH (fastupdate = off);
-- A name of 10 to 20 letters a row (from md5: distinct).
CREATE FUNCTION fk_body(i int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT format('For an explanation of the terms used in this section, see attributes(7). Interface Attribute Value %s() Thread safety MT-Safe',
                  translate(left(md5(i::text) || md5((i + 7)::text), 10 + i % 11), '0123456789', 'ghijklmnop')) $$;
INSERT INTO fk SELECT i, fk_body(i) FROM generate_series(1, 300) i;
ANALYZE fk;
-- The frame by the trigger's rule, in SQL: the keys 2% of the rows hold, or two rows at least.
CREATE TABLE frame AS
SELECT array_agg(k ORDER BY k) AS keys
FROM (SELECT k FROM fk, unnest(simhash_keys(body)) k GROUP BY k HAVING count(*) >= greatest(2, ceil(0.02 * 300))::int) s;
SELECT cardinality(keys) BETWEEN 20 AND 80 AS a_frame_of_a_few_dozen_keys FROM frame;

-- Queries: new rows of the frame (301 to 320), and reposts of rows 1 to 300 step 15, a full
-- stop added or a frame word changed.
CREATE TABLE q AS
SELECT 'new' AS kind, i AS own, fk_body(i) AS body FROM generate_series(301, 320) i
UNION ALL SELECT 'repost', i, fk_body(i) || '.' FROM generate_series(1, 300, 15) i
UNION ALL SELECT 'edited', i, replace(fk_body(i), 'terms', 'words') FROM generate_series(1, 300, 15) i;

-- 1. The framed lookup's rows, by the index and by a sequential scan (the recheck alone): the
--    same, for both of the dedup trigger's lookups. Unframed, every query finds every row.
CREATE FUNCTION found(measure text, threshold float8, framed boolean)
RETURNS TABLE(kind text, own int, id int) LANGUAGE sql AS $$
    SELECT q.kind, q.own, fk.id FROM q, frame, fk
    WHERE fk.body @% ROW(q.body, measure, threshold, CASE WHEN framed THEN frame.keys END)::simhash_query $$;
SET enable_seqscan = off;
CREATE TABLE by_index AS
SELECT m, framed, f.* FROM (VALUES ('similarity', 0.5), ('either_way', 0.8)) v(m, t),
     (VALUES (false), (true)) w(framed), found(m, t::float8, framed) f;
RESET enable_seqscan;
SET enable_bitmapscan = off;
SET enable_indexscan = off;
CREATE TABLE by_scan AS
SELECT m, framed, f.* FROM (VALUES ('similarity', 0.5), ('either_way', 0.8)) v(m, t),
     (VALUES (false), (true)) w(framed), found(m, t::float8, framed) f;
RESET enable_bitmapscan;
RESET enable_indexscan;
SELECT (SELECT count(*) FROM (TABLE by_index EXCEPT TABLE by_scan) d) AS only_by_index,
       (SELECT count(*) FROM (TABLE by_scan EXCEPT TABLE by_index) d) AS only_by_scan,
       (SELECT count(*) FROM by_scan) > 0 AS some;
-- Rows found per query, and whether each repost's own row is among them.
SELECT m, framed, kind, count(*) / count(DISTINCT own) AS rows_a_query,
       count(DISTINCT own) FILTER (WHERE id = own) AS own_row_found, count(DISTINCT own) AS queries
FROM by_scan GROUP BY m, framed, kind ORDER BY m DESC, framed, kind;

-- 2. Through the index, a new row of the frame finds every row unframed, and none framed.
SET enable_seqscan = off;
SELECT framed, (SELECT count(*) FROM fk
                WHERE fk.body @% ROW(fk_body(400), 'similarity', 0.5, CASE WHEN framed THEN frame.keys END)::simhash_query) AS rows
FROM (VALUES (false), (true)) w(framed), frame ORDER BY framed;
RESET enable_seqscan;

-- 3. An empty frame is none; measure 1's simhash_query has no frame; a NULL in the frame is
--    ignored.
SELECT count(*) AS empty_frame_rows FROM fk WHERE body @% ROW(fk_body(301), 'similarity', 0.5, '{}')::simhash_query;
SELECT count(*) AS null_in_frame_rows FROM fk, frame
WHERE body @% ROW(fk_body(1), 'similarity', 0.5, keys || NULL::int)::simhash_query;
SELECT attname FROM pg_attribute WHERE attrelid = 'simhash_query'::regclass AND attnum > 0 ORDER BY attnum;

-- 4. The dedup trigger learns the frame: from a probe of 1,024 rows in a larger table, here
--    from its first check, which reads all 300 rows of the frame and keeps none; then new rows
--    are not linked and reposts are, to their row.
--    A frame word changed is found (1. above) but is another passage to the decision.
ALTER TABLE fk ADD COLUMN dup_of int;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON fk FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}');
INSERT INTO fk(id, body) SELECT 1000 + i, fk_body(i) FROM generate_series(301, 340) i;
INSERT INTO fk(id, body) SELECT 2000 + own, body FROM q WHERE kind IN ('repost') ORDER BY own;
INSERT INTO fk(id, body) SELECT 3000 + own, body FROM q WHERE kind IN ('edited') ORDER BY own;
SELECT id / 1000 AS batch, count(*) AS rows, count(dup_of) AS linked, count(*) FILTER (WHERE dup_of = id % 1000) AS to_their_row,
       count(*) FILTER (WHERE id > 2000 AND simhash_same_passage(body, fk_body(id % 1000))) AS decision_calls_their_row_same
FROM fk WHERE id > 1000 GROUP BY 1 ORDER BY 1;
-- A row of other text in the same table still finds its repost once the frame is learned.
INSERT INTO fk(id, body) VALUES (4001, 'Thank you for shopping with us. Your order has shipped and will arrive in 3 days.');
INSERT INTO fk(id, body) VALUES (4002, 'Thank you for shopping with us! Your order has shipped and will arrive in 3 days');
SELECT id, dup_of FROM fk WHERE id > 4000 ORDER BY id;
-- A second template, loaded through the trigger: the check of its 65th row reads 64, keeps
-- none, and learns it. Then neither template's new rows are linked, reposts of either are linked to their
-- row (each template's rows read slots from its own frame-mates), and so is an UPDATE to a
-- repost's text.
CREATE FUNCTION fk_body2(i int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT format('%s: the package is not installed. To install it, run apt-get install %s and try again.', n, n)
    FROM (SELECT translate(left(md5((3 * i)::text), 6 + i % 4), '0123456789', 'ghijklmnop') AS n) s $$;
INSERT INTO fk(id, body) SELECT 5000 + i, fk_body2(i) FROM generate_series(1, 100) i;
INSERT INTO fk(id, body) SELECT 6000 + i, fk_body2(i) FROM generate_series(101, 120) i;
INSERT INTO fk(id, body) SELECT 7000 + i, fk_body2(i) || '.' FROM generate_series(1, 100, 10) i;
INSERT INTO fk(id, body) SELECT 8000 + i, fk_body(i) || '!' FROM generate_series(1, 300, 30) i;
UPDATE fk SET body = fk_body(7) || ' ' WHERE id = 1301;
SELECT id / 1000 AS batch, count(*) AS rows, count(dup_of) AS linked,
       count(*) FILTER (WHERE dup_of = CASE WHEN id / 1000 = 7 THEN 5000 + id % 1000 ELSE id % 1000 END) AS to_their_row
FROM fk WHERE id BETWEEN 5000 AND 8999 GROUP BY 1 ORDER BY 1;
SELECT dup_of AS updated_row_linked_to FROM fk WHERE id = 1301;
-- The trigger's check query takes the frame as $4 (after the thresholds).
SELECT position('ROW($1, ''similarity'', $2, $4)' IN q) > 0 AS similarity_framed,
       position('ROW($1, ''either_way'', $3, $4)' IN q) > 0 AS containment_framed
FROM simhash_similarity_dedup_query('fk', 'body', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}') q;

DROP TABLE fk, frame, q, by_index, by_scan;
DROP FUNCTION fk_body(int), fk_body2(int), found(text, float8, boolean);
