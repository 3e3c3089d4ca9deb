-- Insert triggers (issue 4): simhash_update_trigger keeps a fingerprint column current;
-- simhash_dedup_trigger rejects, skips or links near-duplicates. Concurrency is tested in
-- tests/integration/trigger_concurrency.sh; here one session, plus a dblink session for the
-- REPEATABLE READ case.
CREATE EXTENSION IF NOT EXISTS simhash;
SET client_min_messages = warning;
CREATE EXTENSION IF NOT EXISTS dblink;
RESET client_min_messages;

-- regress_try(sql) (tests/harness/regress_try.sql): 'ok', or the error as SQLSTATE: message / DETAIL / HINT.

-- Real paragraphs and a variant of each with one character replaced in the middle; kept
-- are the 8 whose variant is within distance 1..3 (near-duplicates at k = 3). No two
-- originals are near-duplicates of each other.
CREATE TABLE trig_src AS
SELECT id, body, v AS variant, hamming(simhash(body), simhash(v)) AS d
FROM (SELECT id, body, overlay(body placing '某' from length(body) / 2 for 1) AS v
      FROM corpus WHERE id % 400 = 0 AND length(body) BETWEEN 60 AND 200) x
WHERE hamming(simhash(body), simhash(v)) BETWEEN 1 AND 3;
SELECT count(*) AS planted, min(d), max(d) FROM trig_src;
SELECT count(*) AS original_pairs FROM trig_src a JOIN trig_src b
    ON a.id < b.id AND hamming(simhash(a.body), simhash(b.body)) <= 3;

-- 1. simhash_update_trigger: fp follows body on INSERT and UPDATE; NULL text, NULL fp.
CREATE TABLE trig_upd(id int PRIMARY KEY, body text, fp bigint);
CREATE TRIGGER trig_upd_fp BEFORE INSERT OR UPDATE ON trig_upd
    FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');
INSERT INTO trig_upd VALUES (1, '中共中央总书记、国家主席江泽民发表新年讲话', 42), (2, NULL, 42);
SELECT id, fp = simhash(body) AS fp_current, fp IS NULL AS fp_null FROM trig_upd ORDER BY id;
UPDATE trig_upd SET body = '今天北京天气很好，阳光明媚，适合全家出门散步游玩。' WHERE id = 1;
UPDATE trig_upd SET body = '新年快乐，祝愿全国各族人民身体健康、工作顺利、万事如意。' WHERE id = 2;
SELECT id, fp = simhash(body) AS fp_current FROM trig_upd ORDER BY id;
UPDATE trig_upd SET body = NULL WHERE id = 1;
SELECT id, fp IS NULL AS fp_null FROM trig_upd ORDER BY id;
-- varchar text works too.
CREATE TABLE trig_upd_vc(body varchar(100), fp bigint);
CREATE TRIGGER t BEFORE INSERT ON trig_upd_vc FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');
INSERT INTO trig_upd_vc VALUES ('今天北京天气很好，阳光明媚，适合全家出门散步游玩。');
SELECT fp = simhash('今天北京天气很好，阳光明媚，适合全家出门散步游玩。') AS fp_current FROM trig_upd_vc;

-- Misuse of the triggers: each error names the problem, with its SQLSTATE.
CREATE TABLE trig_bad(id int PRIMARY KEY, body text, fp bigint, fp4 int, num int,
                      fpg bigint GENERATED ALWAYS AS (hashtext(body)) STORED);
