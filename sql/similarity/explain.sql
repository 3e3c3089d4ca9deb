-- Why two texts are similar (src/similarity/explain.rs; docs/similarity.md): every distinct
-- shingle of either text, as the measure reads it (kept characters, digits as 0), and which
-- text has it, in order of first occurrence in a, then in b. On every row, the figures the
-- rows add up to, which are simhash_similarity(a, b), simhash_containment(a, b) and
-- simhash_containment(b, a):
--   similarity = count(*) FILTER (WHERE in_a AND in_b) / count(*)
--   a_in_b     = count(*) FILTER (WHERE in_a AND in_b) / count(*) FILTER (WHERE in_a)
-- Qualified names, as in simhash_segments_explain (sql/segments/explain.sql).
CREATE FUNCTION simhash_explain(a text, b text)
    RETURNS TABLE(shingle text, in_a boolean, in_b boolean, similarity float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(e.shingle, 'UTF8'), e.in_a, e.in_b, e.similarity, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_shingles_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                         pg_catalog.convert_to(b, 'UTF8')) AS e $$;
COMMENT ON FUNCTION simhash_explain(text, text) IS
    'Every distinct shingle of a and of b, and which has it; similarity, a_in_b and b_in_a are what the rows add up to: simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a)';
