-- simhash 2.0.1 → 2.1.0: segments matched within k bits, opt-in (docs/segments.md).
-- - simhash_resemblance(a, b, max_distance) and simhash_containment(a, b, max_distance): a
--   segment counts as found in the other text when it has one within max_distance bits.
-- - simhash_similar gains a last parameter, max_distance int DEFAULT 0. Parameters cannot be
--   added in place, so the 2.0 function is dropped and created again as
--   sql/segments/segments.sql creates it: a view that calls simhash_similar makes this update
--   fail, and must be dropped first and made again after.

CREATE FUNCTION simhash_resemblance(a bigint[], b bigint[], max_distance int) RETURNS double precision
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_resemblance_within_wrapper';
CREATE FUNCTION simhash_containment(a bigint[], b bigint[], max_distance int) RETURNS double precision
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_within_wrapper';
COMMENT ON FUNCTION simhash_resemblance(bigint[], bigint[], int) IS
    'Share of both texts'' segments with a segment of the other within max_distance bits (0 to 64; 0 is the two-argument form); compares every pair past 0';
COMMENT ON FUNCTION simhash_containment(bigint[], bigint[], int) IS
    'Share of the first text''s segments with a segment of the second within max_distance bits (0 to 64; 0 is the two-argument form)';

DROP FUNCTION simhash_similar(regclass, name, bigint[], float8, int);
-- The rows sharing a rare segment with the query, through the GIN index, with how much
-- they share: row_ctid identifies the row within the statement (join on ctid). With
-- max_distance > 0 (since 2.1.0) the candidates are the same, and a segment counts as
-- shared when the other text has one within max_distance bits.
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
    'Rows whose segments_column shares a rare segment with the given segments: resemblance and containment both ways (segments matched within max_distance bits), most similar first';
