-- Exact text similarity (src/similarity/; docs/similarity.md): two measures on the texts'
-- shingle sets, a GIN operator class that finds candidates for them, and a planner support
-- function that turns `simhash_similarity(body, $1) >= 0.6` into a GIN index scan whose
-- recheck is the exact measure. These are measure 2's (5.0.0: digits as written); measure
-- 1's, 4.x's, are in m1.sql, named with the suffix _m1. The score type, its comparisons and
-- the support function serve both.
--
-- The measures return the domain simhash_score (a float8 to every client: a domain goes out
-- as its base type), so that `simhash_similarity(a, b) >= 0.6` resolves to this extension's
-- `>=` rather than float8's, and its support function sees the whole comparison.

-- In [0, 1] (6.0.0: 5::simhash_score, -1 and 'NaN' were accepted, issue 49).
CREATE DOMAIN simhash_score AS float8 CONSTRAINT simhash_score_range CHECK (VALUE >= 0 AND VALUE <= 1);
COMMENT ON DOMAIN simhash_score IS
    'What simhash_similarity and simhash_containment return: a float8 in [0, 1], whose comparisons with a threshold the planner answers from a simhash_ops index';

CREATE FUNCTION simhash_similarity(a text, b text) RETURNS simhash_score
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_m2';
COMMENT ON FUNCTION simhash_similarity(text, text) IS
    'Jaccard index of the two texts'' shingle sets times the agreement of their figures (measure 2: NFKC, lowercase, traditional folded, letters and digits as written; shingles of 3 CJK or 5 other characters; (shared figures + 1) / (figures of the text with fewer + 1)); 0 when either has no letter or digit';

CREATE FUNCTION simhash_containment(a text, b text) RETURNS simhash_score
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_m2';
COMMENT ON FUNCTION simhash_containment(text, text) IS
    'Share of the first text''s shingles found in the second, times (its figures found in the second + 1) / (its figures + 1) (measure 2); 0 when the first has no letter or digit';

-- The predicates the comparisons become (support function below), each exactly
-- `measure(a, b) >= threshold` (`>` for the _above forms), answered from a simhash_ops index
-- on either argument. Measure 1's (m1.sql) share the support function: it keeps a rewrite
-- within one measure's objects.
CREATE FUNCTION simhash_similarity_at_least(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_at_least_m2';
CREATE FUNCTION simhash_similarity_above(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_above_m2';
CREATE FUNCTION simhash_containment_at_least(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_at_least_m2';
CREATE FUNCTION simhash_containment_above(a text, b text, threshold float8) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_above_m2';
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
