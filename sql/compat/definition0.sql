-- Definition 0 (0.1.0 to 0.3.0), kept reachable (src/compat/definitions.rs; docs/fingerprint.md,
-- "Upgrading from 0.x to 1.0"). These are the 0.x functions under new names: `ALTER EXTENSION simhash UPDATE`
-- renames the 0.x objects to these (keeping their OIDs), so every generated column, index,
-- view and trigger created under 0.x goes on computing definition 0, and a fresh 1.0.0
-- install has the same functions.

CREATE FUNCTION simhash_v0(doc text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text';
COMMENT ON FUNCTION simhash_v0(text) IS
    'simhash(doc) of versions 0.1.0 to 0.3.0 (definition 0): what fingerprints stored before 1.0.0 are';

CREATE FUNCTION simhash_v0(doc text, options jsonb) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options';
COMMENT ON FUNCTION simhash_v0(text, jsonb) IS
    'simhash(doc, options) of versions 0.1.0 to 0.3.0: definition 0 unless the options name another';

CREATE FUNCTION simhash_update_trigger_v0() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger';
COMMENT ON FUNCTION simhash_update_trigger_v0() IS
    'simhash_update_trigger of versions 0.2.0 to 0.3.0: definition 0 unless an options argument names another';

CREATE FUNCTION simhash_dedup_trigger_v0() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger';
COMMENT ON FUNCTION simhash_dedup_trigger_v0() IS
    'simhash_dedup_trigger of versions 0.2.0 to 0.3.0: definition 0 unless an options argument names another';
