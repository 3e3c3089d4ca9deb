-- Dedup on insert by exact text similarity or containment (issue 34):
-- simhash_similarity_dedup_trigger(text_column, min_similarity, action [, link_column]
-- [, options]), through a simhash_ops GIN index: its actions, UPDATE, NULL and empty texts,
-- the option min_containment, its errors, its check query and plan, its locks, its
-- privileges model, and a brute-force check of what it leaves in a table.
-- Roles are cluster-wide: every one is named simhash_regress_sim_* and dropped at the end.
CREATE EXTENSION IF NOT EXISTS simhash;
SET client_min_messages = warning;
DROP ROLE IF EXISTS simhash_regress_sim_owner, simhash_regress_sim_inserter, simhash_regress_sim_reader;
RESET client_min_messages;

-- Five sentences of a speech (s1 .. s5), a traditional-character copy of it, an added
-- sentence and an unrelated paragraph; each variant's similarity to the speech and its
-- containment either way (what the trigger compares). The speech writes its year in Chinese
-- numerals (一九九七): characters, not a figure, so 'the year changed' is a changed word to
-- measure 2 as to measure 1 (rows that differ in their figures: similarity_figures.sql).
\set s1 '中共中央总书记、国家主席江泽民发表新年讲话。'
\set s2 '新年钟声即将敲响，人类社会就要进入新的一年。'
\set s3 '在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！'
\set s4 '一九九七年，中国发生了两件大事：一是香港回归祖国；二是党的十五大胜利召开。'
\set s5 '我们的改革开放和现代化建设取得了新的重大成就，国民经济保持了快速增长的良好势头。'
\set trad '中共中央總書記、國家主席江澤民發表新年講話。新年鐘聲即將敲響，人類社會就要進入新的一年。在這辭舊迎新的美好時刻，我代表中國共產黨和中華人民共和國政府，向全國各族人民致以新年的祝賀！一九九七年，中國發生了兩件大事：一是香港回歸祖國；二是黨的十五大勝利召開。我們的改革開放和現代化建設取得了新的重大成就，國民經濟保持了快速增長的良好勢頭。'
\set added '农业丰收，粮食产量再创历史新高，农民收入稳步增加。'
SELECT :'s1' || :'s2' || :'s3' || :'s4' || :'s5' AS speech \gset
SELECT body AS other FROM corpus WHERE length(body) BETWEEN 200 AND 400 ORDER BY id LIMIT 1 \gset
SELECT body AS other2 FROM corpus WHERE length(body) BETWEEN 200 AND 400 ORDER BY id OFFSET 1 LIMIT 1 \gset
CREATE TEMP TABLE variants(v int, what text, body text);
INSERT INTO variants VALUES
    (2, 'first sentence dropped', :'s2' || :'s3' || :'s4' || :'s5'),
    (3, 'last sentence dropped', :'s1' || :'s2' || :'s3' || :'s4'),
    (4, 'a sentence added', :'s1' || :'s2' || :'added' || :'s3' || :'s4' || :'s5'),
    (5, 'traditional characters', :'trad'),
    (6, 'the year changed', replace(:'speech', '一九九七', '一九九八')),
    (7, 'two sentences of five', :'s2' || :'s4'),
    (8, 'the speech and another paragraph', :'speech' || :'other'),
    (9, 'unrelated paragraph', :'other');
SELECT v, what, round(simhash_similarity(body, :'speech')::numeric, 3) AS similarity,
       round(simhash_containment(body, :'speech')::numeric, 3) AS in_speech,
       round(simhash_containment(:'speech', body)::numeric, 3) AS speech_in_it
FROM variants ORDER BY v;

