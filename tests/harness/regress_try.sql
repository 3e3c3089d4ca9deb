-- Helpers created in the regression database (tests/harness/regress_db.sh) for every
-- pg_regress file.
-- regress_try(sql): 'ok', or the error as SQLSTATE: message / DETAIL / HINT.
CREATE FUNCTION regress_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; det text; hnt text;
BEGIN
    EXECUTE sql;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
    RETURN st || ': ' || msg || coalesce(' DETAIL: ' || nullif(det, ''), '') || coalesce(' HINT: ' || nullif(hnt, ''), '');
END $$;

-- regress_plan(sql): the lines of EXPLAIN (COSTS OFF) sql, less the "Disabled: true" that
-- PostgreSQL 18 prints under the scans it disables.
CREATE FUNCTION regress_plan(sql text) RETURNS SETOF text LANGUAGE plpgsql AS $$
DECLARE line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || sql LOOP
        IF line NOT LIKE '%Disabled: true' THEN
            RETURN NEXT line;
        END IF;
    END LOOP;
END $$;
