-- Similarity across postgres_fdw shards (src/similarity/shard.rs; docs/scaling-out.md,
-- "Dedup and bulk pairs by similarity across shards"): the dedup trigger, its writes and the
-- repair on the skeleton of sql/shard/shard.sql, and bulk pairs by band keys.
--
-- The copy table (the skeleton's key table) has the partition i `(shard int, id bigint, body
-- text, dup_of bigint)` on the server of shard i, with a simhash_ops index on body and
-- simhash_similarity_dedup_trigger(body, ..., 'link', 'dup_of'). A copy of each document's
-- (id, body) goes to the owner of each of its index keys (simhash_similarity_owners), so any
-- two texts one of which a lookup finds from the other have copies on one shard, whose own
-- trigger sees both under its own locks, and decides on the whole texts as one node does. A
-- twin is as near as its similarity.
--
-- The PL/pgSQL functions take the measure (2, or 1 for a deployment made under 4.x, whose
-- copies are routed by measure 1's keys) as their last argument; 4.x's objects, renamed with
-- the suffix _m1 by the update to 5.0.0, are wrappers that pass 1 (sql/compat/similarity_shard.sql).

COMMENT ON FUNCTION simhash_similarity_key_owner(int, int) IS
    'The shard (0 <= result < shards) owning a simhash_ops index key: xxh3_64 of ("SMSH", key >> 1) mod shards, a contract like the fingerprint';
COMMENT ON FUNCTION simhash_similarity_owners(text, int) IS
    'The shards a copy of a text goes to, ascending and distinct: the owners of its simhash_ops index keys, or every shard for a text of fewer than 48 shingles';

-- The owners of a text's keys under a measure (1 or 2). A SQL function without a pinned
-- search_path, so that it can be inlined: its `=` is pg_catalog's, named (a CASE measure
-- WHEN 1 would take the caller's search_path's `=`).
CREATE FUNCTION simhash_similarity_measure_owners(body text, shards int, measure int) RETURNS int[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT CASE WHEN measure OPERATOR(pg_catalog.=) 1 THEN @extschema@.simhash_similarity_owners_m1(body, shards)
                      ELSE @extschema@.simhash_similarity_owners(body, shards) END $$;
COMMENT ON FUNCTION simhash_similarity_measure_owners(text, int, int) IS
    'simhash_similarity_owners (measure 2) or simhash_similarity_owners_m1 (measure 1)';

-- Writes the copies of one document (id, body) into key_table on the coordinator: a row
-- (shard, id, body) for each shard of simhash_similarity_owners(body, shards), and returns the
-- most similar near-duplicate the shards found, with its similarity, or NULLs. The copies are
-- written whatever it finds: the caller decides.
CREATE FUNCTION simhash_similarity_shard_write_keys(key_table regclass, id bigint, body text, shards int,
                                                    measure int DEFAULT 2, OUT dup_of bigint, OUT similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    -- The measure (2, or 1 for a 4.x deployment) is checked before anything is written. The
    -- copies go to the owners of the text's keys under it, in ascending shard order, so that
    -- single-row inserters take their shard locks in one global order (simhash_shard_insert).
    -- Each shard's simhash_similarity_dedup_trigger (action link) sets dup_of to the most
    -- similar matching row it holds; each such twin comes back once, with its text there, and
    -- is measured here on the whole texts under the measure: the most similar wins, ties by
    -- the smaller id (one node's rule).
    IF measure IS NULL OR measure NOT IN (1, 2) THEN
        RAISE EXCEPTION '%: measure must be 1 or 2, not %', 'simhash_similarity_shard_write_keys', coalesce(measure::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    SELECT t.twin, (CASE measure WHEN 1 THEN @extschema@.simhash_similarity_m1(body, t.twin_value)
                                 ELSE @extschema@.simhash_similarity(body, t.twin_value) END)::pg_catalog.float8 AS s
      INTO dup_of, similarity
      FROM @extschema@.simhash_shard_insert(key_table, 'body', id, body,
                                            @extschema@.simhash_similarity_measure_owners(body, shards, measure)) t
     ORDER BY s DESC, t.twin
     LIMIT 1;
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_write_keys(regclass, bigint, text, int, int) IS
    'Writes a document''s copies (shard, id, body) to the shards that own its index keys under the measure (2, or 1 for a 4.x deployment); returns the most similar near-duplicate the shards found (dup_of, similarity), or NULLs';

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
-- be schema-qualified. The trigger functions check how they fire and hand the row to
-- simhash_similarity_shard_fire with their measure and arguments (as an array from 1).
CREATE FUNCTION simhash_similarity_shard_fire(measure int, op text, args text[], relid oid, trigger_name name,
                                              old_row anyelement, new_row anyelement)
    RETURNS anyelement
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    f text := CASE measure WHEN 1 THEN 'simhash_similarity_shard_trigger_m1' ELSE 'simhash_similarity_shard_trigger' END;
    keys regclass;
    shards int;
    act text;
    -- It checks the arguments, and its errors name the trigger function that handed them. The
    -- rest is the skeleton's (simhash_shard_fire): the row's text column is read as text, its
    -- copies go to the owners of its keys under the measure
    -- (simhash_similarity_measure_owners), simhash_similarity_shard_write_keys writes them
    -- and finds the most similar near-duplicate, and a rejection's DETAIL gives its
    -- similarity. A measure other than 1 or 2 routes as 2 and fails where it would write
    -- (simhash_similarity_shard_write_keys).
BEGIN
    IF cardinality(args) NOT IN (5, 6) THEN
        RAISE EXCEPTION '%: expected 5 or 6 arguments (id_column, text_column, key_table, shards, action [, link_column]), got %', f, cardinality(args)
            USING ERRCODE = '39P01';
    END IF;
    keys := args[3]::regclass;
    shards := args[4]::int;
    act := lower(args[5]);
    IF act NOT IN ('reject', 'skip', 'link') OR (act = 'link') <> (cardinality(args) = 6) THEN
        RAISE EXCEPTION '%: action must be reject, skip, or link followed by the link column, got %', f, array_to_string(args[5:], ', ')
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN @extschema@.simhash_shard_fire(
        op, args, relid, trigger_name, keys, act,
        format('@extschema@.simhash_similarity_measure_owners(%%s, %s, %L)', shards, measure),
        format('SELECT dup_of, pg_catalog.format(''has similarity %%s with it'', pg_catalog.round(similarity::pg_catalog.numeric, 3)) AS near
                  FROM @extschema@.simhash_similarity_shard_write_keys($1, $2, $3, %s, %L)', shards, measure),
        old_row, new_row, NULL::pg_catalog.text);
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_fire(int, text, text[], oid, name, anyelement, anyelement) IS
    'The body of simhash_similarity_shard_trigger and simhash_similarity_shard_trigger_m1: the row, the trigger''s operation, arguments, table and name, and the measure (2, or 1)';

CREATE FUNCTION simhash_similarity_shard_trigger() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF TG_WHEN <> 'BEFORE' OR TG_LEVEL <> 'ROW' THEN
        RAISE EXCEPTION 'simhash_similarity_shard_trigger: must be fired BEFORE INSERT, UPDATE or DELETE FOR EACH ROW'
            USING ERRCODE = '39P01';
    END IF;
    RETURN @extschema@.simhash_similarity_shard_fire(2, TG_OP, COALESCE(TG_ARGV[0:TG_NARGS - 1], '{}'), TG_RELID,
                                                     TG_NAME, OLD, NEW);
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_trigger() IS
    'Coordinator BEFORE INSERT, UPDATE or DELETE row trigger, arguments (id_column, text_column, key_table, shards, reject|skip|link [, link_column]): keeps the row''s copies on the shards that own its index keys, and rejects, skips or links near-duplicates their triggers found';

-- Repairs the copies after a crash between shard commits (there is no two-phase commit):
-- deletes copies that no document accounts for (wrong shard, id or text), and writes the
-- missing copies of every document, each reported as a row (simhash_shard_reconcile). A
-- document whose restored copy found a near-duplicate (one written while the copy was missing)
-- is reported as 'near-duplicate' with that twin's id; it is left for the caller. Run it with
-- no writer active. It reads every document's text and every copy, through the coordinator.
CREATE FUNCTION simhash_similarity_shard_repair(docs regclass, id_column name, text_column name, key_table regclass,
                                                shards int, measure int DEFAULT 2)
    RETURNS TABLE(action text, shard int, id bigint, dup_of bigint)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    expected text := @extschema@.simhash_shard_expected(
        docs, id_column, format('d.%I::pg_catalog.text', text_column),
        format('@extschema@.simhash_similarity_measure_owners(%%s, %s, %s)', shards, measure));
    -- Read once into a temporary table: the texts and their keys cost more than the copies'
    -- comparison, which reads it twice.
BEGIN
    IF measure IS NULL OR measure NOT IN (1, 2) THEN
        RAISE EXCEPTION '%: measure must be 1 or 2, not %', 'simhash_similarity_shard_repair', coalesce(measure::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    CREATE TEMP TABLE simhash_expected_copies ON COMMIT DROP AS SELECT 0 AS shard, 0::pg_catalog.int8 AS id, ''::pg_catalog.text AS body WITH NO DATA;
    EXECUTE format('INSERT INTO simhash_expected_copies %s', expected);
    RETURN QUERY SELECT * FROM @extschema@.simhash_shard_reconcile(key_table, 'body', 'pg_temp.simhash_expected_copies');
    DROP TABLE pg_temp.simhash_expected_copies;
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_repair(regclass, name, name, regclass, int, int) IS
    'After a crash between shard commits: deletes copies no document accounts for and writes missing ones, routed under the measure (2, or 1 for a 4.x deployment); reports each, and documents whose restored copies met a near-duplicate';

-- Bulk pairs across shards (docs/scaling-out.md, "Bulk pairs by similarity across shards"):
-- each shard runs the bulk engine over its own documents, with the band keys of other
-- shards' documents as foreign rows (bytes: 270 a document at 0.5, not its text; a stored
-- generated column simhash_similarity_band_keys(body, 0.5) keeps them). A pair of two of its
-- documents comes out measured; a candidate pair with a foreign document comes out
-- unmeasured, and only those documents' texts are fetched to measure it. Shard i reads the
-- keys of the shards simhash_similarity_exchange(i, shards) names, so every two shards meet
-- once: the union of all shards' pairs is every pair once.

-- An inlinable SQL function around the value-per-call C function, as simhash_similarity_pairs
-- (pairs.sql), so that LIMIT stops it.
CREATE FUNCTION simhash_similarity_home_pairs(local_query text, foreign_query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_home_pairs_stream(local_query, foreign_query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_home_pairs(text, text, float8) IS
    'One shard''s bulk run: the (id, body) rows of local_query, and as foreign rows the (id, keys) rows of foreign_query (other shards'' simhash_similarity_band_keys at min_similarity); pairs of local rows with their similarity, and candidates of a local row (id1) and a foreign one (id2) with similarity NULL';
COMMENT ON FUNCTION simhash_similarity_band_keys(text, float8) IS
    'The band keys of a text for a bulk run at min_similarity (0.3 to 1) over shards, as bytes (270 at 0.5); NULL for a text without a letter or digit';
COMMENT ON FUNCTION simhash_similarity_exchange(int, int) IS
    'The shards whose band keys shard reads in a bulk run over shards: the next floor(shards / 2), the opposite one of an even number from the first half only, so that every two shards meet once';

-- Run on shard `shard` of `shards`: every pair at min_similarity or more of two of its
-- documents, or of one of its documents and one of a shard it reads the keys of, with its
-- similarity. docs: this shard's documents; keys: a table (shard int, id bigint, keys bytea)
-- of the other shards' band keys at min_similarity (foreign tables); remote_docs: a table of
-- the other shards' documents (foreign tables), of which only the candidates' are read.
CREATE FUNCTION simhash_similarity_shard_pairs(docs regclass, id_column name, text_column name, keys regclass,
                                               remote_docs regclass, shard int, shards int, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
DECLARE
    local text := format('SELECT %I::pg_catalog.int8, %I::pg_catalog.text FROM %s', id_column, text_column, docs);
    foreign_rows text := format('SELECT id::pg_catalog.int8, keys FROM %s WHERE shard = ANY (%L::pg_catalog.int4[])',
                                keys, @extschema@.simhash_similarity_exchange(shard, shards));
BEGIN
    CREATE TEMP TABLE simhash_home_pairs ON COMMIT DROP AS
        SELECT * FROM @extschema@.simhash_similarity_home_pairs(local, foreign_rows, min_similarity);
    RETURN QUERY SELECT h.id1, h.id2, h.similarity FROM pg_temp.simhash_home_pairs h WHERE h.similarity IS NOT NULL;
    -- The candidates across shards: their two texts, the foreign one through remote_docs
    -- (the ids pushed down to the shards), measured here.
    RETURN QUERY EXECUTE format(
        'WITH c AS (SELECT id1 AS l, id2 AS f FROM pg_temp.simhash_home_pairs WHERE similarity IS NULL),
              lt AS (SELECT %3$I::pg_catalog.int8 AS id, %4$I::pg_catalog.text AS body FROM %1$s
                      WHERE %3$I = ANY (ARRAY(SELECT l FROM c))),
              ft AS (SELECT %3$I::pg_catalog.int8 AS id, %4$I::pg_catalog.text AS body FROM %2$s
                      WHERE %3$I = ANY (ARRAY(SELECT f FROM c)))
         SELECT LEAST(c.l, c.f), GREATEST(c.l, c.f), m.s
           FROM c JOIN lt ON lt.id = c.l JOIN ft ON ft.id = c.f,
                LATERAL (SELECT @extschema@.simhash_similarity(lt.body, ft.body)::pg_catalog.float8 AS s) m
          WHERE m.s >= $1', docs, remote_docs, id_column, text_column) USING min_similarity;
    DROP TABLE pg_temp.simhash_home_pairs;
END $$;
COMMENT ON FUNCTION simhash_similarity_shard_pairs(regclass, name, name, regclass, regclass, int, int, float8) IS
    'On a shard: every pair at min_similarity or more of two of its documents, or of one of them and a document of a shard it reads the band keys of (simhash_similarity_exchange), with its similarity; over all shards, every pair once';

-- Bulk pairs across many shards by band ranges (5.1.0; docs/scaling-out.md, "Bulk pairs
-- across many shards"): shard s owns about 1/shards of the bands. Each shard reads its slice
-- of every document (simhash_similarity_band_slice: its bands, codes and set size, about 68
-- bytes at 16 shards and 0.5), and finds the candidates of its bands
-- (simhash_similarity_band_candidates), each tagged with the home shard of its lower id; the
-- home shards then remove repeats, fetch the other texts and measure
-- (simhash_similarity_candidate_pairs). Every shard's work falls as 1/shards but for reading
-- the slices; every pair one node finds is found, once.
CREATE FUNCTION simhash_similarity_band_candidates(slice_query text, min_similarity float8)
    RETURNS TABLE(home int, id1 bigint, id2 bigint)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).home, (p).id1, (p).id2
          FROM (SELECT @extschema@.simhash_similarity_band_candidates_stream(slice_query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_band_candidates(text, float8) IS
    'One shard''s first step of bulk pairs by band ranges: over the (id, slice) rows of slice_query (every document''s simhash_similarity_band_slice for this shard), the pairs colliding in its bands that pass the filters, each once, unmeasured, with the home shard of id1 (id1 < id2); the same pair may come from other shards';
COMMENT ON FUNCTION simhash_similarity_band_slice(bytea, int, int, int) IS
    'Shard shard''s slice (of shards) of the band keys of a document living on shard home: the bands that shard owns, the codes and the set size, for simhash_similarity_band_candidates';

-- The second step, on every shard once all have made their candidates: those whose lower id
-- lives here (home = shard), repeats removed, measured on this shard's text and the other
-- one's (from docs, or remote_docs: the ids pushed down to the shards).
CREATE FUNCTION simhash_similarity_candidate_pairs(docs regclass, id_column name, text_column name, candidates regclass,
                                                   remote_docs regclass, shard int, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    IF shard IS NULL OR shard < 0 THEN
        RAISE EXCEPTION '%: shard must be at least 0, got %', 'simhash_similarity_candidate_pairs', coalesce(shard::text, 'NULL')
            USING ERRCODE = '22023';
    END IF;
    IF min_similarity IS NULL OR NOT (min_similarity BETWEEN 0 AND 1) THEN
        RAISE EXCEPTION '%: min_similarity must be between 0 and 1, got %', 'simhash_similarity_candidate_pairs',
            coalesce(min_similarity::text, 'NULL') USING ERRCODE = '22023';
    END IF;
    CREATE TEMP TABLE simhash_home_candidates ON COMMIT DROP AS
        SELECT 0::pg_catalog.int8 AS id1, 0::pg_catalog.int8 AS id2 WITH NO DATA;
    EXECUTE format('INSERT INTO pg_temp.simhash_home_candidates SELECT DISTINCT id1, id2 FROM %s WHERE home = $1', candidates)
        USING shard;
    RETURN QUERY EXECUTE format(
        'WITH c AS (SELECT id1, id2 FROM pg_temp.simhash_home_candidates),
              lt AS (SELECT %3$I::pg_catalog.int8 AS id, %4$I::pg_catalog.text AS body FROM %1$s
                      WHERE %3$I = ANY (ARRAY(SELECT id1 FROM c))),
              ot AS (SELECT %3$I::pg_catalog.int8 AS id, %4$I::pg_catalog.text AS body FROM %1$s
                      WHERE %3$I = ANY (ARRAY(SELECT id2 FROM c))
                     UNION ALL
                     SELECT %3$I::pg_catalog.int8, %4$I::pg_catalog.text FROM %2$s
                      WHERE %3$I = ANY (ARRAY(SELECT id2 FROM c)))
         SELECT c.id1, c.id2, m.s
           FROM c JOIN lt ON lt.id = c.id1 JOIN ot ON ot.id = c.id2,
                LATERAL (SELECT @extschema@.simhash_similarity(lt.body, ot.body)::pg_catalog.float8 AS s) m
          WHERE m.s >= $1', docs, remote_docs, id_column, text_column) USING min_similarity;
    DROP TABLE pg_temp.simhash_home_candidates;
END $$;
COMMENT ON FUNCTION simhash_similarity_candidate_pairs(regclass, name, name, regclass, regclass, int, float8) IS
    'On a shard, the second step of bulk pairs by band ranges: the candidates of every shard (candidates: a table of simhash_similarity_band_candidates rows) whose lower id lives here, once, measured, those at min_similarity or more; over all shards, every pair once';
