-- Fingerprint functions (src/fingerprints/simhash.rs). Hand-written C-language declarations:
-- their Rust bodies read the text datum in place and handle non-UTF8 server encodings.
-- The `_v3` C symbols default to definition 3; the `_v2` and `_v1` symbols keep definitions 2
-- and 1 (the simhash_v2 and simhash_v1 functions, sql/compat/definition2.sql and
-- definition1.sql, and databases not yet updated to 3.0.0 or 2.0.0), the 0.x symbols
-- (`simhash_text`, `simhash_text_options`) definition 0.

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

-- Options as text (since 2.2.0): so that two untyped literals, simhash('...', '{...}'),
-- resolve. With only (text, jsonb) and (text[], float8[]) no candidate takes a string type
-- at the second position, and PostgreSQL cannot choose ("is not unique"); a string type
-- wins an unknown argument, so they resolve to this one. A jsonb or text[] argument still
-- picks its own form.
CREATE FUNCTION simhash(doc text, options text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_text_v3';
COMMENT ON FUNCTION simhash(text, text) IS
    'simhash(doc, options::jsonb), the options as JSON text: what two untyped literals resolve to';

CREATE FUNCTION simhash(features text[], weights float8[]) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_weighted';
COMMENT ON FUNCTION simhash(text[], float8[]) IS
    'SimHash fingerprint of caller-supplied features and weights (hashed verbatim)';

-- A SQL function's body is parsed with the caller's search_path: every name in it is
-- schema-qualified (pg_catalog's functions, operator and type too), so that a schema put
-- before pg_catalog cannot substitute its own. Qualified rather than SET search_path, which
-- would keep the planner from inlining the function.
CREATE FUNCTION simhash_features(doc text, options jsonb DEFAULT '{}')
    RETURNS TABLE(feature text, weight float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(f.feature, 'UTF8'), f.weight
          FROM @extschema@.simhash_features_utf8(pg_catalog.convert_to(doc, 'UTF8'),
                                                 '{"definition": "3"}'::pg_catalog.jsonb OPERATOR(pg_catalog.||) options) AS f $$;
COMMENT ON FUNCTION simhash_features(text, jsonb) IS
    'The features and weights that simhash(doc, options) folds, in order of first occurrence';
