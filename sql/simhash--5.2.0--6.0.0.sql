-- simhash 5.2.0 → 6.0.0 (CHANGELOG.md; docs/decision.md; issue 46). The dedup decision: every
-- dedup trigger and bulk function of 6.0 finds its candidates as before and then asks whether a
-- reader would call the two texts the same passage (simhash_same_passage), so that rows that
-- differ in a slot (another colour, name, item) or in their figures are kept. The clusters of
-- simhash_similarity_clusters are star clusters, which a DELETE can trust. 5.x's objects keep
-- their OIDs and C symbols under names ending in _d1, so that every trigger and view made under
-- 5.x goes on deciding as it did; called by name, the functions now decide by the decision. No
-- fingerprint, segment, key or similarity changes; simhash_duplicates and simhash_clusters
-- decide only for a query with a third, text column, which 5.x refused.
\echo Use "ALTER EXTENSION simhash UPDATE TO '6.0.0'" to load this file. \quit

-- 5.x's decisions: the measure alone.
ALTER FUNCTION @extschema@.simhash_dedup_trigger() RENAME TO simhash_dedup_trigger_d1;
ALTER FUNCTION @extschema@.simhash_dedup_query(regclass, text[]) RENAME TO simhash_dedup_query_d1;
ALTER FUNCTION @extschema@.simhash_segments_dedup_trigger() RENAME TO simhash_segments_dedup_trigger_d1;
ALTER FUNCTION @extschema@.simhash_segments_dedup_query(regclass, text[]) RENAME TO simhash_segments_dedup_query_d1;
ALTER FUNCTION @extschema@.simhash_similarity_dedup_trigger() RENAME TO simhash_similarity_dedup_trigger_d1;
ALTER FUNCTION @extschema@.simhash_similarity_dedup_query(regclass, text[]) RENAME TO simhash_similarity_dedup_query_d1;
ALTER FUNCTION @extschema@.simhash_similarity_pairs_stream(text, float8) RENAME TO simhash_similarity_pairs_stream_d1;
ALTER FUNCTION @extschema@.simhash_similarity_pairs(text, float8) RENAME TO simhash_similarity_pairs_d1;
ALTER FUNCTION @extschema@.simhash_similarity_clusters(text, float8) RENAME TO simhash_similarity_clusters_d1;
ALTER FUNCTION @extschema@.simhash_explain(text, text) RENAME TO simhash_explain_d1;

-- The renamed wrapper calls the renamed stream (a SQL function's body names what it calls).
CREATE OR REPLACE FUNCTION simhash_similarity_pairs_d1(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream_d1(query, min_similarity) AS p OFFSET 0) s $$;

-- Their comments, as a fresh install has them (sql/trigger/trigger.sql, similarity/pairs.sql,
-- similarity/explain.sql).
COMMENT ON FUNCTION simhash_dedup_trigger_d1() IS
    'simhash_dedup_trigger of 3.x to 5.x: the same arguments; the nearest row within max_distance is the near-duplicate, whatever its text';
COMMENT ON FUNCTION simhash_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint)';
COMMENT ON FUNCTION simhash_segments_dedup_trigger_d1() IS
    'simhash_segments_dedup_trigger of 3.x to 5.x: the same arguments; the most resembling row at min_resemblance is the duplicate, whatever its text';
COMMENT ON FUNCTION simhash_segments_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_segments_dedup_query of 5.x';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger_d1() IS
    'simhash_similarity_dedup_trigger of 5.x: the same arguments; the most similar row at the thresholds is the duplicate, whatever the decision says';
COMMENT ON FUNCTION simhash_similarity_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_similarity_dedup_query of 5.x';
COMMENT ON FUNCTION simhash_similarity_pairs_d1(text, float8) IS
    'simhash_similarity_pairs of 5.x: every pair at simhash_similarity >= min_similarity, whatever the dedup decision says';
COMMENT ON FUNCTION simhash_similarity_clusters_d1(text, float8) IS
    'simhash_similarity_clusters of 5.x: connected components of simhash_similarity_pairs_d1, (id, cluster_id), cluster_id the smallest id of its component';
COMMENT ON FUNCTION simhash_explain_d1(text, text) IS
    'simhash_explain of 5.x: the shingles and figures of a and b, without the dedup decision''s rows';

-- 6.0's: sql/decision/decision.sql
CREATE FUNCTION simhash_same_passage(a text, b text) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_same_passage';
COMMENT ON FUNCTION simhash_same_passage(text, text) IS
    'Whether a reader would call the two texts the same passage, by the dedup decision: where they differ (a slot, a figure) against what a repost changes (sentences, a source line, a cut, typos); what every dedup trigger and bulk function asks of its candidates';


-- sql/trigger/trigger.sql
CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on a near-duplicate: a row within max_distance bits whose text the dedup decision calls the same passage (the nearest such); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

