-- simhash 0.1.0 → 0.2.0: near-duplicate search (block columns, simhash_near, ~=, the planner
-- rewrite) and insert triggers. Nothing of 0.1.0 changes; every statement adds an object,
-- in the order of the 0.2.0 install script.
\echo Use "ALTER EXTENSION simhash UPDATE TO '0.2.0'" to load this file. \quit

CREATE  FUNCTION "simhash_block"(
	"fp" bigint, /* i64 */
	"block" INT, /* i32 */
	"nblocks" INT /* i32 */
) RETURNS INT /* i32 */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_block_wrapper';

-- simhash_create_blocks (src/blocks.rs): STORED generated block columns plus one btree index
-- each, in the form the planner support function (src/support.rs) recognizes.

CREATE FUNCTION simhash_create_blocks(tbl regclass, fp_column name, nblocks int DEFAULT 4)
    RETURNS void
    VOLATILE STRICT
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    ext_schema name;
    col_type regtype;
    cols text[] := '{}';
    col name;
BEGIN
    IF nblocks < 2 OR nblocks > 16 THEN
        RAISE EXCEPTION 'simhash_create_blocks: nblocks must be between 2 and 16, got %', nblocks
            USING ERRCODE = '22023';
    END IF;
    SELECT a.atttypid INTO col_type
        FROM pg_attribute a
        WHERE a.attrelid = tbl AND a.attname = fp_column AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'simhash_create_blocks: column "%" of relation % does not exist', fp_column, tbl
            USING ERRCODE = '42703';
    END IF;
    IF col_type <> 'bigint'::regtype THEN
        RAISE EXCEPTION 'simhash_create_blocks: column "%" of relation % has type %, expected bigint',
            fp_column, tbl, col_type
            USING ERRCODE = '42804';
    END IF;
    -- The generation expression names the function by its schema: it must not depend on
    -- the search_path of whoever later inserts rows.
    SELECT n.nspname INTO ext_schema
        FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
        WHERE e.extname = 'simhash';
    FOR i IN 0 .. nblocks - 1 LOOP
        col := format('%s_block%s_of%s', fp_column, i, nblocks);
        cols := cols || format('ADD COLUMN %I integer GENERATED ALWAYS AS (%I.simhash_block(%I, %s, %s)) STORED',
                               col, ext_schema, fp_column, i, nblocks);
    END LOOP;
    -- One ALTER TABLE: the table is rewritten once for all the columns.
    EXECUTE format('ALTER TABLE %s %s', tbl, array_to_string(cols, ', '));
    FOR i IN 0 .. nblocks - 1 LOOP
        EXECUTE format('CREATE INDEX ON %s (%I)', tbl, format('%s_block%s_of%s', fp_column, i, nblocks));
    END LOOP;
END
$$;
COMMENT ON FUNCTION simhash_create_blocks(regclass, name, int) IS
    'Adds STORED generated columns <fp>_block<i>_of<n> = simhash_block(fp, i, n) with a btree index each';

CREATE  FUNCTION "simhash_dedup_skipped"() RETURNS bigint /* i64 */
STRICT VOLATILE PARALLEL RESTRICTED
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_dedup_skipped_wrapper';

CREATE  FUNCTION "simhash_max_distance"() RETURNS INT /* i32 */
STRICT STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_max_distance_wrapper';

CREATE  FUNCTION "simhash_near"(
	"fp" bigint, /* i64 */
	"query" bigint, /* i64 */
	"max_distance" INT /* i32 */
) RETURNS bool /* bool */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_near_wrapper';

CREATE  FUNCTION "simhash_near_guc"(
	"fp" bigint, /* i64 */
	"query" bigint /* i64 */
) RETURNS bool /* bool */
STRICT STABLE PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_near_guc_wrapper';

-- Near-duplicate search (src/search.rs, src/support.rs): the ~= operator and the planner
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

-- Insert triggers (src/trigger.rs; README.md, "Deduplicating on insert"): keep a fingerprint column current,
-- and reject, skip or link near-duplicates as they are written.

CREATE FUNCTION simhash_update_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger';
COMMENT ON FUNCTION simhash_update_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column): sets fp_column = simhash(text_column)';

CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column]): sets the fingerprint and acts on near-duplicates';

CREATE FUNCTION simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query';
COMMENT ON FUNCTION simhash_dedup_query(regclass, text[]) IS
    'The check query simhash_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint)';

CREATE  FUNCTION "simhash_probes"(
	"query" bigint, /* i64 */
	"block" INT, /* i32 */
	"nblocks" INT, /* i32 */
	"max_distance" INT /* i32 */
) RETURNS INT[] /* Vec < i32 > */
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_probes_wrapper';
