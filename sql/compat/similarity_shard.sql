-- Similarity across shards under measure 1 (src/compat/m1.rs; docs/scaling-out.md): 4.x's
-- objects, renamed with the suffix _m1 by the update to 5.0.0, as wrappers of
-- sql/similarity/shard.sql's functions that pass the measure 1.

COMMENT ON FUNCTION simhash_similarity_owners_m1(text, int) IS
    'simhash_similarity_owners of 4.x (measure 1): the owners of a text''s simhash_ops_m1 index keys, or every shard for a text of fewer than 48 shingles';

-- Measure 1's (4.x's objects, renamed by the update to 5.0.0): the copies' functions with
-- measure 1, and bulk pairs over the copies (4.x's: each shard over the copies it holds, the
-- pairs whose first shared key it owns).
CREATE FUNCTION simhash_similarity_shard_write_keys_m1(key_table regclass, id bigint, body text, shards int,
                                                       OUT dup_of bigint, OUT similarity float8)
    LANGUAGE sql
    AS $$ SELECT * FROM @extschema@.simhash_similarity_shard_write_keys(key_table, id, body, shards, 1) $$;
COMMENT ON FUNCTION simhash_similarity_shard_write_keys_m1(regclass, bigint, text, int) IS
    'simhash_similarity_shard_write_keys of 4.x: simhash_similarity_shard_write_keys(key_table, id, body, shards, 1)';

CREATE FUNCTION simhash_similarity_shard_trigger_m1() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF TG_WHEN <> 'BEFORE' OR TG_LEVEL <> 'ROW' THEN
        RAISE EXCEPTION 'simhash_similarity_shard_trigger_m1: must be fired BEFORE INSERT, UPDATE or DELETE FOR EACH ROW'
            USING ERRCODE = '39P01';
    END IF;
    RETURN @extschema@.simhash_similarity_shard_fire(1, TG_OP, COALESCE(TG_ARGV[0:TG_NARGS - 1], '{}'), TG_RELID,
                                                     TG_NAME, OLD, NEW);
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_trigger_m1() IS
    'simhash_similarity_shard_trigger of 4.x (measure 1): copies routed by simhash_ops_m1 keys, for shards whose copy tables have simhash_similarity_dedup_trigger_m1';

CREATE FUNCTION simhash_similarity_shard_repair_m1(docs regclass, id_column name, text_column name, key_table regclass,
                                                   shards int)
    RETURNS TABLE(action text, shard int, id bigint, dup_of bigint)
    LANGUAGE sql
    AS $$ SELECT * FROM @extschema@.simhash_similarity_shard_repair(docs, id_column, text_column, key_table, shards, 1) $$;
COMMENT ON FUNCTION simhash_similarity_shard_repair_m1(regclass, name, name, regclass, int) IS
    'simhash_similarity_shard_repair of 4.x: simhash_similarity_shard_repair(docs, id_column, text_column, key_table, shards, 1)';

CREATE FUNCTION simhash_similarity_owned_pairs_m1(query text, min_similarity float8, shard int, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_owned_pairs_stream_m1(query, min_similarity, shard, shards) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_owned_pairs_m1(text, float8, int, int) IS
    'simhash_similarity_owned_pairs of 4.x (measure 1): the pairs of simhash_similarity_pairs_m1 that shard reports in a bulk run over shards';

CREATE FUNCTION simhash_similarity_shard_pairs_m1(key_table regclass, min_similarity float8, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN QUERY SELECT p.* FROM @extschema@.simhash_shard_keys(key_table, 'body') k,
                                 @extschema@.simhash_similarity_owned_pairs_m1(k.key_rows, min_similarity, k.shard, shards) p;
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_pairs_m1(regclass, float8, int) IS
    'simhash_similarity_shard_pairs of 4.x (measure 1): on a shard, the pairs at min_similarity or more among its copies (shard, id, body) that it reports, so every pair is reported by exactly one shard';
