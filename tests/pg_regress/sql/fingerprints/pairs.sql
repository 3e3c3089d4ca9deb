-- simhash_duplicates(query, k) and simhash_clusters(query, k) (src/fingerprints/pairs/all_pairs.rs, simhash-core fingerprints/pairs/all/):
-- exact against a brute-force self-join, identical groups, clusters, NULLs and errors.
-- Settings made before the library loads in this session survive its loading: every
-- simhash.* setting is defined before the prefix is reserved (one defined after it was
-- dropped with a WARNING: simhash.nearest_scan_fallback, until this was mended).
SET simhash.batch_threads = 0;
SET simhash.nearest_scan_fallback = off;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS simhash;
SELECT simhash_near(0, 1, 1) AS library_loaded;
SHOW simhash.batch_threads;
SHOW simhash.nearest_scan_fallback;
RESET simhash.batch_threads;
RESET simhash.nearest_scan_fallback;
SHOW simhash.batch_threads;

-- 12,400 deterministic rows: 4,000 random fingerprints (md5 of the row number), 8,000 near
-- copies of 797 bases with 0..5 bits flipped, 300 copies of one fingerprint, 100 NULLs.
CREATE TEMP TABLE fps(id bigint, fp bigint);
INSERT INTO fps SELECT g, ('x' || substr(md5(g::text), 1, 16))::bit(64)::bigint
  FROM generate_series(1, 4000) g;
INSERT INTO fps SELECT 100000 + g,
       ('x' || substr(md5('base' || (g % 797)), 1, 16))::bit(64)::bigint
       # (CASE WHEN g % 6 > 0 THEN 1::bigint << (get_byte(decode(md5('a' || g), 'hex'), 0) % 64) ELSE 0 END)
       # (CASE WHEN g % 6 > 1 THEN 1::bigint << (get_byte(decode(md5('a' || g), 'hex'), 1) % 64) ELSE 0 END)
       # (CASE WHEN g % 6 > 2 THEN 1::bigint << (get_byte(decode(md5('a' || g), 'hex'), 2) % 64) ELSE 0 END)
       # (CASE WHEN g % 6 > 3 THEN 1::bigint << (get_byte(decode(md5('a' || g), 'hex'), 3) % 64) ELSE 0 END)
       # (CASE WHEN g % 6 > 4 THEN 1::bigint << (get_byte(decode(md5('a' || g), 'hex'), 4) % 64) ELSE 0 END)
  FROM generate_series(1, 8000) g;
INSERT INTO fps SELECT 200000 + g, 1234567890123 FROM generate_series(1, 300) g;
INSERT INTO fps SELECT 300000 + g, NULL FROM generate_series(1, 100) g;
SELECT count(*) AS rows, count(fp) AS with_fp, count(DISTINCT fp) AS distinct_fps FROM fps;

-- The oracle: every pair within distance 10, by brute force.
CREATE TEMP TABLE brute AS
  SELECT a.id AS id1, b.id AS id2, hamming(a.fp, b.fp) AS distance
    FROM fps a JOIN fps b ON a.id < b.id AND hamming(a.fp, b.fp) <= 10;

-- Exact for each k: nothing missing, nothing extra, no pair twice.
SELECT k,
       (SELECT count(*) FROM brute WHERE distance <= k) AS brute_pairs,
       (SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM fps', k)) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM brute WHERE distance <= k
                              EXCEPT ALL SELECT * FROM simhash_duplicates('SELECT id, fp FROM fps', k)) m) AS missing,
       (SELECT count(*) FROM (SELECT * FROM simhash_duplicates('SELECT id, fp FROM fps', k)
                              EXCEPT ALL SELECT * FROM brute WHERE distance <= k) x) AS extra
  FROM unnest(ARRAY[0, 1, 3, 6, 10]) k;
-- Default max_distance is 3; id1 < id2 always.
SELECT count(*) AS pairs, bool_and(id1 < id2) AS ordered FROM simhash_duplicates('SELECT id, fp FROM fps');
-- Large k: everything pairs with everything at 64.
SELECT count(*) = 2000 * 1999 / 2 AS all_pairs
  FROM simhash_duplicates('SELECT id, fp FROM fps WHERE id <= 2000', 64);

-- Clusters are the connected components of the pairs: check against an iterative
-- label propagation over the brute-force pairs at k = 3.
CREATE TEMP TABLE edge AS
  SELECT id1 AS x, id2 AS y FROM brute WHERE distance <= 3
  UNION ALL SELECT id2, id1 FROM brute WHERE distance <= 3;
