-- Near-duplicate search (issue 3): simhash_block / simhash_probes, simhash_create_blocks,
-- simhash_near / ~= and the planner rewrite into btree block probes. Every rewritten query is
-- compared with the brute-force hamming(fp, q) <= k, which is never rewritten (a seq scan).
CREATE EXTENSION IF NOT EXISTS simhash;
\set VERBOSITY sqlstate

-- Blocks: block i of n covers bits [i*64/n, (i+1)*64/n); bit 0 is the least significant.
SELECT i, to_hex(simhash_block(x'0123456789abcdef'::bigint, i, 4)) FROM generate_series(0, 3) i;
SELECT simhash_block(-1, 1, 2) AS thirty_two_ones_as_int4, simhash_block(-1, 2, 3) AS twenty_two_bits;
SELECT simhash_probes(0, 0, 4, 3) AS radius_0, array_length(simhash_probes(0, 3, 4, 7), 1) AS radius_1;
SELECT simhash_near(0, 7, 3) AS d3, simhash_near(0, 15, 3) AS d4, 0::bigint ~= 7 AS op_d3;

-- Argument errors, each with its SQLSTATE.
SELECT simhash_block(1, 4, 4);
SELECT simhash_block(1, -1, 4);
SELECT simhash_block(1, 0, 1);
SELECT simhash_block(1, 0, 17);
SELECT simhash_probes(1, 0, 2, 64);
SELECT simhash_near(1, 2, 65);
SELECT simhash_near(1, 2, -1);
SET simhash.max_distance = 65;
SET simhash.max_distance = -1;
SET simhash.no_such_setting = 1;

-- Exactness harness: for every k in ks and every query in search_queries, the ids found
-- by simhash_near(fp, <const>, <const>) (rewritten, constant probe arrays), by the same
-- query with k and the query as outer columns (rewritten, simhash_probes at run time) and
-- by hamming(fp, q) <= k (brute force) must be identical. Reports whether the constant
-- query's plan used the block indexes. Sequential scans are disabled inside the check, so
-- index_used says whether the rewrite happened at that k, whatever the planner's costs
-- (on these small tables a seq scan is cheaper from k = 8 up); the plan shapes with
-- default costs are pinned further down.
CREATE TABLE search_queries(qid int, q bigint);
CREATE FUNCTION search_check(tbl regclass, ks int[]) RETURNS TABLE(k int, matches bigint, mismatches bigint, index_used bool)
LANGUAGE plpgsql AS $$
DECLARE
    kk int; qq record; fast int[]; slow int[]; lat int[]; plan text; used bool;
BEGIN
    PERFORM set_config('enable_seqscan', 'off', true);
    FOREACH kk IN ARRAY ks LOOP
        k := kk; matches := 0; mismatches := 0; index_used := true;
        FOR qq IN SELECT * FROM search_queries ORDER BY qid LOOP
            EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM %s WHERE simhash_near(fp, %s, %s)', tbl, qq.q, kk) INTO fast;
            EXECUTE format('SELECT coalesce(array_agg(id ORDER BY id), ''{}'') FROM %s WHERE hamming(fp, %s) <= %s', tbl, qq.q, kk) INTO slow;
            EXECUTE format('SELECT coalesce(array_agg(t.id ORDER BY t.id), ''{}'') FROM (SELECT %s::bigint AS q, %s AS k) p JOIN %s t ON simhash_near(t.fp, p.q, p.k)', qq.q, kk, tbl) INTO lat;
            matches := matches + coalesce(array_length(slow, 1), 0);
            IF fast IS DISTINCT FROM slow OR lat IS DISTINCT FROM slow THEN
                mismatches := mismatches + 1;
            END IF;
            used := false;
            FOR plan IN EXECUTE format('EXPLAIN (COSTS OFF) SELECT id FROM %s WHERE simhash_near(fp, %s, %s)', tbl, qq.q, kk) LOOP
                used := used OR plan LIKE '%Bitmap Index Scan%';
            END LOOP;
            index_used := index_used AND used;
        END LOOP;
        RETURN NEXT;
    END LOOP;
END $$;

-- (a) Uniform fingerprints (deterministic, hash-derived), plus planted near-duplicates of
-- rows 1..2000 at 1..12 flipped bits; generated block columns from simhash_create_blocks.
CREATE TABLE search_uniform(id int PRIMARY KEY, fp bigint);
INSERT INTO search_uniform SELECT g, hashint8extended(g, 1) FROM generate_series(1, 20000) g;
INSERT INTO search_uniform
SELECT 20000 + u.id, u.fp # (SELECT coalesce(bit_or(1::bigint << (hashint8extended(u.id * 100 + j, 2) & 63)::int), 0)
                             FROM generate_series(1, 1 + u.id % 12) j)
