-- Segment fingerprints (issue 19; docs/segments.md): simhash_segments, resemblance and
-- containment, and segment search on a table (simhash_create_segments, simhash_similar).
CREATE EXTENSION IF NOT EXISTS simhash;

-- 1. Golden values: a change here is a change of the fingerprint contract.
SELECT simhash_segments('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。'
    '在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！'
    '一九九七年，中国发生了两件大事：一是香港回归祖国；二是党的十五大胜利召开。'
    '我们的改革开放和现代化建设取得了新的重大成就，国民经济保持了快速增长的良好势头。') AS golden;
-- Definition 2's (2.x's, simhash_segments_v2): runs of sentences.
SELECT simhash_segments_v2('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。'
    '在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！'
    '一九九七年，中国发生了两件大事：一是香港回归祖国；二是党的十五大胜利召开。'
    '我们的改革开放和现代化建设取得了新的重大成就，国民经济保持了快速增长的良好势头。') AS golden_v2;
-- Fewer than 6 features: no segment. Six in one sentence: under definition 2 one, the text's
-- simhash(); under definition 3 the winnowed shingles of its words.
SELECT simhash_segments('') AS empty, simhash_segments('中国经济发展。') AS short,
       simhash_segments_v2('中国 经济 发展 改革 开放 合作') = ARRAY[simhash_v2('中国 经济 发展 改革 开放 合作')] AS one_v2,
       cardinality(simhash_segments('中国 经济 发展 改革 开放 合作')) AS shingles;
-- A copy in traditional characters has the same segments (definition 2); definition 1 differs.
SELECT simhash_segments('中共中央總書記、國家主席江澤民發表新年講話。新年鐘聲即將敲響，人類社會就要進入新的一年。')
       = simhash_segments('中共中央总书记、国家主席江泽民发表新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。') AS same_v2,
       simhash_segments('中共中央總書記、國家主席江澤民發表新年講話。新年鐘聲即將敲響，人類社會就要進入新的一年。', '{"definition": "1"}')
       = simhash_segments('中共中央总书记、国家主席江泽民发表新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。') AS same_v1;
SELECT regress_try($$SELECT simhash_segments('a', '{"tokenizer": "ngram"}')$$);
SELECT regress_try($$SELECT simhash_segments('a', '{"tokenizer": "jieba", "nn": 1}')$$);

-- 2. Against definition 2, computed the slow way on 300 corpus paragraphs: a segment is
-- simhash_v2() of a minimal run of sentences (cut after 。！？；!?; and line breaks) that has
-- one; runs of up to 12 sentences.
CREATE TEMP TABLE seg_sent AS
SELECT c.id, s.i, s.sentence
FROM corpus c, regexp_split_to_table(c.body, '(?<=[。！？；!?;\n])') WITH ORDINALITY s(sentence, i)
WHERE c.id % 60 = 7 AND s.sentence <> '';
CREATE TEMP TABLE seg_runs AS
SELECT a.id, a.i, b.i AS j,
       simhash_v2((SELECT string_agg(x.sentence, '' ORDER BY x.i) FROM seg_sent x
                WHERE x.id = a.id AND x.i BETWEEN a.i AND b.i)) AS fp
FROM seg_sent a JOIN seg_sent b ON a.id = b.id AND b.i BETWEEN a.i AND a.i + 11;
CREATE TEMP TABLE seg_brute AS
SELECT id, array_agg(fp ORDER BY i) AS segs FROM (
    SELECT DISTINCT ON (r.id, r.fp) r.id, r.i, r.fp FROM seg_runs r
    WHERE r.fp IS NOT NULL
      AND NOT EXISTS (SELECT 1 FROM seg_runs s WHERE s.id = r.id AND s.fp IS NOT NULL
                      AND ((s.i = r.i + 1 AND s.j = r.j) OR (s.i = r.i AND s.j = r.j - 1)))
    ORDER BY r.id, r.fp, r.i) d
