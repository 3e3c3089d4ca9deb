-- simhash 2.1.1 → 2.2.0 (issue 30: what a newcomer meets first).
-- - simhash(doc text, options text): two untyped literals, simhash('...', '{"min_features": 0}'),
--   were "not unique" between (text, jsonb) and (text[], float8[]); a string type now wins
--   the second position too. Calls with a jsonb or a text[] keep their function.
-- - simhash_explain(a, b, options): each segment of either text, its sentences and its
--   partner in the other; the credits add up to simhash_resemblance and simhash_containment.
-- - simhash_rare_segments and simhash_similar check their segments column first (42703 when
--   missing, 42804 unless bigint[]), through simhash_check_segments_column; replaced in place,
--   so views that call them are kept.
-- - Options errors name the function (no SQL change).

CREATE FUNCTION simhash(doc text, options text) RETURNS bigint
    IMMUTABLE STRICT PARALLEL SAFE
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_text_options_text_v2';
COMMENT ON FUNCTION simhash(text, text) IS
    'simhash(doc, options::jsonb), the options as JSON text: what two untyped literals resolve to';

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

CREATE OR REPLACE FUNCTION simhash_rare_segments(tbl regclass, segments_column name, segments bigint[],
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

CREATE OR REPLACE FUNCTION simhash_similar(tbl regclass, segments_column name, segments bigint[],
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

-- As pgrx generates it for src/segments/explain.rs.
CREATE  FUNCTION "simhash_explain_utf8"(
	"a" bytea, /* & [u8] */
	"b" bytea, /* & [u8] */
	"options" jsonb /* JsonbArg */
) RETURNS TABLE (
	"side" TEXT,  /* & '_ str */
	"segment" INT,  /* i32 */
	"sentences" bytea,  /* Vec < u8 > */
	"fingerprint" bigint,  /* i64 */
	"matched" TEXT,  /* & '_ str */
	"partner" INT,  /* Option < i32 > */
	"distance" INT,  /* Option < i32 > */
	"credit" double precision,  /* f64 */
	"resemblance" double precision,  /* f64 */
	"a_in_b" double precision,  /* f64 */
	"b_in_a" double precision  /* f64 */
)
IMMUTABLE STRICT PARALLEL SAFE
LANGUAGE c /* Rust */
AS 'MODULE_PATHNAME', 'simhash_explain_utf8_wrapper';

CREATE FUNCTION simhash_explain(a text, b text, options jsonb DEFAULT '{}')
    RETURNS TABLE(side text, segment int, sentences text, fingerprint bigint, matched text, partner int,
                  distance int, credit float8, resemblance float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.side, e.segment, pg_catalog.convert_from(e.sentences, 'UTF8'), e.fingerprint, e.matched,
                 e.partner, e.distance, e.credit, e.resemblance, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_utf8(pg_catalog.convert_to(a, 'UTF8'), pg_catalog.convert_to(b, 'UTF8'),
                                                options) AS e $$;
COMMENT ON FUNCTION simhash_explain(text, text, jsonb) IS
    'Each segment of a and of b: the sentences it covers, its fingerprint, its partner in the other text (exact, near within max_distance bits with the distance, or none) and its credit (1, 0.5, 0); resemblance, a_in_b and b_in_a are what the credits add up to: simhash_resemblance and simhash_containment of the two texts'' segments. Options: those of simhash_segments, plus "max_distance" (0 to 64)';
