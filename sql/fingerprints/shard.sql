-- Fingerprints over postgres_fdw shards (src/fingerprints/shard.rs; docs/scaling-out.md), on
-- the skeleton of sql/shard/shard.sql.
--
-- The key table's partition i is the table `(shard int, id bigint, fp bigint, dup_of bigint)`
-- on the server of shard i. Each document's (id, fp) is copied to the owner of each of its
-- max_distance + 1 pigeonhole block keys (simhash_key_owners), so any two documents within
-- max_distance have copies on one shard, where that shard's simhash_dedup_fp_trigger (action
-- link, into dup_of) sees both under its usual locks. A twin is as near as its Hamming
-- distance.

COMMENT ON FUNCTION simhash_key_owner(bigint, int, int, int) IS
    'The shard (0 <= result < shards) owning key block (0..max_distance) of fp, when fingerprints are cut into max_distance + 1 blocks: xxh3_64 of (max_distance + 1, block, block value) mod shards, a contract like the fingerprint';
COMMENT ON FUNCTION simhash_key_owners(bigint, int, int) IS
    'The shards owning some key of fp, ascending and distinct: where a copy of the row''s (id, fp) goes';
COMMENT ON FUNCTION simhash_pair_owner(bigint, bigint, int, int) IS
    'The shard reporting the pair (fp1, fp2) in a bulk run: the owner of the first block on which they agree; NULL if none';

CREATE FUNCTION simhash_dedup_fp_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_fp_trigger';
COMMENT ON FUNCTION simhash_dedup_fp_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, max_distance, reject|skip|link [, link_column]): acts on near-duplicates like simhash_dedup_trigger, for rows that bring their fingerprint (e.g. the key rows of a sharded table)';

-- Writes the key rows of one document (id, fp) into key_table on the coordinator: a row
-- (shard, id, fp) for each shard in simhash_key_owners(fp, max_distance, shards), in
-- ascending shard order (simhash_shard_insert). Each shard's simhash_dedup_fp_trigger (action
-- link) sets dup_of to its nearest near-duplicate; the result is the nearest over all shards,
-- ties by the smaller id, with its distance, or NULLs. The key rows are written whatever it
-- finds: the caller decides.
CREATE FUNCTION simhash_shard_write_keys(key_table regclass, id bigint, fp bigint, max_distance int, shards int,
                                         OUT dup_of bigint, OUT distance int)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    SELECT t.twin, @extschema@.hamming(fp, t.twin_value) AS d INTO dup_of, distance
      FROM @extschema@.simhash_shard_insert(key_table, 'fp', id, fp, @extschema@.simhash_key_owners(fp, max_distance, shards)) t
     ORDER BY d, t.twin
     LIMIT 1;
END $$;
COMMENT ON FUNCTION simhash_shard_write_keys(regclass, bigint, bigint, int, int) IS
    'Writes a document''s key rows (shard, id, fp) to the shards that own its block keys; returns the nearest near-duplicate the shards found (dup_of, distance), or NULLs';

