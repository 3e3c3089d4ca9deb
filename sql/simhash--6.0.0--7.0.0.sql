-- simhash 6.0.0 → 7.0.0 (CHANGELOG.md; docs/decision.md; issue 53). Decision 3: the dedup
-- decision is a model fitted on 3,231 labelled pairs of 19 sources over the same alignment, reads
-- past list markers and reads Chinese numerals as digits, sees a table's template in a new
-- row's candidates (a slot's filler is content), and has operating points: the triggers' option
-- "decision" (loose, balanced, strict, none) and, for the bulk functions, simhash.decision.
-- 6.0.0's objects keep their OIDs and C symbols under names ending in _d2, so that every
-- trigger and view made under 6.x goes on deciding as it did; called by name, the functions now
-- decide by decision 3. No fingerprint, segment, key or similarity changes.
\echo Use "ALTER EXTENSION simhash UPDATE TO '7.0.0'" to load this file. \quit

-- 6.0's decision (2).
ALTER FUNCTION @extschema@.simhash_dedup_trigger() RENAME TO simhash_dedup_trigger_d2;
ALTER FUNCTION @extschema@.simhash_dedup_query(regclass, text[]) RENAME TO simhash_dedup_query_d2;
ALTER FUNCTION @extschema@.simhash_segments_dedup_trigger() RENAME TO simhash_segments_dedup_trigger_d2;
ALTER FUNCTION @extschema@.simhash_segments_dedup_query(regclass, text[]) RENAME TO simhash_segments_dedup_query_d2;
ALTER FUNCTION @extschema@.simhash_similarity_dedup_trigger() RENAME TO simhash_similarity_dedup_trigger_d2;
ALTER FUNCTION @extschema@.simhash_similarity_dedup_query(regclass, text[]) RENAME TO simhash_similarity_dedup_query_d2;
ALTER FUNCTION @extschema@.simhash_same_passage(text, text) RENAME TO simhash_same_passage_d2;
ALTER FUNCTION @extschema@.simhash_explain(text, text) RENAME TO simhash_explain_d2;
ALTER FUNCTION @extschema@.simhash_similarity_pairs_stream(text, float8) RENAME TO simhash_similarity_pairs_stream_d2;
ALTER FUNCTION @extschema@.simhash_similarity_pairs(text, float8) RENAME TO simhash_similarity_pairs_d2;
ALTER FUNCTION @extschema@.simhash_similarity_clusters(text, float8) RENAME TO simhash_similarity_clusters_d2;
ALTER FUNCTION @extschema@.simhash_duplicates_stream(text, int) RENAME TO simhash_duplicates_stream_d2;
ALTER FUNCTION @extschema@.simhash_duplicates_stream(text, text, int) RENAME TO simhash_duplicates_stream_d2;
ALTER FUNCTION @extschema@.simhash_duplicates(text, int) RENAME TO simhash_duplicates_d2;
ALTER FUNCTION @extschema@.simhash_duplicates(text, text, int) RENAME TO simhash_duplicates_d2;
ALTER FUNCTION @extschema@.simhash_clusters(text, int) RENAME TO simhash_clusters_d2;

-- The renamed wrappers call the renamed streams (a SQL function's body names what it calls).
CREATE OR REPLACE FUNCTION simhash_similarity_pairs_d2(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream_d2(query, min_similarity) AS p OFFSET 0) s $$;
CREATE OR REPLACE FUNCTION simhash_duplicates_d2(fingerprints text, max_distance int DEFAULT 3)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream_d2(fingerprints, max_distance) AS p OFFSET 0) s $$;
CREATE OR REPLACE FUNCTION simhash_duplicates_d2(batch text, corpus text, max_distance int DEFAULT 3)
    RETURNS TABLE(batch_id bigint, corpus_id bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).batch_id, (p).corpus_id, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream_d2(batch, corpus, max_distance) AS p OFFSET 0) s $$;

-- Their comments, as a fresh install has them (sql/compat/decision2.sql).
COMMENT ON FUNCTION simhash_dedup_trigger_d2() IS
    'simhash_dedup_trigger of 6.0.0 (decision 2), the same arguments: BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on a near-duplicate: a row within max_distance bits whose text the dedup decision calls the same passage (the nearest such); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';
