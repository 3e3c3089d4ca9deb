-- Shard plumbing: the one skeleton of scaling out over postgres_fdw shards (docs/scaling-out.md),
-- filled in by fingerprints (sql/fingerprints/shard.sql) and by similarity
-- (sql/similarity/shard.sql).
--
-- A document table on the coordinator, hash-partitioned on its id with postgres_fdw foreign
-- tables as partitions, and a key table, list-partitioned on `shard`, whose partition i is the
-- table `(shard int, id bigint, <value>, dup_of bigint)` on the server of shard i. A copy of
-- each document's (id, value) goes to every shard that owns one of its keys, so any two
-- documents the measure could call near-duplicates have copies on one shard, whose own dedup
-- trigger (action link, into dup_of) sees both under its own locks. A measure brings its value
-- column (fp bigint, body text), its owners (the shards a value goes to, ascending and
-- distinct), how near a twin is, and its pairs function; the skeleton brings the rest:
--   simhash_shard_insert     writes one document's key rows in ascending shard order and reads
--                            back each twin the shards found;
--   simhash_shard_fire       the coordinator trigger's body: keeps a row's key rows, and
--                            rejects, skips or links the near-duplicates found there;
--   simhash_shard_expected   the key rows every document should have, and
--   simhash_shard_reconcile  the repair of a key table against them;
--   simhash_shard_keys       on a shard: the shard number its key table holds, and its rows.
-- Measures pass their parts as SQL text: owners with %s where the value goes, and the write
-- query of the trigger. The functions run with the caller's rights and a pinned search_path, so
-- tables must be schema-qualified.

COMMENT ON FUNCTION simhash_components(text) IS
    'Connected components of the (id1 bigint, id2 bigint) pairs of a query: (id, cluster_id) for every id in a component of two or more, cluster_id its smallest id, as simhash_clusters';

-- Writes the key rows (shard, id, key_column) of one document (id, val) into key_table on the
-- coordinator, one for each shard of owners, in that order (ascending, as every owners
-- function returns them), so that single-row inserters take their shard locks in one global
-- order. Each shard's dedup trigger (action link) sets dup_of to a near-duplicate it holds;
-- each such twin comes back once, with its value as that shard holds it. The key rows are
-- written whatever the shards find: the caller measures the twins and decides.
CREATE FUNCTION simhash_shard_insert(key_table regclass, key_column name, id bigint, val anyelement, owners int[])
    RETURNS TABLE(twin bigint, twin_value anyelement)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    ins text := format('INSERT INTO %s (shard, id, %I) VALUES ($1, $2, $3) RETURNING dup_of', key_table, key_column);
    get text := format('SELECT %I FROM %s WHERE shard = $1 AND id = $2', key_column, key_table);
    o int;
    dup bigint;
    seen bigint[] := '{}';
BEGIN
    FOREACH o IN ARRAY owners LOOP
        EXECUTE ins INTO dup USING o, id, val;
        CONTINUE WHEN dup IS NULL OR dup = ANY (seen);
        seen := seen || dup;
        -- The shard saw the twin in this transaction's snapshot: its key row is readable here.
        twin := dup;
        EXECUTE get INTO twin_value USING o, dup;
        RETURN NEXT;
    END LOOP;
END $$;
COMMENT ON FUNCTION simhash_shard_insert(regclass, name, bigint, anyelement, int[]) IS
    'Writes a document''s key rows (shard, id, key_column) to the shards of owners, in ascending order; returns each near-duplicate the shards'' triggers found, once, with its value there';