FROM search_uniform u WHERE u.id <= 2000;
SELECT simhash_create_blocks('search_uniform', 'fp');
ANALYZE search_uniform;
\d search_uniform
-- Queries: rows 1..10 with 0..3 extra flipped bits.
INSERT INTO search_queries
SELECT id, fp # (CASE WHEN id % 4 > 0 THEN 1::bigint << (id * 5 % 64) ELSE 0 END)
              # (CASE WHEN id % 4 > 1 THEN 1::bigint << (id * 11 % 64) ELSE 0 END)
              # (CASE WHEN id % 4 > 2 THEN 1::bigint << (id * 13 % 64) ELSE 0 END)
FROM search_uniform WHERE id <= 10;
SELECT * FROM search_check('search_uniform', ARRAY(SELECT generate_series(0, 12)));

-- (b) Clustered fingerprints: 20 centres, 4000 rows differing from theirs only within
-- bits 0..11 (block 0), so blocks 1..3 are shared by 200 rows each. Expression indexes,
-- the second one built CONCURRENTLY (the online path: no table rewrite).
CREATE TABLE search_clustered(id int PRIMARY KEY, fp bigint);
INSERT INTO search_clustered
SELECT g, hashint8extended(g % 20, 3) # (hashint8extended(g, 4) & hashint8extended(g, 5) & x'0fff'::bigint)
FROM generate_series(1, 4000) g;
CREATE INDEX ON search_clustered ((simhash_block(fp, 0, 4)));
CREATE INDEX CONCURRENTLY ON search_clustered ((simhash_block(fp, 1, 4)));
CREATE INDEX ON search_clustered ((simhash_block(fp, 2, 4)));
CREATE INDEX ON search_clustered ((simhash_block(fp, 3, 4)));
ANALYZE search_clustered;
TRUNCATE search_queries;
INSERT INTO search_queries SELECT id, fp # (1::bigint << (id * 7 % 64)) FROM search_clustered WHERE id <= 6;
SELECT * FROM search_check('search_clustered', ARRAY(SELECT generate_series(0, 12)));