COMMENT ON FUNCTION simhash_dedup_query_d2(regclass, text[]) IS
    'The check query simhash_dedup_trigger_d2(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint): every row within the bound, nearest first, with its text for the dedup decision';
COMMENT ON FUNCTION simhash_segments_dedup_trigger_d2() IS
    'simhash_segments_dedup_trigger of 6.0.0 (decision 2), the same arguments: BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1) and whose text the dedup decision calls the same passage (the most resembling such). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate';
COMMENT ON FUNCTION simhash_segments_dedup_query_d2(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger_d2(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance): every candidate, most resembling first, with its text for the dedup decision; its index pre-check in a trailing comment';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger_d2() IS
    'simhash_similarity_dedup_trigger of 6.0.0 (decision 2), the same arguments: BEFORE INSERT OR UPDATE row trigger, arguments (text_column, min_similarity, reject|skip|link [, link_column] [, options]): acts on an existing row with simhash_similarity(existing, new) >= min_similarity (0 < min_similarity <= 1), or, with options ''{"min_containment": g}'', whose text contains the new one or is contained in it at g or more (simhash_containment either way), and which the dedup decision calls the same passage as the new text. The match is the most similar such row. Candidates come through a simhash_ops GIN index on the text column; without one the check scans the table and inserts run one at a time. A NULL text or one without a letter or digit is never a duplicate';
COMMENT ON FUNCTION simhash_similarity_dedup_query_d2(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger_d2(trigger_args) runs on tbl for an INSERT ($1 = the new text, $2 = min_similarity, $3 = min_containment): every candidate, most similar first, with its text for the dedup decision; how it finds candidates and what it locks in a trailing comment';
COMMENT ON FUNCTION simhash_same_passage_d2(text, text) IS
    'simhash_same_passage of 6.0.0 (decision 2): Whether a reader would call the two texts the same passage, by the dedup decision: where they differ (a slot, a figure) against what a repost changes (sentences, a source line, a cut, typos); what every dedup trigger and bulk function asks of its candidates';
COMMENT ON FUNCTION simhash_explain_d2(text, text) IS
    'simhash_explain of 6.0.0 (decision 2''s rows): Every distinct shingle and figure (kind) of a and of b, and which has it; similarity, a_in_b and b_in_a are what the rows add up to: simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a). Then the dedup decision''s rows: each difference of the two texts (kind difference) and the verdict (kind decision)';
COMMENT ON FUNCTION simhash_similarity_pairs_d2(text, float8) IS
    'simhash_similarity_pairs of 6.0.0 (decision 2): Every pair of rows of a query returning (id bigint, body text) with simhash_similarity >= min_similarity (0 to 1) whose texts the dedup decision calls the same passage, once, id1 < id2, with its similarity; streamed, in no particular order';
COMMENT ON FUNCTION simhash_similarity_clusters_d2(text, float8) IS
    'simhash_similarity_clusters of 6.0.0 (decision 2): the star clusters of simhash_similarity_pairs_d2';
COMMENT ON FUNCTION simhash_duplicates_d2(text, int) IS
    'simhash_duplicates of 6.0.0 (decision 2): Every pair of rows of a query returning (id bigint, fp bigint) within max_distance bits, once, id1 < id2; with a third column (body text), only the pairs whose texts the dedup decision calls the same passage; streamed: distance-0 pairs first, by fingerprint, then the others as found';
COMMENT ON FUNCTION simhash_duplicates_d2(text, text, int) IS
    'simhash_duplicates of 6.0.0 (decision 2): Every (batch row, corpus row) pair within max_distance bits, both queries returning (id bigint, fp bigint), or both (id bigint, fp bigint, body text) and then only the pairs whose texts the dedup decision calls the same passage; the batch is held in memory, the corpus streamed; pairs inside the batch are left out';
COMMENT ON FUNCTION simhash_clusters_d2(text, int) IS
    'simhash_clusters of 6.0.0 (decision 2): the star clusters of simhash_duplicates_d2''s pairs with a text column, the connected components without';

-- 7.0's: the triggers and their check queries on decision 3's C symbols (sql/*/trigger.sql).
CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_d3';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on a near-duplicate: a row within max_distance bits whose text the dedup decision calls the same passage (the nearest such); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''. The option "decision" (7.0.0) picks the dedup decision''s strictness, ''{"decision": "loose"}'', balanced by default, strict; or none, the measure alone';

CREATE FUNCTION simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query_d3';
COMMENT ON FUNCTION simhash_dedup_query(regclass, text[]) IS
    'The check query simhash_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint): every row within the bound, nearest first, with its text for the dedup decision';

CREATE FUNCTION simhash_segments_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_d3';
COMMENT ON FUNCTION simhash_segments_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1) and whose text the dedup decision calls the same passage (the most resembling such). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate. The option "decision" (7.0.0) picks the dedup decision''s strictness, ''{"decision": "loose"}'', balanced by default, strict; or none, the measure alone';

CREATE FUNCTION simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_d3';
COMMENT ON FUNCTION simhash_segments_dedup_query(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance): every candidate, most resembling first, with its text for the dedup decision; its index pre-check in a trailing comment';

CREATE FUNCTION simhash_similarity_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_d3';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (text_column, min_similarity, reject|skip|link [, link_column] [, options]): acts on an existing row with simhash_similarity(existing, new) >= min_similarity (0 < min_similarity <= 1), or, with options ''{"min_containment": g}'', whose text contains the new one or is contained in it at g or more (simhash_containment either way), and which the dedup decision calls the same passage as the new text. The match is the most similar such row. Candidates come through a simhash_ops GIN index on the text column; without one the check scans the table and inserts run one at a time. A NULL text or one without a letter or digit is never a duplicate. The option "decision" (7.0.0) picks the dedup decision''s strictness, ''{"decision": "loose"}'', balanced by default, strict; or none, the measure alone';

CREATE FUNCTION simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_d3';
COMMENT ON FUNCTION simhash_similarity_dedup_query(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new text, $2 = min_similarity, $3 = min_containment): every candidate, most similar first, with its text for the dedup decision; how it finds candidates and what it locks in a trailing comment';

-- sql/decision/decision.sql
CREATE FUNCTION simhash_same_passage(a text, b text, decision text DEFAULT 'balanced') RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_same_passage_d3';
COMMENT ON FUNCTION simhash_same_passage(text, text, text) IS
    'Whether a reader would call the two texts the same passage, by the dedup decision (7.0.0: a model fitted on labelled pairs over where they differ, a slot, a figure, against what a repost changes, sentences, a source line, a cut, typos), at the strictness decision names: loose, balanced or strict; what every dedup trigger and bulk function asks of its candidates';

-- The bulk functions' C functions, as pgrx declares them (src/similarity/, src/fingerprints/pairs/).
CREATE  FUNCTION "simhash_explain_decision_d3_utf8"(
	"a" bytea, /* & [u8] */
	"b" bytea /* & [u8] */
) RETURNS TABLE (
	"kind" TEXT,  /* & '_ str */
	"item" bytea,  /* Vec < u8 > */
	"in_a" bool,  /* bool */
	"in_b" bool  /* bool */
)
IMMUTABLE STRICT PARALLEL SAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_explain_decision_d3_utf8_wrapper';

CREATE  FUNCTION "simhash_similarity_pairs_stream"(
	"query" TEXT, /* & str */
	"min_similarity" double precision /* f64 */
) RETURNS TABLE (
	"id1" bigint,  /* i64 */
	"id2" bigint,  /* i64 */
	"similarity" double precision  /* f64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_pairs_d3_wrapper';

CREATE  FUNCTION "simhash_similarity_clusters"(
	"query" TEXT, /* & str */
	"min_similarity" double precision /* f64 */
) RETURNS TABLE (
	"id" bigint,  /* i64 */
	"cluster_id" bigint  /* i64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_clusters_d3_wrapper';

CREATE  FUNCTION "simhash_duplicates_stream"(
	"batch" TEXT, /* Option < & str > */
	"corpus" TEXT, /* Option < & str > */
	"max_distance" INT /* Option < i32 > */
) RETURNS TABLE (
	"batch_id" bigint,  /* i64 */
	"corpus_id" bigint,  /* i64 */
	"distance" INT  /* i32 */
)
VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_duplicates_corpus_d3_wrapper';

CREATE  FUNCTION "simhash_duplicates_stream"(
	"fingerprints" TEXT, /* & str */
	"max_distance" INT /* i32 */
) RETURNS TABLE (
	"id1" bigint,  /* i64 */
	"id2" bigint,  /* i64 */
	"distance" INT  /* i32 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_duplicates_d3_wrapper';

CREATE  FUNCTION "simhash_clusters"(
	"fingerprints" TEXT, /* & str */
	"max_distance" INT DEFAULT 3 /* i32 */
) RETURNS TABLE (
	"id" bigint,  /* i64 */
	"cluster_id" bigint  /* i64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_clusters_d3_wrapper';

-- sql/similarity/explain.sql, pairs.sql; sql/fingerprints/pairs.sql
CREATE FUNCTION simhash_explain(a text, b text)
    RETURNS TABLE(kind text, item text, in_a boolean, in_b boolean, similarity float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.kind, pg_catalog.convert_from(e.item, 'UTF8'), e.in_a, e.in_b, e.similarity, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_items_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                      pg_catalog.convert_to(b, 'UTF8')) AS e
          UNION ALL
          SELECT d.kind, pg_catalog.convert_from(d.item, 'UTF8'), d.in_a, d.in_b,
                 @extschema@.simhash_similarity(a, b), @extschema@.simhash_containment(a, b),
                 @extschema@.simhash_containment(b, a)
          FROM @extschema@.simhash_explain_decision_d3_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                            pg_catalog.convert_to(b, 'UTF8')) AS d $$;
COMMENT ON FUNCTION simhash_explain(text, text) IS
    'Every distinct shingle and figure (kind) of a and of b, and which has it; similarity, a_in_b and b_in_a are what the rows add up to: simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a). Then the dedup decision''s rows (decision 3, balanced): each difference of the two texts (kind difference) and what it costs, and the verdict (kind decision)';

CREATE FUNCTION simhash_similarity_pairs(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream(query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_pairs(text, float8) IS
    'Every pair of rows of a query returning (id bigint, body text) with simhash_similarity >= min_similarity (0 to 1) whose texts the dedup decision calls the same passage by simhash.decision (balanced by default), once, id1 < id2, with its similarity; streamed, in no particular order';
COMMENT ON FUNCTION simhash_similarity_clusters(text, float8) IS
    'Star clusters of simhash_similarity_pairs, which a DELETE can trust: (id, cluster_id) for every row in a pair, cluster_id the kept row its cluster is around, a row it is paired with (its own id for a kept row); rows are taken in id order, each joining its most similar kept row of smaller id or staying; sorted by (cluster_id, id)';

CREATE FUNCTION simhash_duplicates(fingerprints text, max_distance int DEFAULT 3)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream(fingerprints, max_distance) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_duplicates(text, int) IS
    'Every pair of rows of a query returning (id bigint, fp bigint) within max_distance bits, once, id1 < id2; with a third column (body text), only the pairs whose texts the dedup decision calls the same passage by simhash.decision; streamed: distance-0 pairs first, by fingerprint, then the others as found';

CREATE FUNCTION simhash_duplicates(batch text, corpus text, max_distance int DEFAULT 3)
    RETURNS TABLE(batch_id bigint, corpus_id bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).batch_id, (p).corpus_id, (p).distance
          FROM (SELECT @extschema@.simhash_duplicates_stream(batch, corpus, max_distance) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_duplicates(text, text, int) IS
    'Every (batch row, corpus row) pair within max_distance bits, both queries returning (id bigint, fp bigint), or both (id bigint, fp bigint, body text) and then only the pairs whose texts the dedup decision calls the same passage by simhash.decision; the batch is held in memory, the corpus streamed; pairs inside the batch are left out';

-- simhash_query's measure either_way (containment either way, one index scan: the dedup
-- trigger's check with min_containment), and its frame (the template keys the dedup trigger
-- learns from a table, whose rows a lookup then does not read by them).
ALTER TYPE simhash_query ADD ATTRIBUTE frame int4[];
COMMENT ON TYPE simhash_query IS
    'A simhash_ops index lookup: rows r with simhash_similarity(query, r) (measure similarity), simhash_containment(query, r) (query_in_row), simhash_containment(r, query) (row_in_query) or either containment (either_way) at least threshold; with frame (index keys of a template, as the dedup trigger learns them), only rows whose index keys hold two of the lookup''s other keys';
COMMENT ON FUNCTION simhash_query(text, text, float8) IS
    'A simhash_query, its measure (similarity, query_in_row, row_in_query, either_way) and threshold (0 to 1) checked';
