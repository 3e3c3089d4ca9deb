-- Exact nearest neighbours (issue 13, part 2): simhash_nearest(tbl, fp_column, query, n).
-- Every answer is compared with the brute force
--   SELECT ctid, hamming(fp, q) FROM t WHERE fp IS NOT NULL ORDER BY 2, ctid LIMIT n
-- (same rows, same order: ties at the n-th distance go to the smaller ctid), for n = 1,
-- 10 and 100, on uniform, clustered and corpus fingerprints, with 2-, 3- and 4-block sets
-- of generated columns and of expression indexes; with the sequential-scan fallback on
-- (the default) and off (probes only, where the shells stay small enough for a test).
CREATE EXTENSION IF NOT EXISTS simhash;
\set VERBOSITY sqlstate

-- Deterministic fingerprints: md5 bits, and copies with bits flipped.
CREATE FUNCTION nn_fp(seed text) RETURNS bigint IMMUTABLE LANGUAGE sql
    AS $$ SELECT ('x' || md5(seed))::bit(64)::bigint $$;
CREATE FUNCTION nn_flip(fp bigint, seed text, nbits int) RETURNS bigint IMMUTABLE LANGUAGE sql
    AS $$ SELECT fp # coalesce((SELECT bit_or(1::bigint << (get_byte(decode(md5(seed || k), 'hex'), 0) % 64))
                                FROM generate_series(1, nbits) k), 0) $$;

