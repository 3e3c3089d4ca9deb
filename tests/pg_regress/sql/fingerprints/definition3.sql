-- Fingerprint definition 3 (3.0.0; docs/fingerprint.md, "Definition 3"): the default of every
-- function and trigger, definition 2 kept as the _v2 functions, segments matched within k bits
-- refused, and sentence order that no longer matters.
CREATE EXTENSION IF NOT EXISTS simhash;

-- An English text: definition 3 gives Latin words English IDFs where definition 2 gave the
-- median, so its fingerprint and features differ; its segments are word shingles, not runs of
-- its three sentences.
\set en 'The currency gained against the dollar in early trading. The governor will testify before a committee next week. Retail sales slowed for the third month in a row.'

-- 1. Definition 3 is the default, of every form.
SELECT simhash(:'en') = simhash(:'en', '{"definition": "3"}'::jsonb) AS jsonb_3,
       simhash(:'en') = simhash(:'en', '{}') AS text_options_3,
       simhash(:'en') <> simhash(:'en', '{"definition": "2"}'::jsonb) AS differs_from_2,
       simhash_segments(:'en') = simhash_segments(:'en', '{"definition": "3"}') AS segments_3,
       simhash_segments(:'en') <> simhash_segments(:'en', '{"definition": "2"}') AS segments_differ_from_2,
       cardinality(simhash_segments(:'en')) AS segments, cardinality(simhash_segments_v2(:'en')) AS segments_v2;
SELECT (SELECT array_agg(f ORDER BY f) FROM simhash_features(:'en') f)
       = (SELECT array_agg(f ORDER BY f) FROM simhash_features(:'en', '{"definition": "3"}') f) AS features_3,
       (SELECT array_agg(f ORDER BY f) FROM simhash_features(:'en') f)
       <> (SELECT array_agg(f ORDER BY f) FROM simhash_features(:'en', '{"definition": "2"}') f) AS features_differ;
SELECT array_agg(DISTINCT fingerprint ORDER BY fingerprint)
       = (SELECT array_agg(s ORDER BY s) FROM unnest(simhash_segments(:'en')) s) AS explain_3
  FROM simhash_segments_explain(:'en', :'en');

-- The triggers too.
CREATE TABLE d3(id int PRIMARY KEY, body text, fp bigint, fp_dedup bigint, segs bigint[], segs_dedup bigint[]);
CREATE TRIGGER a BEFORE INSERT ON d3 FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');
CREATE TRIGGER b BEFORE INSERT ON d3 FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp_dedup', 'body', '3', 'reject');
CREATE TRIGGER c BEFORE INSERT ON d3 FOR EACH ROW EXECUTE FUNCTION simhash_segments_trigger('segs', 'body');
CREATE TRIGGER d BEFORE INSERT ON d3 FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('segs_dedup', 'body', '0.5', 'reject');
INSERT INTO d3(id, body) VALUES (1, :'en');
SELECT fp = simhash(body, '{"definition": "3"}'::jsonb) AS update_3, fp_dedup = fp AS dedup_3,
       segs = simhash_segments(body, '{"definition": "3"}') AS segments_3, segs_dedup = segs AS segments_dedup_3
  FROM d3;
DROP TABLE d3;

-- 2. The _v2 functions are definition 2: simhash(..., '{"definition": "2"}'), over corpus
-- paragraphs (traditional characters folded) and the English text.
CREATE TEMP TABLE v2_docs AS
SELECT body FROM corpus WHERE id % 97 = 5
UNION ALL SELECT translate(body, '国这来们时实发说会经', '國這來們時實發說會經') FROM corpus WHERE id % 97 = 6
UNION ALL SELECT :'en';
SELECT count(*) AS docs,
       count(*) FILTER (WHERE simhash_v2(body) IS DISTINCT FROM simhash(body, '{"definition": "2"}'::jsonb)) AS simhash_v2_differs,
       count(*) FILTER (WHERE simhash_v2(body, '{"min_features": 0}'::jsonb)
                              IS DISTINCT FROM simhash(body, '{"definition": "2", "min_features": 0}'::jsonb)) AS jsonb_differs,
       count(*) FILTER (WHERE simhash_v2(body, '{"weighting": "tf"}'::text)
                              IS DISTINCT FROM simhash(body, '{"definition": "2", "weighting": "tf"}'::jsonb)) AS text_differs,
       count(*) FILTER (WHERE simhash_v2(body, '{"definition": "3"}'::jsonb) IS DISTINCT FROM simhash(body)) AS v2_options_name_3,
       count(*) FILTER (WHERE simhash_segments_v2(body) <> simhash_segments(body, '{"definition": "2"}')) AS segments_v2_differs,
       count(*) FILTER (WHERE simhash_v2(body) IS DISTINCT FROM simhash(body)) AS v2_not_v3,
       count(*) FILTER (WHERE simhash_segments_v2(body) <> simhash_segments(body)) AS segments_v2_not_v3
  FROM v2_docs;
