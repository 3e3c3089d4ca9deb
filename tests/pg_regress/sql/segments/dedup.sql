-- Dedup on insert by resemblance of segment fingerprints (issue 19, item 4;
-- docs/segments.md): simhash_segments_dedup_trigger(segments_column, text_column,
-- min_resemblance, action [, link_column] [, options]), its frequent-passage rule
-- (simhash.segment_max_rows), its errors and its privileges model.
-- Roles are cluster-wide: every one is named simhash_regress_seg_* and dropped at the end.
CREATE EXTENSION IF NOT EXISTS simhash;
SET client_min_messages = warning;
DROP ROLE IF EXISTS simhash_regress_seg_owner, simhash_regress_seg_inserter, simhash_regress_seg_reader;
RESET client_min_messages;

-- Five sentences of a speech (s1 .. s5), a traditional-character copy of it, an added
-- sentence and an unrelated paragraph.
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
SELECT cardinality(simhash_segments(:'speech')) AS speech_segments,
       simhash_segments(:'trad') = simhash_segments(:'speech') AS trad_same_segments,
       round(simhash_resemblance(simhash_segments(:'speech'),
             simhash_segments(:'s1' || :'s2' || :'s3' || :'s4'))::numeric, 3) AS dropped_last,
       round(simhash_resemblance(simhash_segments(:'speech'),
             simhash_segments(:'speech' || :'added'))::numeric, 3) AS one_added;

-- 1. reject: reposts with a sentence dropped or added and a traditional copy are refused
-- as a unique index would refuse them (23505); new texts, NULL and short texts go in.
CREATE TABLE sd_docs(id int PRIMARY KEY, body text, segs bigint[]);
CREATE INDEX sd_docs_segs ON sd_docs USING gin (segs);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sd_docs
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject');
INSERT INTO sd_docs(id, body) VALUES (1, :'speech');
SELECT id, what, regress_try(format('INSERT INTO sd_docs(id, body) VALUES (%s, %L)', id, body)) FROM (VALUES
    (2, 'first sentence dropped', :'s2' || :'s3' || :'s4' || :'s5'),
    (3, 'last sentence dropped', :'s1' || :'s2' || :'s3' || :'s4'),
    (4, 'a sentence added', :'s1' || :'s2' || :'added' || :'s3' || :'s4' || :'s5'),
    (5, 'traditional characters', :'trad'),
    (6, 'two sentences of five', :'s2' || :'s4'),
    (7, 'unrelated paragraph', :'other'),
    (8, 'NULL', NULL),
    (9, 'NULL again', NULL),
    (10, 'short', '中国经济发展。'),
    (11, 'short again', '中国经济发展。'),
    (12, 'another repost of the unrelated paragraph', :'other' || :'added')
) v(id, what, body) ORDER BY id;
SELECT id, cardinality(segs) AS segments, segs = simhash_segments(body) AS exact FROM sd_docs ORDER BY id;
-- An UPDATE that keeps its text is not checked against itself; one that makes a row a
-- repost is refused; one to a new text goes through and recomputes the segments.
SELECT regress_try('UPDATE sd_docs SET body = body WHERE id = 1') AS same_text,
       regress_try(format('UPDATE sd_docs SET body = %L WHERE id = 7', :'speech' || :'added')) AS to_repost,
       regress_try(format('UPDATE sd_docs SET body = %L WHERE id = 10', :'s2' || :'s4')) AS to_excerpt;
SELECT id, segs = simhash_segments(body) AS exact FROM sd_docs WHERE id IN (7, 10) ORDER BY id;
-- A multi-row INSERT sees its own earlier rows.
SELECT regress_try(format('INSERT INTO sd_docs(id, body) VALUES (20, %L), (21, %L)',
                          :'other2', :'other2' || :'added')) AS same_statement;

-- 2. skip: the row is not inserted, and simhash_dedup_skipped() counts it.
CREATE TABLE sd_skip(id int PRIMARY KEY, body text, segs bigint[]);
CREATE INDEX ON sd_skip USING gin (segs);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sd_skip
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'skip');
SELECT simhash_dedup_skipped() AS skipped_before \gset
INSERT INTO sd_skip(id, body) VALUES (1, :'speech'), (2, :'trad'), (3, :'s1' || :'s2' || :'s3' || :'s4'),
    (4, :'other'), (5, NULL), (6, NULL);
SELECT id FROM sd_skip ORDER BY id;
SELECT simhash_dedup_skipped() - :skipped_before AS skipped;

