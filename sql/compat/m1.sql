-- Measure 1 (simhash 4.x's measure: every digit read as 0), kept reachable under names
-- ending in _m1 (src/similarity/; docs/similarity.md, "Measures"). The update from 4.0.0
-- renames 4.0.0's objects to these names, so every index, trigger, view and generated column
-- made under 4.x goes on computing measure 1; a fresh install makes the same objects here.
-- Their C symbols are 4.0.0's. The score type, its comparisons and the support function are
-- shared with measure 2 (similarity.sql): a rewrite stays within one measure's objects, so a
-- measure-1 predicate is answered only from a simhash_ops_m1 index.

CREATE FUNCTION simhash_similarity_m1(a text, b text) RETURNS simhash_score
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_m1';
COMMENT ON FUNCTION simhash_similarity_m1(text, text) IS
    'simhash_similarity of 4.x (measure 1): the Jaccard index of the shingle sets with every digit read as 0, so that texts differing only in their figures score 1';

CREATE FUNCTION simhash_containment_m1(a text, b text) RETURNS simhash_score
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_m1';
COMMENT ON FUNCTION simhash_containment_m1(text, text) IS
    'simhash_containment of 4.x (measure 1): the share of the first text''s shingles found in the second, digits read as 0';

CREATE FUNCTION simhash_similarity_at_least_m1(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_at_least_m1';
CREATE FUNCTION simhash_similarity_above_m1(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_above_m1';
CREATE FUNCTION simhash_containment_at_least_m1(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_at_least_m1';
CREATE FUNCTION simhash_containment_above_m1(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_above_m1';
COMMENT ON FUNCTION simhash_similarity_at_least_m1(text, text, float8) IS
    'simhash_similarity_m1(a, b) >= threshold, what that comparison is planned as: from a simhash_ops_m1 index on a or b when there is one';
COMMENT ON FUNCTION simhash_similarity_above_m1(text, text, float8) IS
    'simhash_similarity_m1(a, b) > threshold, what that comparison is planned as: from a simhash_ops_m1 index on a or b when there is one';
COMMENT ON FUNCTION simhash_containment_at_least_m1(text, text, float8) IS
    'simhash_containment_m1(a, b) >= threshold, what that comparison is planned as: from a simhash_ops_m1 index on a or b when there is one';
COMMENT ON FUNCTION simhash_containment_above_m1(text, text, float8) IS
    'simhash_containment_m1(a, b) > threshold, what that comparison is planned as: from a simhash_ops_m1 index on a or b when there is one';
ALTER FUNCTION simhash_similarity_at_least_m1(text, text, float8) SUPPORT simhash_similarity_support;
ALTER FUNCTION simhash_similarity_above_m1(text, text, float8) SUPPORT simhash_similarity_support;
ALTER FUNCTION simhash_containment_at_least_m1(text, text, float8) SUPPORT simhash_similarity_support;
ALTER FUNCTION simhash_containment_above_m1(text, text, float8) SUPPORT simhash_similarity_support;

-- The GIN operator class of measure 1 (4.x's simhash_ops), its lookup type and operator.
CREATE TYPE simhash_query_m1 AS (query text, measure text, threshold float8);
COMMENT ON TYPE simhash_query_m1 IS
    'A simhash_ops_m1 index lookup (measure 1): rows r with simhash_similarity_m1(query, r) (measure similarity), simhash_containment_m1(query, r) (query_in_row) or simhash_containment_m1(r, query) (row_in_query) at least threshold';

CREATE FUNCTION simhash_query_m1(query text, measure text, threshold float8) RETURNS simhash_query_m1
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_query_make';
COMMENT ON FUNCTION simhash_query_m1(text, text, float8) IS
    'A simhash_query_m1 (measure 1), its measure (similarity, query_in_row, row_in_query) and threshold (0 to 1) checked';

CREATE FUNCTION simhash_query_match_m1(doc text, q simhash_query_m1) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_query_match';
COMMENT ON FUNCTION simhash_query_match_m1(text, simhash_query_m1) IS
    'doc @% q: doc reaches q''s measure (measure 1) at q''s threshold, exactly';

CREATE OPERATOR @% (LEFTARG = text, RIGHTARG = simhash_query_m1, FUNCTION = simhash_query_match_m1,
                    RESTRICT = contsel, JOIN = contjoinsel);
COMMENT ON OPERATOR @% (text, simhash_query_m1) IS
    'The text reaches the query''s measure (measure 1) at its threshold (a simhash_ops_m1 index lookup, rechecked exactly)';

CREATE FUNCTION simhash_keys_m1(doc text) RETURNS int4[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_keys';
COMMENT ON FUNCTION simhash_keys_m1(text) IS
    'The keys a simhash_ops_m1 index (measure 1) holds for a text, ascending';

CREATE FUNCTION simhash_gin_extract_value_m1(text, internal, internal) RETURNS internal
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_extract_value';
CREATE FUNCTION simhash_gin_extract_query_m1(simhash_query_m1, internal, int2, internal, internal, internal, internal)
    RETURNS internal IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_extract_query';
CREATE FUNCTION simhash_gin_consistent_m1(internal, int2, simhash_query_m1, int4, internal, internal, internal, internal)
    RETURNS boolean IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_consistent';
CREATE FUNCTION simhash_gin_triconsistent_m1(internal, int2, simhash_query_m1, int4, internal, internal, internal)
    RETURNS "char" IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_triconsistent';

CREATE OPERATOR CLASS simhash_ops_m1 FOR TYPE text USING gin AS
    OPERATOR 1 @% (text, simhash_query_m1),
    FUNCTION 1 btint4cmp(int4, int4),
    FUNCTION 2 simhash_gin_extract_value_m1(text, internal, internal),
    FUNCTION 3 simhash_gin_extract_query_m1(simhash_query_m1, internal, int2, internal, internal, internal, internal),
    FUNCTION 4 simhash_gin_consistent_m1(internal, int2, simhash_query_m1, int4, internal, internal, internal, internal),
    FUNCTION 6 simhash_gin_triconsistent_m1(internal, int2, simhash_query_m1, int4, internal, internal, internal),
    STORAGE int4;
COMMENT ON OPERATOR CLASS simhash_ops_m1 USING gin IS
    'simhash_ops of 4.x (measure 1): simhash_similarity_m1(col, q) >= t, simhash_containment_m1(q, col) >= t and simhash_containment_m1(col, q) >= t through a GIN index';

-- Why two texts are similar, and bulk pairs, under measure 1.
CREATE FUNCTION simhash_explain_m1(a text, b text)
    RETURNS TABLE(shingle text, in_a boolean, in_b boolean, similarity float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(e.shingle, 'UTF8'), e.in_a, e.in_b, e.similarity, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_shingles_utf8_m1(pg_catalog.convert_to(a, 'UTF8'),
                                                            pg_catalog.convert_to(b, 'UTF8')) AS e $$;
COMMENT ON FUNCTION simhash_explain_m1(text, text) IS
    'simhash_explain(a, b) of 4.x (measure 1): every distinct shingle of a and of b (digits as 0), and which has it, with simhash_similarity_m1 and both simhash_containment_m1';

CREATE FUNCTION simhash_similarity_pairs_m1(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream_m1(query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_pairs_m1(text, float8) IS
    'simhash_similarity_pairs of 4.x (measure 1): every pair of rows of a query returning (id bigint, body text) with simhash_similarity_m1 >= min_similarity, once, id1 < id2, with its similarity';
COMMENT ON FUNCTION simhash_similarity_clusters_m1(text, float8) IS
    'simhash_similarity_clusters of 4.x (measure 1): connected components of simhash_similarity_pairs_m1, (id, cluster_id), cluster_id the smallest id of its component';

-- Measure 1's dedup trigger and its check query (4.x's).
CREATE FUNCTION simhash_similarity_dedup_trigger_m1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_m1';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger_m1() IS
    'simhash_similarity_dedup_trigger of 4.x (measure 1, digits read as 0): the same arguments; candidates come through a simhash_ops_m1 index';

CREATE FUNCTION simhash_similarity_dedup_query_m1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_m1';
COMMENT ON FUNCTION simhash_similarity_dedup_query_m1(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger_m1(trigger_args) runs on tbl for an INSERT, as simhash_similarity_dedup_query';
