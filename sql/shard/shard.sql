-- Scaling out over postgres_fdw shards (src/fingerprints/shard.rs; docs/scaling-out.md).
--
-- A document table on the coordinator, hash-partitioned on its id with postgres_fdw
-- foreign tables as partitions, and a key table, list-partitioned on `shard`, whose
-- partition i is the table `(shard int, id bigint, fp bigint, dup_of bigint)` on the
-- server of shard i. Each document's (id, fp) is copied to the owner of each of its
-- max_distance + 1 pigeonhole block keys (simhash_key_owners), so any two documents within
-- max_distance have copies on one shard, where that shard's simhash_dedup_fp_trigger
-- (action link, into dup_of) sees both under its usual locks.

COMMENT ON FUNCTION simhash_key_owner(bigint, int, int, int) IS
    'The shard (0 <= result < shards) owning key block (0..max_distance) of fp, when fingerprints are cut into max_distance + 1 blocks: xxh3_64 of (max_distance + 1, block, block value) mod shards, a contract like the fingerprint';
COMMENT ON FUNCTION simhash_key_owners(bigint, int, int) IS
    'The shards owning some key of fp, ascending and distinct: where a copy of the row''s (id, fp) goes';
COMMENT ON FUNCTION simhash_pair_owner(bigint, bigint, int, int) IS
    'The shard reporting the pair (fp1, fp2) in a bulk run: the owner of the first block on which they agree; NULL if none';
COMMENT ON FUNCTION simhash_components(text) IS
    'Connected components of the (id1 bigint, id2 bigint) pairs of a query: (id, cluster_id) for every id in a component of two or more, cluster_id its smallest id, as simhash_clusters';

CREATE FUNCTION simhash_dedup_fp_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_fp_trigger';
COMMENT ON FUNCTION simhash_dedup_fp_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, max_distance, reject|skip|link [, link_column]): acts on near-duplicates like simhash_dedup_trigger, for rows that bring their fingerprint (e.g. the key rows of a sharded table)';

-- Writes the key rows of one document (id, fp) into key_table on the coordinator: a row
-- (shard, id, fp) for each shard in simhash_key_owners(fp, max_distance, shards), in
-- ascending shard order, so that single-row inserters take their shard locks in one global
-- order. Each shard's simhash_dedup_fp_trigger (action link) sets dup_of to its nearest
-- near-duplicate; the result is the nearest over all shards, ties by the smaller id, with
-- its distance, or NULLs. The key rows are written whatever it finds: the caller decides.
CREATE FUNCTION simhash_shard_write_keys(key_table regclass, id bigint, fp bigint, max_distance int, shards int,
                                         OUT dup_of bigint, OUT distance int)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    o int;
    dup bigint;
    dup_fp bigint;
    d int;
    ins text := format('INSERT INTO %s (shard, id, fp) VALUES ($1, $2, $3) RETURNING dup_of', key_table);
    get text := format('SELECT fp FROM %s WHERE shard = $1 AND id = $2', key_table);
BEGIN
    FOREACH o IN ARRAY @extschema@.simhash_key_owners(fp, max_distance, shards) LOOP
        EXECUTE ins INTO dup USING o, id, fp;
        CONTINUE WHEN dup IS NULL;
        -- The shard saw the twin in this transaction's snapshot: its key row is readable here.
        EXECUTE get INTO dup_fp USING o, dup;
        d := @extschema@.hamming(fp, dup_fp);
        IF dup_of IS NULL OR d < distance OR (d = distance AND dup < dup_of) THEN
            dup_of := dup;
            distance := d;
        END IF;
    END LOOP;
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
-- key_table must be schema-qualified.
CREATE FUNCTION simhash_shard_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    keys regclass;
    k int;
    shards int;
    act text;
    v_id bigint;
    v_fp bigint;
    old_id bigint;
    old_fp bigint;
    drop_old text;
    hit record;
    root regclass;
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
    drop_old := format('DELETE FROM %s WHERE shard = ANY ($1) AND id = $2', keys);
    IF TG_OP <> 'INSERT' THEN
        EXECUTE format('SELECT ($1).%I::pg_catalog.int8, ($1).%I::pg_catalog.int8', TG_ARGV[0], TG_ARGV[1])
            INTO old_id, old_fp USING OLD;
    END IF;
    IF TG_OP = 'DELETE' THEN
        IF old_fp IS NOT NULL THEN
            EXECUTE drop_old USING @extschema@.simhash_key_owners(old_fp, k, shards), old_id;
        END IF;
        RETURN OLD;
    END IF;
    EXECUTE format('SELECT ($1).%I::pg_catalog.int8, ($1).%I::pg_catalog.int8', TG_ARGV[0], TG_ARGV[1])
        INTO v_id, v_fp USING NEW;
    IF TG_OP = 'UPDATE' THEN
        IF v_id IS NOT DISTINCT FROM old_id AND v_fp IS NOT DISTINCT FROM old_fp THEN
            RETURN NEW;  -- checked when the row got this fingerprint
        END IF;
    ELSE
        old_fp := NULL;
    END IF;
    IF act = 'skip' THEN
        -- Only skip pays for a subtransaction (and a remote SAVEPOINT per shard): it must
        -- undo the key rows already changed on the other shards.
        BEGIN
            IF old_fp IS NOT NULL THEN
                EXECUTE drop_old USING @extschema@.simhash_key_owners(old_fp, k, shards), old_id;
            END IF;
            IF v_fp IS NOT NULL THEN
                hit := @extschema@.simhash_shard_write_keys(keys, v_id, v_fp, k, shards);
                IF hit.dup_of IS NOT NULL THEN
                    RAISE EXCEPTION USING ERRCODE = 'SH001';
                END IF;
            END IF;
        EXCEPTION WHEN SQLSTATE 'SH001' THEN
            RETURN NULL;
        END;
        RETURN NEW;
    END IF;
    IF old_fp IS NOT NULL THEN
        EXECUTE drop_old USING @extschema@.simhash_key_owners(old_fp, k, shards), old_id;
    END IF;
    IF v_fp IS NULL THEN
        RETURN NEW;
    END IF;
    hit := @extschema@.simhash_shard_write_keys(keys, v_id, v_fp, k, shards);
    IF act = 'link' THEN
        RETURN pg_catalog.jsonb_populate_record(NEW, pg_catalog.jsonb_build_object(TG_ARGV[6], hit.dup_of));
    END IF;
    IF hit.dup_of IS NOT NULL THEN
        -- The trigger fires on the partition; messages name the partitioned table.
        root := COALESCE(pg_catalog.pg_partition_root(TG_RELID), TG_RELID::regclass);
        RAISE EXCEPTION 'new row for relation "%" is a near-duplicate of an existing row (trigger "%")',
                        (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = root), TG_NAME
            USING ERRCODE = 'unique_violation',
                  DETAIL = CASE WHEN pg_catalog.has_table_privilege(root, 'SELECT')
                                THEN format('Key (%s)=(%s) is at Hamming distance %s (max_distance %s).', TG_ARGV[0], hit.dup_of, hit.distance, k)
                                ELSE format('An existing row is at Hamming distance %s (max_distance %s).', hit.distance, k) END;
    END IF;
    RETURN NEW;