-- 3. link: the row goes in with the key of the most resembling row; a threshold of 0.9
-- links the copy but not the repost with a sentence dropped.
CREATE TABLE sd_link(id int PRIMARY KEY, body text, segs bigint[], dup_of int);
CREATE INDEX ON sd_link USING gin (segs);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sd_link
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.9', 'link', 'dup_of');
INSERT INTO sd_link(id, body) VALUES (1, :'speech'), (2, :'other');
INSERT INTO sd_link(id, body, dup_of) VALUES (3, :'trad', 99), (4, :'s1' || :'s2' || :'s3' || :'s4', 99),
    (5, :'other', NULL), (6, NULL, 99), (7, '中国经济发展。', 99);
SELECT id, dup_of FROM sd_link ORDER BY id;

-- 4. The frequent-passage rule: a segment that more than simhash.segment_max_rows existing
-- rows have finds no candidates. Three rows share a disclaimer; a new text made of the
-- disclaimer and a new sentence resembles each at 0.5, through the disclaimer alone.
\set disclaimer '本报记者整理，文章仅代表作者本人观点，转载请注明出处和作者姓名。'
CREATE TABLE sd_freq(id int PRIMARY KEY, body text, segs bigint[]);
CREATE INDEX ON sd_freq USING gin (segs);
INSERT INTO sd_freq(id, body, segs) SELECT id, body, simhash_segments(body) FROM (VALUES
    (1, :'s1' || :'disclaimer'), (2, :'s3' || :'disclaimer'), (3, :'s5' || :'disclaimer')) v(id, body);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON sd_freq
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject');
SELECT id, cardinality(segs) AS segments FROM sd_freq ORDER BY id;
SHOW simhash.segment_max_rows;
SET simhash.segment_max_rows = 2;
SELECT regress_try(format('INSERT INTO sd_freq(id, body) VALUES (4, %L)', :'added' || :'disclaimer')) AS frequent;
-- A text that also shares a rare segment is still found, and resemblance counts the
-- frequent segment too: a copy of row 1 has resemblance 1, not 0.5.
SELECT regress_try(format('INSERT INTO sd_freq(id, body) VALUES (5, %L)', :'s1' || :'disclaimer')) AS rare_too;
-- With a higher bound the disclaimer is rare again (4 rows have it now).
SET simhash.segment_max_rows = 5;
SELECT regress_try(format('INSERT INTO sd_freq(id, body) VALUES (6, %L)', :'s4' || :'disclaimer')) AS not_frequent;
RESET simhash.segment_max_rows;
SELECT regress_try('SET simhash.segment_max_rows = 0') AS zero,
       regress_try('SET simhash.segment_max_rows = 1000001') AS too_many;

-- 5. Argument errors, each with its SQLSTATE: 39P01 for how the trigger is declared,
-- 22023 for a bad value, 42703 and 42804 for columns, 55000 for link without a single key.
CREATE TABLE sd_bad(id serial PRIMARY KEY, body text, segs bigint[], fp bigint, num int, dup_of int);
CREATE TABLE sd_nopk(body text, segs bigint[], dup_of int);
CREATE FUNCTION sd_fire(tbl regclass, args text, timing text DEFAULT 'BEFORE INSERT') RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('CREATE TRIGGER sd_t %s ON %s FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger(%s)',
                   timing, tbl, args);
    r := regress_try(format('INSERT INTO %s(body) VALUES (%L)', tbl, '中国经济发展，改革开放不断深入，人民生活水平持续提高。'));
    EXECUTE format('DROP TRIGGER sd_t ON %s', tbl);
    RETURN r;