CREATE TEMP TABLE label AS SELECT DISTINCT x AS id, x AS c FROM edge;
DO $$
BEGIN
  LOOP
    UPDATE label l SET c = m.c
      FROM (SELECT e.x AS id, min(y.c) AS c FROM edge e JOIN label y ON y.id = e.y GROUP BY e.x) m
     WHERE l.id = m.id AND m.c < l.c;
    EXIT WHEN NOT FOUND;
  END LOOP;
END $$;
SELECT count(*) AS clustered_rows, count(DISTINCT cluster_id) AS clusters,
       (SELECT count(*) FROM (SELECT id, c FROM label
                              EXCEPT SELECT * FROM simhash_clusters('SELECT id, fp FROM fps', 3)) d) AS missing,
       (SELECT count(*) FROM (SELECT * FROM simhash_clusters('SELECT id, fp FROM fps', 3)
                              EXCEPT SELECT id, c FROM label) d) AS extra,
       (SELECT count(*) FROM label) AS oracle_rows
  FROM simhash_clusters('SELECT id, fp FROM fps', 3);
-- The 300 identical fingerprints form one cluster named after its smallest id.
SELECT cluster_id, count(*) FROM simhash_clusters('SELECT id, fp FROM fps WHERE id > 200000', 0) GROUP BY 1;
SELECT * FROM simhash_clusters('VALUES (5::bigint, 15::bigint), (7, 14), (9, 12), (3, -1)', 1);

-- Everyday use: keep the oldest row of each cluster.
SELECT count(*) AS to_delete FROM simhash_clusters('SELECT id, fp FROM fps', 3) WHERE id <> cluster_id;

-- Progress NOTICEs (silenced above with client_min_messages).
SET client_min_messages = notice;
SELECT * FROM simhash_duplicates('VALUES (1::bigint, 0::bigint), (2, 1), (3, NULL), (4, 7)', 2) ORDER BY 1, 2;
SET client_min_messages = warning;

-- Exact, as sorted lists, for k = 0..8 on small inputs: identical groups (one of them of
-- fingerprint 0, definition 0's "no features", which is kept), near copies. (A repeated id
-- is an error since 6.0.0: dedup_edges.sql.)
CREATE TEMP TABLE small AS
  SELECT g::bigint AS id, CASE WHEN g <= 6 THEN 0::bigint WHEN g <= 12 THEN 255::bigint
                               ELSE (g * 37)::bigint # (1::bigint << (g % 64)) END AS fp
    FROM generate_series(1, 60) g;
SELECT k, (SELECT array_agg(ROW(id1, id2, distance) ORDER BY id1, id2, distance)
             FROM simhash_duplicates('SELECT id, fp FROM small', k))
        = (SELECT array_agg(ROW(a.id, b.id, hamming(a.fp, b.fp)) ORDER BY a.id, b.id, hamming(a.fp, b.fp))
             FROM small a JOIN small b ON a.id < b.id AND hamming(a.fp, b.fp) <= k) AS exact
  FROM generate_series(0, 8) k;

-- The stream order (README, Bulk deduplication): the distance-0 pairs first, group by group
-- in increasing unsigned fingerprint order (-1 = 2^64 - 1 last), each group sorted; then
-- the others as found. Without ORDER BY, only the distance-0 part is pinned.
SELECT * FROM simhash_duplicates('VALUES (9::bigint, -1::bigint), (3, -1), (4, 7), (1, 7), (2, 7), (5, 6)', 0);
SELECT id1, id2, distance FROM simhash_duplicates('VALUES (9::bigint, -1::bigint), (3, -1), (4, 7), (1, 7), (5, 6)', 1) LIMIT 4;
-- LIMIT stops the stream: 5·10⁹ pairs are never made (tests/integration/batch_stream.sh
-- does it at 100,000 rows under a timeout).
SELECT * FROM simhash_duplicates('SELECT i::bigint, 42::bigint FROM generate_series(1, 100000) i', 3) LIMIT 3;
-- In FROM, simhash_duplicates is inlined: a ProjectSet under the LIMIT, no Function Scan.
EXPLAIN (COSTS OFF) SELECT * FROM simhash_duplicates('SELECT id, fp FROM small') LIMIT 10;

