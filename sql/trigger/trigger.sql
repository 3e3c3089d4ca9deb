-- Insert triggers (src/trigger/; README.md, "Deduplicating on insert"): keep a fingerprint column current,
-- and reject, skip or link near-duplicates as they are written. The `_v3` C symbols default to
-- definition 3 (the `_v2` and `_v1` symbols, definitions 2 and 1, are sql/fingerprint/definition2.sql's
-- and definition1.sql's); the 0.x symbols (`simhash_update_trigger`, `simhash_dedup_trigger`) keep definition 0
-- for 0.x's functions, in a database not yet updated and as the `_v0` functions (sql/fingerprint/definition0.sql).

CREATE FUNCTION simhash_update_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger_v3';
COMMENT ON FUNCTION simhash_update_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column [, options]): sets fp_column = simhash(text_column [, options]); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

-- The dedup triggers decide by the dedup decision since 6.0.0 (src/trigger/mod.rs, Decision;
-- docs/decision.md): the `_d2` C symbols read the measure's candidates, best first, and take
-- the first the decision calls the same passage. 5.x's, which take the nearest candidate, are
-- the `_d1` functions, on 5.x's symbols.
CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on a near-duplicate: a row within max_distance bits whose text the dedup decision calls the same passage (the nearest such); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

CREATE FUNCTION simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query_d2';
COMMENT ON FUNCTION simhash_dedup_query(regclass, text[]) IS
    'The check query simhash_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint): every row within the bound, nearest first, with its text for the dedup decision';

CREATE FUNCTION simhash_dedup_trigger_d1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_v3';
COMMENT ON FUNCTION simhash_dedup_trigger_d1() IS
    'simhash_dedup_trigger of 3.x to 5.x: the same arguments; the nearest row within max_distance is the near-duplicate, whatever its text';

CREATE FUNCTION simhash_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query';
COMMENT ON FUNCTION simhash_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint)';

-- Dedup by resemblance of segment fingerprints (src/trigger/segments_dedup.rs): candidates
-- come through the GIN index on the segments column, by the new row's rare segments only.
-- The `_v3` C symbols default to definition 3; 2.x's (no suffix) are the `_v2` functions'.
CREATE FUNCTION simhash_segments_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_segments_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1) and whose text the dedup decision calls the same passage (the most resembling such). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate';

CREATE FUNCTION simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_d2';
COMMENT ON FUNCTION simhash_segments_dedup_query(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance): every candidate, most resembling first, with its text for the dedup decision; its index pre-check in a trailing comment';

CREATE FUNCTION simhash_segments_dedup_trigger_d1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_v3';
COMMENT ON FUNCTION simhash_segments_dedup_trigger_d1() IS
    'simhash_segments_dedup_trigger of 3.x to 5.x: the same arguments; the most resembling row at min_resemblance is the duplicate, whatever its text';

CREATE FUNCTION simhash_segments_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_v3';
COMMENT ON FUNCTION simhash_segments_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_segments_dedup_query of 5.x';

-- Dedup by exact text similarity or containment (src/trigger/similarity_dedup.rs): candidates
-- come through a simhash_ops GIN index on the text column (sql/similarity/gin.sql). The `_m2`
-- C symbols are measure 2's, as simhash_similarity's; measure 1's trigger and query function
-- (4.x's, the `_m1` symbols) are below.
CREATE FUNCTION simhash_similarity_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (text_column, min_similarity, reject|skip|link [, link_column] [, options]): acts on an existing row with simhash_similarity(existing, new) >= min_similarity (0 < min_similarity <= 1), or, with options ''{"min_containment": g}'', whose text contains the new one or is contained in it at g or more (simhash_containment either way), and which the dedup decision calls the same passage as the new text. The match is the most similar such row. Candidates come through a simhash_ops GIN index on the text column; without one the check scans the table and inserts run one at a time. A NULL text or one without a letter or digit is never a duplicate';

CREATE FUNCTION simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_d2';
COMMENT ON FUNCTION simhash_similarity_dedup_query(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new text, $2 = min_similarity, $3 = min_containment): every candidate, most similar first, with its text for the dedup decision; how it finds candidates and what it locks in a trailing comment';

CREATE FUNCTION simhash_similarity_dedup_trigger_d1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_m2';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger_d1() IS
    'simhash_similarity_dedup_trigger of 5.x: the same arguments; the most similar row at the thresholds is the duplicate, whatever the decision says';

CREATE FUNCTION simhash_similarity_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_m2';
COMMENT ON FUNCTION simhash_similarity_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_similarity_dedup_query of 5.x';

CREATE FUNCTION simhash_similarity_dedup_trigger_m1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_m1';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger_m1() IS
    'simhash_similarity_dedup_trigger of 4.x (measure 1, digits read as 0): the same arguments; candidates come through a simhash_ops_m1 index';

CREATE FUNCTION simhash_similarity_dedup_query_m1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_m1';
COMMENT ON FUNCTION simhash_similarity_dedup_query_m1(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger_m1(trigger_args) runs on tbl for an INSERT, as simhash_similarity_dedup_query';