END $$;
SELECT tbl, args, sd_fire(tbl, args) FROM (VALUES
    ('sd_bad', $$'segs', 'body', '0.5'$$),
    ('sd_bad', $$'segs', 'body', '0', 'reject'$$),
    ('sd_bad', $$'segs', 'body', '1.5', 'reject'$$),
    ('sd_bad', $$'segs', 'body', 'half', 'reject'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'drop'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'link'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'skip', 'dup_of'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'reject', 'x'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'reject', '{"definition": "9"}'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'reject', '{"tokenizer": "ngram"}'$$),
    ('sd_bad', $$'nosegs', 'body', '0.5', 'reject'$$),
    ('sd_bad', $$'segs', 'nobody', '0.5', 'reject'$$),
    ('sd_bad', $$'fp', 'body', '0.5', 'reject'$$),
    ('sd_bad', $$'segs', 'num', '0.5', 'reject'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'link', 'body'$$),
    ('sd_nopk', $$'segs', 'body', '0.5', 'link', 'dup_of'$$),
    ('sd_bad', $$'segs', 'body', '1', 'reject', '{"definition": "1"}'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'reject', '{"max_distance": 8}'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'reject', '{"max_distance": 65}'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'reject', '{"max_distance": "8"}'$$),
    ('sd_bad', $$'segs', 'body', '0.5', 'reject', '{"max_distance": 8, "definition": "9"}'$$)
) v(tbl, args);
SELECT sd_fire('sd_bad', $$'segs', 'body', '0.5', 'reject'$$, 'AFTER INSERT') AS after_trigger;
-- Without a primary key, reject names the row by ctid.
CREATE TRIGGER t BEFORE INSERT ON sd_nopk FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject');
INSERT INTO sd_nopk(body) VALUES (:'speech');
SELECT regress_try(format('INSERT INTO sd_nopk(body) VALUES (%L)', :'trad'));

-- simhash_segments_dedup_query: the check query a trigger with these arguments runs, and its
-- index pre-check; the query reads the GIN index (here with sequential scans off: the table is
-- tiny). It validates the arguments as the trigger does. The plan prints every parameter as ?:
-- PostgreSQL 15 numbers an InitPlan's output as a parameter ("InitPlan 2 (returns $1)", then
-- $1), 17 names it "(InitPlan 2).col1"; the plan is the same.
CREATE FUNCTION sd_plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $f$
DECLARE
    line text;
BEGIN
    FOR line IN EXECUTE 'EXPLAIN (COSTS OFF) ' || q LOOP
        RETURN NEXT regexp_replace(regexp_replace(line, ' \(returns [$0-9,]+\)$', ''),
                                   '\(InitPlan \d+\)\.col\d+|\$\d+', '?', 'g');
    END LOOP;
END $f$;
SELECT simhash_segments_dedup_query('sd_docs', 'segs', 'body', '0.5', 'reject') AS q \gset
\echo :q
PREPARE sd_check(bigint[], int, float8) AS :q;
SET plan_cache_mode = force_generic_plan;
SET enable_seqscan = off;
SELECT sd_plan($$EXECUTE sd_check('{1,2,3}', 1000, 0.5)$$) AS "QUERY PLAN";
RESET enable_seqscan;
RESET plan_cache_mode;
EXECUTE sd_check(simhash_segments(:'speech'), 1000, 0.5);
DEALLOCATE sd_check;
SELECT simhash_segments_dedup_query('sd_bad', 'segs', 'body', '0.5', 'reject') ~ 'no index pre-check' AS without_index;
SELECT regress_try($$SELECT simhash_segments_dedup_query('sd_bad', 'segs', 'body', '1.5', 'reject')$$) AS bad_bound,
       regress_try($$SELECT simhash_segments_dedup_query('sd_nopk', 'segs', 'body', '0.5', 'link', 'dup_of')$$) AS link_without_key;

-- 6. Privileges, as simhash_dedup_trigger's: the check runs as the table owner, so a role
-- with only INSERT can use every action; DETAIL names the key only to a role that may
-- SELECT it.
CREATE ROLE simhash_regress_seg_owner;
CREATE ROLE simhash_regress_seg_inserter;
CREATE ROLE simhash_regress_seg_reader;
CREATE TABLE sd_priv_reject(id int PRIMARY KEY, body text, segs bigint[]);
CREATE TABLE sd_priv_skip(id int PRIMARY KEY, body text, segs bigint[]);
CREATE TABLE sd_priv_link(id int PRIMARY KEY, body text, segs bigint[], dup_of int);
CREATE TRIGGER dedup BEFORE INSERT ON sd_priv_reject
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject');
CREATE TRIGGER dedup BEFORE INSERT ON sd_priv_skip
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'skip');
CREATE TRIGGER dedup BEFORE INSERT ON sd_priv_link
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'link', 'dup_of');
INSERT INTO sd_priv_reject(id, body) VALUES (1, :'speech');
INSERT INTO sd_priv_skip(id, body) VALUES (1, :'speech');
INSERT INTO sd_priv_link(id, body) VALUES (1, :'speech');
ALTER TABLE sd_priv_reject OWNER TO simhash_regress_seg_owner;
ALTER TABLE sd_priv_skip OWNER TO simhash_regress_seg_owner;
ALTER TABLE sd_priv_link OWNER TO simhash_regress_seg_owner;
GRANT INSERT ON sd_priv_reject, sd_priv_skip, sd_priv_link TO simhash_regress_seg_inserter;
GRANT SELECT, INSERT ON sd_priv_reject TO simhash_regress_seg_reader;
SET ROLE simhash_regress_seg_inserter;
SELECT regress_try(format('INSERT INTO sd_priv_reject(id, body) VALUES (2, %L)', :'trad')) AS reject,
       regress_try(format('INSERT INTO sd_priv_reject(id, body) VALUES (3, %L)', :'other')) AS reject_new,
       regress_try(format('INSERT INTO sd_priv_skip(id, body) VALUES (2, %L)', :'trad')) AS skip,
       regress_try(format('INSERT INTO sd_priv_link(id, body) VALUES (2, %L)', :'trad')) AS link;
