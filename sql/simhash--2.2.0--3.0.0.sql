-- simhash 2.2.0 → 3.0.0 (CHANGELOG.md; docs/fingerprint.md, "Upgrading from 2.x to 3.0"; issue 29).
-- Definition 3 becomes the default of simhash(), simhash_features(), simhash_segments(),
-- simhash_explain() and every trigger: exact sums, English IDFs, Japanese kana, and segments
-- that are winnowed word shingles rather than runs of sentences. 2.x's functions keep their
-- OIDs under _v2 names, so every generated column, index, view and trigger made under 2.x goes
-- on computing definition 2, the fingerprints and segments it stored; called by name, the
-- functions now give definition 3. simhash_create_segments, which creates its trigger by name,
-- creates definition 3's.
\echo Use "ALTER EXTENSION simhash UPDATE TO '3.0.0'" to load this file. \quit

ALTER FUNCTION @extschema@.simhash(text) RENAME TO simhash_v2;
ALTER FUNCTION @extschema@.simhash(text, jsonb) RENAME TO simhash_v2;
ALTER FUNCTION @extschema@.simhash(text, text) RENAME TO simhash_v2;
ALTER FUNCTION @extschema@.simhash_features(text, jsonb) RENAME TO simhash_features_v2;
ALTER FUNCTION @extschema@.simhash_update_trigger() RENAME TO simhash_update_trigger_v2;
ALTER FUNCTION @extschema@.simhash_dedup_trigger() RENAME TO simhash_dedup_trigger_v2;
ALTER FUNCTION @extschema@.simhash_segments(text, jsonb) RENAME TO simhash_segments_v2;
ALTER FUNCTION @extschema@.simhash_segments_trigger() RENAME TO simhash_segments_trigger_v2;
ALTER FUNCTION @extschema@.simhash_segments_dedup_trigger() RENAME TO simhash_segments_dedup_trigger_v2;
ALTER FUNCTION @extschema@.simhash_segments_dedup_query(regclass, text[]) RENAME TO simhash_segments_dedup_query_v2;
ALTER FUNCTION @extschema@.simhash_explain(text, text, jsonb) RENAME TO simhash_explain_v2;
COMMENT ON FUNCTION simhash_v2(text) IS
    'simhash(doc) of versions 2.0.0 to 2.2.0 (definition 2): what fingerprints stored under 2.x are';
COMMENT ON FUNCTION simhash_v2(text, jsonb) IS
    'simhash(doc, options) of versions 2.0.0 to 2.2.0: definition 2 unless the options name another';
COMMENT ON FUNCTION simhash_v2(text, text) IS
    'simhash(doc, options text) of version 2.2.0: definition 2 unless the options name another';
COMMENT ON FUNCTION simhash_features_v2(text, jsonb) IS
    'simhash_features(doc, options) of versions 2.0.0 to 2.2.0: the features and weights of definition 2 unless the options name another';
COMMENT ON FUNCTION simhash_update_trigger_v2() IS
    'simhash_update_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';
COMMENT ON FUNCTION simhash_dedup_trigger_v2() IS
    'simhash_dedup_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';
COMMENT ON FUNCTION simhash_segments_v2(text, jsonb) IS
    'simhash_segments(doc, options) of versions 2.0.0 to 2.2.0 (definition 2): simhash() of each minimal run of sentences with at least 6 features; what segments stored under 2.x are';
COMMENT ON FUNCTION simhash_segments_trigger_v2() IS
    'simhash_segments_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';
COMMENT ON FUNCTION simhash_segments_dedup_trigger_v2() IS
    'simhash_segments_dedup_trigger of versions 2.0.0 to 2.2.0: definition 2 unless an options argument names another';