-- 1. reject at similarity 0.7: reposts with a sentence dropped or added, a traditional copy
-- and the year changed in Chinese numerals are refused as a unique index would refuse them
-- (23505), with the most similar row in DETAIL; an excerpt and a text that holds the speech
-- are not similar enough; NULL and texts without a letter or digit are never duplicates.
CREATE TABLE sim_dd(id int PRIMARY KEY, body text, note text);
CREATE INDEX sim_dd_body ON sim_dd USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sim_dd
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'reject');
INSERT INTO sim_dd(id, body) VALUES (1, :'speech');
SELECT id, what, regress_try(format('INSERT INTO sim_dd(id, body) VALUES (%s, %L)', id, body)) FROM (
    SELECT v AS id, what, body FROM variants UNION ALL VALUES
    (10, 'NULL', NULL),
    (11, 'NULL again', NULL),
    (12, 'punctuation only', '，。！'),
    (13, 'punctuation only again', '，。！'),
    (14, 'the unrelated paragraph again', :'other'),
    (15, 'one character', '中'),
    (16, 'one character again', '中')
) v(id, what, body) ORDER BY id;
SELECT id, left(body, 12) AS body FROM sim_dd ORDER BY id;
-- UPDATE: one that keeps its text is not checked (row 30, a copy of row 1 planted with the
-- trigger off, would match it), but one that changes it is; a row is compared with every
-- row but itself (row 1 to the changed year: its old version would match at 0.961); one
-- that makes a row a repost is refused; one to a new text, or to NULL, goes through.
ALTER TABLE sim_dd DISABLE TRIGGER dedup;
INSERT INTO sim_dd(id, body) VALUES (30, :'trad');
ALTER TABLE sim_dd ENABLE TRIGGER dedup;
SELECT regress_try('UPDATE sim_dd SET body = body WHERE id = 1') AS same_text,
       regress_try($$UPDATE sim_dd SET body = body || '' WHERE id = 1$$) AS same_text_again,
       regress_try($$UPDATE sim_dd SET body = body || '。' WHERE id = 1$$) AS punctuation_added;
DELETE FROM sim_dd WHERE id = 30;
SELECT regress_try(format('UPDATE sim_dd SET body = %L WHERE id = 1', replace(:'speech', '一九九七', '一九九八'))) AS itself,
       regress_try(format('UPDATE sim_dd SET body = %L WHERE id = 9', :'trad')) AS to_repost,
       regress_try(format('UPDATE sim_dd SET body = %L WHERE id = 9', :'other2')) AS to_new_text,
       regress_try('UPDATE sim_dd SET body = NULL WHERE id = 9') AS to_null;
-- A multi-row INSERT sees its own earlier rows.
SELECT regress_try(format('INSERT INTO sim_dd(id, body) VALUES (20, %L), (21, %L)',
                          :'other2' || :'added', :'other2' || :'added' || :'s1')) AS same_statement;

-- 2. skip: the row is not inserted, and simhash_dedup_skipped() counts it.
CREATE TABLE sim_skip(id int PRIMARY KEY, body text);
CREATE INDEX ON sim_skip USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sim_skip
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'skip');
SELECT simhash_dedup_skipped() AS skipped_before \gset
INSERT INTO sim_skip(id, body) SELECT v, body FROM variants WHERE v IN (2, 7, 9);
INSERT INTO sim_skip(id, body) VALUES (1, :'speech'), (5, :'trad'), (10, NULL), (11, NULL), (12, '，。'), (13, '，。');
SELECT id FROM sim_skip ORDER BY id;
SELECT simhash_dedup_skipped() - :skipped_before AS skipped;

-- 3. link: the row goes in with the key of the most similar row, ties broken by the
-- smallest key; NULL and empty texts get NULL whatever they bring.
CREATE TABLE sim_link(id int PRIMARY KEY, body varchar(1000), dup_of int);
CREATE INDEX ON sim_link USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sim_link
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'link', 'dup_of');
INSERT INTO sim_link(id, body, dup_of) VALUES
    (1, :'s1' || :'s2' || :'s3' || :'s4', 99),   -- the last sentence dropped: nothing to link
    (2, :'speech', 99),                          -- 0.750 to row 1
    (3, replace(:'speech', '一九九七', '一九九八'), 99), -- 0.961 to row 2, 0.716 to row 1
    (4, :'speech', 99),                          -- 1 to row 2, 0.961 to row 3
    (5, :'speech', 99),                          -- 1 to rows 2 and 4: the smaller key
    (6, :'other', 99), (7, NULL, 99), (8, '，。', 99);
SELECT id, dup_of, round(simhash_similarity(l.body, (SELECT body FROM sim_link WHERE id = l.dup_of))::numeric, 3) AS similarity
FROM sim_link l ORDER BY id;

