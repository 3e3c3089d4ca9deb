-- simhash 5.2.0 → 6.0.0 (CHANGELOG.md; docs/decision.md; issue 46). The dedup decision: every
-- dedup trigger and bulk function of 6.0 finds its candidates as before and then asks whether a
-- reader would call the two texts the same passage (simhash_same_passage), so that rows that
-- differ in a slot (another colour, name, item) or in their figures are kept. The clusters of
-- simhash_similarity_clusters are star clusters, which a DELETE can trust. 5.x's objects keep
-- their OIDs and C symbols under names ending in _d1, so that every trigger and view made under
-- 5.x goes on deciding as it did; called by name, the functions now decide by the decision. No
-- fingerprint, segment, key or similarity changes; simhash_duplicates and simhash_clusters
-- decide only for a query with a third, text column, which 5.x refused.
\echo Use "ALTER EXTENSION simhash UPDATE TO '6.0.0'" to load this file. \quit

-- 5.x's decisions: the measure alone.
ALTER FUNCTION @extschema@.simhash_dedup_trigger() RENAME TO simhash_dedup_trigger_d1;
ALTER FUNCTION @extschema@.simhash_dedup_query(regclass, text[]) RENAME TO simhash_dedup_query_d1;
ALTER FUNCTION @extschema@.simhash_segments_dedup_trigger() RENAME TO simhash_segments_dedup_trigger_d1;
ALTER FUNCTION @extschema@.simhash_segments_dedup_query(regclass, text[]) RENAME TO simhash_segments_dedup_query_d1;
ALTER FUNCTION @extschema@.simhash_similarity_dedup_trigger() RENAME TO simhash_similarity_dedup_trigger_d1;
ALTER FUNCTION @extschema@.simhash_similarity_dedup_query(regclass, text[]) RENAME TO simhash_similarity_dedup_query_d1;
ALTER FUNCTION @extschema@.simhash_similarity_pairs_stream(text, float8) RENAME TO simhash_similarity_pairs_stream_d1;
ALTER FUNCTION @extschema@.simhash_similarity_pairs(text, float8) RENAME TO simhash_similarity_pairs_d1;
ALTER FUNCTION @extschema@.simhash_similarity_clusters(text, float8) RENAME TO simhash_similarity_clusters_d1;
ALTER FUNCTION @extschema@.simhash_explain(text, text) RENAME TO simhash_explain_d1;

-- The renamed wrapper calls the renamed stream (a SQL function's body names what it calls).
CREATE OR REPLACE FUNCTION simhash_similarity_pairs_d1(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream_d1(query, min_similarity) AS p OFFSET 0) s $$;

-- Their comments, as a fresh install has them (sql/trigger/trigger.sql, similarity/pairs.sql,
-- similarity/explain.sql).
COMMENT ON FUNCTION simhash_dedup_trigger_d1() IS
    'simhash_dedup_trigger of 3.x to 5.x: the same arguments; the nearest row within max_distance is the near-duplicate, whatever its text';
COMMENT ON FUNCTION simhash_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint)';
COMMENT ON FUNCTION simhash_segments_dedup_trigger_d1() IS
    'simhash_segments_dedup_trigger of 3.x to 5.x: the same arguments; the most resembling row at min_resemblance is the duplicate, whatever its text';
COMMENT ON FUNCTION simhash_segments_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_segments_dedup_query of 5.x';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger_d1() IS
    'simhash_similarity_dedup_trigger of 5.x: the same arguments; the most similar row at the thresholds is the duplicate, whatever the decision says';
COMMENT ON FUNCTION simhash_similarity_dedup_query_d1(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger_d1(trigger_args) runs on tbl for an INSERT, as simhash_similarity_dedup_query of 5.x';
COMMENT ON FUNCTION simhash_similarity_pairs_d1(text, float8) IS
    'simhash_similarity_pairs of 5.x: every pair at simhash_similarity >= min_similarity, whatever the dedup decision says';
COMMENT ON FUNCTION simhash_similarity_clusters_d1(text, float8) IS
    'simhash_similarity_clusters of 5.x: connected components of simhash_similarity_pairs_d1, (id, cluster_id), cluster_id the smallest id of its component';
COMMENT ON FUNCTION simhash_explain_d1(text, text) IS
    'simhash_explain of 5.x: the shingles and figures of a and b, without the dedup decision''s rows';

-- 6.0's: sql/decision/decision.sql
CREATE FUNCTION simhash_same_passage(a text, b text) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_same_passage';
COMMENT ON FUNCTION simhash_same_passage(text, text) IS
    'Whether a reader would call the two texts the same passage, by the dedup decision: where they differ (a slot, a figure) against what a repost changes (sentences, a source line, a cut, typos); what every dedup trigger and bulk function asks of its candidates';


-- sql/trigger/trigger.sql
CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on a near-duplicate: a row within max_distance bits whose text the dedup decision calls the same passage (the nearest such); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

CREATE FUNCTION simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_query_d2';
COMMENT ON FUNCTION simhash_dedup_query(regclass, text[]) IS
    'The check query simhash_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new fingerprint): every row within the bound, nearest first, with its text for the dedup decision';

CREATE FUNCTION simhash_segments_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_segments_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1) and whose text the dedup decision calls the same passage (the most resembling such). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate';