-- (c) Real fingerprints of the corpus, once with generated block columns, once with
-- expression indexes of 8 blocks.
CREATE TABLE search_docs_gen AS SELECT id, simhash_v0(body) AS fp FROM corpus;  -- definition 0: many identical fingerprints (0)
CREATE TABLE search_docs_idx AS SELECT * FROM search_docs_gen;
SELECT simhash_create_blocks('search_docs_gen', 'fp', 4);
SELECT format('CREATE INDEX ON search_docs_idx ((simhash_block(fp, %s, 8)))', i) FROM generate_series(0, 7) i \gexec
ANALYZE search_docs_gen, search_docs_idx;
TRUNCATE search_queries;
INSERT INTO search_queries SELECT id, fp FROM search_docs_gen WHERE id % 2000 = 1;
SELECT * FROM search_check('search_docs_gen', ARRAY(SELECT generate_series(0, 12)));
SELECT * FROM search_check('search_docs_idx', ARRAY(SELECT generate_series(0, 12)));
-- (d) 3 blocks (21+21+22 bits) only: constant arrays for a constant k, simhash_probes at
-- execution for a run-time k (search_check's lateral join, ~=), exact for every k.
CREATE TABLE search_docs3 AS SELECT id, fp FROM search_docs_gen;
SELECT format('CREATE INDEX ON search_docs3 ((simhash_block(fp, %s, 3)))', i) FROM generate_series(0, 2) i \gexec
ANALYZE search_docs3;
SELECT * FROM search_check('search_docs3', ARRAY(SELECT generate_series(0, 12)));
EXPLAIN (COSTS OFF) SELECT id FROM search_docs3 WHERE fp ~= 1234567890123;

-- Plan shapes.
-- A constant query: constant probe arrays (radius 0 at k = 3 with 4 blocks).
EXPLAIN (COSTS OFF) SELECT id FROM search_uniform WHERE simhash_near(fp, 1234567890123, 3);
-- simhash_v0('some text') is folded to a constant before the rewrite (as simhash(...) is).
EXPLAIN (COSTS OFF) SELECT id FROM search_docs_gen WHERE simhash_near(fp, simhash_v0('中国人民银行发布了新的货币政策'), 3);
-- A generic plan: the probes are computed from $1 at execution.
SET plan_cache_mode = force_generic_plan;
PREPARE search_p(bigint, int) AS SELECT id FROM search_uniform WHERE simhash_near(fp, $1, $2) ORDER BY id;
EXPLAIN (COSTS OFF) EXECUTE search_p(0, 3);
SELECT fp AS q7 FROM search_uniform WHERE id = 7 \gset
EXECUTE search_p(:q7, 4);
RESET plan_cache_mode;
-- A self-join: parameterized bitmap scans of the inner side, never a cross join.
EXPLAIN (COSTS OFF)
SELECT a.id, b.id FROM search_uniform a JOIN search_uniform b ON a.fp ~= b.fp AND a.id < b.id;
SELECT count(*) AS pairs, count(*) FILTER (WHERE b.id - a.id = 20000) AS planted
FROM search_uniform a JOIN search_uniform b ON a.fp ~= b.fp AND a.id < b.id;
-- The pairs of a planted copy (b.id > 20000) or of a row it was made from (a.id <= 2000),
-- by brute force; with a.id < b.id, `b.id <= 2000` implies `a.id <= 2000`, so the condition
-- is on a alone and the scan of a is filtered before the nested loop.
SELECT count(*) AS brute_force_pairs
FROM search_uniform a JOIN search_uniform b ON hamming(a.fp, b.fp) <= 3 AND a.id < b.id
WHERE a.id <= 2000 OR a.id > 20000;
-- ~= reads simhash.max_distance at execution: a cached generic plan follows a later SET.
SET plan_cache_mode = force_generic_plan;
PREPARE search_op(bigint) AS SELECT count(*) FROM search_uniform WHERE fp ~= $1;
SELECT fp AS q3 FROM search_uniform WHERE id = 3 \gset
EXECUTE search_op(:q3);
SET simhash.max_distance = 5;
EXECUTE search_op(:q3);
SELECT count(*) FROM search_uniform WHERE hamming(fp, :q3) <= 5;
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) SELECT id FROM search_uniform WHERE fp ~= 1234567890123;
-- The column may be on either side: distance is symmetric.
EXPLAIN (COSTS OFF) SELECT id FROM search_uniform WHERE 1234567890123 ~= fp;
EXPLAIN (COSTS OFF) SELECT id FROM search_uniform WHERE simhash_near(1234567890123, fp, 3);
SELECT (SELECT array_agg(id ORDER BY id) FROM search_uniform WHERE :q3 ~= fp)
     = (SELECT array_agg(id ORDER BY id) FROM search_uniform WHERE hamming(fp, :q3) <= 5) AS swapped_same;
SELECT count(*) FROM search_uniform u, search_uniform q WHERE q.id <= 100 AND u.fp ~= q.fp;
SELECT count(*) FROM search_uniform u, search_uniform q WHERE q.id <= 100 AND hamming(u.fp, q.fp) <= 5;
RESET simhash.max_distance;
-- No blocks: no rewrite, same results.
CREATE TABLE search_plain AS SELECT * FROM search_uniform;
ANALYZE search_plain;
EXPLAIN (COSTS OFF) SELECT id FROM search_plain WHERE simhash_near(fp, 1234567890123, 3);
SELECT count(*) AS queries, count(*) FILTER (WHERE
    (SELECT array_agg(id ORDER BY id) FROM search_plain WHERE fp ~= q.fp)
     = (SELECT array_agg(id ORDER BY id) FROM search_uniform WHERE fp ~= q.fp)) AS same
FROM search_uniform q WHERE q.id <= 20;
-- A constant k out of range is reported at plan time; NULLs give NULL, not errors.
SELECT id FROM search_uniform WHERE simhash_near(fp, 1, 65);
SELECT count(*) FROM search_uniform WHERE simhash_near(fp, NULL, 3);
SELECT count(*) FROM search_uniform WHERE simhash_near(fp, 1, NULL);
-- A query that depends on the row itself is left alone.
EXPLAIN (COSTS OFF) SELECT id FROM search_uniform WHERE simhash_near(fp, fp # 1, 3);

-- simhash_create_blocks errors.
CREATE TABLE search_bad(id int, fp int, "Mixed Case" bigint);
SELECT simhash_create_blocks('search_bad', 'nope');
SELECT simhash_create_blocks('search_bad', 'fp');
SELECT simhash_create_blocks('search_bad', 'Mixed Case', 1);
SELECT simhash_create_blocks('search_bad', 'Mixed Case', 2);
SELECT attname FROM pg_attribute WHERE attrelid = 'search_bad'::regclass AND attnum > 0 ORDER BY attnum;

DROP TABLE search_uniform, search_clustered, search_docs_gen, search_docs_idx, search_docs3, search_plain, search_bad, search_queries;
DROP FUNCTION search_check(regclass, int[]);