-- 4. The option min_containment: also a duplicate is a row whose text holds the new one
-- (an excerpt) or is held in it (a text that adds to an existing one), at 0.9 or more;
-- the most similar row is the match, and DETAIL says which way the containment goes.
CREATE TABLE sim_cont(id int PRIMARY KEY, body text);
CREATE INDEX ON sim_cont USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sim_cont
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.9', 'reject', '{"min_containment": 0.9}');
CREATE TABLE sim_nocont(id int PRIMARY KEY, body text);
CREATE INDEX ON sim_nocont USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sim_nocont
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.9', 'reject');
INSERT INTO sim_cont VALUES (1, :'speech');
INSERT INTO sim_nocont VALUES (1, :'speech');
SELECT v, what, regress_try(format('INSERT INTO sim_cont VALUES (%s, %L)', v, body)) AS with_containment,
       regress_try(format('INSERT INTO sim_nocont VALUES (%s, %L)', v, body)) AS without
FROM variants WHERE v IN (2, 3, 6, 7, 8, 9) ORDER BY v;
-- An excerpt of the speech that no other row holds.
SELECT regress_try(format('INSERT INTO sim_cont VALUES (10, %L)', :'s2' || :'s3')) AS excerpt;
-- Which row is the match: rows 1 (two sentences) and 2 (the unrelated paragraph) are both
-- contained in each new text below. A row that matches by similarity comes first, though
-- its key is larger; among rows that match by containment alone, the most similar.
CREATE TABLE sim_rank(id int PRIMARY KEY, body text);
CREATE INDEX ON sim_rank USING gin (body simhash_ops);
INSERT INTO sim_rank VALUES (1, :'s1' || :'s2'), (2, :'other');
CREATE TRIGGER dedup BEFORE INSERT ON sim_rank
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.8', 'reject', '{"min_containment": 0.9}');
SELECT regress_try(format('INSERT INTO sim_rank VALUES (3, %L)', :'other' || :'s1' || :'s2')) AS by_similarity,
       regress_try(format('INSERT INTO sim_rank VALUES (4, %L)', :'s1' || :'s2' || :'other' || :'added' || :'s5')) AS by_containment;

-- 5. Argument errors, each with its SQLSTATE: 39P01 for how the trigger is declared,
-- 22023 for a bad value, 42703 and 42804 for columns, 55000 for link without a single key.
CREATE TABLE sim_bad(id serial PRIMARY KEY, body text, num int, dup_of int, dup_text text);
CREATE TABLE sim_nopk(body text, dup_of int);
CREATE FUNCTION sim_fire(tbl regclass, args text, timing text DEFAULT 'BEFORE INSERT') RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('CREATE TRIGGER sim_t %s ON %s FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger(%s)',
                   timing, tbl, args);
    r := regress_try(format('INSERT INTO %s(body) VALUES (%L)', tbl, '中国经济发展，改革开放不断深入，人民生活水平持续提高。'));
    EXECUTE format('DROP TRIGGER sim_t ON %s', tbl);
    RETURN r;
