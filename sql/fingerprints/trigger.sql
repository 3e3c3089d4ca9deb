-- Fingerprint insert triggers (src/fingerprints/trigger.rs, on src/trigger/; README.md, "Deduplicating on insert"): keep a fingerprint column current,
-- and reject, skip or link near-duplicates as they are written. The `_v3` C symbols default to
-- definition 3 (the `_v2` and `_v1` symbols, definitions 2 and 1, are sql/compat/definition2.sql's
-- and definition1.sql's); the 0.x symbols (`simhash_update_trigger`, `simhash_dedup_trigger`) keep definition 0
-- for 0.x's functions, in a database not yet updated and as the `_v0` functions (sql/compat/definition0.sql).

CREATE FUNCTION simhash_update_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger_v3';
COMMENT ON FUNCTION simhash_update_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column [, options]): sets fp_column = simhash(text_column [, options]); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

-- The dedup triggers decide by the dedup decision (src/trigger/mod.rs, Decision;
-- docs/decision.md): the `_d3` C symbols read the measure's candidates, best first, and take
-- the first decision 3 (7.0.0) calls the same passage. 6.0's (decision 2) are the `_d2`
-- functions (sql/compat/decision2.sql), 5.x's, which take the nearest candidate, the `_d1`
-- functions (sql/compat/decision1.sql).
CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_d3';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on a near-duplicate: a row within max_distance bits whose text the dedup decision calls the same passage (the nearest such); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''. The option "decision" (7.0.0) picks the dedup decision''s strictness, ''{"decision": "loose"}'', balanced by default, strict; or none, the measure alone';

CREATE FUNCTION simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query_d3';
COMMENT ON FUNCTION simhash_dedup_query(regclass, text[]) IS
    'The check query simhash_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint): every row within the bound, nearest first, with its text for the dedup decision';
