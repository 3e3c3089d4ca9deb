-- Bulk pairs by similarity (src/similarity/pairs.rs; docs/similarity.md, "Bulk pairs and
-- clusters"): every pair of rows of a query returning (id bigint, body text) whose similarity
-- is at least min_similarity, with it, found through MinHash bands (a pair at the threshold
-- missed with probability at most 10^-3) and measured exactly. Inlined SQL around
-- a value-per-call C function, as simhash_segment_pairs (sql/segments/pairs.sql), so that
-- LIMIT stops it after the rows it needs.
CREATE FUNCTION simhash_similarity_pairs(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream(query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_pairs(text, float8) IS
    'Every pair of rows of a query returning (id bigint, body text) with simhash_similarity >= min_similarity (0 to 1) whose texts the dedup decision calls the same passage by simhash.decision (balanced by default), once, id1 < id2, with its similarity; streamed, in no particular order';
COMMENT ON FUNCTION simhash_similarity_clusters(text, float8) IS
    'Star clusters of simhash_similarity_pairs, which a DELETE can trust: (id, cluster_id) for every row in a pair, cluster_id the kept row its cluster is around, a row it is paired with (its own id for a kept row); rows are taken in id order, each joining its most similar kept row of smaller id or staying; sorted by (cluster_id, id)';
