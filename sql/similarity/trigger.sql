-- Dedup by exact text similarity or containment (src/similarity/trigger.rs): candidates
-- come through a simhash_ops GIN index on the text column (sql/similarity/gin.sql). The `_m2`
-- C symbols are measure 2's, as simhash_similarity's; 5.x's (`_d1`) and measure 1's (`_m1`)
-- are in sql/compat/.
CREATE FUNCTION simhash_similarity_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_d3';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (text_column, min_similarity, reject|skip|link [, link_column] [, options]): acts on an existing row with simhash_similarity(existing, new) >= min_similarity (0 < min_similarity <= 1), or, with options ''{"min_containment": g}'', whose text contains the new one or is contained in it at g or more (simhash_containment either way), and which the dedup decision calls the same passage as the new text. The match is the most similar such row. Candidates come through a simhash_ops GIN index on the text column; without one the check scans the table and inserts run one at a time. A NULL text or one without a letter or digit is never a duplicate. The option "decision" (7.0.0) picks the dedup decision''s strictness, ''{"decision": "loose"}'', balanced by default, strict; or none, the measure alone';

CREATE FUNCTION simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_d3';
COMMENT ON FUNCTION simhash_similarity_dedup_query(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new text, $2 = min_similarity, $3 = min_containment): every candidate, most similar first, with its text for the dedup decision; how it finds candidates and what it locks in a trailing comment';
