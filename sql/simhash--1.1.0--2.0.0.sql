-- 1.1.0 → 2.0.0 (CHANGELOG.md; docs/fingerprint.md, "Upgrading from 1.x to 2.0").
-- Definition 2 becomes the default. 1.x's functions keep their OIDs under _v1 names, so every
-- generated column, index, view and trigger made under 1.x goes on computing definition 1,
-- the fingerprints it stored; simhash() called by name now gives definition 2. For text
-- without traditional-only characters the two are equal.
\echo Use "ALTER EXTENSION simhash UPDATE TO '2.0.0'" to load this file. \quit

ALTER FUNCTION @extschema@.simhash(text) RENAME TO simhash_v1;
ALTER FUNCTION @extschema@.simhash(text, jsonb) RENAME TO simhash_v1;
ALTER FUNCTION @extschema@.simhash_update_trigger() RENAME TO simhash_update_trigger_v1;
ALTER FUNCTION @extschema@.simhash_dedup_trigger() RENAME TO simhash_dedup_trigger_v1;
COMMENT ON FUNCTION simhash_v1(text) IS
    'simhash(doc) of versions 1.0.0 to 1.1.0 (definition 1): what fingerprints stored under 1.x are';
COMMENT ON FUNCTION simhash_v1(text, jsonb) IS
    'simhash(doc, options) of versions 1.0.0 to 1.1.0: definition 1 unless the options name another';
COMMENT ON FUNCTION simhash_update_trigger_v1() IS
    'simhash_update_trigger of versions 1.0.0 to 1.1.0: definition 1 unless an options argument names another';
COMMENT ON FUNCTION simhash_dedup_trigger_v1() IS
    'simhash_dedup_trigger of versions 1.0.0 to 1.1.0: definition 1 unless an options argument names another';