SELECT count(*) FILTER (WHERE a IS DISTINCT FROM b) AS features_v2_differs, count(*) AS features
  FROM (SELECT f.feature, f.weight AS a, g.weight AS b
          FROM simhash_features_v2(:'en') f FULL JOIN simhash_features(:'en', '{"definition": "2"}') g USING (feature)) x;
SELECT count(*) FILTER (WHERE e.fingerprint IS DISTINCT FROM f.fingerprint OR e.sentences IS DISTINCT FROM f.sentences
                           OR e.matched IS DISTINCT FROM f.matched) AS explain_v2_differs, count(*) AS explain_rows
  FROM simhash_explain_v2(:'en', 'The governor will testify before a committee next week.', '{"max_distance": 12}') e
  FULL JOIN simhash_segments_explain(:'en', 'The governor will testify before a committee next week.',
                            '{"definition": "2", "max_distance": 12}') f USING (side, segment);

-- 3. Matching definition 3's segments within k bits means nothing (they are shingle hashes):
-- 22023 wherever options name the definition; definition 2 takes it; 0 is the default.
SELECT regress_try($$SELECT * FROM simhash_segments_explain('a', 'b', '{"max_distance": 3}')$$);
SELECT regress_try($$SELECT * FROM simhash_segments_explain('a', 'b', '{"definition": "3", "max_distance": 12}')$$);
SELECT regress_try($$SELECT * FROM simhash_segments_explain('a', 'b', '{"definition": "2", "max_distance": 12}')$$);
SELECT regress_try($$SELECT * FROM simhash_segments_explain('a', 'b', '{"max_distance": 0}')$$);
SELECT regress_try($$SELECT * FROM simhash_explain_v2('a', 'b', '{"max_distance": 12}')$$);
SELECT regress_try($$SELECT * FROM simhash_explain_v2('a', 'b', '{"definition": "3", "max_distance": 12}')$$);
CREATE TABLE d3k(id int PRIMARY KEY, body text, segs bigint[]);
SELECT regress_try($$SELECT simhash_segments_dedup_query('d3k', 'segs', 'body', '0.5', 'reject', '{"max_distance": 12}')$$);
SELECT regress_try($$SELECT simhash_segments_dedup_query('d3k', 'segs', 'body', '0.5', 'reject', '{"definition": "2", "max_distance": 12}')$$) AS definition_2;
SELECT regress_try($$SELECT simhash_segments_dedup_query_v2('d3k', 'segs', 'body', '0.5', 'reject', '{"max_distance": 12}')$$) AS v2;
CREATE TRIGGER d3k BEFORE INSERT ON d3k FOR EACH ROW
    EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject', '{"max_distance": 12}');
SELECT regress_try($$INSERT INTO d3k VALUES (1, 'The governor will testify before a committee next week.')$$);
DROP TRIGGER d3k ON d3k;
CREATE TRIGGER d3k BEFORE INSERT ON d3k FOR EACH ROW
    EXECUTE FUNCTION simhash_segments_dedup_trigger_v2('segs', 'body', '0.5', 'reject', '{"max_distance": 12}');
SELECT regress_try($$INSERT INTO d3k VALUES (1, 'The governor will testify before a committee next week.')$$) AS v2_trigger;
DROP TABLE d3k;

-- 4. Order does not matter: the same sentences in another order have the same fingerprint
-- under definition 3 (exact integer sums), where definition 2's float sums in order of first
-- occurrence differ for this text.
\set swapped 'The governor will testify before a committee next week. The currency gained against the dollar in early trading. Retail sales slowed for the third month in a row.'
SELECT simhash(:'en') = simhash(:'swapped') AS same_under_3,
       simhash_v2(:'en') = simhash_v2(:'swapped') AS same_under_2;

-- 5. Golden values: a stored fingerprint or segment must never change silently between
-- versions (docs/fingerprint.md, "The contract"). Chinese, English (English IDFs), Japanese
-- (kana runs cut, hiragana left out) and mixed text.
SELECT doc, simhash(doc) AS v3, simhash_segments(doc) AS segments
  FROM (VALUES
    ('１２月３１日，中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》。'),
    (:'en'),
    ('東京都は新しい経済政策を発表しました。政府はインフレ対策として補助金を拡大する方針です。'),
    ('中国Chinese混合mixed文本text 2026年，经济发展与改革开放')) AS t(doc);
SELECT * FROM simhash_features('東京都は新しい経済政策を発表しました。');
