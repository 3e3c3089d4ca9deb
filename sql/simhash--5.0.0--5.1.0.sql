-- simhash 5.0.0 → 5.1.0 (CHANGELOG.md; docs/scaling-out.md, "Bulk pairs across many shards";
-- issue 39): bulk pairs across shards by band ranges. Three functions and a stream are new;
-- no existing object changes, and no fingerprint, key or similarity changes.
\echo Use "ALTER EXTENSION simhash UPDATE TO '5.1.0'" to load this file. \quit

-- src/similarity/shard.rs: simhash_similarity_band_candidates_stream
CREATE FUNCTION "simhash_similarity_band_candidates_stream"(
	"slice_query" TEXT, /* & str */
	"min_similarity" double precision /* f64 */
) RETURNS TABLE (
	"home" INT,  /* i32 */
	"id1" bigint,  /* i64 */
	"id2" bigint  /* i64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_band_candidates_wrapper';

-- src/similarity/shard.rs: simhash_similarity_band_slice
CREATE FUNCTION "simhash_similarity_band_slice"(
	"keys" bytea, /* & [u8] */
	"home" INT, /* i32 */
	"shard" INT, /* i32 */
	"shards" INT /* i32 */
) RETURNS bytea /* Vec < u8 > */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_band_slice_wrapper';

-- Bulk pairs across many shards by band ranges (5.1.0; docs/scaling-out.md, "Bulk pairs
-- across many shards"): shard s owns about 1/shards of the bands. Each shard reads its slice
-- of every document (simhash_similarity_band_slice: its bands, codes and set size, about 68
-- bytes at 16 shards and 0.5), and finds the candidates of its bands
-- (simhash_similarity_band_candidates), each tagged with the home shard of its lower id; the
-- home shards then remove repeats, fetch the other texts and measure
-- (simhash_similarity_candidate_pairs). Every shard's work falls as 1/shards but for reading
-- the slices; every pair one node finds is found, once.
CREATE FUNCTION simhash_similarity_band_candidates(slice_query text, min_similarity float8)
    RETURNS TABLE(home int, id1 bigint, id2 bigint)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).home, (p).id1, (p).id2
          FROM (SELECT @extschema@.simhash_similarity_band_candidates_stream(slice_query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_band_candidates(text, float8) IS
    'One shard''s first step of bulk pairs by band ranges: over the (id, slice) rows of slice_query (every document''s simhash_similarity_band_slice for this shard), the pairs colliding in its bands that pass the filters, each once, unmeasured, with the home shard of id1 (id1 < id2); the same pair may come from other shards';
COMMENT ON FUNCTION simhash_similarity_band_slice(bytea, int, int, int) IS
    'Shard shard''s slice (of shards) of the band keys of a document living on shard home: the bands that shard owns, the codes and the set size, for simhash_similarity_band_candidates';

-- The second step, on every shard once all have made their candidates: those whose lower id
-- lives here (home = shard), repeats removed, measured on this shard's text and the other
-- one's (from docs, or remote_docs: the ids pushed down to the shards).
CREATE FUNCTION simhash_similarity_candidate_pairs(docs regclass, id_column name, text_column name, candidates regclass,
                                                   remote_docs regclass, shard int, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF shard IS NULL OR shard < 0 THEN
        RAISE EXCEPTION '%: shard must be at least 0, got %', 'simhash_similarity_candidate_pairs', coalesce(shard::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF min_similarity IS NULL OR NOT (min_similarity BETWEEN 0 AND 1) THEN
        RAISE EXCEPTION '%: min_similarity must be between 0 and 1, got %', 'simhash_similarity_candidate_pairs',
            coalesce(min_similarity::text, 'NULL') USING ERRCODE = '22023';
    END IF;
    CREATE TEMP TABLE simhash_home_candidates ON COMMIT DROP AS
        SELECT 0::pg_catalog.int8 AS id1, 0::pg_catalog.int8 AS id2 WITH NO DATA;
    EXECUTE format('INSERT INTO pg_temp.simhash_home_candidates SELECT DISTINCT id1, id2 FROM %s WHERE home = $1', candidates)
        USING shard;
    RETURN QUERY EXECUTE format(
        'WITH c AS (SELECT id1, id2 FROM pg_temp.simhash_home_candidates),
              lt AS (SELECT %3$I::pg_catalog.int8 AS id, %4$I::pg_catalog.text AS body FROM %1$s
                      WHERE %3$I = ANY (ARRAY(SELECT id1 FROM c))),
              ot AS (SELECT %3$I::pg_catalog.int8 AS id, %4$I::pg_catalog.text AS body FROM %1$s
                      WHERE %3$I = ANY (ARRAY(SELECT id2 FROM c))
                     UNION ALL
                     SELECT %3$I::pg_catalog.int8, %4$I::pg_catalog.text FROM %2$s
                      WHERE %3$I = ANY (ARRAY(SELECT id2 FROM c)))
         SELECT c.id1, c.id2, m.s
           FROM c JOIN lt ON lt.id = c.id1 JOIN ot ON ot.id = c.id2,
                LATERAL (SELECT @extschema@.simhash_similarity(lt.body, ot.body)::pg_catalog.float8 AS s) m
          WHERE m.s >= $1', docs, remote_docs, id_column, text_column) USING min_similarity;
    DROP TABLE pg_temp.simhash_home_candidates;
END $$;
COMMENT ON FUNCTION simhash_similarity_candidate_pairs(regclass, name, name, regclass, regclass, int, float8) IS
    'On a shard, the second step of bulk pairs by band ranges: the candidates of every shard (candidates: a table of simhash_similarity_band_candidates rows) whose lower id lives here, once, measured, those at min_similarity or more; over all shards, every pair once';
