-- Decision 3 (7.0.0; docs/decision.md): the fitted model, texts read past list markers and
-- Chinese numerals, templates seen in a table's candidates, operating points, and 6.0's
-- decision kept under the names ending in _d2.
CREATE EXTENSION IF NOT EXISTS simhash;
SET client_min_messages = warning;

-- 1. Figures as readers read them: Chinese numerals are the digits they write, list markers
--    at the start of a text or a clause are no figures. 6.0's decision read neither.
SELECT a, b, simhash_same_passage(a, b) AS same, simhash_same_passage_d2(a, b) AS same_d2
FROM (VALUES ('１９９９年１２月，第二十三次会议在北京召开，代表们审议了工作报告。', '一九九九年十二月，第２３次会议在北京召开，代表们审议了工作报告。'),
             ('按照规定，各地要在本月底前完成清理工作，并及时上报结果。', '１．按照规定，各地要在本月底前完成清理工作，并及时上报结果。'),
             ('自带XP家庭版系统，开机即用，配送原装鼠标和键盘。', '4、自带XP家庭版系统，开机即用，配送原装鼠标和键盘。'),
             ('（四）加强对重点行业的监督管理，防止国有资产流失。', '加强对重点行业的监督管理，防止国有资产流失。'),
             -- Other figures are still other content.
             ('１９９９年十二月，第二十三次会议在北京召开。', '１９９８年十二月，第二十三次会议在北京召开。')) v(a, b);

-- 2. Strictness: the same pair at each operating point; an unknown one is ERROR 22023.
SELECT d, simhash_same_passage('Thank you for shopping with us. Your order has shipped and will arrive in 3 days.',
                               'Thank you for shopping with us! Your order has been shipped and will arrive in 3 days.', d) AS same
FROM (VALUES ('loose'), ('balanced'), ('strict')) v(d);
SELECT regress_try($$SELECT simhash_same_passage('a b c', 'a b c', 'tight')$$);

-- 3. simhash_explain prices each difference by the model and says what is allowed;
--    simhash_explain_d2 is 6.0's.
SELECT kind, item FROM simhash_explain('小米手环7 NFC版 黑色', '小米手环7 NFC版 白色') WHERE kind IN ('difference', 'decision');
SELECT kind, item FROM simhash_explain_d2('小米手环7 NFC版 黑色', '小米手环7 NFC版 白色') WHERE kind IN ('difference', 'decision');

-- 4. A table of one template (issue 53): every row names another function in one frame.
--    The trigger links no new row of the frame to another, README's bulk recipe deletes
--    none, and a repost of a row (other punctuation) is still caught.
CREATE TABLE tpl(id bigint PRIMARY KEY, body text NOT NULL, dup_of bigint);
CREATE INDEX tpl_body ON tpl USING gin (body simhash_ops);
-- A name of 10 to 20 letters a row (from md5: distinct), some with an underscore.
CREATE FUNCTION tpl_name(i int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT translate(left(md5(i::text) || md5((i + 7)::text), 10 + i % 11), '0123456789', 'ghijklmnop')
           || CASE WHEN i % 3 = 0 THEN '_r' ELSE '' END $$;
CREATE FUNCTION tpl_body(i int) RETURNS text LANGUAGE sql IMMUTABLE AS $$
    SELECT format('For an explanation of the terms used in this section, see attributes(7). Interface Attribute Value %s() Thread safety MT-Safe', tpl_name(i)) $$;
SELECT count(DISTINCT tpl_name(i)) AS distinct_names FROM generate_series(1, 400) i;
INSERT INTO tpl(id, body) SELECT i, tpl_body(i) FROM generate_series(1, 400) i;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON tpl FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}');
-- 50 new rows of the frame, then a repost of each of 20 old rows.
INSERT INTO tpl(id, body) SELECT i, tpl_body(i) FROM generate_series(401, 450) i;
INSERT INTO tpl(id, body) SELECT 1000 + i, replace(tpl_body(i), 'MT-Safe', 'MT-Safe.') FROM generate_series(1, 400, 20) i;
SELECT count(*) FILTER (WHERE id BETWEEN 401 AND 450 AND dup_of IS NOT NULL) AS new_rows_linked,
       count(*) FILTER (WHERE id > 1000 AND dup_of = id - 1000) AS reposts_linked_to_their_row,
       count(*) FILTER (WHERE id > 1000) AS reposts
FROM tpl;
-- The bulk recipe over the 400 rows and the reposts: every removed row is a repost.
SELECT count(*) FILTER (WHERE id <> cluster_id) AS removed,
       count(*) FILTER (WHERE id <> cluster_id AND id <= 1000) AS removed_rows_of_the_frame
