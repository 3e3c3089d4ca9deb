-- simhash_duplicates: a SQL function around the value-per-call C function
-- simhash_duplicates_stream (src/batch.rs). A set-returning function in FROM runs to
-- its end into a tuplestore before the first row is read; this SQL function is inlined
-- into the calling query (LANGUAGE sql, STABLE, not STRICT, no SET: PostgreSQL's
-- conditions for inlining a set-returning function), and it calls the C function in a
-- select list, where it is asked for one row at a time. So
-- SELECT * FROM simhash_duplicates(...) LIMIT 10 stops after 10 pairs. The C function
-- is STRICT: a NULL argument still returns no rows.
CREATE FUNCTION simhash_duplicates(fingerprints text, max_distance int DEFAULT 3)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream(fingerprints, max_distance) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_duplicates(text, int) IS
    'Every pair of rows of a query returning (id bigint, fp bigint) within max_distance bits, once, id1 < id2; streamed: distance-0 pairs first, by fingerprint, then the others as found';