-- 1 when simhash_nearest's answer differs from the brute force, else 0.
CREATE FUNCTION nn_mismatch(tbl regclass, q bigint, n int) RETURNS int LANGUAGE plpgsql AS $$
DECLARE got text; want text;
BEGIN
    SELECT string_agg(format('%s:%s:%s', ctid, fp, distance), ' ') INTO got
        FROM simhash_nearest(tbl, 'fp', q, n);
    EXECUTE format('SELECT string_agg(format(''%%s:%%s:%%s'', ctid, fp, d), '' '' ORDER BY d, ctid)
                    FROM (SELECT ctid, fp, hamming(fp, $1) AS d FROM %s WHERE fp IS NOT NULL
                          ORDER BY 3, 1 LIMIT $2) s', tbl) INTO want USING q, n;
    IF got IS DISTINCT FROM want THEN
        RAISE NOTICE 'mismatch on % q=% n=%: got % want %', tbl, q, n, got, want;
    END IF;
    RETURN (got IS DISTINCT FROM want)::int;
END $$;

-- Queries: 3 existing fingerprints, flipped by 0, 2 and 5 bits, and 3 random ones
-- (unless near_only).
CREATE FUNCTION nn_queries(tbl regclass, near_only boolean) RETURNS SETOF bigint LANGUAGE plpgsql AS $$
DECLARE q bigint; i int := 0;
BEGIN
    FOR q IN EXECUTE format('SELECT fp FROM %s WHERE fp IS NOT NULL ORDER BY ctid OFFSET 7 LIMIT 3', tbl) LOOP
        RETURN NEXT nn_flip(q, 'q' || i, (ARRAY[0, 2, 5])[i + 1]);
        i := i + 1;
    END LOOP;
    RETURN QUERY SELECT nn_fp('random query ' || k) FROM generate_series(1, 3) k WHERE NOT near_only;
END $$;

-- Mismatches over every query and n = 1, 10, 100 (0 everywhere is the pass).
CREATE FUNCTION nn_check(tbl regclass, ns int[] DEFAULT '{1,10,100}', near_only boolean DEFAULT false)
    RETURNS TABLE(n int, queries bigint, mismatches bigint)
    LANGUAGE sql AS $$
    SELECT n, count(*), sum(nn_mismatch(tbl, q, n)) FROM unnest(ns) n, nn_queries(tbl, near_only) q GROUP BY n ORDER BY n $$;

-- Uniform fingerprints (3,000, and 20 NULLs, which are never neighbours).
CREATE TABLE nn_uniform_g4(id int PRIMARY KEY, fp bigint);
INSERT INTO nn_uniform_g4 SELECT i, CASE WHEN i % 150 = 0 THEN NULL ELSE nn_fp('u' || i) END
    FROM generate_series(1, 3000) i;
CREATE TABLE nn_uniform_e3 AS SELECT * FROM nn_uniform_g4;
CREATE TABLE nn_uniform_g2 AS SELECT * FROM nn_uniform_g4;
SELECT simhash_create_blocks('nn_uniform_g4', 'fp', 4);
CREATE INDEX ON nn_uniform_e3 (simhash_block(fp, 0, 3));
CREATE INDEX ON nn_uniform_e3 (simhash_block(fp, 1, 3));
CREATE INDEX ON nn_uniform_e3 (simhash_block(fp, 2, 3));
SELECT simhash_create_blocks('nn_uniform_g2', 'fp', 2);

-- Clustered: 60 centres with 30 members each within 0-4 flipped bits, and exact copies
-- (many ties at every distance).
CREATE TABLE nn_cluster_e4(id int PRIMARY KEY, fp bigint);
INSERT INTO nn_cluster_e4
    SELECT c * 100 + m, nn_flip(nn_fp('c' || c), 'm' || c || '.' || m, (m % 5) * (m % 3))
    FROM generate_series(1, 60) c, generate_series(1, 30) m;
CREATE TABLE nn_cluster_g3 AS SELECT * FROM nn_cluster_e4;
CREATE TABLE nn_cluster_e2 AS SELECT * FROM nn_cluster_e4;
CREATE INDEX ON nn_cluster_e4 (simhash_block(fp, 0, 4));
CREATE INDEX ON nn_cluster_e4 (simhash_block(fp, 1, 4));
CREATE INDEX ON nn_cluster_e4 (simhash_block(fp, 2, 4));
CREATE INDEX ON nn_cluster_e4 (simhash_block(fp, 3, 4));
SELECT simhash_create_blocks('nn_cluster_g3', 'fp', 3);
CREATE INDEX ON nn_cluster_e2 (simhash_block(fp, 0, 2));
CREATE INDEX ON nn_cluster_e2 (simhash_block(fp, 1, 2));
SELECT count(DISTINCT fp) AS distinct_fps, count(*) AS rows FROM nn_cluster_e4;

-- The corpus: simhash_v0(body) (definition 0, never NULL) and simhash(body) (definition
-- 1, NULL for short paragraphs).
CREATE TABLE nn_corpus_g4 AS SELECT id, simhash_v0(body) AS fp FROM corpus;
SELECT simhash_create_blocks('nn_corpus_g4', 'fp', 4);
CREATE TABLE nn_corpus_e3 AS SELECT id, simhash(body) AS fp FROM corpus;
CREATE INDEX ON nn_corpus_e3 (simhash_block(fp, 0, 3));
CREATE INDEX ON nn_corpus_e3 (simhash_block(fp, 1, 3));
CREATE INDEX ON nn_corpus_e3 (simhash_block(fp, 2, 3));
SELECT count(*) FILTER (WHERE fp IS NULL) > 0 AS some_null_fps FROM nn_corpus_e3;
ANALYZE;

-- With the fallback (the default).
SELECT 'uniform, 4 generated' AS t, * FROM nn_check('nn_uniform_g4');
SELECT 'uniform, 3 expression' AS t, * FROM nn_check('nn_uniform_e3');
SELECT 'uniform, 2 generated' AS t, * FROM nn_check('nn_uniform_g2');
SELECT 'clustered, 4 expression' AS t, * FROM nn_check('nn_cluster_e4');
SELECT 'clustered, 3 generated' AS t, * FROM nn_check('nn_cluster_g3');
SELECT 'clustered, 2 expression' AS t, * FROM nn_check('nn_cluster_e2');
SELECT 'corpus v0, 4 generated' AS t, * FROM nn_check('nn_corpus_g4');
SELECT 'corpus v1, 3 expression' AS t, * FROM nn_check('nn_corpus_e3');

-- Probes only: the stopping rule alone ends every search. (Far queries with 2 and 3
-- blocks would probe shells of millions of values here: that is what the fallback is for.)
SET simhash.nearest_scan_fallback = off;
SELECT 'uniform, 4 generated' AS t, * FROM nn_check('nn_uniform_g4');
SELECT 'uniform, 3 expression' AS t, * FROM nn_check('nn_uniform_e3', '{1}');
SELECT 'clustered, 4 expression' AS t, * FROM nn_check('nn_cluster_e4');
SELECT 'clustered, 3 generated' AS t, * FROM nn_check('nn_cluster_g3', '{1,10}', true);
SELECT 'clustered, 2 expression' AS t, * FROM nn_check('nn_cluster_e2', '{1,10}', true);
SELECT 'corpus v0, 4 generated' AS t, * FROM nn_check('nn_corpus_g4');
SELECT 'corpus v1, 3 expression' AS t, * FROM nn_check('nn_corpus_e3', '{1,10}', true);
-- n above the number of rows: every row, ending when a block is probed to its full width.
CREATE TABLE nn_small(id int, fp bigint);
INSERT INTO nn_small VALUES (1, 0), (2, -1), (3, 255), (4, NULL);
SELECT simhash_create_blocks('nn_small', 'fp', 4);
SELECT * FROM simhash_nearest('nn_small', 'fp', 1, 10);
RESET simhash.nearest_scan_fallback;
SELECT * FROM simhash_nearest('nn_small', 'fp', 1, 10);

-- Ties at the n-th distance: the smaller ctid wins.
SELECT ctid, distance FROM simhash_nearest('nn_cluster_e4', 'fp', nn_fp('c7'), 3);

-- Joining the rows back by ctid, in the same statement.
SELECT u.id, nn.distance FROM simhash_nearest('nn_uniform_g4', 'fp', nn_fp('u42'), 2) nn
    JOIN nn_uniform_g4 u ON u.ctid = nn.ctid ORDER BY nn.distance, nn.ctid;
EXPLAIN (COSTS OFF) SELECT u.* FROM simhash_nearest('nn_uniform_g4', 'fp', 0, 2) nn
    JOIN nn_uniform_g4 u ON u.ctid = nn.ctid;

-- NULL arguments: no rows (STRICT).
SELECT count(*) FROM simhash_nearest('nn_small', 'fp', NULL, 3);
SELECT count(*) FROM simhash_nearest('nn_small', 'fp', 1, NULL);

-- Errors, each with its SQLSTATE.
SELECT * FROM simhash_nearest('nn_small', 'fp', 1, 0);
SELECT * FROM simhash_nearest('nn_small', 'fp', 1, 10001);
SELECT * FROM simhash_nearest('nn_small', 'no_such_column', 1, 1);
SELECT * FROM simhash_nearest('nn_small', 'id', 1, 1);
CREATE VIEW nn_view AS SELECT * FROM nn_small;
SELECT * FROM simhash_nearest('nn_view', 'fp', 1, 1);
-- No block set, or an incomplete one (3 of 4 blocks): 55000, with a hint.
CREATE TABLE nn_noblocks(fp bigint);
CREATE INDEX ON nn_noblocks (simhash_block(fp, 0, 4));
CREATE INDEX ON nn_noblocks (simhash_block(fp, 1, 4));
CREATE INDEX ON nn_noblocks (simhash_block(fp, 2, 4));
SELECT * FROM simhash_nearest('nn_noblocks', 'fp', 1, 1);
\set VERBOSITY default
SELECT * FROM simhash_nearest('nn_noblocks', 'fp', 1, 1);
\set VERBOSITY sqlstate

DROP TABLE nn_uniform_g4, nn_uniform_e3, nn_uniform_g2, nn_cluster_e4, nn_cluster_g3, nn_cluster_e2,
    nn_corpus_g4, nn_corpus_e3, nn_small, nn_noblocks CASCADE;
DROP FUNCTION nn_check, nn_queries, nn_mismatch, nn_flip, nn_fp;
