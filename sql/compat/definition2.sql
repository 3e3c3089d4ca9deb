-- Definition 2 (2.0.0 to 2.2.0), kept reachable (src/compat/definitions.rs; docs/fingerprint.md,
-- "Upgrading from 2.x to 3.0"). These are 2.x's functions under new names: `ALTER EXTENSION simhash
-- UPDATE` renames the 2.x objects to these (keeping their OIDs), so every generated column, index,
-- view and trigger created under 2.x goes on computing definition 2, its fingerprints and its
-- segments, and a fresh 3.0.0 install has the same functions. The C symbols are 2.x's, whose
-- default is definition 2 (src/fingerprints/simhash.rs, src/segments/mod.rs, src/trigger/).

CREATE FUNCTION simhash_v2(doc text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_v2';
COMMENT ON FUNCTION simhash_v2(text) IS
    'simhash(doc) of versions 2.0.0 to 2.2.0 (definition 2): what fingerprints stored under 2.x are';

CREATE FUNCTION simhash_v2(doc text, options jsonb) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_v2';
COMMENT ON FUNCTION simhash_v2(text, jsonb) IS
    'simhash(doc, options) of versions 2.0.0 to 2.2.0: definition 2 unless the options name another';

CREATE FUNCTION simhash_v2(doc text, options text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_text_v2';
COMMENT ON FUNCTION simhash_v2(text, text) IS
    'simhash(doc, options text) of version 2.2.0: definition 2 unless the options name another';

CREATE FUNCTION simhash_features_v2(doc text, options jsonb DEFAULT '{}')
    RETURNS TABLE(feature text, weight float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(f.feature, 'UTF8'), f.weight
          FROM @extschema@.simhash_features_utf8(pg_catalog.convert_to(doc, 'UTF8'),
                                                 '{"definition": "2"}'::pg_catalog.jsonb OPERATOR(pg_catalog.||) options) AS f $$;
COMMENT ON FUNCTION simhash_features_v2(text, jsonb) IS
    'simhash_features(doc, options) of versions 2.0.0 to 2.2.0: the features and weights of definition 2 unless the options name another';

CREATE FUNCTION simhash_update_trigger_v2() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger_v2';
COMMENT ON FUNCTION simhash_update_trigger_v2() IS
    'simhash_update_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';

CREATE FUNCTION simhash_dedup_trigger_v2() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_v2';
COMMENT ON FUNCTION simhash_dedup_trigger_v2() IS
    'simhash_dedup_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';

CREATE FUNCTION simhash_segments_v2(doc text, options jsonb DEFAULT '{}') RETURNS bigint[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_v2';
COMMENT ON FUNCTION simhash_segments_v2(text, jsonb) IS
    'simhash_segments(doc, options) of versions 2.0.0 to 2.2.0 (definition 2): simhash() of each minimal run of sentences with at least 6 features; what segments stored under 2.x are';

CREATE FUNCTION simhash_segments_trigger_v2() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_trigger';
COMMENT ON FUNCTION simhash_segments_trigger_v2() IS
    'simhash_segments_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';

CREATE FUNCTION simhash_segments_dedup_trigger_v2() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger';
COMMENT ON FUNCTION simhash_segments_dedup_trigger_v2() IS
    'simhash_segments_dedup_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';

CREATE FUNCTION simhash_segments_dedup_query_v2(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query';
COMMENT ON FUNCTION simhash_segments_dedup_query_v2(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger_v2(trigger_args) runs on tbl for an INSERT, as simhash_segments_dedup_query';

CREATE FUNCTION simhash_explain_v2(a text, b text, options jsonb DEFAULT '{}')
    RETURNS TABLE(side text, segment int, sentences text, fingerprint bigint, matched text, partner int,
                  distance int, credit float8, resemblance float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.side, e.segment, pg_catalog.convert_from(e.sentences, 'UTF8'), e.fingerprint, e.matched,
                 e.partner, e.distance, e.credit, e.resemblance, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_utf8(pg_catalog.convert_to(a, 'UTF8'), pg_catalog.convert_to(b, 'UTF8'),
                                                options) AS e $$;
COMMENT ON FUNCTION simhash_explain_v2(text, text, jsonb) IS
    'simhash_explain(a, b, options) of version 2.2.0: the segments of definition 2 (runs of sentences) unless the options name another, "max_distance" 0 to 64';
