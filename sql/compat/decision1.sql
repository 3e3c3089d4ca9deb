-- Decision 1 (5.x's: the measure alone decides), kept reachable under names ending in _d1
-- (docs/decision.md, "5.x's decision"). The update to 6.0.0 renamed 5.x's dedup functions to
-- these names, so every trigger and view made under 5.x decides as it did; a fresh install
-- makes the same objects here. Their C symbols are 5.x's (docs/development.md, "Version
-- suffixes": a shipped symbol never changes).

CREATE FUNCTION simhash_dedup_trigger_d1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_v3';
COMMENT ON FUNCTION simhash_dedup_trigger_d1() IS
    'simhash_dedup_trigger of 3.x to 5.x: the same arguments; the nearest row within max_distance is the near-duplicate, whatever its text';

CREATE FUNCTION simhash_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query';
COMMENT ON FUNCTION simhash_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint)';
CREATE FUNCTION simhash_segments_dedup_trigger_d1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_v3';
COMMENT ON FUNCTION simhash_segments_dedup_trigger_d1() IS
    'simhash_segments_dedup_trigger of 3.x to 5.x: the same arguments; the most resembling row at min_resemblance is the duplicate, whatever its text';

CREATE FUNCTION simhash_segments_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_v3';
COMMENT ON FUNCTION simhash_segments_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_segments_dedup_query of 5.x';
CREATE FUNCTION simhash_similarity_dedup_trigger_d1() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_m2';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger_d1() IS
    'simhash_similarity_dedup_trigger of 5.x: the same arguments; the most similar row at the thresholds is the duplicate, whatever the decision says';

CREATE FUNCTION simhash_similarity_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_m2';
COMMENT ON FUNCTION simhash_similarity_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_similarity_dedup_query of 5.x';

-- 5.x's simhash_explain, without the decision's rows.
CREATE FUNCTION simhash_explain_d1(a text, b text)
    RETURNS TABLE(kind text, item text, in_a boolean, in_b boolean, similarity float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.kind, pg_catalog.convert_from(e.item, 'UTF8'), e.in_a, e.in_b, e.similarity, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_items_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                      pg_catalog.convert_to(b, 'UTF8')) AS e $$;
COMMENT ON FUNCTION simhash_explain_d1(text, text) IS
    'simhash_explain of 5.x: the shingles and figures of a and b, without the dedup decision''s rows';
-- 5.x's: every pair at the threshold, whatever the decision says, and their connected
-- components (on 5.x's C symbols).
CREATE FUNCTION simhash_similarity_pairs_d1(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream_d1(query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_pairs_d1(text, float8) IS
    'simhash_similarity_pairs of 5.x: every pair at simhash_similarity >= min_similarity, whatever the dedup decision says';
COMMENT ON FUNCTION simhash_similarity_clusters_d1(text, float8) IS
    'simhash_similarity_clusters of 5.x: connected components of simhash_similarity_pairs_d1, (id, cluster_id), cluster_id the smallest id of its component';
