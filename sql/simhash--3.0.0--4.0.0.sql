-- simhash 3.0.0 → 4.0.0 (CHANGELOG.md; docs/similarity.md; issue 34). Exact text similarity:
-- simhash_similarity(a, b) and simhash_containment(a, b) over the texts' shingles (measure 1),
-- the GIN operator class simhash_ops and the planner support that answers
-- `simhash_similarity(body, $1) >= 0.6` from it, bulk pairs and clusters by similarity, dedup
-- on insert by similarity, and simhash_explain(a, b), which now explains the similarity.
-- 3.x's simhash_explain(a, b, options DEFAULT '{}') keeps its OID as simhash_segments_explain,
-- so every view made under 3.x goes on explaining segments; the three-argument
-- simhash_explain stays, without its default. Nothing that 3.x computed changes:
-- fingerprints, segments and their triggers are as they were.
\echo Use "ALTER EXTENSION simhash UPDATE TO '4.0.0'" to load this file. \quit

ALTER FUNCTION @extschema@.simhash_explain(text, text, jsonb) RENAME TO simhash_segments_explain;
COMMENT ON FUNCTION simhash_segments_explain(text, text, jsonb) IS
    'Each segment of a and of b (definition 3 unless the options name another): the text it covers, its fingerprint, its partner in the other text (exact, near within max_distance bits with the distance, or none) and its credit (1, 0.5, 0); resemblance, a_in_b and b_in_a are what the credits add up to: simhash_resemblance and simhash_containment of the two texts'' segments. Options: those of simhash_segments, plus "max_distance" (0 to 64; only 0 under definition 3, whose segments are shingle hashes)';