FROM simhash_similarity_clusters('SELECT id, body FROM tpl WHERE id <= 400 OR id > 1000', 0.5);
-- 6.0's decision (its trigger, _d2) linked rows of the frame to each other.
CREATE TABLE tpl_d2(id bigint PRIMARY KEY, body text NOT NULL, dup_of bigint);
CREATE INDEX tpl_d2_body ON tpl_d2 USING gin (body simhash_ops);
INSERT INTO tpl_d2(id, body) SELECT i, tpl_body(i) FROM generate_series(1, 400) i;
CREATE TRIGGER dedup BEFORE INSERT ON tpl_d2 FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger_d2('body', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}');
INSERT INTO tpl_d2(id, body) SELECT i, tpl_body(i) FROM generate_series(401, 450) i;
SELECT count(*) FILTER (WHERE dup_of IS NOT NULL) > 0 AS d2_linked_rows_of_the_frame FROM tpl_d2 WHERE id > 400;

-- 5. The triggers' option "decision": none (the measure alone) links a row of the frame;
--    an unknown setting, or the option on a _d2 trigger, is ERROR 22023.
CREATE TABLE tpl_none(id bigint PRIMARY KEY, body text NOT NULL, dup_of bigint);
CREATE INDEX tpl_none_body ON tpl_none USING gin (body simhash_ops);
INSERT INTO tpl_none(id, body) SELECT i, tpl_body(i) FROM generate_series(1, 50) i;
CREATE TRIGGER dedup BEFORE INSERT ON tpl_none FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of', '{"decision": "none"}');
INSERT INTO tpl_none(id, body) VALUES (51, tpl_body(51));
SELECT dup_of IS NOT NULL AS measure_alone_links FROM tpl_none WHERE id = 51;
SELECT regress_try($$SELECT simhash_similarity_dedup_query('tpl_none', 'body', '0.5', 'reject', '{"decision": "tight"}')$$);
SELECT regress_try($$SELECT simhash_similarity_dedup_query_d2('tpl_none', 'body', '0.5', 'reject', '{"decision": "strict"}')$$);
SELECT regress_try($$SELECT simhash_dedup_query('tpl_none', 'fp', 'body', '3', 'reject', '{"decision": 1}')$$);

-- 6. The bulk functions decide by simhash.decision: none gives every pair at the threshold,
--    d2 6.0's pairs, as simhash_similarity_pairs_d2 does.
CREATE TEMP TABLE bulk_docs AS SELECT id::bigint, body FROM corpus WHERE id % 50 = 0
UNION ALL SELECT 100000 + id, '（新华社北京１月１日电）' || body FROM corpus WHERE id % 500 = 0
UNION ALL SELECT 200000 + i, tpl_body(i) FROM generate_series(1, 30) i;
CREATE TEMP TABLE by_setting(setting text, pairs bigint);
SET simhash.decision = 'loose';
INSERT INTO by_setting SELECT current_setting('simhash.decision'), count(*) FROM simhash_similarity_pairs('SELECT id, body FROM bulk_docs', 0.5);
SET simhash.decision = 'strict';
INSERT INTO by_setting SELECT current_setting('simhash.decision'), count(*) FROM simhash_similarity_pairs('SELECT id, body FROM bulk_docs', 0.5);
SET simhash.decision = 'none';
INSERT INTO by_setting SELECT current_setting('simhash.decision'), count(*) FROM simhash_similarity_pairs('SELECT id, body FROM bulk_docs', 0.5);
SET simhash.decision = 'd2';
INSERT INTO by_setting SELECT current_setting('simhash.decision'), count(*) FROM simhash_similarity_pairs('SELECT id, body FROM bulk_docs', 0.5);
RESET simhash.decision;
INSERT INTO by_setting SELECT current_setting('simhash.decision'), count(*) FROM simhash_similarity_pairs('SELECT id, body FROM bulk_docs', 0.5);
SELECT setting, pairs,
       pairs = (SELECT count(*) FROM bulk_docs a JOIN bulk_docs b ON a.id < b.id AND simhash_similarity(a.body, b.body) >= 0.5)
           AS every_pair_at_the_threshold
FROM by_setting ORDER BY pairs;
SELECT (SELECT count(*) FROM simhash_similarity_pairs_d2('SELECT id, body FROM bulk_docs', 0.5)) AS pairs_d2,
       (SELECT count(*) FROM simhash_similarity_pairs('SELECT id, body FROM bulk_docs', 0.5)) AS pairs_d3,
       (SELECT count(*) FROM bulk_docs a JOIN bulk_docs b ON a.id < b.id
         WHERE simhash_similarity(a.body, b.body) >= 0.5 AND simhash_same_passage(a.body, b.body)) AS brute_d3;
SELECT regress_try($$SET simhash.decision = 'tight'$$);

DROP TABLE tpl, tpl_d2, tpl_none;
DROP FUNCTION tpl_body(int), tpl_name(int);
