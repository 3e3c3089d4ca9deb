-- Bulk pairs by resemblance (src/segments/pairs.rs; docs/segments-pairs.md): every pair of
-- rows of a query returning (id bigint, segments bigint[]) whose resemblance is at least
-- min_resemblance, found through the segments at most max_rows rows have (the frequent-passage
-- rule of simhash_rare_segments); with max_distance > 0 (2.1.0), segments matched within that
-- many bits. Inlined SQL around a value-per-call C function, as simhash_duplicates
-- (sql/fingerprints/pairs.sql), so that LIMIT stops it after the rows it needs.
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
