-- simhash 2.0.1 → 2.1.0: segments matched within k bits, opt-in (docs/segments.md).
-- - simhash_resemblance(a, b, max_distance) and simhash_containment(a, b, max_distance): a
--   segment the other text has not, but has one within max_distance bits of, counts half.
-- - simhash_similar, simhash_segment_pairs and simhash_segment_clusters gain a last
--   parameter, max_distance int DEFAULT 0 (simhash_segment_pairs_stream a fourth one).
--   Parameters cannot be added in place, so the 2.0 functions are dropped and created again
--   as a fresh install creates them (sql/segments/): a view that calls one makes this update
--   fail, and must be dropped first and made again after.
-- - simhash_segments_dedup_trigger's option "max_distance" needs no SQL change.

CREATE FUNCTION simhash_resemblance(a bigint[], b bigint[], max_distance int) RETURNS double precision
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_resemblance_within_wrapper';
CREATE FUNCTION simhash_containment(a bigint[], b bigint[], max_distance int) RETURNS double precision
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_within_wrapper';
COMMENT ON FUNCTION simhash_resemblance(bigint[], bigint[], int) IS
    'Share of both texts'' segments found in the other, one found only within max_distance bits (0 to 64; 0 is the two-argument form) counting half; compares every pair past 0';
COMMENT ON FUNCTION simhash_containment(bigint[], bigint[], int) IS
    'Share of the first text''s segments found in the second, one found only within max_distance bits (0 to 64; 0 is the two-argument form) counting half';

DROP FUNCTION simhash_similar(regclass, name, bigint[], float8, int);
-- The rows sharing a rare segment with the query, through the GIN index, with how much
-- they share: row_ctid identifies the row within the statement (join on ctid). With
-- max_distance > 0 (since 2.1.0) the candidates are the same, and a segment the other text
-- has not, but has one within max_distance bits of, counts half.
CREATE FUNCTION simhash_similar(tbl regclass, segments_column name, segments bigint[],
                                min_resemblance float8 DEFAULT 0, max_rows int DEFAULT 1000,
                                max_distance int DEFAULT 0)
    RETURNS TABLE(row_ctid tid, resemblance float8, query_in_row float8, row_in_query float8)
    STABLE STRICT ROWS 10
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rare bigint[] := @extschema@.simhash_rare_segments(tbl, segments_column, segments, max_rows);
BEGIN
    IF max_distance NOT BETWEEN 0 AND 64 THEN
        RAISE EXCEPTION 'simhash_similar: max_distance must be between 0 and 64, got %', max_distance
            USING ERRCODE = '22023';
    END IF;
    IF cardinality(rare) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT * FROM (SELECT t.ctid, @extschema@.simhash_resemblance($1, t.%1$I, $4), '
        '@extschema@.simhash_containment($1, t.%1$I, $4), @extschema@.simhash_containment(t.%1$I, $1, $4) '
        'FROM %2$s t WHERE t.%1$I && $2) s(c, r, q, w) WHERE s.r >= $3 ORDER BY s.r DESC, s.c',
        segments_column, tbl)
        USING segments, rare, min_resemblance, max_distance;
END
$$;
COMMENT ON FUNCTION simhash_similar(regclass, name, bigint[], float8, int, int) IS
    'Rows whose segments_column shares a rare segment with the given segments: resemblance and containment both ways (a segment found only within max_distance bits counting half), most similar first';

DROP FUNCTION simhash_segment_pairs(text, float8, int);
DROP FUNCTION simhash_segment_pairs_stream(text, float8, int);
DROP FUNCTION simhash_segment_clusters(text, float8, int);
CREATE FUNCTION simhash_segment_clusters(segments text, min_resemblance double precision,
                                         max_rows int DEFAULT 1000, max_distance int DEFAULT 0)
    RETURNS TABLE (id bigint, cluster_id bigint)
    STRICT VOLATILE PARALLEL UNSAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segment_clusters_wrapper';
CREATE FUNCTION simhash_segment_pairs_stream(segments text, min_resemblance double precision, max_rows int,
                                             max_distance int)
    RETURNS TABLE (id1 bigint, id2 bigint, resemblance double precision, id1_in_id2 double precision,
                   id2_in_id1 double precision)
    STRICT VOLATILE PARALLEL UNSAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segment_pairs_wrapper';
CREATE FUNCTION simhash_segment_pairs(segments text, min_resemblance float8, max_rows int DEFAULT 1000,
                                      max_distance int DEFAULT 0)
    RETURNS TABLE(id1 bigint, id2 bigint, resemblance float8, id1_in_id2 float8, id2_in_id1 float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).resemblance, (p).id1_in_id2, (p).id2_in_id1
          FROM (SELECT @extschema@.simhash_segment_pairs_stream(segments, min_resemblance, max_rows, max_distance) AS p
                OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_segment_pairs(text, float8, int, int) IS
    'Every pair of rows of a query returning (id bigint, segments bigint[]) with resemblance >= min_resemblance (segments matched within max_distance bits) that shares a segment at most max_rows rows have, once, id1 < id2, with containment both ways; streamed by id1, id2';
COMMENT ON FUNCTION simhash_segment_clusters(text, float8, int, int) IS
    'Connected components of simhash_segment_pairs: (id, cluster_id) for every row in a pair, cluster_id the smallest id of its component';