END $$;
SELECT tbl, args, sim_fire(tbl, args) FROM (VALUES
    ('sim_bad', $$'body', '0.6'$$),
    ('sim_bad', $$'body', '0.6', 'reject', 'dup_of', '{}', 'x'$$),
    ('sim_bad', $$'body', '0.6', '{}'$$),
    ('sim_bad', $$'body', '0', 'reject'$$),
    ('sim_bad', $$'body', '1.5', 'reject'$$),
    ('sim_bad', $$'body', 'half', 'reject'$$),
    ('sim_bad', $$'body', 'NaN', 'reject'$$),
    ('sim_bad', $$'body', '0.6', 'drop'$$),
    ('sim_bad', $$'body', '0.6', 'link'$$),
    ('sim_bad', $$'body', '0.6', 'skip', 'dup_of'$$),
    ('sim_bad', $$'body', '0.6', 'link', 'dup_of', 'x'$$),
    ('sim_bad', $$'body', '0.6', '{}', 'reject'$$),
    ('sim_bad', $$'body', '0.6', 'reject', '{"min_containment": 0}'$$),
    ('sim_bad', $$'body', '0.6', 'reject', '{"min_containment": 1.5}'$$),
    ('sim_bad', $$'body', '0.6', 'reject', '{"min_containment": "0.8"}'$$),
    ('sim_bad', $$'body', '0.6', 'reject', '{"min_containment": null}'$$),
    ('sim_bad', $$'body', '0.6', 'reject', '{"definition": "2"}'$$),
    ('sim_bad', $$'body', '0.6', 'reject', '{"min_containment": 0.8'$$),
    ('sim_bad', $$'nobody', '0.6', 'reject'$$),
    ('sim_bad', $$'ctid', '0.6', 'reject'$$),
    ('sim_bad', $$'num', '0.6', 'reject'$$),
    ('sim_bad', $$'body', '0.6', 'link', 'nocolumn'$$),
    ('sim_bad', $$'body', '0.6', 'link', 'dup_text'$$),
    ('sim_nopk', $$'body', '0.6', 'link', 'dup_of'$$),
    ('sim_bad', $$'body', '1', 'skip', '{"min_containment": 1}'$$),
    ('sim_bad', $$'body', '0.6', 'link', 'dup_of', '{}'$$)
) v(tbl, args);
SELECT sim_fire('sim_bad', $$'body', '0.6', 'reject'$$, 'AFTER INSERT') AS after_trigger;
INSERT INTO sim_bad(body) VALUES ('abc');
CREATE TRIGGER t BEFORE DELETE ON sim_bad FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.6', 'reject');
SELECT regress_try('DELETE FROM sim_bad') AS delete_trigger;
DROP TRIGGER t ON sim_bad;
SELECT regress_try($$CREATE TRIGGER t BEFORE INSERT ON sim_bad FOR EACH STATEMENT
                     EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.6', 'reject')$$) AS statement_trigger_created,
       regress_try($$INSERT INTO sim_bad(body) VALUES ('abc')$$) AS statement_trigger;
DROP TRIGGER t ON sim_bad;
-- Without a primary key, reject names the row by ctid.
CREATE TRIGGER t BEFORE INSERT ON sim_nopk FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.6', 'reject');
INSERT INTO sim_nopk(body) VALUES (:'speech');
SELECT regress_try(format('INSERT INTO sim_nopk(body) VALUES (%L)', :'trad')) AS by_ctid;

-- 6. simhash_similarity_dedup_query: the check query a trigger with these arguments runs,
-- with how it finds candidates and what it locks in a trailing comment. As a generic plan
-- (the one the trigger keeps) it reads the simhash_ops index: one bitmap index scan per
-- measure, OR-ed. It validates the arguments as the trigger does.
SELECT simhash_similarity_dedup_query('sim_dd', 'body', '0.7', 'reject') AS q \gset
\echo :q
-- The last parameter is the trigger's frame keys (none learned: an empty frame).
PREPARE sim_check(text, float8, int4[]) AS :q;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE sim_check('abc', 0.7, '{}');
EXECUTE sim_check(:'trad', 0.7, '{}');
EXECUTE sim_check(:'s2' || :'s4', 0.3, '{}');
DEALLOCATE sim_check;
SELECT simhash_similarity_dedup_query('sim_link', 'body', '0.7', 'link', 'dup_of', '{"min_containment": 0.8}') AS q \gset
\echo :q
PREPARE sim_check(text, float8, float8, int4[]) AS :q;
EXPLAIN (COSTS OFF) EXECUTE sim_check('abc', 0.7, 0.8, '{}');
EXECUTE sim_check(:'s2' || :'s4', 0.7, 0.8, '{}');
DEALLOCATE sim_check;
RESET plan_cache_mode;
SELECT simhash_similarity_dedup_query('sim_bad', 'body', '0.7', 'reject') AS without_index,
       simhash_similarity_dedup_query('sim_dd', 'body', '0.2', 'reject') ~ '\*/$' AS low_similarity_ends_comment;
SELECT substring(simhash_similarity_dedup_query('sim_dd', 'body', '0.2', 'reject') FROM '/\*.*') AS low_similarity,
       substring(simhash_similarity_dedup_query('sim_dd', 'body', '0.6', 'skip', '{"min_containment": 0.4}') FROM '/\*.*') AS low_containment;
SELECT regress_try($$SELECT simhash_similarity_dedup_query('sim_bad', 'body', '1.5', 'reject')$$) AS bad_bound,
       regress_try($$SELECT simhash_similarity_dedup_query('sim_nopk', 'body', '0.5', 'link', 'dup_of')$$) AS link_without_key,
       regress_try($$SELECT simhash_similarity_dedup_query('sim_bad', 'body', '0.5', 'reject', '{"x": 1}')$$) AS unknown_option;

-- 7. The trigger's check reads the index even when the planner's statistics call the
-- table empty (after VACUUM, a sequential scan is what a plan of its own would choose), and
-- whatever the session's planner settings: the locks cover only what the index can find.
-- Counted within a transaction, as differences (pg_stat_xact_user_tables).
CREATE TABLE sim_small(id int PRIMARY KEY, body text);
CREATE INDEX ON sim_small USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sim_small
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'skip', '{"min_containment": 0.9}');
VACUUM sim_small;
SELECT relpages, reltuples FROM pg_class WHERE oid = 'sim_small'::regclass;
PREPARE own_plan(text, float8, float8) AS SELECT count(*) FROM sim_small t
    WHERE simhash_similarity(t.body, $1) >= $2 OR simhash_containment(t.body, $1) >= $3;