-- The coordinator's BEFORE INSERT, UPDATE or DELETE row trigger, once the measure's trigger
-- function has checked how it fires and its arguments (args, from 1: id_column, value_column,
-- key_table, ..., action [, link_column]; keys and act parsed). On INSERT it writes the row's
-- key rows and acts on what the shards found:
--   reject: ERROR 23505 when some shard found a near-duplicate;
--   skip:   the row and its key rows are not written (a subtransaction is rolled back);
--   link:   link_column gets the near-duplicate's id.
-- On DELETE it deletes the row's key rows; on an UPDATE that changes the id or the value,
-- both (the check then cannot meet the row's own old key rows). A NULL value has no key rows.
-- The measure brings sample, a NULL of its value's type (the value column is read as it);
-- owners; and write, a query that writes the key rows of ($1 key table, $2 id, $3 value) and
-- returns (dup_of, near): the near-duplicate the shards found, and how near it is, as DETAIL
-- says it.
CREATE FUNCTION simhash_shard_fire(op text, args text[], relid oid, trigger_name name, keys regclass, act text,
                                   owners text, write text, old_row anyelement, new_row anyelement,
                                   sample anycompatible)
    RETURNS anyelement
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    read text := format('SELECT ($1).%I::pg_catalog.int8, ($1).%I::%s', args[1], args[2], pg_typeof(sample));
    owners_of text := 'SELECT ' || format(owners, '$1');
    drop_old text := format('DELETE FROM %s WHERE shard = ANY ($1) AND id = $2', keys);
    v_id bigint;
    v_value sample%TYPE;
    old_id bigint;
    old_value sample%TYPE;
    old_keys int[];
    hit record;
    root regclass;
BEGIN
    IF op <> 'INSERT' THEN
        EXECUTE read INTO old_id, old_value USING old_row;
    END IF;
    IF op = 'DELETE' THEN
        IF old_value IS NOT NULL THEN
            EXECUTE owners_of INTO old_keys USING old_value;
            EXECUTE drop_old USING old_keys, old_id;
        END IF;
        RETURN old_row;
    END IF;
    EXECUTE read INTO v_id, v_value USING new_row;
    IF op <> 'UPDATE' THEN
        old_value := NULL;
    ELSIF v_id IS NOT DISTINCT FROM old_id AND v_value IS NOT DISTINCT FROM old_value THEN
        RETURN new_row;  -- checked when the row got this value
    ELSIF old_value IS NOT NULL THEN
        EXECUTE owners_of INTO old_keys USING old_value;
    END IF;
    IF act = 'skip' THEN
        -- Only skip pays for a subtransaction (and a remote SAVEPOINT per shard): it must
        -- undo the key rows already changed on the other shards.
        BEGIN
            IF old_value IS NOT NULL THEN
                EXECUTE drop_old USING old_keys, old_id;
            END IF;
            IF v_value IS NOT NULL THEN
                EXECUTE write INTO hit USING keys, v_id, v_value;
                IF hit.dup_of IS NOT NULL THEN
                    RAISE EXCEPTION USING ERRCODE = 'SH001';
                END IF;
            END IF;
        EXCEPTION WHEN SQLSTATE 'SH001' THEN
            RETURN NULL;
        END;
        RETURN new_row;
    END IF;
    IF old_value IS NOT NULL THEN
        EXECUTE drop_old USING old_keys, old_id;
    END IF;
    IF v_value IS NULL THEN
        RETURN new_row;
    END IF;
    EXECUTE write INTO hit USING keys, v_id, v_value;
    IF act = 'link' THEN
        RETURN pg_catalog.jsonb_populate_record(new_row, pg_catalog.jsonb_build_object(args[cardinality(args)], hit.dup_of));
    END IF;
    IF hit.dup_of IS NOT NULL THEN
        -- The trigger fires on the partition; messages name the partitioned table.
        root := COALESCE(pg_catalog.pg_partition_root(relid), relid::regclass);
        RAISE EXCEPTION 'new row for relation "%" is a near-duplicate of an existing row (trigger "%")',
                        (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = root), trigger_name
            USING ERRCODE = 'unique_violation',
                  DETAIL = CASE WHEN pg_catalog.has_table_privilege(root, 'SELECT')
                                THEN format('Key (%s)=(%s) %s.', args[1], hit.dup_of, hit.near)
                                ELSE format('An existing row %s.', hit.near) END;
    END IF;
    RETURN new_row;
END $$;
COMMENT ON FUNCTION simhash_shard_fire(text, text[], oid, name, regclass, text, text, text, anyelement, anyelement, anycompatible) IS
    'The body of the coordinator triggers over shards, after their checks: keeps the row''s key rows on the shards of owners (write writes them), and rejects, skips or links the near-duplicate found there';

-- The key rows every document of docs should have, as a query of (shard, id, value): one for
-- each shard that owns a key of its value, none for a NULL value. value is the SQL of a
-- document's value, the document being d.
CREATE FUNCTION simhash_shard_expected(docs regclass, id_column name, value text, owners text) RETURNS text
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN format(
        'SELECT o AS shard, d.%1$I::pg_catalog.int8 AS id, %2$s AS value FROM %3$s d,
                pg_catalog.unnest(%4$s) o
          WHERE %2$s IS NOT NULL',
        id_column, value, docs, format(owners, value));
END $$;
COMMENT ON FUNCTION simhash_shard_expected(regclass, name, text, text) IS
    'The query of the key rows (shard, id, value) every document of docs should have: its value (SQL over the document d) on each shard of owners';

-- Repairs key_table after a crash between shard commits (there is no two-phase commit):
-- deletes the key rows that expected (a FROM item of (shard, id, value) rows, e.g. the query
-- of simhash_shard_expected in parentheses) does not have, and writes the missing ones, each
-- reported as a row. A restored key row whose shard found a near-duplicate (one written while
-- the key rows were missing) is reported again as 'near-duplicate' with that twin's id; it is
-- left for the caller. Run it with no writer active: a writer between its shard commits
-- looks like an orphan.
CREATE FUNCTION simhash_shard_reconcile(key_table regclass, key_column name, expected text)
    RETURNS TABLE(action text, shard int, id bigint, dup_of bigint)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN QUERY EXECUTE format(
        'DELETE FROM %1$s k WHERE NOT EXISTS (SELECT FROM %2$s e(shard, id, value)
                                               WHERE e.shard = k.shard AND e.id = k.id AND e.value = k.%3$I)
         RETURNING ''deleted''::pg_catalog.text, k.shard, k.id, NULL::pg_catalog.int8',
        key_table, expected, key_column);
    RETURN QUERY EXECUTE format(
        'WITH ins AS (
             INSERT INTO %1$s (shard, id, %3$I)
             SELECT e.shard, e.id, e.value FROM %2$s e(shard, id, value)
              WHERE NOT EXISTS (SELECT FROM %1$s k WHERE k.shard = e.shard AND k.id = e.id)
             RETURNING shard, id, dup_of)
         SELECT ''inserted''::pg_catalog.text, shard, id, NULL::pg_catalog.int8 FROM ins
         UNION ALL
         SELECT ''near-duplicate''::pg_catalog.text, shard, id, dup_of FROM ins WHERE dup_of IS NOT NULL',
        key_table, expected, key_column);
END $$;
COMMENT ON FUNCTION simhash_shard_reconcile(regclass, name, text) IS
    'After a crash between shard commits: deletes the key rows of key_table that expected does not have and writes the missing ones; reports each, and restored key rows that met a near-duplicate';

-- Run on a shard, over its key table (which holds one shard number): that number, and the
-- query of its (id, key_column) rows, for the measure's function of the pairs this shard
-- reports; no row when the table has none.
CREATE FUNCTION simhash_shard_keys(key_table regclass, key_column name)
    RETURNS TABLE(shard int, key_rows text)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    EXECUTE format('SELECT shard FROM %s LIMIT 1', key_table) INTO shard;
    IF shard IS NOT NULL THEN
        key_rows := format('SELECT id, %I FROM %s', key_column, key_table);
        RETURN NEXT;
    END IF;
END $$;
COMMENT ON FUNCTION simhash_shard_keys(regclass, name) IS
    'On a shard: the shard number its key table holds and the query of its (id, key_column) rows; no row for an empty table';