CREATE FUNCTION simhash_explain(a text, b text, options jsonb)
    RETURNS TABLE(side text, segment int, sentences text, fingerprint bigint, matched text, partner int,
                  distance int, credit float8, resemblance float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT * FROM @extschema@.simhash_segments_explain(a, b, options) $$;
COMMENT ON FUNCTION simhash_explain(text, text, jsonb) IS
    'simhash_segments_explain(a, b, options): each segment of a and of b, its partner and credit (3.x''s simhash_explain; the two-argument simhash_explain explains the similarity since 4.0.0)';

-- Exact similarity (sql/similarity/similarity.sql).
CREATE DOMAIN simhash_score AS float8;
COMMENT ON DOMAIN simhash_score IS
    'What simhash_similarity and simhash_containment return: a float8 in [0, 1], whose comparisons with a threshold the planner answers from a simhash_ops index';

CREATE FUNCTION simhash_similarity(a text, b text) RETURNS simhash_score
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_m1';
COMMENT ON FUNCTION simhash_similarity(text, text) IS
    'Jaccard index of the two texts'' shingle sets (measure 1: NFKC, lowercase, traditional folded, letters and digits only, digits as 0; shingles of 3 CJK or 5 other characters); 0 when either has no letter or digit';

CREATE FUNCTION simhash_containment(a text, b text) RETURNS simhash_score
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_m1';
COMMENT ON FUNCTION simhash_containment(text, text) IS
    'Share of the first text''s shingles found in the second (measure 1); 0 when the first has no letter or digit';

-- The predicates the comparisons become (support function below), each exactly
-- `measure(a, b) >= threshold` (`>` for the _above forms), answered from a simhash_ops index
-- on either argument.
CREATE FUNCTION simhash_similarity_at_least(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_at_least_m1';
CREATE FUNCTION simhash_similarity_above(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_above_m1';
CREATE FUNCTION simhash_containment_at_least(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_at_least_m1';
CREATE FUNCTION simhash_containment_above(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_above_m1';
COMMENT ON FUNCTION simhash_similarity_at_least(text, text, float8) IS
    'simhash_similarity(a, b) >= threshold, what that comparison is planned as: from a simhash_ops index on a or b when there is one';
COMMENT ON FUNCTION simhash_similarity_above(text, text, float8) IS
    'simhash_similarity(a, b) > threshold, what that comparison is planned as: from a simhash_ops index on a or b when there is one';
COMMENT ON FUNCTION simhash_containment_at_least(text, text, float8) IS
    'simhash_containment(a, b) >= threshold, what that comparison is planned as: from a simhash_ops index on a or b when there is one';
COMMENT ON FUNCTION simhash_containment_above(text, text, float8) IS
    'simhash_containment(a, b) > threshold, what that comparison is planned as: from a simhash_ops index on a or b when there is one';

CREATE FUNCTION simhash_similarity_support(internal) RETURNS internal
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_support';
ALTER FUNCTION simhash_similarity_at_least(text, text, float8) SUPPORT simhash_similarity_support;
ALTER FUNCTION simhash_similarity_above(text, text, float8) SUPPORT simhash_similarity_support;
ALTER FUNCTION simhash_containment_at_least(text, text, float8) SUPPORT simhash_similarity_support;
ALTER FUNCTION simhash_containment_above(text, text, float8) SUPPORT simhash_similarity_support;

-- A score compared with a threshold: float8's comparison, with the support function that
-- makes `simhash_similarity(a, b) >= t` the predicate above. The threshold may be float8,
-- numeric (a literal such as 0.6) or a score (an untyped parameter takes the score's type).
CREATE FUNCTION simhash_score_ge(simhash_score, float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_ge';
CREATE FUNCTION simhash_score_gt(simhash_score, float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_gt';
CREATE FUNCTION simhash_score_ge(simhash_score, numeric) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_ge_numeric';
CREATE FUNCTION simhash_score_gt(simhash_score, numeric) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_gt_numeric';
CREATE FUNCTION simhash_score_le(simhash_score, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_le';
CREATE FUNCTION simhash_score_lt(simhash_score, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_lt';
CREATE FUNCTION simhash_score_ge(simhash_score, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_ge';
CREATE FUNCTION simhash_score_gt(simhash_score, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_gt';
-- The threshold on the left: `0.6 <= simhash_similarity(a, b)`.
CREATE FUNCTION simhash_score_le(float8, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_le';
CREATE FUNCTION simhash_score_lt(float8, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_lt';
CREATE FUNCTION simhash_score_le(numeric, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_le_numeric';
CREATE FUNCTION simhash_score_lt(numeric, simhash_score) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE SUPPORT simhash_similarity_support
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_score_lt_numeric';

CREATE OPERATOR >= (LEFTARG = simhash_score, RIGHTARG = float8, FUNCTION = simhash_score_ge,
                    COMMUTATOR = <=, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = simhash_score, RIGHTARG = float8, FUNCTION = simhash_score_gt,
                   COMMUTATOR = <, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = simhash_score, RIGHTARG = numeric, FUNCTION = simhash_score_ge,
                    COMMUTATOR = <=, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = simhash_score, RIGHTARG = numeric, FUNCTION = simhash_score_gt,
                   COMMUTATOR = <, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR >= (LEFTARG = simhash_score, RIGHTARG = simhash_score, FUNCTION = simhash_score_ge,
                    COMMUTATOR = <=, RESTRICT = scalargesel, JOIN = scalargejoinsel);
CREATE OPERATOR > (LEFTARG = simhash_score, RIGHTARG = simhash_score, FUNCTION = simhash_score_gt,
                   COMMUTATOR = <, RESTRICT = scalargtsel, JOIN = scalargtjoinsel);
CREATE OPERATOR <= (LEFTARG = simhash_score, RIGHTARG = simhash_score, FUNCTION = simhash_score_le,
                    COMMUTATOR = >=, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR < (LEFTARG = simhash_score, RIGHTARG = simhash_score, FUNCTION = simhash_score_lt,
                   COMMUTATOR = >, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = float8, RIGHTARG = simhash_score, FUNCTION = simhash_score_le,
                    COMMUTATOR = >=, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR < (LEFTARG = float8, RIGHTARG = simhash_score, FUNCTION = simhash_score_lt,
                   COMMUTATOR = >, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);
CREATE OPERATOR <= (LEFTARG = numeric, RIGHTARG = simhash_score, FUNCTION = simhash_score_le,
                    COMMUTATOR = >=, RESTRICT = scalarlesel, JOIN = scalarlejoinsel);
CREATE OPERATOR < (LEFTARG = numeric, RIGHTARG = simhash_score, FUNCTION = simhash_score_lt,
                   COMMUTATOR = >, RESTRICT = scalarltsel, JOIN = scalarltjoinsel);

-- The GIN operator class (sql/similarity/gin.sql).
CREATE TYPE simhash_query AS (query text, measure text, threshold float8);
COMMENT ON TYPE simhash_query IS
    'A simhash_ops index lookup: rows r with simhash_similarity(query, r) (measure similarity), simhash_containment(query, r) (query_in_row) or simhash_containment(r, query) (row_in_query) at least threshold';

CREATE FUNCTION simhash_query(query text, measure text, threshold float8) RETURNS simhash_query
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_query_make';
COMMENT ON FUNCTION simhash_query(text, text, float8) IS
    'A simhash_query, its measure (similarity, query_in_row, row_in_query) and threshold (0 to 1) checked';

CREATE FUNCTION simhash_query_match(doc text, q simhash_query) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_query_match';
COMMENT ON FUNCTION simhash_query_match(text, simhash_query) IS
    'doc @% q: doc reaches q''s measure at q''s threshold, exactly';

CREATE OPERATOR @% (LEFTARG = text, RIGHTARG = simhash_query, FUNCTION = simhash_query_match,
                    RESTRICT = contsel, JOIN = contjoinsel);
COMMENT ON OPERATOR @% (text, simhash_query) IS
    'The text reaches the query''s measure at its threshold (a simhash_ops index lookup, rechecked exactly)';

CREATE FUNCTION simhash_keys(doc text) RETURNS int4[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_keys';
COMMENT ON FUNCTION simhash_keys(text) IS
    'The keys a simhash_ops index holds for a text (its bottom-k sketch and winnowed shingles), ascending';

CREATE FUNCTION simhash_gin_extract_value(text, internal, internal) RETURNS internal
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_extract_value';
CREATE FUNCTION simhash_gin_extract_query(simhash_query, internal, int2, internal, internal, internal, internal)
    RETURNS internal IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_extract_query';
CREATE FUNCTION simhash_gin_consistent(internal, int2, simhash_query, int4, internal, internal, internal, internal)
    RETURNS boolean IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_consistent';
CREATE FUNCTION simhash_gin_triconsistent(internal, int2, simhash_query, int4, internal, internal, internal)
    RETURNS "char" IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_triconsistent';

CREATE OPERATOR CLASS simhash_ops FOR TYPE text USING gin AS
    OPERATOR 1 @% (text, simhash_query),
    FUNCTION 1 btint4cmp(int4, int4),
    FUNCTION 2 simhash_gin_extract_value(text, internal, internal),
    FUNCTION 3 simhash_gin_extract_query(simhash_query, internal, int2, internal, internal, internal, internal),
    FUNCTION 4 simhash_gin_consistent(internal, int2, simhash_query, int4, internal, internal, internal, internal),
    FUNCTION 6 simhash_gin_triconsistent(internal, int2, simhash_query, int4, internal, internal, internal),
    STORAGE int4;
COMMENT ON OPERATOR CLASS simhash_ops USING gin IS
    'Exact text similarity and containment through a GIN index: simhash_similarity(col, q) >= t, simhash_containment(q, col) >= t and simhash_containment(col, q) >= t';

-- Bulk pairs and clusters (src/similarity/pairs.rs, sql/similarity/pairs.sql).
CREATE FUNCTION "simhash_similarity_pairs_stream"(
	"query" TEXT,
	"min_similarity" double precision
) RETURNS TABLE (
	"id1" bigint,
	"id2" bigint,
	"similarity" double precision
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'simhash_similarity_pairs_wrapper';

CREATE FUNCTION "simhash_similarity_clusters"(
	"query" TEXT,
	"min_similarity" double precision
) RETURNS TABLE (
	"id" bigint,
	"cluster_id" bigint
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'simhash_similarity_clusters_wrapper';

CREATE FUNCTION simhash_similarity_pairs(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream(query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_pairs(text, float8) IS
    'Every pair of rows of a query returning (id bigint, body text) with simhash_similarity >= min_similarity (0 to 1), once, id1 < id2, with its similarity; streamed, in no particular order';
COMMENT ON FUNCTION simhash_similarity_clusters(text, float8) IS
    'Connected components of simhash_similarity_pairs: (id, cluster_id) for every row in a pair, cluster_id the smallest id of its component, sorted by (cluster_id, id)';

-- Why two texts are similar (src/similarity/explain.rs, sql/similarity/explain.sql).
CREATE FUNCTION "simhash_explain_shingles_utf8"(
	"a" bytea,
	"b" bytea
) RETURNS TABLE (
	"shingle" bytea,
	"in_a" bool,
	"in_b" bool,
	"similarity" double precision,
	"a_in_b" double precision,
	"b_in_a" double precision
)
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'simhash_explain_shingles_utf8_wrapper';

CREATE FUNCTION simhash_explain(a text, b text)
    RETURNS TABLE(shingle text, in_a boolean, in_b boolean, similarity float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(e.shingle, 'UTF8'), e.in_a, e.in_b, e.similarity, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_shingles_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                         pg_catalog.convert_to(b, 'UTF8')) AS e $$;
COMMENT ON FUNCTION simhash_explain(text, text) IS
    'Every distinct shingle of a and of b, and which has it; similarity, a_in_b and b_in_a are what the rows add up to: simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a)';

-- Dedup on insert by similarity (src/trigger/similarity_dedup.rs, sql/trigger/trigger.sql).
CREATE FUNCTION simhash_similarity_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_m1';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (text_column, min_similarity, reject|skip|link [, link_column] [, options]): acts on an existing row with simhash_similarity(existing, new) >= min_similarity (0 < min_similarity <= 1), or, with options ''{"min_containment": g}'', whose text contains the new one or is contained in it at g or more (simhash_containment either way). The match is the most similar such row. Candidates come through a simhash_ops GIN index on the text column; without one the check scans the table and inserts run one at a time. A NULL text or one without a letter or digit is never a duplicate';

CREATE FUNCTION simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_m1';
COMMENT ON FUNCTION simhash_similarity_dedup_query(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new text, $2 = min_similarity, $3 = min_containment), with how it finds candidates and what it locks in a trailing comment';