COMMENT ON FUNCTION simhash_segments_dedup_query_v2(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger_v2(trigger_args) runs on tbl for an INSERT, as simhash_segments_dedup_query';
COMMENT ON FUNCTION simhash_explain_v2(text, text, jsonb) IS
    'simhash_explain(a, b, options) of version 2.2.0: the segments of definition 2 (runs of sentences) unless the options name another, "max_distance" 0 to 64';

-- Definition 3 (sql/fingerprint/fingerprint.sql, sql/trigger/trigger.sql, sql/segments/).
CREATE FUNCTION simhash(doc text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_v3';
COMMENT ON FUNCTION simhash(text) IS
    'SimHash fingerprint of a text (definition 3): NFKC + lowercase + traditional-only characters to simplified, jieba words without numbers, single characters and hiragana, TF-IDF weights (English IDFs for Latin words), xxh3_64, exact sums; NULL for a text with fewer than 6 features';

CREATE FUNCTION simhash(doc text, options jsonb) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_v3';
COMMENT ON FUNCTION simhash(text, jsonb) IS
    'SimHash fingerprint with options: {"definition": "3"|"2"|"1"|"0", "tokenizer": "jieba"|"ngram", "n": 1..32, "weighting": "tfidf"|"tf"|"binary", "min_features": 0..1000}';

CREATE FUNCTION simhash(doc text, options text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_text_v3';
COMMENT ON FUNCTION simhash(text, text) IS
    'simhash(doc, options::jsonb), the options as JSON text: what two untyped literals resolve to';

CREATE FUNCTION simhash_features(doc text, options jsonb DEFAULT '{}')
    RETURNS TABLE(feature text, weight float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(f.feature, 'UTF8'), f.weight
          FROM @extschema@.simhash_features_utf8(pg_catalog.convert_to(doc, 'UTF8'),
                                                 '{"definition": "3"}'::pg_catalog.jsonb OPERATOR(pg_catalog.||) options) AS f $$;
COMMENT ON FUNCTION simhash_features(text, jsonb) IS
    'The features and weights that simhash(doc, options) folds, in order of first occurrence';

CREATE FUNCTION simhash_update_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger_v3';
COMMENT ON FUNCTION simhash_update_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column [, options]): sets fp_column = simhash(text_column [, options]); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_v3';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on near-duplicates; options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

CREATE FUNCTION simhash_segments(doc text, options jsonb DEFAULT '{}') RETURNS bigint[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_v3';
COMMENT ON FUNCTION simhash_segments(text, jsonb) IS
    'Segment fingerprints of a text (definition 3): the hashes of its shingles of consecutive words that winnowing selects, distinct, in text order; {} for a text with fewer than 6 features';

CREATE FUNCTION simhash_segments_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_trigger_v3';
COMMENT ON FUNCTION simhash_segments_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column [, options]): sets segments_column = simhash_segments(text_column [, options])';

CREATE FUNCTION simhash_segments_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_v3';
COMMENT ON FUNCTION simhash_segments_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate';

CREATE FUNCTION simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_v3';
COMMENT ON FUNCTION simhash_segments_dedup_query(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance), with its index pre-check in a trailing comment';

CREATE FUNCTION simhash_explain(a text, b text, options jsonb DEFAULT '{}')
    RETURNS TABLE(side text, segment int, sentences text, fingerprint bigint, matched text, partner int,
                  distance int, credit float8, resemblance float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.side, e.segment, pg_catalog.convert_from(e.sentences, 'UTF8'), e.fingerprint, e.matched,
                 e.partner, e.distance, e.credit, e.resemblance, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_utf8(pg_catalog.convert_to(a, 'UTF8'), pg_catalog.convert_to(b, 'UTF8'),
                                                '{"definition": "3"}'::pg_catalog.jsonb OPERATOR(pg_catalog.||) options) AS e $$;
COMMENT ON FUNCTION simhash_explain(text, text, jsonb) IS
    'Each segment of a and of b (definition 3 unless the options name another): the text it covers, its fingerprint, its partner in the other text (exact, near within max_distance bits with the distance, or none) and its credit (1, 0.5, 0); resemblance, a_in_b and b_in_a are what the credits add up to: simhash_resemblance and simhash_containment of the two texts'' segments. Options: those of simhash_segments, plus "max_distance" (0 to 64; only 0 under definition 3, whose segments are shingle hashes)';

-- Matching within bits is for definition 2's segments (sql/segments/segments.sql).
COMMENT ON FUNCTION simhash_resemblance(bigint[], bigint[], int) IS
    'Share of both texts'' segments found in the other, one found only within max_distance bits (0 to 64; 0 is the two-argument form) counting half; compares every pair past 0. Within bits is for definition 2''s segments only: definition 3''s are shingle hashes';
COMMENT ON FUNCTION simhash_containment(bigint[], bigint[], int) IS
    'Share of the first text''s segments found in the second, one found only within max_distance bits (0 to 64; 0 is the two-argument form) counting half. Within bits is for definition 2''s segments only: definition 3''s are shingle hashes';