RESET ROLE;
SET ROLE simhash_regress_seg_reader;
SELECT regress_try(format('INSERT INTO sd_priv_reject(id, body) VALUES (4, %L)', :'trad')) AS reader_reject;
RESET ROLE;
SELECT 'reject' AS t, id, NULL::int AS dup_of FROM sd_priv_reject UNION ALL
SELECT 'skip', id, NULL FROM sd_priv_skip UNION ALL
SELECT 'link', id, dup_of FROM sd_priv_link ORDER BY 1, 2;

DROP TABLE sd_priv_reject, sd_priv_skip, sd_priv_link;

-- 7. Segments matched within k bits (option "max_distance", 2.1.0), as
-- simhash_resemblance(a, b, k), for definition 2's segments (the _v2 functions; definition 3's
-- are shingle hashes, refused within k bits: definition3.sql): a copy with a word changed in three of five sentences
-- resembles the speech at 0.4 exactly and 0.5 within 3 bits (two near matches each way count
-- ½); only the trigger with the option refuses it. Its check query compares within k; every
-- segment is locked.
SELECT replace(replace(replace(:'speech', '钟声', '钟鸣'), '美好', '美妙'), '重大', '巨大') AS typo \gset
SELECT simhash_resemblance(simhash_segments_v2(:'speech'), simhash_segments_v2(:'typo')) AS exact,
       simhash_resemblance(simhash_segments_v2(:'speech'), simhash_segments_v2(:'typo'), 3) AS within_3;
CREATE TABLE sd_exact(id int PRIMARY KEY, body text, segs bigint[]);
CREATE TABLE sd_near(id int PRIMARY KEY, body text, segs bigint[]);
CREATE TRIGGER dedup BEFORE INSERT ON sd_exact
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger_v2('segs', 'body', '0.5', 'reject');
CREATE TRIGGER dedup BEFORE INSERT ON sd_near
    FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger_v2('segs', 'body', '0.5', 'reject', '{"max_distance": 3}');
INSERT INTO sd_exact VALUES (1, :'speech');
INSERT INTO sd_near VALUES (1, :'speech');
SELECT regress_try(format('INSERT INTO sd_exact(id, body) VALUES (2, %L)', :'typo')) AS exact,
       regress_try(format('INSERT INTO sd_near(id, body) VALUES (2, %L)', :'typo')) AS within_3,
       regress_try(format('INSERT INTO sd_near(id, body) VALUES (3, %L)', :'other')) AS unrelated;
SELECT simhash_segments_dedup_query_v2('sd_near', 'segs', 'body', '0.5', 'reject', '{"max_distance": 3}') AS q \gset
SELECT :'q' ~ 'simhash_resemblance\(\$1, c\.seg, 3\)' AS within_in_query,
       simhash_segments_dedup_query_v2('sd_near', 'segs', 'body', '0.5', 'reject') !~ 'c\.seg, ' AS exact_without;
PREPARE sd_near_check(bigint[], int, float8) AS :q;
EXECUTE sd_near_check(simhash_segments_v2(:'typo'), 1000, 0.5);
DEALLOCATE sd_near_check;
-- Locks (advisory, held to the end of the transaction, one of them the table-wide key in
-- share mode): exactly, a prefix of the row's segments; within k, all of them.
BEGIN;
INSERT INTO sd_exact VALUES (4, :'other2');
SELECT cardinality(simhash_segments_v2(:'other2')) AS segments, count(*) AS exact_locks
FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
ROLLBACK;
BEGIN;
INSERT INTO sd_near VALUES (4, :'other2');
SELECT count(*) AS within_k_locks FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid();
ROLLBACK;
DROP TABLE sd_exact, sd_near;
DROP ROLE simhash_regress_seg_owner, simhash_regress_seg_inserter, simhash_regress_seg_reader;