GROUP BY id;
SELECT count(*) AS paragraphs,
       count(*) FILTER (WHERE simhash_segments_v2(c.body) = coalesce(b.segs, '{}')) AS equal,
       sum(cardinality(simhash_segments_v2(c.body))) AS segments
FROM corpus c LEFT JOIN seg_brute b USING (id) WHERE c.id % 60 = 7;

-- 3. Resemblance and containment: over distinct elements, NULLs ignored.
-- (Since 4.0.0 simhash_containment of two untyped literals takes them as texts: cast.)
SELECT simhash_resemblance('{1,2,3,4}', '{1,2,3}') AS r,
       simhash_containment('{1,2,3}'::bigint[], '{1,2,3,4}'::bigint[]) AS c_in,
       simhash_containment('{1,2,3,4}'::bigint[], '{3,2,1}'::bigint[]) AS c_out, simhash_resemblance('{}', '{}') AS empty,
       simhash_resemblance('{1,1,NULL}', '{1}') AS repeats, simhash_containment('{}'::bigint[], '{1}'::bigint[]) AS none;

-- 4. Segment search on a table: the column is exact after the build and through INSERT,
-- UPDATE (of the text, of another column, of the column itself) and NULL texts.
CREATE TABLE seg_docs(id int PRIMARY KEY, body text, tag int);
INSERT INTO seg_docs SELECT id, body, 0 FROM corpus WHERE id % 20 = 3;
SET client_min_messages = warning;
CALL simhash_create_segments('seg_docs', 'body', batch_pages => 5);
RESET client_min_messages;
SELECT count(*) AS rows, count(*) FILTER (WHERE body_segments IS DISTINCT FROM simhash_segments(body)) AS wrong
FROM seg_docs;
SELECT indexdef FROM pg_indexes WHERE tablename = 'seg_docs' AND indexname LIKE '%segments%';
INSERT INTO seg_docs VALUES (-1, '新华社北京一月一日电。今天是新年第一天，首都各界群众举行了丰富多彩的庆祝活动。', 0), (-2, NULL, 0);
UPDATE seg_docs SET body = body || '。本报记者报道了这次活动的详细情况。' WHERE id = 3;
UPDATE seg_docs SET tag = 1 WHERE id = 23;
UPDATE seg_docs SET body_segments = '{1,2,3}' WHERE id = 43;
SELECT count(*) FILTER (WHERE body_segments IS DISTINCT FROM simhash_segments(body)) AS wrong,
       count(*) FILTER (WHERE body IS NULL AND body_segments IS NULL) AS null_texts
FROM seg_docs;
-- Rerunning resumes (nothing to fill); errors name the problem.
SET client_min_messages = warning;
CALL simhash_create_segments('seg_docs', 'body');
RESET client_min_messages;
SELECT regress_try($$CALL simhash_create_segments('seg_docs', 'nosuch')$$);
SELECT regress_try($$CALL simhash_create_segments('seg_docs', 'tag')$$);
SELECT regress_try($$CALL simhash_create_segments('seg_docs', 'body', batch_pages => 0)$$);
SELECT regress_try($$CALL simhash_create_segments('seg_docs', 'body', '{"tokenizer": "ngram"}')$$);
-- Inside a transaction block it cannot commit its batches: an error, and nothing done.
CREATE TABLE seg_tx(body text);
BEGIN;
SELECT regress_try($$CALL simhash_create_segments('seg_tx', 'body')$$);
ROLLBACK;
SELECT count(*) AS seg_tx_columns FROM pg_attribute WHERE attrelid = 'seg_tx'::regclass AND attnum > 0;