SET plan_cache_mode = force_generic_plan;
EXPLAIN (COSTS OFF) EXECUTE own_plan('abc', 0.7, 0.9);
RESET plan_cache_mode;
DEALLOCATE own_plan;
SET enable_bitmapscan = off;
BEGIN;
SELECT seq_scan AS seq0, idx_scan AS idx0 FROM pg_stat_xact_user_tables WHERE relid = 'sim_small'::regclass \gset
INSERT INTO sim_small VALUES (1, :'speech'), (2, :'trad'), (3, :'other');
SELECT seq_scan - :seq0 AS seq_scans, idx_scan - :idx0 >= 3 AS index_scans, current_setting('enable_bitmapscan') AS bitmapscan,
       current_setting('enable_seqscan') AS seqscan FROM pg_stat_xact_user_tables WHERE relid = 'sim_small'::regclass;
COMMIT;
RESET enable_bitmapscan;
SELECT id FROM sim_small ORDER BY id;

-- 8. Locks (advisory, held to the end of the transaction): with the index, one per index key
-- of the new text (with min_containment, a short text's every shingle's) and the table-wide
-- key in share mode; without an index, or below the
-- thresholds the index answers from keys, the table-wide key alone, exclusively. NULL and
-- empty texts take none.
CREATE TABLE sim_noindex(id int PRIMARY KEY, body text);
CREATE TRIGGER dedup BEFORE INSERT ON sim_noindex
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'reject');
CREATE TABLE sim_low(id int PRIMARY KEY, body text);
CREATE INDEX ON sim_low USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT ON sim_low
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'reject', '{"min_containment": 0.3}');
BEGIN;
INSERT INTO sim_dd VALUES (1000, :'other2' || :'s1');
SELECT cardinality(simhash_keys(:'other2' || :'s1')) AS index_keys, count(*) AS locks,
       count(*) FILTER (WHERE mode = 'ShareLock') AS share
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objsubid = 21320;
ROLLBACK;
BEGIN;
INSERT INTO sim_noindex VALUES (1, :'other2');
SELECT count(*) AS locks, string_agg(mode, ',') AS modes
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objsubid = 21320;
ROLLBACK;
BEGIN;
INSERT INTO sim_low VALUES (1, :'other2');
SELECT count(*) AS locks, string_agg(mode, ',') AS modes
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objsubid = 21320;
ROLLBACK;
-- A short text (under 48 shingles) with min_containment: one lock per shingle's key (what
-- its containment lookup asks for; a short text's index keys are all of them) and the
-- table-wide key in share mode, so short inserts run side by side (5.x took the table-wide
-- key alone, exclusively: issue 47).
BEGIN;
INSERT INTO sim_cont VALUES (1000, '国家主席江泽民发表新年讲话');
SELECT cardinality(simhash_keys('国家主席江泽民发表新年讲话')) AS index_keys, count(*) AS locks,
       count(*) FILTER (WHERE mode = 'ShareLock') AS share
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND objsubid = 21320;
ROLLBACK;
BEGIN;
INSERT INTO sim_dd VALUES (1001, NULL), (1002, '，。');
SELECT count(*) AS locks FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
ROLLBACK;
-- Without an index the check scans: the same answers, exactly.
INSERT INTO sim_noindex VALUES (1, :'speech');
SELECT regress_try(format('INSERT INTO sim_noindex VALUES (2, %L)', :'trad')) AS scan_reject,
       regress_try(format('INSERT INTO sim_noindex VALUES (3, %L)', :'other')) AS scan_new;