-- Errors, with SQLSTATEs.
\set VERBOSITY sqlstate
SELECT * FROM simhash_duplicates('SELECT 1, 2');
SELECT * FROM simhash_duplicates('SELECT 1::bigint, 2::bigint, 3::bigint');
SELECT * FROM simhash_clusters('SELECT id::text, fp FROM fps');
SELECT * FROM simhash_duplicates('SELECT NULL::bigint, 2::bigint');
SELECT * FROM simhash_duplicates('SELECT id, fp FROM fps', -1);
SELECT * FROM simhash_clusters('SELECT id, fp FROM fps', 65);
SELECT * FROM simhash_duplicates('SELECT nope FROM fps');
\set VERBOSITY default
-- The type error says how to fix it.
SELECT * FROM simhash_duplicates('SELECT 1, 2');
-- NULL query: STRICT, no rows. Empty input: no rows.
SELECT count(*) FROM simhash_duplicates(NULL);
SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM fps WHERE false');

-- The corpus at k = 3 against brute force.
CREATE TEMP TABLE corpus_fp AS SELECT id::bigint AS id, simhash_v0(body) AS fp FROM corpus;  -- definition 0, as when these figures were pinned
CREATE TEMP TABLE corpus_brute AS
  SELECT a.id AS id1, b.id AS id2, hamming(a.fp, b.fp) AS distance
    FROM corpus_fp a JOIN corpus_fp b ON a.id < b.id AND hamming(a.fp, b.fp) <= 3;