-- 5. simhash_similar: a repost with a sentence added is found with its resemblance; the
-- rows it returns are exactly those sharing a segment (checked by a scan).
CREATE TEMP TABLE seg_q AS
SELECT id, simhash_segments(regexp_replace(body, '。', '。据本报记者报道。')) AS q
FROM seg_docs WHERE id IN (SELECT id FROM seg_docs WHERE cardinality(body_segments) >= 3 ORDER BY id LIMIT 4);
SELECT q.id, s.resemblance > 0.5 AS resembles, s.query_in_row > 0.5 AS q_in_row, d.id = q.id AS original
FROM seg_q q, simhash_similar('seg_docs', 'body_segments', q.q) s JOIN seg_docs d ON d.ctid = s.row_ctid
ORDER BY q.id, d.id;
SELECT q.id,
       (SELECT array_agg(d.id ORDER BY d.id) FROM simhash_similar('seg_docs', 'body_segments', q.q) s
          JOIN seg_docs d ON d.ctid = s.row_ctid)
       IS NOT DISTINCT FROM
       (SELECT array_agg(d.id ORDER BY d.id) FROM seg_docs d WHERE simhash_containment(q.q, d.body_segments) > 0)
       AS same_as_scan
FROM seg_q q ORDER BY q.id;
-- A passage in many rows (a disclaimer) is left out of the lookup above max_rows rows.
INSERT INTO seg_docs SELECT -100 - g, '本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。' || g, 0
FROM generate_series(1, 30) g;
SELECT cardinality(simhash_segments('本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。')) AS disclaimer,
       cardinality(simhash_rare_segments('seg_docs', 'body_segments',
                   simhash_segments('本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。'), 10)) AS rare_at_10,
       cardinality(simhash_rare_segments('seg_docs', 'body_segments',
                   simhash_segments('本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。'), 100)) AS rare_at_100,
       (SELECT count(*) FROM simhash_similar('seg_docs', 'body_segments',
                   simhash_segments('本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。'), max_rows => 10)) AS found_at_10,
       (SELECT count(*) FROM simhash_similar('seg_docs', 'body_segments',
                   simhash_segments('本文仅代表作者本人观点，与本网站立场无关，转载请注明出处。'), max_rows => 2147483647))
           AS found_at_int_max;
SELECT regress_try($$SELECT simhash_rare_segments('seg_docs', 'body_segments', '{1}', 0)$$);

-- 6. Within k bits (2.1.0): a segment the other text has not, but has one within
-- max_distance bits of, counts ½; 0 is the two-argument form. 7 is 3 bits from 0.
SELECT simhash_resemblance('{0,1099511627776}', '{7}', 3) AS r3, simhash_resemblance('{0,1099511627776}', '{7}', 2) AS r2,
       simhash_containment('{7}', '{0,1099511627776}', 3) AS c3, simhash_resemblance('{5,5,6}', '{-7}', 64) AS r64,
       simhash_resemblance('{1,2,3,4}', '{1,2,3}', 0) = simhash_resemblance('{1,2,3,4}', '{1,2,3}') AS same_at_0,
       simhash_resemblance('{1}', '{1}', NULL) AS null_k;