CREATE FUNCTION simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query_d2';
COMMENT ON FUNCTION simhash_dedup_query(regclass, text[]) IS
    'The check query simhash_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint): every row within the bound, nearest first, with its text for the dedup decision';

CREATE FUNCTION simhash_segments_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_segments_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1) and whose text the dedup decision calls the same passage (the most resembling such). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate';

CREATE FUNCTION simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_d2';
COMMENT ON FUNCTION simhash_segments_dedup_query(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance): every candidate, most resembling first, with its text for the dedup decision; its index pre-check in a trailing comment';

CREATE FUNCTION simhash_similarity_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (text_column, min_similarity, reject|skip|link [, link_column] [, options]): acts on an existing row with simhash_similarity(existing, new) >= min_similarity (0 < min_similarity <= 1), or, with options ''{"min_containment": g}'', whose text contains the new one or is contained in it at g or more (simhash_containment either way), and which the dedup decision calls the same passage as the new text. The match is the most similar such row. Candidates come through a simhash_ops GIN index on the text column; without one the check scans the table and inserts run one at a time. A NULL text or one without a letter or digit is never a duplicate';

CREATE FUNCTION simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_d2';
COMMENT ON FUNCTION simhash_similarity_dedup_query(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new text, $2 = min_similarity, $3 = min_containment): every candidate, most similar first, with its text for the dedup decision; how it finds candidates and what it locks in a trailing comment';


-- src/similarity/pairs.rs, sql/similarity/pairs.sql
CREATE FUNCTION "simhash_similarity_pairs_stream"(
	"query" TEXT, /* & str */
	"min_similarity" double precision /* f64 */
) RETURNS TABLE (
	"id1" bigint,  /* i64 */
	"id2" bigint,  /* i64 */
	"similarity" double precision  /* f64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_pairs_d2_wrapper';

CREATE FUNCTION "simhash_similarity_clusters"(
	"query" TEXT, /* & str */
	"min_similarity" double precision /* f64 */
) RETURNS TABLE (
	"id" bigint,  /* i64 */
	"cluster_id" bigint  /* i64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_clusters_d2_wrapper';

CREATE FUNCTION simhash_similarity_pairs(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream(query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_pairs(text, float8) IS
    'Every pair of rows of a query returning (id bigint, body text) with simhash_similarity >= min_similarity (0 to 1) whose texts the dedup decision calls the same passage, once, id1 < id2, with its similarity; streamed, in no particular order';
COMMENT ON FUNCTION simhash_similarity_clusters(text, float8) IS
    'Star clusters of simhash_similarity_pairs, which a DELETE can trust: (id, cluster_id) for every row in a pair, cluster_id the kept row its cluster is around, a row it is paired with (its own id for a kept row); rows are taken in id order, each joining its most similar kept row of smaller id or staying; sorted by (cluster_id, id)';


-- sql/pairs/pairs.sql: the fingerprint pairs decide when their query brings a text column.
COMMENT ON FUNCTION simhash_duplicates(text, int) IS
    'Every pair of rows of a query returning (id bigint, fp bigint) within max_distance bits, once, id1 < id2; with a third column (body text), only the pairs whose texts the dedup decision calls the same passage; streamed: distance-0 pairs first, by fingerprint, then the others as found';
COMMENT ON FUNCTION simhash_duplicates(text, text, int) IS
    'Every (batch row, corpus row) pair within max_distance bits, both queries returning (id bigint, fp bigint), or both (id bigint, fp bigint, body text) and then only the pairs whose texts the dedup decision calls the same passage; the batch is held in memory, the corpus streamed; pairs inside the batch are left out';

-- src/similarity/explain.rs, sql/similarity/explain.sql
CREATE FUNCTION "simhash_explain_decision_utf8"(
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
AS 'MODULE_PATHNAME', 'simhash_explain_decision_utf8_wrapper';

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
          FROM @extschema@.simhash_explain_decision_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                         pg_catalog.convert_to(b, 'UTF8')) AS d $$;
COMMENT ON FUNCTION simhash_explain(text, text) IS
    'Every distinct shingle and figure (kind) of a and of b, and which has it; similarity, a_in_b and b_in_a are what the rows add up to: simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a). Then the dedup decision''s rows: each difference of the two texts (kind difference) and the verdict (kind decision)';

-- A score is in [0, 1]: casts of other values (5, -1, 'NaN') fail with 23514 (issue 49).
ALTER DOMAIN simhash_score ADD CONSTRAINT simhash_score_range CHECK (VALUE >= 0 AND VALUE <= 1);

-- simhash_duplicates(query, NULL) resolves to the batch/corpus form: its stream now takes NULL
-- and says so (22004) instead of returning no row (issue 49).
ALTER FUNCTION simhash_duplicates_stream(text, text, integer) CALLED ON NULL INPUT;
