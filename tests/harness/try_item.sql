-- How concurrent dedup writers record what happened to each work item
-- (tests/harness/dedup_items.sql): outcome(item, result), and try_item(n), which inserts
-- item n as row n of docs(id, body) and records 'inserted', 'skipped' or 'rejected'.
-- Only 23505 is caught; 40001 and 40P01 abort the transaction and pgbench retries it
-- (the outcome rows roll back with it). try_items(c, i, per_tx) is transaction i of client c
-- of 8 (lib.sh's dedup_writers): items 8(per_tx i + j) + c for j < per_tx, so the
-- consecutive items of a group start in different clients at the same moment. Used by
-- trigger_concurrency.sh, segments_dedup_concurrency.sh and sharded.sh.
CREATE TABLE outcome(item int PRIMARY KEY, result text NOT NULL);
CREATE FUNCTION try_item(n int) RETURNS void LANGUAGE plpgsql AS $$
DECLARE b text; rc bigint;
BEGIN
    SELECT body INTO b FROM work WHERE item = n;
    IF NOT FOUND THEN RETURN; END IF;
    BEGIN
        INSERT INTO docs(id, body) VALUES (n, b);
        GET DIAGNOSTICS rc = ROW_COUNT;
        INSERT INTO outcome VALUES (n, CASE WHEN rc = 1 THEN 'inserted' ELSE 'skipped' END);
    EXCEPTION WHEN unique_violation THEN
        INSERT INTO outcome VALUES (n, 'rejected');
    END;
END $$;
CREATE FUNCTION try_items(c int, i int, per_tx int) RETURNS void LANGUAGE sql AS
    'SELECT try_item(8 * (per_tx * i + j) + c) FROM generate_series(0, per_tx - 1) j';