END $$;
COMMENT ON FUNCTION simhash_shard_trigger() IS
    'Coordinator BEFORE INSERT, UPDATE or DELETE row trigger, arguments (id_column, fp_column, key_table, max_distance, shards, reject|skip|link [, link_column]): keeps the row''s key rows on the shards that own its block keys, and rejects, skips or links near-duplicates found there';

-- Repairs a sharded table after a crash between shard commits (there is no two-phase
-- commit): deletes key rows that no document accounts for, and writes the missing key
-- rows of every document, each reported as a row. A document whose restored key row
-- found a near-duplicate (one that was written while the keys were missing) is reported
-- as 'near-duplicate' with that twin's id; it is left for the caller. Run it with no
-- writer active: a writer between its shard commits looks like an orphan.
CREATE FUNCTION simhash_shard_repair(docs regclass, id_column name, fp_column name, key_table regclass,
                                     max_distance int, shards int)
    RETURNS TABLE(action text, shard int, id bigint, dup_of bigint)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    expected text := format(
        'SELECT o AS shard, d.%1$I::pg_catalog.int8 AS id, d.%2$I AS fp FROM %3$s d,
                pg_catalog.unnest(@extschema@.simhash_key_owners(d.%2$I, %4$s, %5$s)) o
          WHERE d.%2$I IS NOT NULL',
        id_column, fp_column, docs, max_distance, shards);
BEGIN
    RETURN QUERY EXECUTE format(
        'DELETE FROM %1$s k WHERE NOT EXISTS (SELECT FROM (%2$s) e
                                               WHERE e.shard = k.shard AND e.id = k.id AND e.fp = k.fp)
         RETURNING ''deleted''::pg_catalog.text, k.shard, k.id, NULL::pg_catalog.int8',
        key_table, expected);
    RETURN QUERY EXECUTE format(
        'WITH ins AS (
             INSERT INTO %1$s (shard, id, fp)
             SELECT e.shard, e.id, e.fp FROM (%2$s) e
              WHERE NOT EXISTS (SELECT FROM %1$s k WHERE k.shard = e.shard AND k.id = e.id)
             RETURNING shard, id, dup_of)
         SELECT ''inserted''::pg_catalog.text, shard, id, NULL::pg_catalog.int8 FROM ins
         UNION ALL
         SELECT ''near-duplicate''::pg_catalog.text, shard, id, dup_of FROM ins WHERE dup_of IS NOT NULL',
        key_table, expected);
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

-- Run on a shard, over its key table (which holds one shard number): the pairs within
-- max_distance among its key rows that this shard reports, so that the union over all
-- shards holds every pair once (Manku et al., WWW 2007, section 4: the batch mode, one
-- shard per key range).
CREATE FUNCTION simhash_shard_duplicates(key_table regclass, max_distance int, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    shard int;
BEGIN
    EXECUTE format('SELECT shard FROM %s LIMIT 1', key_table) INTO shard;
    IF shard IS NULL THEN
        RETURN;  -- no key rows
    END IF;
    RETURN QUERY SELECT * FROM @extschema@.simhash_owned_duplicates(
        format('SELECT id, fp FROM %s', key_table), max_distance, shard, shards);
END $$;
COMMENT ON FUNCTION simhash_shard_duplicates(regclass, int, int) IS
    'On a shard: the pairs within max_distance among its key rows (shard, id, fp) that it owns (first shared block), so every pair is reported by exactly one shard';