-- The coordinator's BEFORE INSERT, UPDATE or DELETE row trigger on the document table,
-- arguments (id_column, fp_column, key_table, max_distance, shards, reject|skip|link
-- [, link_column]). On INSERT it writes the row's key rows (simhash_shard_write_keys) and
-- acts on what the shards found as simhash_dedup_trigger does on one node:
--   reject: ERROR 23505 when some shard found a near-duplicate;
--   skip:   the row and its key rows are not written (a subtransaction is rolled back);
--   link:   link_column gets the nearest near-duplicate's id, ties by the smaller id.
-- On DELETE it deletes the row's key rows; on an UPDATE that changes the id or the
-- fingerprint, both (the check then cannot meet the row's own old key rows). A NULL
-- fingerprint has no key rows. Plain PL/pgSQL, run with the inserter's rights: the
-- inserter needs INSERT, SELECT and DELETE on the key table. search_path is pinned, so
-- key_table must be schema-qualified. It checks how it fires and its arguments; the rest is
-- simhash_shard_fire's.
CREATE FUNCTION simhash_shard_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    keys regclass;
    k int;
    shards int;
    act text;
BEGIN
    IF TG_WHEN <> 'BEFORE' OR TG_LEVEL <> 'ROW' THEN
        RAISE EXCEPTION 'simhash_shard_trigger: must be fired BEFORE INSERT, UPDATE or DELETE FOR EACH ROW'
            USING ERRCODE = '39P01';
    END IF;
    IF TG_NARGS NOT IN (6, 7) THEN
        RAISE EXCEPTION 'simhash_shard_trigger: expected 6 or 7 arguments (id_column, fp_column, key_table, max_distance, shards, action [, link_column]), got %', TG_NARGS
            USING ERRCODE = '39P01';
    END IF;
    keys := TG_ARGV[2]::regclass;
    k := TG_ARGV[3]::int;
    shards := TG_ARGV[4]::int;
    act := lower(TG_ARGV[5]);
    IF act NOT IN ('reject', 'skip', 'link') OR (act = 'link') <> (TG_NARGS = 7) THEN
        RAISE EXCEPTION 'simhash_shard_trigger: action must be reject, skip, or link followed by the link column, got %', array_to_string(TG_ARGV[5:], ', ')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN @extschema@.simhash_shard_fire(
        TG_OP, TG_ARGV[0:TG_NARGS - 1], TG_RELID, TG_NAME, keys, act,
        format('@extschema@.simhash_key_owners(%%s, %s, %s)', k, shards),
        format('SELECT dup_of, pg_catalog.format(''is at Hamming distance %%s (max_distance %%s)'', distance, %1$s) AS near
                  FROM @extschema@.simhash_shard_write_keys($1, $2, $3, %1$s, %2$s)', k, shards),
        OLD, NEW, NULL::pg_catalog.int8);
END $$;
COMMENT ON FUNCTION simhash_shard_trigger() IS
    'Coordinator BEFORE INSERT, UPDATE or DELETE row trigger, arguments (id_column, fp_column, key_table, max_distance, shards, reject|skip|link [, link_column]): keeps the row''s key rows on the shards that own its block keys, and rejects, skips or links near-duplicates found there';

-- Repairs a sharded table after a crash between shard commits (simhash_shard_reconcile):
-- deletes key rows that no document accounts for, and writes the missing key rows of every
-- document, each reported as a row. A document whose restored key row found a near-duplicate
-- (one that was written while the keys were missing) is reported as 'near-duplicate' with that
-- twin's id; it is left for the caller. Run it with no writer active: a writer between its
-- shard commits looks like an orphan.
CREATE FUNCTION simhash_shard_repair(docs regclass, id_column name, fp_column name, key_table regclass,
                                     max_distance int, shards int)
    RETURNS TABLE(action text, shard int, id bigint, dup_of bigint)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN QUERY SELECT * FROM @extschema@.simhash_shard_reconcile(key_table, 'fp', format('(%s)',
        @extschema@.simhash_shard_expected(docs, id_column, format('d.%I', fp_column),
                                           format('@extschema@.simhash_key_owners(%%s, %s, %s)', max_distance, shards))));
END $$;
COMMENT ON FUNCTION simhash_shard_repair(regclass, name, name, regclass, int, int) IS
    'After a crash between shard commits: deletes orphaned key rows and writes missing ones; reports each, and documents whose restored keys met a near-duplicate';

-- simhash_owned_duplicates: an inlinable SQL function around the value-per-call C
-- function, as simhash_duplicates (sql/fingerprints/pairs.sql), so that LIMIT stops the search.
CREATE FUNCTION simhash_owned_duplicates(fingerprints text, max_distance int, shard int, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).distance
          FROM (SELECT @extschema@.simhash_owned_duplicates_stream(fingerprints, max_distance, shard, shards) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_owned_duplicates(text, int, int, int) IS
    'The pairs of simhash_duplicates(fingerprints, max_distance) that shard reports in a bulk run over shards: those whose first agreeing block is a key it owns';

-- Run on a shard, over its key table (which holds one shard number, simhash_shard_keys): the
-- pairs within max_distance among its key rows that this shard reports, so that the union over
-- all shards holds every pair once (Manku et al., WWW 2007, section 4: the batch mode, one
-- shard per key range).
CREATE FUNCTION simhash_shard_duplicates(key_table regclass, max_distance int, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN QUERY SELECT p.* FROM @extschema@.simhash_shard_keys(key_table, 'fp') k,
                                 @extschema@.simhash_owned_duplicates(k.key_rows, max_distance, k.shard, shards) p;
END $$;
COMMENT ON FUNCTION simhash_shard_duplicates(regclass, int, int) IS
    'On a shard: the pairs within max_distance among its key rows (shard, id, fp) that it owns (first shared block), so every pair is reported by exactly one shard';
