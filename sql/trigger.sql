-- Insert triggers (src/trigger.rs; README.md, "Deduplicating on insert"): keep a fingerprint column current,
-- and reject, skip or link near-duplicates as they are written.

CREATE FUNCTION simhash_update_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger';
COMMENT ON FUNCTION simhash_update_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column): sets fp_column = simhash(text_column)';

CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column]): sets the fingerprint and acts on near-duplicates';

CREATE FUNCTION simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query';
COMMENT ON FUNCTION simhash_dedup_query(regclass, text[]) IS
    'The check query simhash_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint)';