-- trig_fire(tbl, how, dml): CREATE TRIGGER trig_fire <how> ON tbl, run dml, drop the trigger.
CREATE FUNCTION trig_fire(tbl text, how text, dml text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('CREATE TRIGGER trig_fire %s', replace(how, 'ON tbl', format('ON %I', tbl)));
    r := regress_try(dml);
    EXECUTE format('DROP TRIGGER trig_fire ON %I', tbl);
    RETURN r;
END $$;
INSERT INTO trig_bad(id, body) VALUES (1, 'x');
SELECT how, trig_fire('trig_bad', how, dml) FROM (VALUES
    ($$AFTER INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    ($$BEFORE INSERT ON tbl FOR EACH STATEMENT EXECUTE FUNCTION simhash_update_trigger('fp', 'body')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    ($$BEFORE DELETE ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body')$$, 'DELETE FROM trig_bad'),
    ($$BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    ($$BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'no_such_column')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    ($$BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('ctid', 'body')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    ($$BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp4', 'body')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    ($$BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'num')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    -- A generated fingerprint column: BEFORE triggers run before it is computed.
    ($$BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fpg', 'body')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')'),
    ($$AFTER INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject')$$, 'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')')
) v(how, dml);
-- Called directly, not as a trigger.
SELECT simhash_update_trigger();

-- 2. reject: block columns for the check, the trigger on INSERT and UPDATE OF body.
CREATE TABLE trig_docs(id int PRIMARY KEY, body text, fp bigint);
SELECT simhash_create_blocks('trig_docs', 'fp');
CREATE TRIGGER trig_docs_dedup BEFORE INSERT OR UPDATE OF body ON trig_docs
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject');
INSERT INTO trig_docs(id, body) SELECT id, body FROM trig_src;
SELECT count(*) AS rows, count(*) FILTER (WHERE fp = simhash(body)) AS fp_set,
       count(*) FILTER (WHERE fp_block0_of4 = simhash_block(fp, 0, 4)) AS blocks_generated
FROM trig_docs;
-- The nearest existing row is named, with the distance.
SELECT variant AS v400 FROM trig_src WHERE id = 400 \gset
INSERT INTO trig_docs(id, body) VALUES (1, :'v400');
SELECT regress_try(format('INSERT INTO trig_docs(id, body) SELECT 100000 + id, variant FROM trig_src WHERE id = %s', id))
FROM trig_src ORDER BY id;
SELECT count(*) AS rows FROM trig_docs;
-- NULL text is never anyone's near-duplicate.
INSERT INTO trig_docs(id, body) VALUES (2, NULL), (3, NULL);
SELECT id, fp FROM trig_docs WHERE body IS NULL ORDER BY id;
-- Two near-duplicates in one multi-row INSERT: the second row sees the first.
INSERT INTO trig_docs(id, body) VALUES (4, '今天北京天气很好，阳光明媚，适合出门散步。'), (5, '今天北京天气很好，阳光明媚，适合出门散步！');
SELECT count(*) FROM trig_docs WHERE id IN (4, 5);
-- UPDATE OF body: a row may change into a variant of itself, but not of another row.
UPDATE trig_docs t SET body = s.variant FROM trig_src s WHERE t.id = s.id AND s.id = 1200;
SELECT fp = simhash(variant) AS fp_follows FROM trig_docs t JOIN trig_src s USING (id) WHERE id = 1200;
SELECT regress_try('UPDATE trig_docs SET body = (SELECT variant FROM trig_src WHERE id = 7600) WHERE id = 2');
-- An UPDATE that does not change the fingerprint is not checked again.
UPDATE trig_docs SET body = body WHERE id = 400;
-- Brute force: no two rows within distance 3.
SELECT count(*) AS near_duplicate_pairs FROM trig_docs a JOIN trig_docs b ON a.id < b.id AND hamming(a.fp, b.fp) <= 3;
-- The check query probes the block indexes: a BitmapOr, not a scan of the table.
SELECT simhash_dedup_query('trig_docs', 'fp', 'body', '3', 'reject') AS q \gset
\echo :q
PREPARE trig_check(bigint) AS :q;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE trig_check(1234567890123);
RESET plan_cache_mode;
EXPLAIN (COSTS OFF) EXECUTE trig_check(1234567890123);
DEALLOCATE trig_check;

-- 3. skip: the row is not inserted, simhash_dedup_skipped() counts it.
CREATE TABLE trig_skip(id int PRIMARY KEY, body text, fp bigint);
SELECT simhash_create_blocks('trig_skip', 'fp');
CREATE TRIGGER trig_skip_dedup BEFORE INSERT OR UPDATE OF body ON trig_skip
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
SELECT simhash_dedup_skipped() AS skipped_before \gset
INSERT INTO trig_skip(id, body) SELECT id, body FROM trig_src UNION ALL SELECT 100000 + id, variant FROM trig_src;
SELECT simhash_dedup_skipped() - :skipped_before AS skipped;
SELECT count(*) AS rows, count(*) FILTER (WHERE id < 100000) AS originals FROM trig_skip;
-- Rows skipped in a rolled-back transaction still count (the counter is per session).
BEGIN;
INSERT INTO trig_skip(id, body) SELECT 200000 + id, variant FROM trig_src;
ROLLBACK;
SELECT simhash_dedup_skipped() - :skipped_before AS skipped;
-- An UPDATE that would make a near-duplicate is skipped too: the row keeps its old body.
UPDATE trig_skip SET body = (SELECT variant FROM trig_src WHERE id = 400) WHERE id = 1200;
SELECT body = (SELECT body FROM trig_src WHERE id = 1200) AS unchanged FROM trig_skip WHERE id = 1200;

-- 4. link: the row is inserted, dup_of names the nearest existing row; NULL otherwise.
CREATE TABLE trig_link(id bigint PRIMARY KEY, body text, fp bigint, dup_of bigint);
SELECT simhash_create_blocks('trig_link', 'fp');
CREATE TRIGGER trig_link_dedup BEFORE INSERT OR UPDATE OF body ON trig_link
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'link', 'dup_of');
INSERT INTO trig_link(id, body, dup_of) SELECT id, body, -1 FROM trig_src;
INSERT INTO trig_link(id, body) SELECT 100000 + id, variant FROM trig_src;
INSERT INTO trig_link(id, body) VALUES (7, NULL);
SELECT count(*) AS rows, count(*) FILTER (WHERE dup_of IS NULL AND id < 100000) AS originals_unlinked,
       count(*) FILTER (WHERE dup_of = id - 100000) AS variants_linked FROM trig_link;
SELECT id, dup_of, hamming(fp, (SELECT fp FROM trig_link o WHERE o.id = l.dup_of)) AS distance
FROM trig_link l WHERE id > 100000 ORDER BY id LIMIT 3;

-- 5. Argument errors of simhash_dedup_trigger, each with its SQLSTATE.
CREATE TABLE trig_nopk(body text, fp bigint, dup_of int);
CREATE TABLE trig_pk2(a int, b int, body text, fp bigint, dup_of int, PRIMARY KEY (a, b));
SELECT tbl, args, trig_fire(tbl, format('BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger(%s)', args),
                            format('INSERT INTO %I(body) VALUES (''x'')', tbl))
FROM (VALUES
    ('trig_bad', $$'fp', 'body', '3'$$),
    ('trig_bad', $$'fp', 'body', '3', 'drop'$$),
    ('trig_bad', $$'fp', 'body', '65', 'reject'$$),
    ('trig_bad', $$'fp', 'body', '-1', 'reject'$$),
    ('trig_bad', $$'fp', 'body', 'three', 'reject'$$),
    ('trig_bad', $$'fp', 'nobody', '3', 'reject'$$),
    ('trig_bad', $$'nofp', 'body', '3', 'reject'$$),
    ('trig_bad', $$'fp4', 'body', '3', 'reject'$$),
    ('trig_bad', $$'fp', 'num', '3', 'reject'$$),
    ('trig_bad', $$'fpg', 'body', '3', 'reject'$$),
    ('trig_bad', $$'fp', 'body', '3', 'link'$$),
    ('trig_bad', $$'fp', 'body', '3', 'skip', 'num'$$),
    ('trig_bad', $$'fp', 'body', '3', 'link', 'nolink'$$),
    ('trig_bad', $$'fp', 'body', '3', 'link', 'body'$$),
    ('trig_nopk', $$'fp', 'body', '3', 'link', 'dup_of'$$),
    ('trig_pk2', $$'fp', 'body', '3', 'link', 'dup_of'$$)
) v(tbl, args);
-- simhash_dedup_query validates the same way.
SELECT regress_try($$SELECT simhash_dedup_query('trig_bad', 'fp', 'body', '3', 'unknown')$$);
-- Without a primary key, reject names the row by ctid.
CREATE TRIGGER t BEFORE INSERT ON trig_nopk FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject');
INSERT INTO trig_nopk(body) VALUES ('今天北京天气很好，阳光明媚，适合出门散步。');
SELECT regress_try($$INSERT INTO trig_nopk(body) VALUES ('今天北京天气很好，阳光明媚，适合出门散步！')$$);
-- A composite primary key is listed in full.
CREATE TRIGGER t BEFORE INSERT ON trig_pk2 FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject');
INSERT INTO trig_pk2(a, b, body) VALUES (1, 2, '今天北京天气很好，阳光明媚，适合出门散步。');
SELECT regress_try($$INSERT INTO trig_pk2(a, b, body) VALUES (1, 3, '今天北京天气很好，阳光明媚，适合出门散步！')$$);

-- 6. Identifiers are quoted everywhere: odd table, column and schema names.
CREATE SCHEMA "Trig Schema";
CREATE TABLE "Trig Schema"."Docs; DROP TABLE trig_docs; --"("Key" int PRIMARY KEY, "Body; DROP TABLE x" text, "FP" bigint, "select" int);
SELECT simhash_create_blocks('"Trig Schema"."Docs; DROP TABLE trig_docs; --"', 'FP');
CREATE TRIGGER "Dedup!" BEFORE INSERT ON "Trig Schema"."Docs; DROP TABLE trig_docs; --"
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('FP', 'Body; DROP TABLE x', '3', 'link', 'select');
INSERT INTO "Trig Schema"."Docs; DROP TABLE trig_docs; --" VALUES (1, (SELECT body FROM trig_src WHERE id = 400));
INSERT INTO "Trig Schema"."Docs; DROP TABLE trig_docs; --" VALUES (2, (SELECT variant FROM trig_src WHERE id = 400));
SELECT "Key", "select" FROM "Trig Schema"."Docs; DROP TABLE trig_docs; --" ORDER BY 1;
SELECT simhash_dedup_query('"Trig Schema"."Docs; DROP TABLE trig_docs; --"', 'FP', 'Body; DROP TABLE x', '3', 'link', 'select');
SELECT count(*) AS trig_docs_still_there FROM trig_docs;
-- The functions are found whatever the search_path (they are schema-qualified).
SET search_path = pg_catalog;
INSERT INTO public.trig_docs(id, body) VALUES (6, '这是一个全新的句子，内容和表格中别的段落都不一样。');
SELECT public.regress_try('INSERT INTO public.trig_docs(id, body) VALUES (8, ''这是一个全新的句子，内容和表格中别的段落都不一样！'')');
RESET search_path;

-- 7. The cached check follows ALTER TABLE: a renamed text column is reported by name.
ALTER TABLE trig_docs RENAME COLUMN body TO txt;
SELECT regress_try('INSERT INTO trig_docs(id, txt) VALUES (9, ''x'')');
ALTER TABLE trig_docs RENAME COLUMN txt TO body;
INSERT INTO trig_docs(id, body) VALUES (9, '又一个新句子，讲述农村改革开放以来发生的巨大变化。');

-- 8. REPEATABLE READ: a near-duplicate committed by another session after this
-- transaction's snapshot is invisible to it; the trigger raises a serialization failure
-- rather than let both in.
SELECT dblink_connect('trig_other', format('host=%s port=%s dbname=%s user=%s',
    current_setting('unix_socket_directories'), current_setting('port'), current_database(), current_user));
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT count(*) FROM trig_docs;
SELECT dblink_exec('trig_other', $$INSERT INTO trig_docs(id, body) VALUES (10, '人民日报社论：迎接新的一年，开创改革开放的新局面。')$$);
SELECT regress_try($$INSERT INTO trig_docs(id, body) VALUES (11, '人民日报社论：迎接新的一年，开创改革开放的新局面！')$$);
ROLLBACK;
-- READ COMMITTED sees it and rejects.
SELECT regress_try($$INSERT INTO trig_docs(id, body) VALUES (11, '人民日报社论：迎接新的一年，开创改革开放的新局面！')$$);
SELECT dblink_disconnect('trig_other');
SELECT count(*) AS near_duplicate_pairs FROM trig_docs a JOIN trig_docs b ON a.id < b.id AND hamming(a.fp, b.fp) <= 3;

-- 9. A bulk INSERT keeps its lock count bounded: past 128 block keys the transaction holds
-- the table's key exclusively instead (PostgreSQL's shared lock table holds a few thousand
-- locks for the whole server; 4 keys for each of 2,000 rows would not fit).
CREATE TABLE trig_bulk(id int PRIMARY KEY, body text, fp bigint);
SELECT simhash_create_blocks('trig_bulk', 'fp');
CREATE TRIGGER trig_bulk_dedup BEFORE INSERT ON trig_bulk
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
BEGIN;
INSERT INTO trig_bulk SELECT id, body FROM corpus WHERE id <= 2000;
SELECT count(*) FILTER (WHERE mode = 'ShareLock') AS table_key_share,
       count(*) FILTER (WHERE mode = 'ExclusiveLock' AND objid IN
           (SELECT objid FROM pg_locks s WHERE s.pid = l.pid AND s.locktype = 'advisory' AND s.mode = 'ShareLock')) AS table_key_exclusive,
       count(*) BETWEEN 128 AND 140 AS bounded
FROM pg_locks l WHERE locktype = 'advisory' AND objsubid = 21320 AND pid = pg_backend_pid();
COMMIT;
SELECT count(*) AS near_duplicate_pairs FROM trig_bulk a JOIN trig_bulk b ON a.id < b.id AND hamming(a.fp, b.fp) <= 3;
SELECT (SELECT count(*) FROM trig_bulk) + count(*) = 2000 AS all_accounted
FROM corpus c WHERE c.id <= 2000 AND NOT EXISTS (SELECT 1 FROM trig_bulk b WHERE b.id = c.id)
  AND EXISTS (SELECT 1 FROM trig_bulk b WHERE hamming(b.fp, simhash(c.body)) <= 3);

-- 10. The index pre-check (src/trigger/precheck.rs) decides as the check query does. The same rows,
-- corpus paragraphs interleaved with copies edited in 1 to 6 places (distances 0 to about
-- 20), go through skip triggers at k = 1, 3 and 6 into tables whose block indexes carry
-- the fingerprint (candidates tested on the index), tables with plain block indexes (any
-- entry sends the row on to the check query) and tables without block indexes (no
-- pre-check; the query scans). simhash_dedup_query names the pre-check chosen. Rows kept
-- may be within k of each other (the dedup decision keeps a copy edited in many places
-- apart), but no two of them are the same passage.
CREATE TABLE trig_pc_src AS
SELECT row_number() OVER (ORDER BY c.id, e.n) AS id,
       CASE WHEN e.n = 0 THEN c.body ELSE
           (SELECT string_agg(CASE WHEN i % (length(c.body) / (e.n + 1)) = 0 AND i > 1 THEN '某' ELSE substr(c.body, i, 1) END, '' ORDER BY i)
              FROM generate_series(1, length(c.body)) i) END AS body
FROM corpus c CROSS JOIN generate_series(0, 6) e(n)
WHERE c.id % 40 = 0 AND length(c.body) BETWEEN 60 AND 300;
ALTER TABLE trig_pc_src ADD COLUMN fp bigint;
UPDATE trig_pc_src SET fp = simhash(body);
SELECT count(*) AS rows, count(DISTINCT fp) AS fingerprints FROM trig_pc_src;
CREATE FUNCTION trig_pc(shape text, k int) RETURNS text LANGUAGE plpgsql AS $$
DECLARE t text := format('trig_pc_%s_%s', shape, k); q text;
BEGIN
    -- No autovacuum: a fresh row count could change the pre-check chosen (dedup::choose_precheck).
    EXECUTE format('CREATE TABLE %I(id bigint PRIMARY KEY, body text, fp bigint) WITH (autovacuum_enabled = false)', t);
    IF shape <> 'scan' THEN
        PERFORM simhash_create_blocks(t::regclass, 'fp', 4, shape = 'covering');
    END IF;
    EXECUTE format($t$CREATE TRIGGER d BEFORE INSERT ON %I FOR EACH ROW
                      EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', %L, 'skip')$t$, t, k);
    EXECUTE format('INSERT INTO %I(id, body) SELECT id, body FROM trig_pc_src ORDER BY id', t);
    q := simhash_dedup_query(t::regclass, 'fp', 'body', k::text, 'skip');
    RETURN substring(q from '/\* (.*) \*/');
END $$;
SELECT k, shape, trig_pc(shape, k) AS precheck
FROM (VALUES (1), (3), (6)) ks(k), (VALUES ('covering'), ('plain'), ('scan')) s(shape) ORDER BY k, shape;
CREATE FUNCTION trig_pc_ids(shape text, k int) RETURNS bigint[] LANGUAGE plpgsql AS $$
DECLARE r bigint[];
BEGIN
    EXECUTE format('SELECT array_agg(id ORDER BY id) FROM %I', format('trig_pc_%s_%s', shape, k)) INTO r;
    RETURN r;
END $$;
SELECT k, (SELECT count(*) FROM trig_pc_src) - cardinality(trig_pc_ids('scan', k)) AS skipped,
       trig_pc_ids('covering', k) = trig_pc_ids('scan', k) AS covering_same_as_scan,
       trig_pc_ids('plain', k) = trig_pc_ids('scan', k) AS plain_same_as_scan,
       p.near_pairs_kept, p.same_passage_pairs_kept
FROM (VALUES (1), (3), (6)) ks(k),
     LATERAL (SELECT count(*) AS near_pairs_kept, count(*) FILTER (WHERE simhash_same_passage(a.body, b.body)) AS same_passage_pairs_kept
                FROM trig_pc_src a JOIN trig_pc_src b ON a.id < b.id
                 AND a.id = ANY (trig_pc_ids('scan', k)) AND b.id = ANY (trig_pc_ids('scan', k))
                 AND hamming(a.fp, b.fp) <= k) p
ORDER BY k;

-- 11. The options argument: last, beginning with '{', JSON as simhash(doc, options) takes it.
-- The update trigger sets simhash(body, options); without options simhash(body), which is
-- definition 1 and NULL for a text with fewer than 6 features.
CREATE TABLE trig_opt(id int PRIMARY KEY, body text, fp0 bigint, fp1 bigint, fpn bigint);
CREATE TRIGGER a BEFORE INSERT OR UPDATE ON trig_opt
    FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp0', 'body', '{"definition": "0"}');
CREATE TRIGGER b BEFORE INSERT OR UPDATE ON trig_opt
    FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp1', 'body');
CREATE TRIGGER c BEFORE INSERT OR UPDATE ON trig_opt
    FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fpn', 'body', ' {"tokenizer": "ngram", "n": 2}');
INSERT INTO trig_opt(id, body) SELECT id, body FROM corpus WHERE id <= 20 OR id % 1000 = 0;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE fp0 IS NOT DISTINCT FROM simhash(body, '{"definition": "0"}'::jsonb)) AS fp0_current,
       count(*) FILTER (WHERE fp1 IS NOT DISTINCT FROM simhash(body)) AS fp1_current,
       count(*) FILTER (WHERE fp1 IS NULL) AS fp1_null,
       count(*) FILTER (WHERE fpn IS NOT DISTINCT FROM simhash(body, '{"tokenizer": "ngram", "n": 2}'::jsonb)) AS fpn_current,
       count(*) FILTER (WHERE fp0 <> fp1) AS definitions_differ
FROM trig_opt;
-- A short text: a fingerprint under definition 0, NULL under the default.
UPDATE trig_opt SET body = '短文本' WHERE id = 1;
SELECT fp0 = simhash('短文本', '{"definition": "0"}'::jsonb) AS fp0_current, fp1 IS NULL AS fp1_null,
       fpn IS NOT DISTINCT FROM simhash('短文本', '{"tokenizer": "ngram", "n": 2}'::jsonb) AS fpn_current
FROM trig_opt WHERE id = 1;

-- The dedup trigger checks simhash(body, options): a paragraph and a copy with its
-- figures changed are within 3 under definition 1 (which has no numbers) but not under
-- definition 0. 6.0's trigger then reads the texts, and the figures keep them apart; 5.x's
-- (simhash_dedup_trigger_d1) links the copy on its fingerprint alone.
CREATE TABLE trig_opt_pair AS
SELECT body, translate(body, '０１２３４５６７８９', '３４５６７８９０１２') AS variant FROM corpus WHERE id = 100;
SELECT hamming(simhash(body, '{"definition": "0"}'::jsonb), simhash(variant, '{"definition": "0"}'::jsonb)) AS d0,
       hamming(simhash(body), simhash(variant)) AS d1
FROM trig_opt_pair;
-- Definition 0: both rows go in.
CREATE TABLE trig_opt_d0(id int PRIMARY KEY, body text, fp bigint);
CREATE TRIGGER d BEFORE INSERT OR UPDATE OF body ON trig_opt_d0
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject', '{"definition": "0"}');
INSERT INTO trig_opt_d0(id, body) SELECT 1, body FROM trig_opt_pair;
SELECT regress_try('INSERT INTO trig_opt_d0(id, body) SELECT 2, variant FROM trig_opt_pair');
SELECT id, fp = simhash(body, '{"definition": "0"}'::jsonb) AS fp_definition0 FROM trig_opt_d0 ORDER BY id;
-- Without options (definition 1) the copy is a candidate, and the dedup decision lets it in.
CREATE TABLE trig_opt_d1(id int PRIMARY KEY, body text, fp bigint);
CREATE TRIGGER d BEFORE INSERT OR UPDATE OF body ON trig_opt_d1
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject');
INSERT INTO trig_opt_d1(id, body) SELECT 1, body FROM trig_opt_pair;
SELECT regress_try('INSERT INTO trig_opt_d1(id, body) SELECT 2, variant FROM trig_opt_pair');
SELECT id, fp = simhash(body) AS fp_current FROM trig_opt_d1 ORDER BY id;
-- Six arguments: link column, then options; 5.x's trigger links the copy.
CREATE TABLE trig_opt_link(id int PRIMARY KEY, body text, fp bigint, dup_of int);
CREATE TRIGGER d BEFORE INSERT OR UPDATE OF body ON trig_opt_link
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger_d1('fp', 'body', '3', 'link', 'dup_of', '{"definition": "1"}');
INSERT INTO trig_opt_link(id, body) SELECT 1, body FROM trig_opt_pair;
INSERT INTO trig_opt_link(id, body) SELECT 2, variant FROM trig_opt_pair;
SELECT id, dup_of, fp = simhash(body) AS fp_definition1 FROM trig_opt_link ORDER BY id;

-- A text without a fingerprint is handled like a NULL text: fingerprint and link column
-- NULL, never anyone's near-duplicate, so identical short texts all go in (even at 0).
CREATE TABLE trig_short(id int PRIMARY KEY, body text, fp bigint);
CREATE TRIGGER d BEFORE INSERT OR UPDATE OF body ON trig_short
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '0', 'reject');
INSERT INTO trig_short(id, body, fp) VALUES (1, '短文本', 42), (2, '短文本', 42);
SELECT id, fp IS NULL AS fp_null FROM trig_short ORDER BY id;
-- An UPDATE to a short text clears the fingerprint.
INSERT INTO trig_short(id, body) SELECT 3, body FROM trig_opt_pair;
UPDATE trig_short SET body = '短文本' WHERE id = 3;
SELECT id, fp IS NULL AS fp_null FROM trig_short WHERE id = 3;
CREATE TABLE trig_short_link(id int PRIMARY KEY, body text, fp bigint, dup_of int);
CREATE TRIGGER d BEFORE INSERT OR UPDATE OF body ON trig_short_link
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'link', 'dup_of');
INSERT INTO trig_short_link(id, body, fp, dup_of) VALUES (1, '短文本', 42, 7), (2, '短文本', 42, 7);
SELECT id, fp IS NULL AS fp_null, dup_of IS NULL AS dup_of_null FROM trig_short_link ORDER BY id;
-- Under definition 0 the same texts have a fingerprint: the second is rejected.
CREATE TABLE trig_short0(id int PRIMARY KEY, body text, fp bigint);
CREATE TRIGGER d BEFORE INSERT OR UPDATE OF body ON trig_short0
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '0', 'reject', '{"definition": "0"}');
INSERT INTO trig_short0(id, body) VALUES (1, '短文本');
SELECT regress_try($$INSERT INTO trig_short0(id, body) VALUES (2, '短文本')$$);

-- Bad options are 22023 when the trigger fires; an options argument anywhere but last,
-- or a last argument that should be options and is not, are errors too.
SELECT how, trig_fire('trig_bad', 'BEFORE INSERT ON tbl FOR EACH ROW EXECUTE FUNCTION ' || how,
                      'INSERT INTO trig_bad(id, body) VALUES (2, ''x'')')
FROM (VALUES
    ($$simhash_update_trigger('fp', 'body', '{"definition": "7"}')$$),
    ($$simhash_update_trigger('fp', 'body', '{not json')$$),
    ($$simhash_update_trigger('fp', 'body', '{"tokeniser": "ngram"}')$$),
    ($$simhash_update_trigger('fp', 'body', 'ngram')$$),
    ($$simhash_update_trigger('fp', '{}', 'body')$$),
    ($$simhash_update_trigger('fp', '{}')$$),
    ($$simhash_update_trigger('fp', 'body', '{}', '{}')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'reject', '{"definition": "7"}')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'reject', '{not json')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'reject', '{"definition": "0", "min_features": 3}')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', '{"definition": "0"}', 'num')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', '{"definition": "0"}')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', 'num', 'ngram')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', '{}')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', 'num', '{}', '{}')$$)
) v(how);

