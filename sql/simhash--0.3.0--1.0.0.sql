-- simhash 0.3.0 → 1.0.0: fingerprint definition 1 becomes the default of simhash(doc),
-- simhash(doc, options), simhash_features and both triggers (README.md, "Fingerprint
-- definition" and "Upgrading to 1.0").
--
-- Nothing stored changes meaning. The 0.x functions are renamed, not replaced: a renamed
-- function keeps its OID and its C symbol (whose default stays definition 0), and every
-- object that calls it by OID keeps calling it. So a generated column or an index on
-- simhash(body), a view, and every trigger created under 0.x (simhash_update_trigger,
-- simhash_dedup_trigger) go on computing definition 0, and no column starts mixing
-- definitions. New functions take the old names, with definition 1. Code that calls
-- simhash() by name (queries, PL/pgSQL) gets definition 1 from now on: compare with
-- stored 0.x fingerprints through simhash_v0(doc) (or '{"definition": "0"}') until they
-- are recomputed.
\echo Use "ALTER EXTENSION simhash UPDATE TO '1.0.0'" to load this file. \quit

ALTER FUNCTION simhash(text) RENAME TO simhash_v0;
COMMENT ON FUNCTION simhash_v0(text) IS
    'simhash(doc) of versions 0.1.0 to 0.3.0 (definition 0): what fingerprints stored before 1.0.0 are';
ALTER FUNCTION simhash(text, jsonb) RENAME TO simhash_v0;
COMMENT ON FUNCTION simhash_v0(text, jsonb) IS
    'simhash(doc, options) of versions 0.1.0 to 0.3.0: definition 0 unless the options name another';
ALTER FUNCTION simhash_update_trigger() RENAME TO simhash_update_trigger_v0;
COMMENT ON FUNCTION simhash_update_trigger_v0() IS
    'simhash_update_trigger of versions 0.2.0 to 0.3.0: definition 0 unless an options argument names another';
ALTER FUNCTION simhash_dedup_trigger() RENAME TO simhash_dedup_trigger_v0;
COMMENT ON FUNCTION simhash_dedup_trigger_v0() IS
    'simhash_dedup_trigger of versions 0.2.0 to 0.3.0: definition 0 unless an options argument names another';

-- As in the 1.0.0 install script (sql/fingerprint.sql).
CREATE FUNCTION simhash(doc text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_v1';
COMMENT ON FUNCTION simhash(text) IS
    'SimHash fingerprint of a text (definition 1): NFKC + lowercase, jieba words without numbers and single characters, TF-IDF weights, xxh3_64; NULL for a text with fewer than 6 features';

CREATE FUNCTION simhash(doc text, options jsonb) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_v1';
COMMENT ON FUNCTION simhash(text, jsonb) IS
    'SimHash fingerprint with options: {"definition": "1"|"0", "tokenizer": "jieba"|"ngram", "n": 1..32, "weighting": "tfidf"|"tf"|"binary", "min_features": 0..1000}';

CREATE OR REPLACE FUNCTION simhash_features(doc text, options jsonb DEFAULT '{}')
    RETURNS TABLE(feature text, weight float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(f.feature, 'UTF8'), f.weight
          FROM @extschema@.simhash_features_utf8(pg_catalog.convert_to(doc, 'UTF8'),
                                                 '{"definition": "1"}'::pg_catalog.jsonb OPERATOR(pg_catalog.||) options) AS f $$;

-- As in the 1.0.0 install script (sql/trigger.sql).
CREATE FUNCTION simhash_update_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger_v1';
COMMENT ON FUNCTION simhash_update_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column [, options]): sets fp_column = simhash(text_column [, options]); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_v1';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on near-duplicates; options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

-- As in the 1.0.0 install script (src/batch.rs, sql/batch.sql): simhash_duplicates streams
-- its pairs instead of building them all first. The C function that 0.x called
-- simhash_duplicates is now simhash_duplicates_stream, called by a SQL function that
-- PostgreSQL inlines, so that SELECT * FROM simhash_duplicates(...) LIMIT 10 stops after
-- 10 pairs.
CREATE FUNCTION "simhash_duplicates_stream"(
	"fingerprints" TEXT, /* & str */
	"max_distance" INT /* i32 */
) RETURNS TABLE (
	"id1" bigint,  /* i64 */
	"id2" bigint,  /* i64 */
	"distance" INT  /* i32 */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_duplicates_wrapper';

CREATE OR REPLACE FUNCTION simhash_duplicates(fingerprints text, max_distance int DEFAULT 3)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    STABLE CALLED ON NULL INPUT PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream(fingerprints, max_distance) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_duplicates(text, int) IS
    'Every pair of rows of a query returning (id bigint, fp bigint) within max_distance bits, once, id1 < id2; streamed: distance-0 pairs first, by fingerprint, then the others as found';

-- As in the 1.0.0 install script (src/nearest.rs, sql/nearest.sql): exact nearest
-- neighbours through the block indexes.
CREATE FUNCTION simhash_nearest(tbl regclass, fp_column name, query bigint, n int)
    RETURNS TABLE(ctid tid, fp bigint, distance int)
    STABLE STRICT PARALLEL RESTRICTED ROWS 10
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_nearest_wrapper';
COMMENT ON FUNCTION simhash_nearest(regclass, name, bigint, int) IS
    'The n rows of tbl nearest query in Hamming distance on fp_column (NULLs never), exact, by ascending (distance, ctid); needs a complete block set (simhash_create_blocks); n between 1 and 10000';

-- New in 1.0.0 (src/batch.rs, sql/batch.sql): the two-query form, a batch against a corpus.
CREATE FUNCTION "simhash_duplicates_stream"(
	"batch" TEXT, /* & str */
	"corpus" TEXT, /* & str */
	"max_distance" INT /* i32 */
) RETURNS TABLE (
	"batch_id" bigint,  /* i64 */
	"corpus_id" bigint,  /* i64 */
	"distance" INT  /* i32 */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_duplicates_corpus_wrapper';

CREATE FUNCTION simhash_duplicates(batch text, corpus text, max_distance int DEFAULT 3)
    RETURNS TABLE(batch_id bigint, corpus_id bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).batch_id, (p).corpus_id, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream(batch, corpus, max_distance) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_duplicates(text, text, int) IS
    'Every (batch row, corpus row) pair within max_distance bits, both queries returning (id bigint, fp bigint); the batch is held in memory, the corpus streamed; pairs inside the batch are left out';