-- 9. Privileges, as simhash_dedup_trigger's: the check runs as the table owner, so a role
-- with only INSERT can use every action; DETAIL names the key only to a role that may
-- SELECT it. A hostile search_path changes nothing: the query is schema-qualified.
CREATE ROLE simhash_regress_sim_owner;
CREATE ROLE simhash_regress_sim_inserter;
CREATE ROLE simhash_regress_sim_reader;
CREATE TABLE sim_priv_reject(id int PRIMARY KEY, body text);
CREATE TABLE sim_priv_skip(id int PRIMARY KEY, body text);
CREATE TABLE sim_priv_link(id int PRIMARY KEY, body text, dup_of int);
CREATE INDEX ON sim_priv_reject USING gin (body simhash_ops);
CREATE INDEX ON sim_priv_skip USING gin (body simhash_ops);
CREATE INDEX ON sim_priv_link USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT ON sim_priv_reject
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'reject');
CREATE TRIGGER dedup BEFORE INSERT ON sim_priv_skip
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'skip');
CREATE TRIGGER dedup BEFORE INSERT ON sim_priv_link
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.7', 'link', 'dup_of');
INSERT INTO sim_priv_reject(id, body) VALUES (1, :'speech');
INSERT INTO sim_priv_skip(id, body) VALUES (1, :'speech');
INSERT INTO sim_priv_link(id, body) VALUES (1, :'speech');
ALTER TABLE sim_priv_reject OWNER TO simhash_regress_sim_owner;
ALTER TABLE sim_priv_skip OWNER TO simhash_regress_sim_owner;
ALTER TABLE sim_priv_link OWNER TO simhash_regress_sim_owner;
GRANT INSERT ON sim_priv_reject, sim_priv_skip, sim_priv_link TO simhash_regress_sim_inserter;
GRANT SELECT, INSERT ON sim_priv_reject TO simhash_regress_sim_reader;
CREATE SCHEMA sim_evil;
CREATE FUNCTION sim_evil.simhash_similarity_at_least(text, text, float8) RETURNS boolean LANGUAGE sql AS 'SELECT false';
CREATE FUNCTION sim_evil.simhash_similarity(text, text) RETURNS float8 LANGUAGE sql AS 'SELECT 0::float8';
GRANT USAGE ON SCHEMA sim_evil TO simhash_regress_sim_inserter;
SET ROLE simhash_regress_sim_inserter;
SET search_path = sim_evil, public;
SELECT regress_try(format('INSERT INTO sim_priv_reject(id, body) VALUES (2, %L)', :'trad')) AS reject,
       regress_try(format('INSERT INTO sim_priv_reject(id, body) VALUES (3, %L)', :'other')) AS reject_new,
       regress_try(format('INSERT INTO sim_priv_skip(id, body) VALUES (2, %L)', :'trad')) AS skip,
       regress_try(format('INSERT INTO sim_priv_link(id, body) VALUES (2, %L)', :'trad')) AS link;
RESET search_path;
RESET ROLE;
SET ROLE simhash_regress_sim_reader;
SELECT regress_try(format('INSERT INTO sim_priv_reject(id, body) VALUES (4, %L)', :'trad')) AS reader_reject;
RESET ROLE;
SELECT 'reject' AS t, id, NULL::int AS dup_of FROM sim_priv_reject UNION ALL
SELECT 'skip', id, NULL FROM sim_priv_skip UNION ALL
SELECT 'link', id, dup_of FROM sim_priv_link ORDER BY 1, 2;
DROP TABLE sim_priv_reject, sim_priv_skip, sim_priv_link;
DROP SCHEMA sim_evil CASCADE;
DROP ROLE simhash_regress_sim_owner, simhash_regress_sim_inserter, simhash_regress_sim_reader;