-- simhash_dedup_query takes the same arguments and validates the options; they do not
-- change the query.
SELECT simhash_dedup_query('trig_opt_d0', 'fp', 'body', '3', 'reject', '{"definition": "0"}');
SELECT simhash_dedup_query('trig_opt_link', 'fp', 'body', '3', 'link', 'dup_of', '{"definition": "0"}')
     = simhash_dedup_query('trig_opt_link', 'fp', 'body', '3', 'link', 'dup_of') AS same_query;
SELECT regress_try($$SELECT simhash_dedup_query('trig_opt_d0', 'fp', 'body', '3', 'reject', '{"definition": "7"}')$$);
SELECT regress_try($$SELECT simhash_dedup_query('trig_opt_link', 'fp', 'body', '3', 'link', '{}', 'dup_of')$$);
DROP TABLE trig_opt, trig_opt_pair, trig_opt_d0, trig_opt_d1, trig_opt_link, trig_short, trig_short_link, trig_short0;

-- 12. The _v0 trigger functions (what 0.x's triggers are after ALTER EXTENSION UPDATE)
-- compute definition 0 unless their options name another.
CREATE TABLE trig_v0(id int PRIMARY KEY, body text, fp bigint, fp1 bigint);
CREATE TRIGGER a BEFORE INSERT ON trig_v0 FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger_v0('fp', 'body');
CREATE TRIGGER b BEFORE INSERT ON trig_v0 FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger_v0('fp1', 'body', '{"definition": "1"}');
CREATE TRIGGER c BEFORE INSERT ON trig_v0 FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger_v0('fp', 'body', '3', 'skip');
INSERT INTO trig_v0(id, body) SELECT id, body FROM corpus WHERE id <= 30;
SELECT count(*) AS rows, count(*) FILTER (WHERE fp = simhash_v0(body)) AS fp_v0,
       count(*) FILTER (WHERE fp1 IS NOT DISTINCT FROM simhash(body)) AS fp1_v1
  FROM trig_v0;
DROP TABLE trig_v0;
