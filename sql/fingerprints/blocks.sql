-- simhash_create_blocks (src/fingerprints/search/blocks.rs): STORED generated block columns plus one btree index
-- each, in the form the planner support function (src/fingerprints/search/support.rs) recognizes. With
-- include_fingerprint, each index also carries the fingerprint (INCLUDE), so the dedup
-- trigger's index pre-check (src/fingerprints/precheck.rs) tests candidates on the index leaf.

CREATE FUNCTION simhash_create_blocks(tbl regclass, fp_column name, nblocks int DEFAULT 4,
                                      include_fingerprint boolean DEFAULT false)
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
        EXECUTE format('CREATE INDEX ON %s (%I)%s', tbl, format('%s_block%s_of%s', fp_column, i, nblocks),
                       CASE WHEN include_fingerprint THEN format(' INCLUDE (%I)', fp_column) ELSE '' END);
    END LOOP;
END
$$;
COMMENT ON FUNCTION simhash_create_blocks(regclass, name, int, boolean) IS
    'Adds STORED generated columns <fp>_block<i>_of<n> = simhash_block(fp, i, n) with a btree index each (INCLUDE (fp) if include_fingerprint)';