SELECT regress_try($$SELECT simhash_resemblance('{1}', '{1}', 65)$$);
SELECT regress_try($$SELECT simhash_containment('{1}', '{1}', -1)$$);
SELECT regress_try($$SELECT * FROM simhash_similar('seg_docs', 'body_segments', '{1}', max_distance => 65)$$);
-- A segments column that is not bigint[], or missing (2.2.0): the argument named, 42804 and
-- 42703, rather than an error of the internal query.
SELECT regress_try($$SELECT * FROM simhash_similar('pg_class', 'relname', '{1}')$$);
SELECT regress_try($$SELECT * FROM simhash_similar('seg_docs', 'body', '{1}')$$);
SELECT regress_try($$SELECT * FROM simhash_similar('seg_docs', 'no_such', '{1}')$$);
SELECT regress_try($$SELECT simhash_rare_segments('seg_docs', 'tag', '{1}')$$);
SELECT regress_try($$SELECT simhash_segments('a', '{"max_distance": 12}')$$);
-- Against every pair compared in SQL, for the rows sharing a segment with the reposts above
-- and for copies with the last two characters of every sentence changed (a word each).
CREATE TEMP TABLE seg_typo AS
SELECT d.id, simhash_segments(regexp_replace(d.body, '..。', '某某。', 'g')) AS q FROM seg_docs d
WHERE d.id > 0 AND d.id % 7 = 3 AND cardinality(d.body_segments) >= 2;
CREATE TEMP TABLE seg_near AS
SELECT q.id, q.q, d.body_segments AS s FROM seg_q q JOIN seg_docs d ON d.body_segments && q.q
UNION ALL
SELECT t.id, t.q, d.body_segments FROM seg_typo t JOIN seg_docs d USING (id);
-- A segment of a found in b counts 1, one with a segment of b within k bits (and not in b) ½.
CREATE FUNCTION pg_temp.found(a bigint[], b bigint[], k int) RETURNS float8 LANGUAGE sql AS $$
  SELECT coalesce(sum(CASE WHEN u.x = ANY (b) THEN 1
                           WHEN EXISTS (SELECT FROM unnest(b) y WHERE bit_count((u.x # y)::bit(64)) <= k) THEN 0.5
                           ELSE 0 END), 0)
  FROM (SELECT DISTINCT x FROM unnest(a) x WHERE x IS NOT NULL) u $$;
SELECT k, count(*) AS pairs,
       count(*) FILTER (WHERE simhash_resemblance(q, s, k) IS DISTINCT FROM
           coalesce((pg_temp.found(q, s, k) + pg_temp.found(s, q, k))::float8
                    / nullif((SELECT count(DISTINCT x) FROM unnest(q) x) + (SELECT count(DISTINCT x) FROM unnest(s) x), 0), 0))
           AS wrong_resemblance,
       count(*) FILTER (WHERE simhash_containment(q, s, k) IS DISTINCT FROM
           coalesce(pg_temp.found(q, s, k)::float8 / nullif((SELECT count(DISTINCT x) FROM unnest(q) x), 0), 0))
           AS wrong_containment,
       count(*) FILTER (WHERE simhash_resemblance(q, s, k) >= 0.5) AS resemble
FROM seg_near, (VALUES (0), (3), (12)) v(k) GROUP BY k ORDER BY k;
-- simhash_similar: the same candidates, ranked within k; more of the changed copies find
-- their original at resemblance >= 0.5.
SELECT count(*) AS copies,
       count(*) FILTER (WHERE EXISTS (SELECT FROM simhash_similar('seg_docs', 'body_segments', t.q, 0.5) s
                                      JOIN seg_docs d ON d.ctid = s.row_ctid WHERE d.id = t.id)) AS found_exact,
       count(*) FILTER (WHERE EXISTS (SELECT FROM simhash_similar('seg_docs', 'body_segments', t.q, 0.5,
                                                                  max_distance => 12) s
                                      JOIN seg_docs d ON d.ctid = s.row_ctid WHERE d.id = t.id)) AS found_within_12,
       bool_and((SELECT array_agg(row_ctid ORDER BY row_ctid) FROM simhash_similar('seg_docs', 'body_segments', t.q))
                IS NOT DISTINCT FROM
                (SELECT array_agg(row_ctid ORDER BY row_ctid)
                   FROM simhash_similar('seg_docs', 'body_segments', t.q, max_distance => 12))) AS same_candidates
FROM seg_typo t;
-- Past k = 0 every pair is compared; a long comparison cancels. 10^12 comparisons would take
-- most of an hour: the error comes from the comparison loop's check for cancellation.
CREATE TEMP TABLE seg_big AS SELECT array_agg(g::bigint * 7919) AS a FROM generate_series(1, 1000000) g;
SET statement_timeout = '100ms';
SELECT simhash_resemblance(a, a, 3) FROM seg_big;
RESET statement_timeout;
DROP TABLE seg_docs, seg_tx;
