-- simhash_segment_pairs(query, min_resemblance, max_rows, max_distance) and simhash_segment_clusters(...)
-- (src/segments/pairs.rs, simhash-core segments/pairs.rs; docs/segments-pairs.md): exact
-- against a brute-force self-join on corpus paragraphs with planted reposts, the
-- frequent-passage rule, streaming under LIMIT, and errors.
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;

-- A quarter of the corpus, and reposts of every 40th of those paragraphs: the first
-- sentence dropped (+ 100000), a sentence added (+ 200000), the last third cut (+ 300000).
CREATE TEMP TABLE sp_docs AS SELECT id::bigint AS id, body FROM corpus WHERE id % 4 = 1;
INSERT INTO sp_docs SELECT 100000 + id, regexp_replace(body, '^[^。]*。', '') FROM sp_docs WHERE id < 100000 AND id % 160 = 1;
INSERT INTO sp_docs SELECT 200000 + id, body || '本报记者对此进行了详细的采访报道。' FROM sp_docs WHERE id < 100000 AND id % 160 = 1;
INSERT INTO sp_docs SELECT 300000 + id, left(body, length(body) * 2 / 3) FROM sp_docs WHERE id < 100000 AND id % 160 = 1;
-- A disclaimer in 30 rows; rows 900001 and 900002 also share a passage: only the
-- disclaimer's rows (max_rows 10) can pair them, and it is frequent.
INSERT INTO sp_docs SELECT 800000 + g, '本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。第' || g || '号文章的正文在这里。'
  FROM generate_series(1, 30) g;
INSERT INTO sp_docs VALUES (900001, '本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。'),
                           (900002, '本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。'),
                           (900003, NULL);
CREATE TEMP TABLE sp_segs AS SELECT id, simhash_segments(body) AS segs FROM sp_docs;
SELECT count(*) AS rows, count(*) FILTER (WHERE cardinality(segs) = 0) AS no_segment,
       count(*) FILTER (WHERE segs IS NULL) AS null_segs FROM sp_segs;

-- The brute force: every pair sharing a segment that at most max_rows rows have, with its
-- resemblance ≥ θ; resemblance and containment by the SQL functions. The pairs that share a
-- segment (a.segs && b.segs) come from a plain join on the segments (sp_shared), so that the
-- oracle does not compare every two rows' arrays (49 s of the file's 54 before).
CREATE TEMP TABLE sp_df AS SELECT s, count(*) AS rows FROM (SELECT DISTINCT id, unnest(segs) AS s FROM sp_segs) d GROUP BY s;
CREATE TEMP TABLE sp_shared AS
  SELECT DISTINCT a.id AS ida, b.id AS idb
    FROM (SELECT id, unnest(segs) AS s FROM sp_segs) a JOIN (SELECT id, unnest(segs) AS s FROM sp_segs) b
      ON a.s = b.s AND a.id < b.id;
CREATE FUNCTION pg_temp.brute(theta float8, max_rows int, k int DEFAULT 0)
    RETURNS TABLE(id1 bigint, id2 bigint, resemblance float8, id1_in_id2 float8, id2_in_id1 float8)
    LANGUAGE sql AS $$
    SELECT a.id, b.id, simhash_resemblance(a.segs, b.segs, k), simhash_containment(a.segs, b.segs, k),
           simhash_containment(b.segs, a.segs, k)
    FROM sp_shared p JOIN sp_segs a ON a.id = p.ida JOIN sp_segs b ON b.id = p.idb
    WHERE a.segs && b.segs AND simhash_resemblance(a.segs, b.segs, k) >= theta
      AND EXISTS (SELECT 1 FROM unnest(a.segs) s JOIN sp_df USING (s) WHERE sp_df.rows <= max_rows AND s = ANY (b.segs)) $$;
CREATE FUNCTION pg_temp.check(theta float8, max_rows int, k int DEFAULT 0) RETURNS TABLE(theta float8, max_rows int, pairs bigint, missing bigint, extra bigint, ordered bool)
    LANGUAGE sql AS $$
    WITH got AS (SELECT p.*, row_number() OVER () AS n
                 FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', theta, max_rows, k) p),
         want AS (SELECT * FROM pg_temp.brute(theta, max_rows, k))
    SELECT theta, max_rows, (SELECT count(*) FROM got),
           (SELECT count(*) FROM (SELECT * FROM want EXCEPT SELECT id1, id2, resemblance, id1_in_id2, id2_in_id1 FROM got) x),
           (SELECT count(*) FROM (SELECT id1, id2, resemblance, id1_in_id2, id2_in_id1 FROM got EXCEPT SELECT * FROM want) x),
           (SELECT bool_and(o.n = o.m) FROM (SELECT n, row_number() OVER (ORDER BY id1, id2) AS m FROM got) o) $$;
SELECT c.* FROM (VALUES (0.5::float8, 1000), (0.8, 1000), (1.0, 1000), (0.0, 10), (0.5, 2), (0.3, 1)) v(t, m),
       pg_temp.check(v.t, v.m) c;

-- Every planted repost is found with its original at θ = 0.5.
SELECT count(*) AS planted, count(p.id1) AS found
FROM sp_docs d LEFT JOIN simhash_segment_pairs('SELECT id, segs FROM sp_segs', 0.5) p
  ON p.id1 = d.id % 100000 AND p.id2 = d.id
WHERE d.id BETWEEN 100000 AND 399999 AND cardinality((SELECT segs FROM sp_segs s WHERE s.id = d.id)) > 0;
-- The disclaimer: rows 900001 and 900002 are identical, but their one segment is in 32 rows.
SELECT count(*) FILTER (WHERE id1 = 900001 AND id2 = 900002) AS at_10
FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 0.5, 10);
SELECT id1, id2, resemblance FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs WHERE id > 900000', 0.5, 10);
SELECT count(*) AS at_100 FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs WHERE id > 800000', 0.0, 100);

