-- regress_try(sql): 'ok', or the error as SQLSTATE: message / DETAIL / HINT. Created in the
-- regression database by tests/harness/run_tests.sh, for every pg_regress file.
CREATE FUNCTION regress_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; det text; hnt text;
BEGIN
    EXECUTE sql;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL, hnt = PG_EXCEPTION_HINT;
    RETURN st || ': ' || msg || coalesce(' DETAIL: ' || nullif(det, ''), '') || coalesce(' HINT: ' || nullif(hnt, ''), '');
END $$;
