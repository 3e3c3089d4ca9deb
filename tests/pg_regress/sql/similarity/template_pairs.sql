-- Bulk pairs on a table of one template (issue 55; crates/simhash-core/src/similarity/bulk/templates.rs,
-- docs/similarity.md "Templates"): the run learns the template's frame from its rows and finds
-- its rows' pairs by their shingles off the frame, deciding each with the row's frame as a
-- dedup trigger does. Every repost of a row is paired with it, no two rows of the frame are,
-- and every pair returned is measured exactly and is the same passage to the decision.
CREATE EXTENSION IF NOT EXISTS simhash;
SET client_min_messages = warning;

-- 600 rows, a name of 10 to 20 letters each (from md5: distinct); for every 20th, five edits.
CREATE FUNCTION tp_body(i int, word text DEFAULT 'terms') RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT format('For an explanation of the %s used in this section, see attributes(7). Interface Attribute Value %s() Thread safety MT-Safe',
                  word, translate(left(md5(i::text) || md5((i + 7)::text), 10 + i % 11), '0123456789', 'ghijklmnop')) $$;
CREATE TABLE tp(id int PRIMARY KEY, row_of int NOT NULL, kind text NOT NULL, body text NOT NULL);
INSERT INTO tp SELECT i, i, 'row', tp_body(i) FROM generate_series(1, 600) i;
INSERT INTO tp
SELECT 1000 * k + i, i, kind, body
FROM generate_series(1, 600, 20) i,
     LATERAL (VALUES (1, 'full stop', tp_body(i) || '.'),
                     (2, 'appended', tp_body(i) || ' See the notes at the end of this page for the locale it reads.'),
                     (3, 'line before', 'From the manual pages, release 6.9. ' || tp_body(i)),
                     (4, 'name edited', regexp_replace(tp_body(i), '\(\)', 'q()')),
                     (5, 'frame word', tp_body(i, 'words'))) e(k, kind, body);

-- The run's phases: the template found, 720 of its 750 rows joined (the full stops are their
-- rows' groups).
SET client_min_messages = notice;
SET simhash.progress_interval = '1h';
CREATE TABLE got AS
SELECT * FROM simhash_similarity_pairs('SELECT id::bigint, body FROM tp', 0.5);
SET client_min_messages = warning;
RESET simhash.progress_interval;

-- Every pair measured exactly, at 0.5 or more, and the same passage to the decision without a
-- frame (a frame only adds to what differences cost).
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE g.similarity <> simhash_similarity(a.body, b.body)) AS mismeasured,
       count(*) FILTER (WHERE g.similarity < 0.5) AS below,
       count(*) FILTER (WHERE NOT simhash_same_passage(a.body, b.body)) AS apart_unframed
FROM got g JOIN tp a ON a.id = g.id1 JOIN tp b ON b.id = g.id2;

-- The pairs by kind: a row's reposts (a full stop, a sentence appended, a line put before) with
-- it and with each other, 6 a row of 30; no pair of two rows, and no name edit or frame word.
SELECT least(a.kind, b.kind) AS kind1, greatest(a.kind, b.kind) AS kind2, a.row_of = b.row_of AS one_row, count(*)
FROM got g JOIN tp a ON a.id = g.id1 JOIN tp b ON b.id = g.id2
GROUP BY 1, 2, 3 ORDER BY 1, 2, 3;

-- Without the template (5.x's measure alone: every pair at 0.5), the frame pairs every row.
SET simhash.decision = 'none';
SELECT count(*) > 100000 AS every_pair_of_the_frame
FROM simhash_similarity_pairs('SELECT id::bigint, body FROM tp WHERE id <= 600', 0.5);
RESET simhash.decision;

-- Clusters a DELETE can trust: each of the 30 rows with its three reposts.
SELECT count(DISTINCT cluster_id) AS clusters, count(*) AS rows,
       count(*) FILTER (WHERE c.id <> c.cluster_id) AS to_delete,
       bool_and(t.row_of = k.row_of) AS each_with_its_row
FROM simhash_similarity_clusters('SELECT id::bigint, body FROM tp', 0.5) c
JOIN tp t ON t.id = c.id JOIN tp k ON k.id = c.cluster_id;