-- Definition 2 (sql/fingerprint/fingerprint.sql, sql/trigger/trigger.sql).
CREATE FUNCTION simhash(doc text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_v2';
COMMENT ON FUNCTION simhash(text) IS
    'SimHash fingerprint of a text (definition 2): NFKC + lowercase + traditional-only characters to simplified, jieba words without numbers and single characters, TF-IDF weights, xxh3_64; NULL for a text with fewer than 6 features';

CREATE FUNCTION simhash(doc text, options jsonb) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_v2';
COMMENT ON FUNCTION simhash(text, jsonb) IS
    'SimHash fingerprint with options: {"definition": "2"|"1"|"0", "tokenizer": "jieba"|"ngram", "n": 1..32, "weighting": "tfidf"|"tf"|"binary", "min_features": 0..1000}';

CREATE OR REPLACE FUNCTION simhash_features(doc text, options jsonb DEFAULT '{}')
    RETURNS TABLE(feature text, weight float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT pg_catalog.convert_from(f.feature, 'UTF8'), f.weight
          FROM @extschema@.simhash_features_utf8(pg_catalog.convert_to(doc, 'UTF8'),
                                                 '{"definition": "2"}'::pg_catalog.jsonb OPERATOR(pg_catalog.||) options) AS f $$;
COMMENT ON FUNCTION simhash_features(text, jsonb) IS
    'The features and weights that simhash(doc, options) folds, in order of first occurrence';

CREATE FUNCTION simhash_update_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_update_trigger_v2';
COMMENT ON FUNCTION simhash_update_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column [, options]): sets fp_column = simhash(text_column [, options]); options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

CREATE FUNCTION simhash_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_dedup_trigger_v2';
COMMENT ON FUNCTION simhash_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (fp_column, text_column, max_distance, reject|skip|link [, link_column] [, options]): sets the fingerprint, simhash(text_column [, options]), and acts on near-duplicates; options is JSON text as for simhash(doc, options), e.g. ''{"definition": "0"}''';

-- Segment fingerprints (sql/segments/segments.sql; src/segments/mod.rs for the two C functions).
CREATE FUNCTION simhash_resemblance(a bigint[], b bigint[]) RETURNS double precision
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_resemblance_wrapper';
CREATE FUNCTION simhash_containment(a bigint[], b bigint[]) RETURNS double precision
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_containment_wrapper';

CREATE FUNCTION simhash_segments(doc text, options jsonb DEFAULT '{}') RETURNS bigint[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_v2';
COMMENT ON FUNCTION simhash_segments(text, jsonb) IS
    'Segment fingerprints of a text: simhash() of each minimal run of sentences with at least 6 features, distinct, in text order; {} for a text without one';

COMMENT ON FUNCTION simhash_resemblance(bigint[], bigint[]) IS
    'Share of both texts'' segments found in the other: 2|A∩B| / (|A|+|B|) over distinct elements; 0 when both are empty';
COMMENT ON FUNCTION simhash_containment(bigint[], bigint[]) IS
    'Share of the first text''s segments found in the second: |A∩B| / |A| over distinct elements; 0 when the first is empty';

CREATE FUNCTION simhash_segments_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_trigger';
COMMENT ON FUNCTION simhash_segments_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column [, options]): sets segments_column = simhash_segments(text_column [, options])';

-- A procedure, so that it can commit: the DDL first (a brief ACCESS EXCLUSIVE lock, no
-- rewrite), then the rows already there in batches of block ranges, one transaction each,
-- while the table stays writable; the trigger keeps every row written meanwhile exact.
-- No SET clause (a procedure with one cannot commit): every name is schema-qualified.
CREATE PROCEDURE simhash_create_segments(tbl regclass, text_column name, options jsonb DEFAULT '{}',
                                         batch_pages int DEFAULT 1000)
    LANGUAGE plpgsql
AS $$
DECLARE
    base_type pg_catalog.oid;
    seg pg_catalog.name := text_column OPERATOR(pg_catalog.||) '_segments';
    pages pg_catalog.int8;
    done_rows pg_catalog.int8 := 0;
    n pg_catalog.int8;
    first pg_catalog.int8 := 0;
BEGIN
    IF batch_pages IS NULL OR batch_pages OPERATOR(pg_catalog.<) 1 THEN
        RAISE EXCEPTION 'simhash_create_segments: batch_pages must be at least 1, got %', batch_pages
            USING ERRCODE = '22023';
    END IF;
    SELECT CASE WHEN t.typtype OPERATOR(pg_catalog.=) 'd' THEN t.typbasetype ELSE t.oid END INTO base_type
        FROM pg_catalog.pg_attribute a JOIN pg_catalog.pg_type t ON t.oid OPERATOR(pg_catalog.=) a.atttypid
        WHERE a.attrelid OPERATOR(pg_catalog.=) tbl AND a.attname OPERATOR(pg_catalog.=) text_column
          AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'simhash_create_segments: column "%" of relation % does not exist', text_column, tbl
            USING ERRCODE = '42703';
    END IF;
    IF base_type OPERATOR(pg_catalog.<>) 'pg_catalog.text'::pg_catalog.regtype
       AND base_type OPERATOR(pg_catalog.<>) 'pg_catalog.varchar'::pg_catalog.regtype THEN
        RAISE EXCEPTION 'simhash_create_segments: column "%" of relation % has type %, expected text or varchar',
            text_column, tbl, pg_catalog.format_type(base_type, NULL)
            USING ERRCODE = '42804';
    END IF;
    -- Refuses bad options (22023) before any DDL.
    PERFORM @extschema@.simhash_segments('', options);
    EXECUTE pg_catalog.format('ALTER TABLE %s ADD COLUMN IF NOT EXISTS %I pg_catalog.int8[]', tbl, seg);
    EXECUTE pg_catalog.format(
        'CREATE OR REPLACE TRIGGER %I BEFORE INSERT OR UPDATE OF %I, %I ON %s FOR EACH ROW '
        'EXECUTE FUNCTION @extschema@.simhash_segments_trigger(%L, %L, %L)',
        seg, text_column, seg, tbl, seg, text_column, options);
    -- On the still empty column the index builds at once; the batches below fill it. Named
    -- after the table too: index names are per schema. fastupdate off: with the pending
    -- list, every lookup reads all of it (dedup on insert, 8 clients: 1,800 rows/s on, 5,140 off).
    EXECUTE pg_catalog.format('CREATE INDEX IF NOT EXISTS %I ON %s USING gin (%I) WITH (fastupdate = off)',
                              pg_catalog.left(pg_catalog.format('%s_%s', (SELECT c.relname FROM pg_catalog.pg_class c
                                                                          WHERE c.oid OPERATOR(pg_catalog.=) tbl), seg), 59)
                              OPERATOR(pg_catalog.||) '_idx', tbl, seg);
    COMMIT;
    -- Rows moved past `pages` while this runs were written after the trigger existed, or
    -- are found by the last pass below.
    pages := pg_catalog.pg_relation_size(tbl)
             OPERATOR(pg_catalog./) pg_catalog.current_setting('block_size')::pg_catalog.int8;
    WHILE first OPERATOR(pg_catalog.<) pages LOOP
        EXECUTE pg_catalog.format(
            'UPDATE %s SET %I = ''{}'' WHERE ctid OPERATOR(pg_catalog.>=) $1 AND ctid OPERATOR(pg_catalog.<) $2 '
            'AND %I IS NULL AND %I IS NOT NULL', tbl, seg, seg, text_column)
            USING pg_catalog.format('(%s,0)', first)::pg_catalog.tid,
                  pg_catalog.format('(%s,0)', first OPERATOR(pg_catalog.+) batch_pages)::pg_catalog.tid;
        GET DIAGNOSTICS n = ROW_COUNT;
        done_rows := done_rows OPERATOR(pg_catalog.+) n;
        first := first OPERATOR(pg_catalog.+) batch_pages;
        COMMIT;
        RAISE NOTICE 'simhash_create_segments: % of % pages, % rows filled',
            CASE WHEN first OPERATOR(pg_catalog.<) pages THEN first ELSE pages END, pages, done_rows;
    END LOOP;
    -- The rows an UPDATE of other columns moved past the end before it was scanned.
    LOOP
        EXECUTE pg_catalog.format('UPDATE %s SET %I = ''{}'' WHERE %I IS NULL AND %I IS NOT NULL',
                                  tbl, seg, seg, text_column);
        GET DIAGNOSTICS n = ROW_COUNT;
        COMMIT;
        EXIT WHEN n OPERATOR(pg_catalog.=) 0;
        done_rows := done_rows OPERATOR(pg_catalog.+) n;
    END LOOP;
    RAISE NOTICE 'simhash_create_segments: done, % rows filled; column %, kept by trigger %', done_rows, seg, seg;
END
$$;
COMMENT ON PROCEDURE simhash_create_segments(regclass, name, jsonb, int) IS
    'Adds <text_column>_segments bigint[] = simhash_segments(text_column, options), kept by a trigger, with a GIN index; fills existing rows in committed batches (CALL outside a transaction block; rerun to resume)';

-- The query's segments that at most max_rows rows of the table have: a passage repeated
-- in thousands of rows (a disclaimer, a dateline) finds candidates by the thousand and
-- says nothing about any one of them. Each count stops at max_rows + 1 rows.
CREATE FUNCTION simhash_rare_segments(tbl regclass, segments_column name, segments bigint[],
                                      max_rows int DEFAULT 1000)
    RETURNS bigint[]
    STABLE STRICT
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    out bigint[];
BEGIN
    IF max_rows < 1 THEN
        RAISE EXCEPTION 'simhash_rare_segments: max_rows must be at least 1, got %', max_rows USING ERRCODE = '22023';
    END IF;
    EXECUTE format(
        'SELECT coalesce(array_agg(k ORDER BY o), ''{}'') FROM (SELECT DISTINCT ON (k) k, o FROM unnest($1) WITH ORDINALITY u(k, o) '
        'WHERE k IS NOT NULL ORDER BY k, o) d '
        'WHERE (SELECT count(*) FROM (SELECT 1 FROM %s t WHERE t.%I @> ARRAY[d.k] LIMIT $2 + 1) x) <= $2',
        tbl, segments_column)
        INTO out USING segments, max_rows;
    RETURN out;
END
$$;
COMMENT ON FUNCTION simhash_rare_segments(regclass, name, bigint[], int) IS
    'The segments that at most max_rows rows of the table have in segments_column (frequent passages left out)';

-- The rows sharing a rare segment with the query, through the GIN index, with how much
-- they share: row_ctid identifies the row within the statement (join on ctid).
CREATE FUNCTION simhash_similar(tbl regclass, segments_column name, segments bigint[],
                                min_resemblance float8 DEFAULT 0, max_rows int DEFAULT 1000)
    RETURNS TABLE(row_ctid tid, resemblance float8, query_in_row float8, row_in_query float8)
    STABLE STRICT ROWS 10
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rare bigint[] := @extschema@.simhash_rare_segments(tbl, segments_column, segments, max_rows);
BEGIN
    IF cardinality(rare) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT * FROM (SELECT t.ctid, @extschema@.simhash_resemblance($1, t.%1$I), '
        '@extschema@.simhash_containment($1, t.%1$I), @extschema@.simhash_containment(t.%1$I, $1) '
        'FROM %2$s t WHERE t.%1$I && $2) s(c, r, q, w) WHERE s.r >= $3 ORDER BY s.r DESC, s.c',
        segments_column, tbl)
        USING segments, rare, min_resemblance;
END
$$;
COMMENT ON FUNCTION simhash_similar(regclass, name, bigint[], float8, int) IS
    'Rows whose segments_column shares a rare segment with the given segments: resemblance and containment both ways, most similar first';

-- Dedup on insert by resemblance of segment fingerprints (sql/trigger/trigger.sql).
CREATE FUNCTION simhash_segments_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger';
COMMENT ON FUNCTION simhash_segments_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate';

-- Bulk pairs and clusters by resemblance (sql/segments/pairs.sql; src/segments/pairs.rs).
CREATE FUNCTION "simhash_segment_pairs_stream"(
	"segments" TEXT, /* & str */
	"min_resemblance" double precision, /* f64 */
	"max_rows" INT /* i32 */
) RETURNS TABLE (
	"id1" bigint,  /* i64 */
	"id2" bigint,  /* i64 */
	"resemblance" double precision,  /* f64 */
	"id1_in_id2" double precision,  /* f64 */
	"id2_in_id1" double precision  /* f64 */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_segment_pairs_wrapper';
CREATE FUNCTION "simhash_segment_clusters"(
	"segments" TEXT, /* & str */
	"min_resemblance" double precision, /* f64 */
	"max_rows" INT DEFAULT 1000 /* i32 */
) RETURNS TABLE (
	"id" bigint,  /* i64 */
	"cluster_id" bigint  /* i64 */
)
STRICT VOLATILE PARALLEL UNSAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_segment_clusters_wrapper';
CREATE FUNCTION simhash_segment_pairs(segments text, min_resemblance float8, max_rows int DEFAULT 1000)
    RETURNS TABLE(id1 bigint, id2 bigint, resemblance float8, id1_in_id2 float8, id2_in_id1 float8)
    STABLE PARALLEL UNSAFE
    LANGUAGE sql
    AS $$ SELECT (p).id1, (p).id2, (p).resemblance, (p).id1_in_id2, (p).id2_in_id1
          FROM (SELECT @extschema@.simhash_segment_pairs_stream(segments, min_resemblance, max_rows) AS p OFFSET 0) s $$;
COMMENT ON FUNCTION simhash_segment_pairs(text, float8, int) IS
    'Every pair of rows of a query returning (id bigint, segments bigint[]) with resemblance >= min_resemblance that shares a segment at most max_rows rows have, once, id1 < id2, with containment both ways; streamed by id1, id2';
COMMENT ON FUNCTION simhash_segment_clusters(text, float8, int) IS
    'Connected components of simhash_segment_pairs: (id, cluster_id) for every row in a pair, cluster_id the smallest id of its component';
