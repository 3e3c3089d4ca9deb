-- simhash 2.0.0 → 2.0.1:
-- - simhash_rare_segments (and so simhash_similar) with max_rows = 2147483647 raised 22003
--   (integer out of range) from its LIMIT max_rows + 1; the limit is now computed in bigint.
--   The function below is sql/segments/segments.sql's, as a fresh install creates it.
-- - simhash_segments_dedup_query, simhash_dedup_query's counterpart for the segment dedup
--   trigger (sql/trigger/trigger.sql's).

-- The query's segments that at most max_rows rows of the table have: a passage repeated
-- in thousands of rows (a disclaimer, a dateline) finds candidates by the thousand and
-- says nothing about any one of them. Each count stops at max_rows + 1 rows.
CREATE OR REPLACE FUNCTION simhash_rare_segments(tbl regclass, segments_column name, segments bigint[],
                                      max_rows int DEFAULT 1000)
    RETURNS bigint[]
    STABLE STRICT
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    out bigint[];
BEGIN
    IF max_rows < 1 THEN
        RAISE EXCEPTION 'simhash_rare_segments: max_rows must be at least 1, got %', max_rows USING ERRCODE = '22023';
    END IF;
    EXECUTE format(
        'SELECT coalesce(array_agg(k ORDER BY o), ''{}'') FROM (SELECT DISTINCT ON (k) k, o FROM unnest($1) WITH ORDINALITY u(k, o) '
        'WHERE k IS NOT NULL ORDER BY k, o) d '
        'WHERE (SELECT count(*) FROM (SELECT 1 FROM %s t WHERE t.%I @> ARRAY[d.k] LIMIT $2::int8 + 1) x) <= $2',
        tbl, segments_column)
        INTO out USING segments, max_rows;
    RETURN out;
END
$$;

CREATE FUNCTION simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query';
COMMENT ON FUNCTION simhash_segments_dedup_query(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance), with its index pre-check in a trailing comment';
