-- Why two texts are similar (src/similarity/explain.rs; docs/similarity.md): every distinct
-- shingle and figure of either text, as measure 2 reads them (kept characters, digits as
-- written; each figure as normalized, with its inner "." or ","), and which text has it, in
-- order of first occurrence in a, then in b. On every row, the figures the rows add up to,
-- which are simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a):
--   shared(kind) = count(*) FILTER (WHERE kind = ... AND in_a AND in_b)
--   similarity   = shared('shingle') / count('shingle')
--                  * (shared('figure') + 1) / (least(figures of a, figures of b) + 1)
--   a_in_b       = shared('shingle') / count('shingle' in a) * (shared('figure') + 1) / (figures of a + 1)
-- Then (6.0.0) the dedup decision's rows (docs/decision.md): a row of kind 'difference' for
-- each stretch where the texts differ ("a's tokens → b's tokens: what it is, what it costs"),
-- and one of kind 'decision' with the verdict, in_a and in_b true when it is "same passage".
-- 5.x's, without them, is simhash_explain_d1; measure 1's, with its shingles only,
-- simhash_explain_m1 (m1.sql). Qualified names, as in simhash_segments_explain
-- (sql/segments/explain.sql).
CREATE FUNCTION simhash_explain(a text, b text)
    RETURNS TABLE(kind text, item text, in_a boolean, in_b boolean, similarity float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.kind, pg_catalog.convert_from(e.item, 'UTF8'), e.in_a, e.in_b, e.similarity, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_items_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                      pg_catalog.convert_to(b, 'UTF8')) AS e
          UNION ALL
          SELECT d.kind, pg_catalog.convert_from(d.item, 'UTF8'), d.in_a, d.in_b,
                 @extschema@.simhash_similarity(a, b), @extschema@.simhash_containment(a, b),
                 @extschema@.simhash_containment(b, a)
          FROM @extschema@.simhash_explain_decision_d3_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                            pg_catalog.convert_to(b, 'UTF8')) AS d $$;
COMMENT ON FUNCTION simhash_explain(text, text) IS
    'Every distinct shingle and figure (kind) of a and of b, and which has it; similarity, a_in_b and b_in_a are what the rows add up to: simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a). Then the dedup decision''s rows (decision 3, balanced): each difference of the two texts (kind difference) and what it costs, and the verdict (kind decision)';
