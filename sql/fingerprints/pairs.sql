-- simhash_duplicates: a SQL function around the value-per-call C function
-- simhash_duplicates_stream (src/fingerprints/pairs/all_pairs.rs). A set-returning function in FROM runs to
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
    'Every pair of rows of a query returning (id bigint, fp bigint) within max_distance bits, once, id1 < id2; with a third column (body text), only the pairs whose texts the dedup decision calls the same passage by simhash.decision; streamed: distance-0 pairs first, by fingerprint, then the others as found';

-- The two-query form: every (batch row, corpus row) pair within max_distance, the batch
-- in memory, the corpus streamed through a cursor (src/fingerprints/pairs/corpus.rs). Inlined for the same
-- reason as above. simhash_duplicates('q', 3) still resolves to the one-query form: 3 is
-- an integer, not text; with two string literals this form is chosen.
CREATE FUNCTION simhash_duplicates(batch text, corpus text, max_distance int DEFAULT 3)
    RETURNS TABLE(batch_id bigint, corpus_id bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).batch_id, (p).corpus_id, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream(batch, corpus, max_distance) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_duplicates(text, text, int) IS
    'Every (batch row, corpus row) pair within max_distance bits, both queries returning (id bigint, fp bigint), or both (id bigint, fp bigint, body text) and then only the pairs whose texts the dedup decision calls the same passage by simhash.decision; the batch is held in memory, the corpus streamed; pairs inside the batch are left out';
