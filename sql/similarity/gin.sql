-- The GIN operator class simhash_ops (src/similarity/gin.rs; docs/similarity.md, "The
-- index"): `CREATE INDEX ON news USING gin (body simhash_ops)`. Its keys are a sample of each
-- text's shingles (a bottom-k sketch and winnowed shingles, int4); a lookup is a
-- simhash_query, and its operator @% the exact recheck. The planner builds both from
-- `simhash_similarity(body, $1) >= 0.6` and the other predicates (similarity.sql). Measure
-- 2's; measure 1's simhash_ops_m1, with its own simhash_query_m1 and @%, is in m1.sql.

CREATE TYPE simhash_query AS (query text, measure text, threshold float8, frame int4[]);
COMMENT ON TYPE simhash_query IS
    'A simhash_ops index lookup: rows r with simhash_similarity(query, r) (measure similarity), simhash_containment(query, r) (query_in_row), simhash_containment(r, query) (row_in_query) or either containment (either_way) at least threshold; with frame (index keys of a template, as the dedup trigger learns them), only rows whose index keys hold two of the lookup''s other keys';

CREATE FUNCTION simhash_query(query text, measure text, threshold float8) RETURNS simhash_query
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_query_make';
COMMENT ON FUNCTION simhash_query(text, text, float8) IS
    'A simhash_query, its measure (similarity, query_in_row, row_in_query, either_way) and threshold (0 to 1) checked';

CREATE FUNCTION simhash_query_match(doc text, q simhash_query) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_query_match_m2';
COMMENT ON FUNCTION simhash_query_match(text, simhash_query) IS
    'doc @% q: doc reaches q''s measure at q''s threshold, exactly';

CREATE OPERATOR @% (LEFTARG = text, RIGHTARG = simhash_query, FUNCTION = simhash_query_match,
                    RESTRICT = contsel, JOIN = contjoinsel);
COMMENT ON OPERATOR @% (text, simhash_query) IS
    'The text reaches the query''s measure at its threshold (a simhash_ops index lookup, rechecked exactly)';

CREATE FUNCTION simhash_keys(doc text) RETURNS int4[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_keys_m2';
COMMENT ON FUNCTION simhash_keys(text) IS
    'The keys a simhash_ops index holds for a text (its bottom-k sketch and winnowed shingles), ascending';

CREATE FUNCTION simhash_gin_extract_value(text, internal, internal) RETURNS internal
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_extract_value_m2';
CREATE FUNCTION simhash_gin_extract_query(simhash_query, internal, int2, internal, internal, internal, internal)
    RETURNS internal IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_gin_extract_query_m2';
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