-- Clusters: the components of the pairs, each labelled with its smallest id.
CREATE FUNCTION pg_temp.clusters(k int)
    RETURNS TABLE(clustered bigint, in_pairs bigint, split_pairs bigint, bad_labels bigint) LANGUAGE sql AS $$
    WITH p AS (SELECT * FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 0.5, 1000, k)),
         c AS (SELECT * FROM simhash_segment_clusters('SELECT id, segs FROM sp_segs', 0.5, 1000, k))
    SELECT (SELECT count(*) FROM c),
           (SELECT count(*) FROM (SELECT id1 FROM p UNION SELECT id2 FROM p) x),
           (SELECT count(*) FROM p JOIN c a ON a.id = p.id1 JOIN c b ON b.id = p.id2 WHERE a.cluster_id <> b.cluster_id),
           (SELECT count(*) FROM c WHERE c.cluster_id > c.id OR NOT EXISTS (SELECT 1 FROM c m WHERE m.id = c.cluster_id)) $$;
SELECT * FROM pg_temp.clusters(0);

-- Streaming: LIMIT stops after the rows it needs, in order.
SELECT * FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs WHERE id > 800000', 0.0, 100) LIMIT 3;
-- NULL arguments: no rows.
SELECT count(*) AS null_query FROM simhash_segment_pairs(NULL, 0.5);

-- Within k bits (2.1.0): typo'd reposts, the last two characters of every sentence but the
-- first changed (+ 400000), pair with their originals only within k bits; every run equals
-- the brute force above with simhash_resemblance(a, b, k), and clusters follow the pairs.
INSERT INTO sp_segs
SELECT 400000 + id, simhash_segments(regexp_replace(body, '(。[^。]*)..。', '\1某某。', 'g'))
FROM sp_docs WHERE id < 100000 AND id % 160 = 1;
TRUNCATE sp_df, sp_shared;
INSERT INTO sp_df SELECT s, count(*) FROM (SELECT DISTINCT id, unnest(segs) AS s FROM sp_segs) d GROUP BY s;
INSERT INTO sp_shared
  SELECT DISTINCT a.id, b.id
    FROM (SELECT id, unnest(segs) AS s FROM sp_segs) a JOIN (SELECT id, unnest(segs) AS s FROM sp_segs) b
      ON a.s = b.s AND a.id < b.id;
SELECT v.k, c.* FROM (VALUES (0.5::float8, 1000, 0), (0.5, 1000, 3), (0.5, 1000, 12), (0.3, 10, 8), (0.8, 2, 64)) v(t, m, k),
       pg_temp.check(v.t, v.m, v.k) c;
SELECT v.k, count(*) AS typo_reposts, count(p.id2) AS found
FROM (VALUES (0), (12)) v(k)
CROSS JOIN (SELECT id FROM sp_segs WHERE id > 400000 AND cardinality(segs) > 0) s
LEFT JOIN (SELECT 0 AS k, id1, id2 FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 0.5, 1000, 0)
           UNION ALL SELECT 12, id1, id2 FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 0.5, 1000, 12)) p
  ON p.k = v.k AND p.id1 = s.id % 100000 AND p.id2 = s.id
GROUP BY v.k ORDER BY v.k;
SELECT * FROM pg_temp.clusters(12);

-- Errors.
SELECT regress_try($$SELECT * FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 0.5, 1000, 65)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_clusters('SELECT id, segs FROM sp_segs', 0.5, 1000, -1)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 1.5)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 'NaN')$$);
SELECT regress_try($$SELECT * FROM simhash_segment_pairs('SELECT id, segs FROM sp_segs', 0.5, 0)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_clusters('SELECT id, segs FROM sp_segs', -0.1)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_pairs('SELECT id::int, segs FROM sp_segs', 0.5)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_pairs('SELECT id, segs, 1 FROM sp_segs', 0.5)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_clusters('SELECT NULL::bigint, segs FROM sp_segs', 0.5)$$);
SELECT regress_try($$SELECT * FROM simhash_segment_pairs('SELECT nosuch FROM sp_segs', 0.5)$$);
