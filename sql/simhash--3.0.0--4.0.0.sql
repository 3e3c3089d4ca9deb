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

-- Similarity across postgres_fdw shards (src/similarity/shard.rs, sql/similarity/shard.sql).
CREATE FUNCTION "simhash_similarity_key_owner"(
	"key" INT,
	"shards" INT
) RETURNS INT
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'simhash_similarity_key_owner_wrapper';

CREATE FUNCTION "simhash_similarity_owned_pairs_stream"(
	"query" TEXT,
	"min_similarity" double precision,
	"shard" INT,
	"shards" INT
) RETURNS TABLE (
	"id1" bigint,
	"id2" bigint,
	"similarity" double precision
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'simhash_similarity_owned_pairs_wrapper';

CREATE FUNCTION "simhash_similarity_owners"(
	"body" TEXT,
	"shards" INT
) RETURNS INT[]
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c
AS 'MODULE_PATHNAME', 'simhash_similarity_owners_wrapper';

COMMENT ON FUNCTION simhash_similarity_key_owner(int, int) IS
    'The shard (0 <= result < shards) owning a simhash_ops index key: xxh3_64 of ("SMSH", key >> 1) mod shards, a contract like the fingerprint';
COMMENT ON FUNCTION simhash_similarity_owners(text, int) IS
    'The shards a copy of a text goes to, ascending and distinct: the owners of its index keys, or every shard for a text of fewer than 48 shingles';

-- Writes the copies of one document (id, body) into key_table on the coordinator: a row
-- (shard, id, body) for each shard of simhash_similarity_owners(body, shards), in ascending
-- shard order, so that single-row inserters take their shard locks in one global order.
-- Each shard's simhash_similarity_dedup_trigger (action link) sets dup_of to the most
-- similar matching row it holds; the result is the most similar over all shards, ties by the
-- smaller id (one node's rule), with its similarity, or NULLs. The copies are written
-- whatever it finds: the caller decides.
CREATE FUNCTION simhash_similarity_shard_write_keys(key_table regclass, id bigint, body text, shards int,
                                                    OUT dup_of bigint, OUT similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    o int;
    dup bigint;
    s float8;
    other text;
    ins text := format('INSERT INTO %s (shard, id, body) VALUES ($1, $2, $3) RETURNING dup_of', key_table);
    get text := format('SELECT body FROM %s WHERE shard = $1 AND id = $2', key_table);
BEGIN
    FOREACH o IN ARRAY @extschema@.simhash_similarity_owners(body, shards) LOOP
        EXECUTE ins INTO dup USING o, id, body;
        CONTINUE WHEN dup IS NULL OR dup = dup_of;
        -- The shard saw the twin in this transaction's snapshot: its copy is readable here.
        EXECUTE get INTO other USING o, dup;
        s := @extschema@.simhash_similarity(body, other);
        IF dup_of IS NULL OR s > similarity OR (s = similarity AND dup < dup_of) THEN
            dup_of := dup;
            similarity := s;
        END IF;
    END LOOP;
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_write_keys(regclass, bigint, text, int) IS
    'Writes a document''s copies (shard, id, body) to the shards that own its index keys; returns the most similar near-duplicate the shards found (dup_of, similarity), or NULLs';

-- The coordinator's BEFORE INSERT, UPDATE or DELETE row trigger on the document table,
-- arguments (id_column, text_column, key_table, shards, reject|skip|link [, link_column]).
-- The thresholds are the shards' triggers'. On INSERT it writes the row's copies
-- (simhash_similarity_shard_write_keys) and acts on what the shards found:
--   reject: ERROR 23505 when some shard found a near-duplicate;
--   skip:   the row and its copies are not written (a subtransaction is rolled back);
--   link:   link_column gets the most similar near-duplicate's id, ties by the smaller id.
-- On DELETE it deletes the row's copies; on an UPDATE that changes the id or the text, both.
-- A NULL text has no copies. Plain PL/pgSQL, run with the inserter's rights: the inserter
-- needs INSERT, SELECT and DELETE on the key table. search_path is pinned, so key_table must
-- be schema-qualified.
CREATE FUNCTION simhash_similarity_shard_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    keys regclass;
    shards int;
    act text;
    v_id bigint;
    v_body text;
    old_id bigint;
    old_body text;
    drop_old text;
    hit record;
    root regclass;
BEGIN
    IF TG_WHEN <> 'BEFORE' OR TG_LEVEL <> 'ROW' THEN
        RAISE EXCEPTION 'simhash_similarity_shard_trigger: must be fired BEFORE INSERT, UPDATE or DELETE FOR EACH ROW'
            USING ERRCODE = '39P01';
    END IF;
    IF TG_NARGS NOT IN (5, 6) THEN
        RAISE EXCEPTION 'simhash_similarity_shard_trigger: expected 5 or 6 arguments (id_column, text_column, key_table, shards, action [, link_column]), got %', TG_NARGS
            USING ERRCODE = '39P01';
    END IF;
    keys := TG_ARGV[2]::regclass;
    shards := TG_ARGV[3]::int;
    act := lower(TG_ARGV[4]);
    IF act NOT IN ('reject', 'skip', 'link') OR (act = 'link') <> (TG_NARGS = 6) THEN
        RAISE EXCEPTION 'simhash_similarity_shard_trigger: action must be reject, skip, or link followed by the link column, got %', array_to_string(TG_ARGV[4:], ', ')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    drop_old := format('DELETE FROM %s WHERE shard = ANY ($1) AND id = $2', keys);
    IF TG_OP <> 'INSERT' THEN
        EXECUTE format('SELECT ($1).%I::pg_catalog.int8, ($1).%I::pg_catalog.text', TG_ARGV[0], TG_ARGV[1])
            INTO old_id, old_body USING OLD;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF old_body IS NOT NULL THEN
            EXECUTE drop_old USING @extschema@.simhash_similarity_owners(old_body, shards), old_id;
        END IF;
        RETURN OLD;
    END IF;
    EXECUTE format('SELECT ($1).%I::pg_catalog.int8, ($1).%I::pg_catalog.text', TG_ARGV[0], TG_ARGV[1])
        INTO v_id, v_body USING NEW;
    IF TG_OP = 'UPDATE' THEN
        IF v_id IS NOT DISTINCT FROM old_id AND v_body IS NOT DISTINCT FROM old_body THEN
            RETURN NEW;  -- checked when the row got this text
        END IF;
    ELSE
        old_body := NULL;
    END IF;
    IF act = 'skip' THEN
        -- Only skip pays for a subtransaction (and a remote SAVEPOINT per shard): it must
        -- undo the copies already written on the other shards.
        BEGIN
            IF old_body IS NOT NULL THEN
                EXECUTE drop_old USING @extschema@.simhash_similarity_owners(old_body, shards), old_id;
            END IF;
            IF v_body IS NOT NULL THEN
                hit := @extschema@.simhash_similarity_shard_write_keys(keys, v_id, v_body, shards);
                IF hit.dup_of IS NOT NULL THEN
                    RAISE EXCEPTION USING ERRCODE = 'SH001';
                END IF;
            END IF;
        EXCEPTION WHEN SQLSTATE 'SH001' THEN
            RETURN NULL;
        END;
        RETURN NEW;
    END IF;
    IF old_body IS NOT NULL THEN
        EXECUTE drop_old USING @extschema@.simhash_similarity_owners(old_body, shards), old_id;
    END IF;
    IF v_body IS NULL THEN
        RETURN NEW;
    END IF;
    hit := @extschema@.simhash_similarity_shard_write_keys(keys, v_id, v_body, shards);
    IF act = 'link' THEN
        RETURN pg_catalog.jsonb_populate_record(NEW, pg_catalog.jsonb_build_object(TG_ARGV[5], hit.dup_of));
    END IF;
    IF hit.dup_of IS NOT NULL THEN
        -- The trigger fires on the partition; messages name the partitioned table.
        root := COALESCE(pg_catalog.pg_partition_root(TG_RELID), TG_RELID::regclass);
        RAISE EXCEPTION 'new row for relation "%" is a near-duplicate of an existing row (trigger "%")',
                        (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = root), TG_NAME
            USING ERRCODE = 'unique_violation',
                  DETAIL = CASE WHEN pg_catalog.has_table_privilege(root, 'SELECT')
                                THEN format('Key (%s)=(%s) has similarity %s with it.', TG_ARGV[0], hit.dup_of, round(hit.similarity::numeric, 3))
                                ELSE format('An existing row has similarity %s with it.', round(hit.similarity::numeric, 3)) END;
    END IF;
    RETURN NEW;
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_trigger() IS
    'Coordinator BEFORE INSERT, UPDATE or DELETE row trigger, arguments (id_column, text_column, key_table, shards, reject|skip|link [, link_column]): keeps the row''s copies on the shards that own its index keys, and rejects, skips or links near-duplicates their triggers found';

-- Repairs the copies after a crash between shard commits (there is no two-phase commit):
-- deletes copies that no document accounts for (wrong shard, id or text), and writes the
-- missing copies of every document, each reported as a row. A document whose restored copy
-- found a near-duplicate (one written while the copy was missing) is reported as
-- 'near-duplicate' with that twin's id; it is left for the caller. Run it with no writer
-- active. It reads every document's text and every copy, through the coordinator.
CREATE FUNCTION simhash_similarity_shard_repair(docs regclass, id_column name, text_column name, key_table regclass,
                                                shards int)
    RETURNS TABLE(action text, shard int, id bigint, dup_of bigint)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    expected text := format(
        'SELECT o AS shard, d.%1$I::pg_catalog.int8 AS id, d.%2$I::pg_catalog.text AS body FROM %3$s d,
                pg_catalog.unnest(@extschema@.simhash_similarity_owners(d.%2$I::pg_catalog.text, %4$s)) o
          WHERE d.%2$I IS NOT NULL',
        id_column, text_column, docs, shards);
BEGIN
    CREATE TEMP TABLE simhash_expected_copies ON COMMIT DROP AS SELECT 0 AS shard, 0::pg_catalog.int8 AS id, ''::pg_catalog.text AS body WITH NO DATA;
    EXECUTE format('INSERT INTO simhash_expected_copies %s', expected);
    RETURN QUERY EXECUTE format(
        'DELETE FROM %1$s k WHERE NOT EXISTS (SELECT FROM pg_temp.simhash_expected_copies e
                                               WHERE e.shard = k.shard AND e.id = k.id AND e.body = k.body)
         RETURNING ''deleted''::pg_catalog.text, k.shard, k.id, NULL::pg_catalog.int8',
        key_table);
    RETURN QUERY EXECUTE format(
        'WITH ins AS (
             INSERT INTO %1$s (shard, id, body)
             SELECT e.shard, e.id, e.body FROM pg_temp.simhash_expected_copies e
              WHERE NOT EXISTS (SELECT FROM %1$s k WHERE k.shard = e.shard AND k.id = e.id)
             RETURNING shard, id, dup_of)
         SELECT ''inserted''::pg_catalog.text, shard, id, NULL::pg_catalog.int8 FROM ins
         UNION ALL
         SELECT ''near-duplicate''::pg_catalog.text, shard, id, dup_of FROM ins WHERE dup_of IS NOT NULL',
        key_table);
    DROP TABLE pg_temp.simhash_expected_copies;
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_repair(regclass, name, name, regclass, int) IS
    'After a crash between shard commits: deletes copies no document accounts for and writes missing ones; reports each, and documents whose restored copies met a near-duplicate';

-- simhash_similarity_owned_pairs: an inlinable SQL function around the value-per-call C
-- function, as simhash_similarity_pairs (sql/similarity/pairs.sql), so that LIMIT stops it.
CREATE FUNCTION simhash_similarity_owned_pairs(query text, min_similarity float8, shard int, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_owned_pairs_stream(query, min_similarity, shard, shards) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_owned_pairs(text, float8, int, int) IS
    'The pairs of simhash_similarity_pairs(query, min_similarity) that shard reports in a bulk run over shards: those whose first shared key among the first 24 of both sketches it owns';

-- Run on a shard, over its copy table (which holds one shard number): the pairs at
-- min_similarity or more among its copies that this shard reports, so that the union over
-- all shards holds every pair once.
CREATE FUNCTION simhash_similarity_shard_pairs(key_table regclass, min_similarity float8, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    shard int;
BEGIN
    EXECUTE format('SELECT shard FROM %s LIMIT 1', key_table) INTO shard;
    IF shard IS NULL THEN
        RETURN;  -- no copies
    END IF;
    RETURN QUERY SELECT * FROM @extschema@.simhash_similarity_owned_pairs(
        format('SELECT id, body FROM %s', key_table), min_similarity, shard, shards);
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_pairs(regclass, float8, int) IS
    'On a shard: the pairs at min_similarity or more among its copies (shard, id, body) that it reports, so every pair is reported by exactly one shard';
