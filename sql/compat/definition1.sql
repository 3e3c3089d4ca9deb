-- Definition 1 (1.0.0 to 1.1.0), kept reachable (src/compat/definitions.rs; docs/fingerprint.md,
-- "Upgrading from 1.x to 2.0"). These are 1.x's functions under new names: `ALTER EXTENSION simhash
-- UPDATE` renames the 1.x objects to these (keeping their OIDs), so every generated column, index,
-- view and trigger created under 1.x goes on computing definition 1, and a fresh 2.0.0 install has
-- the same functions.

CREATE FUNCTION simhash_v1(doc text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_v1';
COMMENT ON FUNCTION simhash_v1(text) IS
    'simhash(doc) of versions 1.0.0 to 1.1.0 (definition 1): what fingerprints stored under 1.x are';

CREATE FUNCTION simhash_v1(doc text, options jsonb) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_v1';
COMMENT ON FUNCTION simhash_v1(text, jsonb) IS
    'simhash(doc, options) of versions 1.0.0 to 1.1.0: definition 1 unless the options name another';

CREATE FUNCTION simhash_update_trigger_v1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger_v1';
COMMENT ON FUNCTION simhash_update_trigger_v1() IS
    'simhash_update_trigger of versions 1.0.0 to 1.1.0: definition 1 unless an options argument names another';

CREATE FUNCTION simhash_dedup_trigger_v1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_v1';
COMMENT ON FUNCTION simhash_dedup_trigger_v1() IS
    'simhash_dedup_trigger of versions 1.0.0 to 1.1.0: definition 1 unless an options argument names another';