CREATE FUNCTION simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_d2';
COMMENT ON FUNCTION simhash_segments_dedup_query(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance): every candidate, most resembling first, with its text for the dedup decision; its index pre-check in a trailing comment';

CREATE FUNCTION simhash_similarity_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_trigger_d2';
COMMENT ON FUNCTION simhash_similarity_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (text_column, min_similarity, reject|skip|link [, link_column] [, options]): acts on an existing row with simhash_similarity(existing, new) >= min_similarity (0 < min_similarity <= 1), or, with options ''{"min_containment": g}'', whose text contains the new one or is contained in it at g or more (simhash_containment either way), and which the dedup decision calls the same passage as the new text. The match is the most similar such row. Candidates come through a simhash_ops GIN index on the text column; without one the check scans the table and inserts run one at a time. A NULL text or one without a letter or digit is never a duplicate';

CREATE FUNCTION simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_similarity_dedup_query_d2';
COMMENT ON FUNCTION simhash_similarity_dedup_query(regclass, text[]) IS
    'The check query simhash_similarity_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new text, $2 = min_similarity, $3 = min_containment): every candidate, most similar first, with its text for the dedup decision; how it finds candidates and what it locks in a trailing comment';


-- src/similarity/pairs.rs, sql/similarity/pairs.sql
CREATE FUNCTION "simhash_similarity_pairs_stream"(
	"query" TEXT, /* & str */
	"min_similarity" double precision /* f64 */
) RETURNS TABLE (
	"id1" bigint,  /* i64 */
	"id2" bigint,  /* i64 */
	"similarity" double precision  /* f64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_pairs_d2_wrapper';

CREATE FUNCTION "simhash_similarity_clusters"(
	"query" TEXT, /* & str */
	"min_similarity" double precision /* f64 */
) RETURNS TABLE (
	"id" bigint,  /* i64 */
	"cluster_id" bigint  /* i64 */
)
STRICT VOLATILE PARALLEL UNSAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_similarity_clusters_d2_wrapper';

