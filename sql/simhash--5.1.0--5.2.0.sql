-- simhash 5.1.0 → 5.2.0 (CHANGELOG.md; docs/similarity.md, "The band index"; issue 39): the
-- GIN operator class simhash_band_ops, whose keys are MinHash band keys, and
-- simhash_band_keys. No existing object changes, and no fingerprint, key or similarity
-- changes; simhash_similarity_dedup_trigger also locks band keys when the column has such an
-- index (a behaviour of the library, not of this script).
\echo Use "ALTER EXTENSION simhash UPDATE TO '5.2.0'" to load this file. \quit

-- sql/similarity/band.sql
CREATE FUNCTION simhash_band_keys(doc text) RETURNS int4[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_band_keys';
COMMENT ON FUNCTION simhash_band_keys(text) IS
    'The keys a simhash_band_ops index holds for a text (its 56 MinHash band keys), ascending';

CREATE FUNCTION simhash_band_gin_extract_value(text, internal, internal) RETURNS internal
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_band_gin_extract_value';
CREATE FUNCTION simhash_band_gin_extract_query(simhash_query, internal, int2, internal, internal, internal, internal)
    RETURNS internal IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_band_gin_extract_query';

CREATE OPERATOR CLASS simhash_band_ops FOR TYPE text USING gin AS
    OPERATOR 1 @% (text, simhash_query),
    FUNCTION 1 btint4cmp(int4, int4),
    FUNCTION 2 simhash_band_gin_extract_value(text, internal, internal),
    FUNCTION 3 simhash_band_gin_extract_query(simhash_query, internal, int2, internal, internal, internal, internal),
    FUNCTION 4 simhash_gin_consistent(internal, int2, simhash_query, int4, internal, internal, internal, internal),
    FUNCTION 6 simhash_gin_triconsistent(internal, int2, simhash_query, int4, internal, internal, internal),
    STORAGE int4;
COMMENT ON OPERATOR CLASS simhash_band_ops USING gin IS
    'Similarity lookups from 0.5 on through MinHash band keys, whose posting lists do not grow with the table: simhash_similarity(col, q) >= t';