-- 10. Brute force: 150 corpus paragraphs and reposts of half of them (a copy, the first
-- sentence dropped, a character changed, the first half as an excerpt, the paragraph and
-- the next one's first sentence), in an order that mixes them, through the skip trigger at
-- similarity 0.6 and containment 0.8: no two rows left reach either threshold and are the
-- same passage by the dedup decision, compared with simhash_similarity, simhash_containment
-- and simhash_same_passage over all pairs (as float8: no index), and every skipped text is
-- such a pair with a row left. Every variant here is a repost the decision links, so no
-- two rows left reach a threshold by the measures alone either.
CREATE TABLE sim_bf(id int PRIMARY KEY, body text);
CREATE INDEX ON sim_bf USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT ON sim_bf
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.6', 'skip', '{"min_containment": 0.8}');
CREATE TEMP TABLE bf_para AS
SELECT row_number() OVER (ORDER BY id)::int AS p, id, body FROM corpus
WHERE length(body) BETWEEN 100 AND 300 AND id % 13 = 0 ORDER BY id LIMIT 150;
CREATE TEMP TABLE bf_items AS
SELECT p * 10 AS item, body FROM bf_para
UNION ALL SELECT p * 10 + 1, body FROM bf_para WHERE p % 2 = 0
UNION ALL SELECT p * 10 + 2, substring(body FROM position('。' IN body) + 1) FROM bf_para
    WHERE p % 2 = 0 AND position('。' IN body) BETWEEN 1 AND length(body) - 20
UNION ALL SELECT p * 10 + 3, overlay(body placing '某' from length(body) / 2 for 1) FROM bf_para WHERE p % 4 = 0
UNION ALL SELECT p * 10 + 4, left(body, length(body) / 2) FROM bf_para WHERE p % 4 = 2
UNION ALL SELECT b.p * 10 + 5, b.body || substring(c.body FROM '^[^。]*。') FROM bf_para b JOIN corpus c ON c.id = b.id + 1
    WHERE b.p % 6 = 0;
SELECT count(*) AS items, count(*) FILTER (WHERE item % 10 > 0) AS reposts FROM bf_items;
SELECT simhash_dedup_skipped() AS skipped_before \gset
INSERT INTO sim_bf SELECT item, body FROM bf_items ORDER BY md5(item::text);
SELECT count(*) AS rows_left, simhash_dedup_skipped() - :skipped_before AS skipped FROM sim_bf;
-- close(a, b): a and b reach either threshold by the measures, and with `decide` are the same
-- passage by the decision.
CREATE FUNCTION pg_temp.bf_close_to(doc text, ids int[], decide boolean DEFAULT true) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE n bigint;
BEGIN
    -- `doc` is a parameter: its shingle set is computed once per call.
    EXECUTE 'SELECT count(*) FROM sim_bf b WHERE b.id = ANY ($2) AND (simhash_similarity(b.body, $1)::float8 >= 0.6
             OR simhash_containment(b.body, $1)::float8 >= 0.8 OR simhash_containment($1, b.body)::float8 >= 0.8)
             AND (NOT $3 OR simhash_same_passage(b.body, $1))'
        INTO n USING doc, ids, decide;
    RETURN n;
END $$;
SELECT sum(pg_temp.bf_close_to(a.body, ARRAY(SELECT b.id FROM sim_bf b WHERE b.id > a.id))) AS close_pairs_left,
       sum(pg_temp.bf_close_to(a.body, ARRAY(SELECT b.id FROM sim_bf b WHERE b.id > a.id), false)) AS by_the_measures_alone
FROM sim_bf a;
SELECT count(*) AS skipped_items, count(*) FILTER (WHERE pg_temp.bf_close_to(i.body, ARRAY(SELECT id FROM sim_bf)) = 0) AS skipped_without_match
FROM bf_items i WHERE NOT EXISTS (SELECT FROM sim_bf b WHERE b.id = i.item);
DROP TABLE sim_dd, sim_skip, sim_link, sim_cont, sim_nocont, sim_rank, sim_bad, sim_nopk, sim_small, sim_noindex, sim_low, sim_bf;
DROP FUNCTION sim_fire(regclass, text, text);
