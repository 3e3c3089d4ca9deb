-- Segment fingerprints (src/segments/; docs/segments.md). Under definition 3 a text's segments
-- are the hashes of its shingles of consecutive words that winnowing selects
-- (crates/simhash-core/src/fingerprints/value/winnow.rs); under definition 2 (simhash_segments_v2),
-- the fingerprints of its minimal runs of sentences (runs.rs). Two texts are compared as sets
-- of segments. Segment search on a table is a bigint[] column
-- with a GIN index (array_ops): PostgreSQL keeps it transactional, WAL-logged and compact
-- (posting lists), and `&&` finds the rows sharing a segment.

CREATE FUNCTION simhash_segments(doc text, options jsonb DEFAULT '{}') RETURNS bigint[]
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_v3';
COMMENT ON FUNCTION simhash_segments(text, jsonb) IS
    'Segment fingerprints of a text (definition 3): the hashes of its shingles of consecutive words that winnowing selects, distinct, in text order; {} for a text with fewer than 6 features';

COMMENT ON FUNCTION simhash_resemblance(bigint[], bigint[]) IS
    'Share of both texts'' segments found in the other: 2|A∩B| / (|A|+|B|) over distinct elements; 0 when both are empty';
COMMENT ON FUNCTION simhash_containment(bigint[], bigint[]) IS
    'Share of the first text''s segments found in the second: |A∩B| / |A| over distinct elements; 0 when the first is empty';
COMMENT ON FUNCTION simhash_resemblance(bigint[], bigint[], int) IS
    'Share of both texts'' segments found in the other, one found only within max_distance bits (0 to 64; 0 is the two-argument form) counting half; compares every pair past 0. Within bits is for definition 2''s segments only: definition 3''s are shingle hashes';
COMMENT ON FUNCTION simhash_containment(bigint[], bigint[], int) IS
    'Share of the first text''s segments found in the second, one found only within max_distance bits (0 to 64; 0 is the two-argument form) counting half. Within bits is for definition 2''s segments only: definition 3''s are shingle hashes';

CREATE FUNCTION simhash_segments_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_trigger_v3';
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

-- The segments column of simhash_rare_segments and simhash_similar, checked before it is
-- queried (since 2.2.0): 42703 when the table has no such column, 42804 unless it is
-- bigint[], each naming the function and the argument, where the query itself would fail
-- with an error about an operator the user never wrote.
CREATE FUNCTION simhash_check_segments_column(func text, tbl regclass, segments_column name) RETURNS void
    STABLE STRICT
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    base_type oid;
BEGIN
    SELECT CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END INTO base_type
      FROM pg_attribute a JOIN pg_type t ON t.oid = a.atttypid
     WHERE a.attrelid = tbl AND a.attname = segments_column AND a.attnum > 0 AND NOT a.attisdropped;
    IF NOT FOUND THEN
        RAISE EXCEPTION '%: segments_column "%" of relation % does not exist', func, segments_column, tbl
            USING ERRCODE = '42703',
                  HINT = 'CALL simhash_create_segments(tbl, text_column) adds the column <text_column>_segments.';
    END IF;
    IF base_type <> 'bigint[]'::regtype THEN
        RAISE EXCEPTION '%: segments_column "%" of relation % has type %, expected bigint[]',
            func, segments_column, tbl, format_type(base_type, NULL)
            USING ERRCODE = '42804',
                  HINT = 'The column holds simhash_segments() of a text: CALL simhash_create_segments(tbl, text_column) adds it.';
    END IF;
END
$$;
COMMENT ON FUNCTION simhash_check_segments_column(text, regclass, name) IS
    'Raises 42703 unless tbl has the column segments_column, 42804 unless it is bigint[], naming func: the check of simhash_rare_segments and simhash_similar';

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
    PERFORM @extschema@.simhash_check_segments_column('simhash_rare_segments', tbl, segments_column);
    EXECUTE format(
        'SELECT coalesce(array_agg(k ORDER BY o), ''{}'') FROM (SELECT DISTINCT ON (k) k, o FROM unnest($1) WITH ORDINALITY u(k, o) '
        'WHERE k IS NOT NULL ORDER BY k, o) d '
        'WHERE (SELECT count(*) FROM (SELECT 1 FROM %s t WHERE t.%I @> ARRAY[d.k] LIMIT $2::int8 + 1) x) <= $2',
        tbl, segments_column)
        INTO out USING segments, max_rows;
    RETURN out;
END
$$;
COMMENT ON FUNCTION simhash_rare_segments(regclass, name, bigint[], int) IS
    'The segments that at most max_rows rows of the table have in segments_column (frequent passages left out)';

-- The rows sharing a rare segment with the query, through the GIN index, with how much
-- they share: row_ctid identifies the row within the statement (join on ctid). With
-- max_distance > 0 (since 2.1.0) the candidates are the same, and a segment the other text
-- has not, but has one within max_distance bits of, counts half.
CREATE FUNCTION simhash_similar(tbl regclass, segments_column name, segments bigint[],
                                min_resemblance float8 DEFAULT 0, max_rows int DEFAULT 1000,
                                max_distance int DEFAULT 0)
    RETURNS TABLE(row_ctid tid, resemblance float8, query_in_row float8, row_in_query float8)
    STABLE STRICT ROWS 10
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    rare bigint[];
BEGIN
    IF max_distance NOT BETWEEN 0 AND 64 THEN
        RAISE EXCEPTION 'simhash_similar: max_distance must be between 0 and 64, got %', max_distance
            USING ERRCODE = '22023';
    END IF;
    PERFORM @extschema@.simhash_check_segments_column('simhash_similar', tbl, segments_column);
    rare := @extschema@.simhash_rare_segments(tbl, segments_column, segments, max_rows);
    IF cardinality(rare) = 0 THEN
        RETURN;
    END IF;
    RETURN QUERY EXECUTE format(
        'SELECT * FROM (SELECT t.ctid, @extschema@.simhash_resemblance($1, t.%1$I, $4), '
        '@extschema@.simhash_containment($1, t.%1$I, $4), @extschema@.simhash_containment(t.%1$I, $1, $4) '
        'FROM %2$s t WHERE t.%1$I && $2) s(c, r, q, w) WHERE s.r >= $3 ORDER BY s.r DESC, s.c',
        segments_column, tbl)
        USING segments, rare, min_resemblance, max_distance;
END
$$;
COMMENT ON FUNCTION simhash_similar(regclass, name, bigint[], float8, int, int) IS
    'Rows whose segments_column shares a rare segment with the given segments: resemblance and containment both ways (a segment found only within max_distance bits counting half), most similar first';
