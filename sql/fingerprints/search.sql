-- Near-duplicate search (src/fingerprints/search/near.rs, src/fingerprints/search/support.rs): the ~= operator and the planner
-- support function that rewrites simhash_near / ~= into btree block probes.

CREATE FUNCTION simhash_support(internal) RETURNS internal
    LANGUAGE c STRICT AS 'MODULE_PATHNAME', 'simhash_support';
COMMENT ON FUNCTION simhash_support(internal) IS
    'Planner support for simhash_near and ~=: rewrites them into block-index probes plus an exact recheck';

ALTER FUNCTION simhash_near(bigint, bigint, integer) SUPPORT simhash_support;
ALTER FUNCTION simhash_near_guc(bigint, bigint) SUPPORT simhash_support;

CREATE OPERATOR ~= (
    LEFTARG = bigint,
    RIGHTARG = bigint,
    FUNCTION = simhash_near_guc,
    COMMUTATOR = ~=,
    -- Estimate by testing the operator on the column's statistics, as pg_trgm's % does;
    -- only used where the predicate is not rewritten into block probes.
    RESTRICT = matchingsel,
    JOIN = matchingjoinsel
);
COMMENT ON OPERATOR ~= (bigint, bigint) IS
    'fingerprints within simhash.max_distance bits of each other';