SELECT (SELECT count(*) FROM corpus_brute) AS brute_pairs,
       (SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM corpus_fp', 3)) AS pairs,
       (SELECT count(*) FROM (SELECT * FROM corpus_brute
                              EXCEPT ALL SELECT * FROM simhash_duplicates('SELECT id, fp FROM corpus_fp', 3)) d) AS missing;

-- simhash_duplicates(batch, corpus, max_distance): every (batch row, corpus row) pair,
-- batch in memory, corpus streamed (src/fingerprints/pairs/corpus.rs, simhash-core fingerprints/pairs/corpus/).
-- Batch: 2,000 of fps's random rows, 500 of its near-copy bases and the 300 identical
-- rows; corpus: the rest of fps (near copies of the same bases, random rows, NULLs) plus
-- 50 rows identical to batch rows and their ids reused. Pairs inside the batch are left out.
CREATE TEMP TABLE qb AS SELECT id, fp FROM fps WHERE id <= 2000 OR id BETWEEN 100001 AND 100500 OR id > 200000 AND fp IS NOT NULL;
CREATE TEMP TABLE qc AS SELECT id, fp FROM fps WHERE id NOT IN (SELECT id FROM qb)
  UNION ALL SELECT id, fp FROM fps WHERE id BETWEEN 200001 AND 200050;
SELECT (SELECT count(*) FROM qb) AS batch_rows, (SELECT count(*) FROM qc) AS corpus_rows;
CREATE TEMP TABLE qbrute AS
  SELECT b.id AS batch_id, c.id AS corpus_id, hamming(b.fp, c.fp) AS distance
    FROM qb b JOIN qc c ON hamming(b.fp, c.fp) <= 8;
SELECT k,
       (SELECT count(*) FROM qbrute WHERE distance <= k) AS brute_pairs,
       (SELECT count(*) FROM (SELECT * FROM qbrute WHERE distance <= k
                              EXCEPT ALL SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id, fp FROM qc', k)) m) AS missing,
       (SELECT count(*) FROM (SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id, fp FROM qc', k)
                              EXCEPT ALL SELECT * FROM qbrute WHERE distance <= k) x) AS extra
  FROM generate_series(0, 8) k;
-- The same pairs with the lookups in the backend itself (simhash.batch_threads = 0) and in
-- 5 worker threads, on a corpus of 10 copies of qc (96,500 rows: a corpus of one fetch,
-- 50,000 rows, is looked up without threads, whatever the setting; this one is two chunks).
CREATE TEMP VIEW qcheck AS
SELECT k,
       (SELECT count(*) FROM (SELECT batch_id, corpus_id + g * 1000000, distance FROM qbrute, generate_series(0, 9) g WHERE distance <= k
                              EXCEPT ALL SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id + g * 1000000, fp FROM qc, generate_series(0, 9) g', k)) m) AS missing,
       (SELECT count(*) FROM (SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id + g * 1000000, fp FROM qc, generate_series(0, 9) g', k)
                              EXCEPT ALL SELECT batch_id, corpus_id + g * 1000000, distance FROM qbrute, generate_series(0, 9) g WHERE distance <= k) x) AS extra
  FROM generate_series(0, 8, 4) k;
SET simhash.batch_threads = 0;
SELECT * FROM qcheck;
SET simhash.batch_threads = 5;
SELECT * FROM qcheck;
-- The last NOTICE says how many threads looked up: 5 for the corpus of two chunks, none
-- for qc alone (one fetch).
SET client_min_messages = notice;
SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id + g * 1000000, fp FROM qc, generate_series(0, 9) g', 3);
SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id, fp FROM qc', 3);
SET client_min_messages = warning;
RESET simhash.batch_threads;
-- Out of range: 22023.
\set VERBOSITY sqlstate
SET simhash.batch_threads = 65;
SET simhash.batch_threads = -1;
\set VERBOSITY default
-- Default max_distance 3; the same id on both sides pairs (the two sides' ids are independent).
SELECT count(*) AS pairs, count(*) FILTER (WHERE batch_id = corpus_id) AS same_id
  FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id, fp FROM qc');
-- Exact, as sorted lists, on the small table against a copy with 0, 1 or 2 bits flipped,
-- k = 0..6 (identical groups on both sides, fingerprint 0, a repeated id).
SELECT k, (SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM small WHERE id % 2 = 0', 'SELECT id + 1000, fp # (id % 4) FROM small', k)) AS pairs,
          (SELECT array_agg(ROW(batch_id, corpus_id, distance) ORDER BY 1, 2, 3)
             FROM simhash_duplicates('SELECT id, fp FROM small WHERE id % 2 = 0', 'SELECT id + 1000, fp # (id % 4) FROM small', k))
        = (SELECT array_agg(ROW(a.id, b.id + 1000, hamming(a.fp, b.fp # (b.id % 4))) ORDER BY 1, 2, 3)
             FROM small a JOIN small b ON a.id % 2 = 0 AND hamming(a.fp, b.fp # (b.id % 4)) <= k) AS exact
  FROM generate_series(0, 6) k;

-- Real fingerprints: a batch of 2,000 corpus paragraphs against the whole corpus, k = 0..6.
CREATE TEMP TABLE corpus_batch AS SELECT id, fp FROM corpus_fp WHERE id % 10 = 3;
CREATE TEMP TABLE corpus_qbrute AS
  SELECT b.id AS batch_id, c.id AS corpus_id, hamming(b.fp, c.fp) AS distance
    FROM corpus_batch b JOIN corpus_fp c ON hamming(b.fp, c.fp) <= 6;
SELECT k,
       (SELECT count(*) FROM corpus_qbrute WHERE distance <= k) AS brute_pairs,
       (SELECT count(*) FROM (SELECT * FROM corpus_qbrute WHERE distance <= k
                              EXCEPT ALL SELECT * FROM simhash_duplicates('SELECT id, fp FROM corpus_batch', 'SELECT id, fp FROM corpus_fp', k)) m) AS missing,
       (SELECT count(*) FROM (SELECT * FROM simhash_duplicates('SELECT id, fp FROM corpus_batch', 'SELECT id, fp FROM corpus_fp', k)
                              EXCEPT ALL SELECT * FROM corpus_qbrute WHERE distance <= k) x) AS extra
  FROM generate_series(0, 6) k;

-- Empty sides: no rows.
SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM qb WHERE false', 'SELECT id, fp FROM qc');
SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id, fp FROM qc WHERE false');
-- A NULL query of this form is an error (22004), not an empty set: simhash_duplicates(q, NULL)
-- resolves to it.
SELECT count(*) FROM simhash_duplicates(NULL, 'SELECT id, fp FROM qc');
-- Progress NOTICEs: batch rows, plan, corpus rows and NULLs, pairs.
SET client_min_messages = notice;
SELECT * FROM simhash_duplicates('VALUES (1::bigint, 0::bigint), (2, 0), (3, NULL)',
                                 'VALUES (10::bigint, 1::bigint), (11, NULL), (12, -1)', 2) ORDER BY 1, 2;
SET client_min_messages = warning;
-- Overloads: an integer second argument is the one-query form, text the two-query form.
SELECT count(*) AS one_query_pairs FROM simhash_duplicates('SELECT id, fp FROM small', 3);
SELECT count(*) AS two_query_pairs FROM simhash_duplicates('SELECT id, fp FROM small', 'SELECT id, fp FROM small');
SELECT p.oid::regprocedure FROM pg_proc p WHERE p.proname = 'simhash_duplicates' ORDER BY 1::text;
-- A corpus of several cursor fetches (50,000 rows each): 2,500 copies of small, 150,000
-- rows, so 2,500 times the pairs above.
SELECT count(*) AS pairs, count(*) = 2500 * 132 AS all_fetches_read
  FROM simhash_duplicates('SELECT id, fp FROM small', 'SELECT id * 10000 + g, fp FROM small, generate_series(1, 2500) g');
-- LIMIT stops the stream: a 100,000-row corpus identical to a 100,000-row batch is 10¹⁰
-- pairs; inlined, a ProjectSet under the LIMIT as for the one-query form.
SELECT * FROM simhash_duplicates('SELECT i::bigint, 42::bigint FROM generate_series(1, 100000) i',
                                 'SELECT i::bigint, 43::bigint FROM generate_series(1, 100000) i', 3) LIMIT 3;
EXPLAIN (COSTS OFF) SELECT * FROM simhash_duplicates('SELECT id, fp FROM small', 'SELECT id, fp FROM small') LIMIT 10;
-- Errors, with SQLSTATEs: either side's types, a NULL id on either side, max_distance.
\set VERBOSITY sqlstate
SELECT * FROM simhash_duplicates('SELECT 1, 2::bigint', 'SELECT id, fp FROM qc');
SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id::int, fp FROM qc');
SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id, fp, fp FROM qc');
SELECT * FROM simhash_duplicates('SELECT NULL::bigint, 2::bigint', 'SELECT id, fp FROM qc');
SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT NULL::bigint, 2::bigint');
SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT id, fp FROM qc', 65);
SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT nope FROM qc');
\set VERBOSITY default
SELECT * FROM simhash_duplicates('SELECT id, fp FROM qb', 'SELECT 1, 2');

-- The README's dedup-on-load recipe: load the staged rows that have no near-duplicate in
-- the table and are the smallest id of their in-crawl cluster. Both NOT EXISTS become
-- hashed anti-joins (each function runs once), and what is loaded has no near pair,
-- neither with the table nor inside itself.
CREATE TEMP TABLE docs AS SELECT id, fp FROM qb;
CREATE TEMP TABLE staged AS
  SELECT row_number() OVER (ORDER BY id)::bigint AS sid, fp FROM qc WHERE fp IS NOT NULL AND id % 3 <> 0;
EXPLAIN (COSTS OFF)
SELECT s.sid, s.fp FROM staged s
 WHERE NOT EXISTS (SELECT 1 FROM simhash_duplicates('SELECT sid, fp FROM staged', 'SELECT id, fp FROM docs', 3) d
                    WHERE d.batch_id = s.sid)
   AND NOT EXISTS (SELECT 1 FROM simhash_clusters('SELECT sid, fp FROM staged', 3) c
                    WHERE c.id = s.sid AND c.id <> c.cluster_id);
CREATE TEMP TABLE loaded AS
SELECT s.sid, s.fp FROM staged s
 WHERE NOT EXISTS (SELECT 1 FROM simhash_duplicates('SELECT sid, fp FROM staged', 'SELECT id, fp FROM docs', 3) d
                    WHERE d.batch_id = s.sid)
   AND NOT EXISTS (SELECT 1 FROM simhash_clusters('SELECT sid, fp FROM staged', 3) c
                    WHERE c.id = s.sid AND c.id <> c.cluster_id);
SELECT (SELECT count(*) FROM staged) AS staged, (SELECT count(*) FROM loaded) AS loaded,
       (SELECT count(*) FROM loaded l JOIN docs d ON hamming(l.fp, d.fp) <= 3) AS near_table,
       (SELECT count(*) FROM loaded a JOIN loaded b ON a.sid < b.sid AND hamming(a.fp, b.fp) <= 3) AS near_inside,
       (SELECT count(*) FROM staged s WHERE NOT EXISTS (SELECT 1 FROM docs d WHERE hamming(s.fp, d.fp) <= 3)
           AND NOT EXISTS (SELECT 1 FROM staged t WHERE t.sid <> s.sid AND hamming(s.fp, t.fp) <= 3)
           AND s.sid NOT IN (SELECT sid FROM loaded)) AS lone_rows_not_loaded;