CREATE FUNCTION simhash_similarity_pairs(query text, min_similarity float8)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).similarity
          FROM (SELECT @extschema@.simhash_similarity_pairs_stream(query, min_similarity) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_similarity_pairs(text, float8) IS
    'Every pair of rows of a query returning (id bigint, body text) with simhash_similarity >= min_similarity (0 to 1) whose texts the dedup decision calls the same passage, once, id1 < id2, with its similarity; streamed, in no particular order';
COMMENT ON FUNCTION simhash_similarity_clusters(text, float8) IS
    'Star clusters of simhash_similarity_pairs, which a DELETE can trust: (id, cluster_id) for every row in a pair, cluster_id the kept row its cluster is around, a row it is paired with (its own id for a kept row); rows are taken in id order, each joining its most similar kept row of smaller id or staying; sorted by (cluster_id, id)';


-- sql/pairs/pairs.sql: the fingerprint pairs decide when their query brings a text column.
COMMENT ON FUNCTION simhash_duplicates(text, int) IS
    'Every pair of rows of a query returning (id bigint, fp bigint) within max_distance bits, once, id1 < id2; with a third column (body text), only the pairs whose texts the dedup decision calls the same passage; streamed: distance-0 pairs first, by fingerprint, then the others as found';
COMMENT ON FUNCTION simhash_duplicates(text, text, int) IS
    'Every (batch row, corpus row) pair within max_distance bits, both queries returning (id bigint, fp bigint), or both (id bigint, fp bigint, body text) and then only the pairs whose texts the dedup decision calls the same passage; the batch is held in memory, the corpus streamed; pairs inside the batch are left out';

-- src/similarity/explain.rs, sql/similarity/explain.sql
CREATE FUNCTION "simhash_explain_decision_utf8"(
	"a" bytea, /* & [u8] */
	"b" bytea /* & [u8] */
) RETURNS TABLE (
	"kind" TEXT,  /* & '_ str */
	"item" bytea,  /* Vec < u8 > */
	"in_a" bool,  /* bool */
	"in_b" bool  /* bool */
)
IMMUTABLE STRICT PARALLEL SAFE 
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_explain_decision_utf8_wrapper';

CREATE FUNCTION simhash_explain(a text, b text)
    RETURNS TABLE(kind text, item text, in_a boolean, in_b boolean, similarity float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.kind, pg_catalog.convert_from(e.item, 'UTF8'), e.in_a, e.in_b, e.similarity, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_items_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                      pg_catalog.convert_to(b, 'UTF8')) AS e
          UNION ALL
          SELECT d.kind, pg_catalog.convert_from(d.item, 'UTF8'), d.in_a, d.in_b,
                 @extschema@.simhash_similarity(a, b), @extschema@.simhash_containment(a, b),
                 @extschema@.simhash_containment(b, a)
          FROM @extschema@.simhash_explain_decision_utf8(pg_catalog.convert_to(a, 'UTF8'),
                                                         pg_catalog.convert_to(b, 'UTF8')) AS d $$;
COMMENT ON FUNCTION simhash_explain(text, text) IS
    'Every distinct shingle and figure (kind) of a and of b, and which has it; similarity, a_in_b and b_in_a are what the rows add up to: simhash_similarity(a, b), simhash_containment(a, b) and simhash_containment(b, a). Then the dedup decision''s rows: each difference of the two texts (kind difference) and the verdict (kind decision)';

-- A score is in [0, 1]: casts of other values (5, -1, 'NaN') fail with 23514 (issue 49).
ALTER DOMAIN simhash_score ADD CONSTRAINT simhash_score_range CHECK (VALUE >= 0 AND VALUE <= 1);

-- simhash_duplicates(query, NULL) resolves to the batch/corpus form: its stream now takes NULL
-- and says so (22004) instead of returning no row (issue 49).
ALTER FUNCTION simhash_duplicates_stream(text, text, integer) CALLED ON NULL INPUT;

-- One sharding skeleton (issue 48): what both measures' shard functions share is new functions
-- (sql/shard/shard.sql), which fingerprints' and similarity's shard functions now fill in
-- (sql/fingerprints/shard.sql, sql/similarity/shard.sql); what they return, raise and lock is
-- unchanged.

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

-- fingerprints/shard.sql
CREATE OR REPLACE FUNCTION simhash_shard_write_keys(key_table regclass, id bigint, fp bigint, max_distance int, shards int,
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

CREATE OR REPLACE FUNCTION simhash_shard_trigger() RETURNS trigger
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

CREATE OR REPLACE FUNCTION simhash_shard_repair(docs regclass, id_column name, fp_column name, key_table regclass,
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

CREATE OR REPLACE FUNCTION simhash_shard_duplicates(key_table regclass, max_distance int, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, distance int)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN QUERY SELECT p.* FROM @extschema@.simhash_shard_keys(key_table, 'fp') k,
                                 @extschema@.simhash_owned_duplicates(k.key_rows, max_distance, k.shard, shards) p;
END $$;

-- similarity/shard.sql
CREATE OR REPLACE FUNCTION simhash_similarity_shard_write_keys(key_table regclass, id bigint, body text, shards int,
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

CREATE OR REPLACE FUNCTION simhash_similarity_shard_fire(measure int, op text, args text[], relid oid, trigger_name name,
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

CREATE OR REPLACE FUNCTION simhash_similarity_shard_repair(docs regclass, id_column name, text_column name, key_table regclass,
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

CREATE OR REPLACE FUNCTION simhash_similarity_shard_pairs_m1(key_table regclass, min_similarity float8, shards int)
    RETURNS TABLE(id1 bigint, id2 bigint, similarity float8)
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
    AS $$
BEGIN
    RETURN QUERY SELECT p.* FROM @extschema@.simhash_shard_keys(key_table, 'body') k,
                                 @extschema@.simhash_similarity_owned_pairs_m1(k.key_rows, min_similarity, k.shard, shards) p;
END $$;
