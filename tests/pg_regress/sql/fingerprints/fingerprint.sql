-- simhash(text), simhash(text, jsonb), simhash_v0(...), simhash(text[], float8[]), simhash_features, hamming, <~>

-- Golden fingerprints: a stored fingerprint must never change silently between versions.
-- Definition 0 (0.1.0 to 0.3.0) is reachable as simhash_v0(doc) and as the option
-- {"definition": "0"}; its column repeats 0.3.0's golden values. Definition 1 (1.0.0 to
-- 1.1.0, simhash_v1) is NULL for a text with fewer than 6 features; definition 2 (2.x,
-- simhash_v2) gives these texts, without traditional characters, definition 1's values.
-- Definition 3's golden values, the default since 3.0.0, are in definition3.sql.
SELECT doc, simhash_v0(doc) AS v0, simhash_v1(doc) AS v1,
       simhash(doc, '{"definition": "0"}'::jsonb) = simhash_v0(doc) AS option_v0_same,
       simhash(doc, '{"definition": "1"}'::jsonb) IS NOT DISTINCT FROM simhash_v1(doc) AS option_v1_same,
       simhash_v2(doc) IS NOT DISTINCT FROM simhash_v1(doc) AS v2_same
  FROM (VALUES
    ('我爱北京天安门'),
    ('迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）'),
    ('Near-duplicate detection for web crawling'),
    ('中国Chinese混合mixed文本text 2026年'),
    ('１２月３１日，中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》。')) AS t(doc);
SELECT simhash_v0('迈向充满希望的新世纪', '{"tokenizer": "ngram", "n": 2}'::jsonb),
       simhash_v0('迈向充满希望的新世纪', '{"weighting": "binary"}'::jsonb),
       simhash_v0('迈向充满希望的新世纪', '{"weighting": "tf"}'::jsonb);
SELECT simhash(doc, '{"tokenizer": "ngram", "n": 2}'::jsonb) AS ngram2,
       simhash(doc, '{"weighting": "binary"}'::jsonb) AS binary,
       simhash(doc, '{"weighting": "tf"}'::jsonb) AS tf,
       simhash(doc, '{"min_features": 0}'::jsonb) = simhash(doc) AS min_features_0_same
  FROM (VALUES ('经济经济经济发展，改革开放２０年，迈向充满希望的新世纪')) AS t(doc);

-- A text without letters or digits has no ngram features, also right after another text
-- in the same backend (it got that text's fingerprint; found by crates/simhash-core/tests/fuzz.rs).
SELECT i, simhash(doc, '{"tokenizer": "ngram"}'::jsonb) AS ngram,
       simhash(doc, '{"tokenizer": "ngram", "min_features": 0}'::jsonb) AS ngram_min_0,
       simhash_v0(doc, '{"tokenizer": "ngram"}'::jsonb) AS ngram_v0
  FROM (VALUES (1, '中共中央总书记、国家主席江泽民发表新年讲话'), (2, '，。！？……'), (3, '')) AS t(i, doc) ORDER BY i;

-- simhash(doc) is simhash(doc, '{}'); simhash_v0(doc) is simhash_v0(doc, '{}').
SELECT simhash(body) IS NOT DISTINCT FROM simhash(body, '{}'::jsonb) AS same,
       simhash_v0(body) = simhash_v0(body, '{}'::jsonb) AS same_v0
  FROM corpus WHERE id <= 200 GROUP BY 1, 2;

-- Normalization: full-width and case fold to the same features.
SELECT simhash('ＡＢＣ　１９９８年，经济发展，改革开放') = simhash('abc 1998年,经济发展,改革开放') AS nfkc_lower,
       simhash_v0('ＡＢＣ　１９９８年') = simhash_v0('abc 1998年') AS nfkc_lower_v0;

-- Definition 1 drops numbers: changed figures and dates leave the fingerprint as it is.
SELECT simhash('１２月３１日，全国排球联赛，四川男排３∶２胜北京男排，浙江男排３∶１胜上海男排') =
       simhash('１１月２０日，全国排球联赛，四川男排３∶０胜北京男排，浙江男排２∶１胜上海男排') AS numbers_ignored;

-- No features (empty, punctuation, stop words only): definition 0 gives 0, definition 1
-- NULL, as it does for every text with fewer than min_features (6) features.
SELECT simhash_v0(''), simhash_v0('，。！？…'), simhash_v0('的 了 the and of');
SELECT simhash('') IS NULL AS a, simhash('，。！？…') IS NULL AS b, simhash('的 了 the and of') IS NULL AS c,
       simhash('（董伟）') IS NULL AS byline, simhash('当时间的脚步') IS NULL AS title;
SELECT simhash('，。！', '{"min_features": 0}'::jsonb) AS no_features_min_0,
       simhash('当时间的脚步', '{"min_features": 0}'::jsonb) IS NOT NULL AS title_min_0;
SELECT count(*) FROM simhash_features('，。！');
-- The short-text policy over the corpus: how many paragraphs get no fingerprint, by length.
SELECT CASE WHEN char_length(body) < 20 THEN 'a: < 20' WHEN char_length(body) < 50 THEN 'b: 20-49'
            ELSE 'c: >= 50' END AS chars,
       count(*) AS paragraphs, count(*) FILTER (WHERE simhash(body) IS NULL) AS no_fingerprint,
       count(*) FILTER (WHERE simhash_v0(body) = 0) AS v0_zero
  FROM corpus GROUP BY 1 ORDER BY 1;

-- simhash_features shows exactly what simhash folds: refolding it gives the same fingerprint.
SELECT * FROM simhash_features('经济发展，经济合作。Economic growth 2026');
SELECT * FROM simhash_features('经济发展，经济合作。Economic growth 2026', '{"definition": "0"}');
SELECT count(*) AS docs, count(*) FILTER (WHERE refold = fp) AS refold_equal FROM (
    SELECT simhash(c.body) AS fp,
           (SELECT simhash(array_agg(f.feature ORDER BY f.ord), array_agg(f.weight ORDER BY f.ord))
              FROM simhash_features(c.body) WITH ORDINALITY AS f(feature, weight, ord)) AS refold
      FROM corpus c WHERE id <= 500 AND simhash(c.body) IS NOT NULL) s;
SELECT count(*) AS docs, count(*) FILTER (WHERE refold = fp) AS refold_equal FROM (
    SELECT simhash_v0(c.body) AS fp,
           (SELECT simhash(array_agg(f.feature ORDER BY f.ord), array_agg(f.weight ORDER BY f.ord))
              FROM simhash_features(c.body, '{"definition": "0"}') WITH ORDINALITY AS f(feature, weight, ord)) AS refold
      FROM corpus c WHERE id <= 500 AND simhash_v0(c.body) <> 0) s;
SELECT * FROM simhash_features('ab, ab', '{"tokenizer": "ngram", "n": 2, "weighting": "tf"}');
SELECT * FROM simhash_features('ab, ab', '{"definition": "0", "tokenizer": "ngram", "n": 2, "weighting": "tf"}');

-- Caller-supplied features and weights.
SELECT simhash(ARRAY['a', 'b', 'c'], ARRAY[1.0, 2.0, -0.5]::float8[]);
SELECT simhash(ARRAY[]::text[], ARRAY[]::float8[]);
SELECT simhash(ARRAY['x'], ARRAY[1.0]::float8[]) = simhash(ARRAY['x', 'x'], ARRAY[0.5, 0.5]::float8[]) AS repeats_add;

-- Options as two untyped literals (2.2.0): simhash(text, text), which reads them as the
-- jsonb form does; a jsonb argument, a text column and typed arrays keep their forms.
SELECT simhash('中共中央总书记、国家主席江泽民发表新年讲话', '{"min_features": 0}')
       = simhash('中共中央总书记、国家主席江泽民发表新年讲话', '{"min_features": 0}'::jsonb) AS literals_same,
       simhash('中国 经济 发展 改革 开放 合作', '{}') = simhash('中国 经济 发展 改革 开放 合作') AS empty_same,
       simhash('{a,b}'::text[], '{1,2}') = simhash(ARRAY['a', 'b'], ARRAY[1, 2]::float8[]) AS arrays_same,
       simhash(NULL, NULL) IS NULL AS nulls;
SELECT count(*) FILTER (WHERE simhash(body, '{"tokenizer": "ngram", "n": 2}')
                              IS DISTINCT FROM simhash(body, '{"tokenizer": "ngram", "n": 2}'::jsonb)) AS column_differs
FROM corpus WHERE id % 50 = 1;
-- Which function each form resolves to.
CREATE TEMP VIEW fp_forms AS SELECT simhash('x', '{}') AS literals, simhash('x', '{}'::jsonb) AS jsonb_form,
                                    simhash('{x}', '{1}'::float8[]) AS weighted;
SELECT pg_get_viewdef('fp_forms');
SELECT regress_try($$SELECT simhash('x', '{"min_features": 0')$$);
SELECT regress_try($$SELECT simhash('x', '{"max_distance": 3}')$$);

-- Bad input: clear errors with proper SQLSTATEs.
\set VERBOSITY sqlstate
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0]::float8[]);
SELECT simhash(ARRAY['a', NULL], ARRAY[1.0, 2.0]::float8[]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0, NULL]::float8[]);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0, 'NaN']::float8[]);
SELECT simhash(ARRAY['a'], ARRAY['Infinity']::float8[]);
SELECT simhash(ARRAY[['a'], ['b']], ARRAY[1.0, 2.0]::float8[]);
SELECT simhash('x', '{"tokeniser": "jieba"}'::jsonb);
SELECT simhash('x', '{"tokenizer": "icu"}'::jsonb);
SELECT simhash('x', '{"weighting": 3}'::jsonb);
SELECT simhash('x', '{"n": 2}'::jsonb);
SELECT simhash('x', '{"tokenizer": "ngram", "n": 0}'::jsonb);
SELECT simhash('x', '[1, 2]'::jsonb);
SELECT simhash('x', '{"definition": "4"}'::jsonb);
SELECT simhash('x', '{"definition": true}'::jsonb);
SELECT simhash('x', '{"definition": "0", "min_features": 3}'::jsonb);
SELECT simhash('x', '{"min_features": 1001}'::jsonb);
SELECT simhash('x', '{"min_features": -1}'::jsonb);
SELECT simhash_v0('x', '{"tokeniser": "jieba"}'::jsonb);
SELECT * FROM simhash_features('x', '{"definition": "4"}');
-- jsonb that serde_json cannot read, a number beyond f64 (in any key) or nesting deeper
-- than 128: 22023 like any bad options, not XX000 (found by tests/integration/fuzz_sql.sh).
SELECT simhash('x', '{"n": 1e400}'::jsonb);
SELECT simhash('x', '{"unknown": [-1e400]}'::jsonb);
SELECT simhash_v0('x', (repeat('[', 200) || repeat(']', 200))::jsonb);
SELECT * FROM simhash_features('x', '{"min_features": 1e400}');
SELECT * FROM simhash_features('x', (repeat('{"a":', 200) || '1' || repeat('}', 200))::jsonb);
SELECT simhash('x', '{"tokenizer": "ngram", "n": 2, "x": 1e308}'::jsonb);
\set VERBOSITY default
SELECT simhash('x', '{"n": 1e400}'::jsonb);
SELECT simhash('x', '{"definition": "4"}'::jsonb);
SELECT simhash('x', '{"tokenizer": "icu"}'::jsonb);
SELECT simhash('x', '{"tokeniser": "jieba"}'::jsonb);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0]::float8[]);

-- STRICT: NULL in, NULL out.
SELECT simhash(NULL::text) IS NULL AS a, simhash('x', NULL::jsonb) IS NULL AS b, hamming(NULL, 1) IS NULL AS c,
       simhash_v0(NULL::text) IS NULL AS d, simhash_v0('x', NULL::jsonb) IS NULL AS e;

-- hamming and <~>
SELECT hamming(0, 0), hamming(0, -1), hamming(5, 6), 5::bigint <~> 6::bigint AS op,
       hamming(-9223372036854775808, 0);
SELECT count(*) FILTER (WHERE hamming(a, b) <> bit_count((a # b)::bit(64))) AS mismatches
  FROM (SELECT (random() * 2^62)::bigint * (CASE WHEN random() < 0.5 THEN -1 ELSE 1 END) AS a,
               (random() * 2^62)::bigint AS b FROM generate_series(1, 10000)) r;

-- Real text: every ~300-character news paragraph (280-320 characters) and copies
-- with 1 and 2 characters changed, under both definitions. Distances are pinned exactly
-- (golden values; README, "How similar is similar").
CREATE TEMP TABLE edits AS
    SELECT id, d.def,
           CASE d.def WHEN 0 THEN simhash_v0(e.body) ELSE simhash(e.body) END AS fp,
           CASE d.def WHEN 0 THEN simhash_v0(e.e1) ELSE simhash(e.e1) END AS fp1,
           CASE d.def WHEN 0 THEN simhash_v0(e.e2) ELSE simhash(e.e2) END AS fp2
      FROM (SELECT id, body,
                   overlay(body PLACING '某' FROM char_length(body) / 2 FOR 1) AS e1,
                   overlay(overlay(body PLACING '某' FROM char_length(body) / 3 FOR 1)
                           PLACING '甲' FROM 2 * char_length(body) / 3 FOR 1) AS e2
              FROM corpus WHERE char_length(body) BETWEEN 280 AND 320) e,
           (VALUES (0), (1)) AS d(def);
-- The first such paragraph.
SELECT def, id, hamming(fp, fp1) AS one_char, hamming(fp, fp2) AS two_chars
  FROM edits WHERE id = (SELECT min(id) FROM edits) ORDER BY def;
-- The distribution over all of them.
SELECT def, count(*) AS paragraphs,
       round(avg((hamming(fp, fp1) <= 3)::int), 2) AS one_char_within_3,
       round(avg((hamming(fp, fp2) <= 3)::int), 2) AS two_chars_within_3,
       percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY hamming(fp, fp1)) AS one_char_p50_p90_p99,
       percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY hamming(fp, fp2)) AS two_chars_p50_p90_p99
  FROM edits GROUP BY def ORDER BY def;
-- Different paragraphs are far apart: distances centre on 32. The one pair within 3 under
-- definition 1 is a repost, which definition 0 misses: paragraph 412 is 396 with
-- "江泽民说，" in front.
SELECT a.def, count(*) AS pairs, round(avg(hamming(a.fp, b.fp)), 1) AS mean, min(hamming(a.fp, b.fp)),
       percentile_disc(ARRAY[0.01, 0.5, 0.99]) WITHIN GROUP (ORDER BY hamming(a.fp, b.fp)) AS p01_p50_p99,
       count(*) FILTER (WHERE hamming(a.fp, b.fp) <= 3) AS within_3
  FROM edits a JOIN edits b ON a.def = b.def AND a.id < b.id GROUP BY a.def ORDER BY a.def;
SELECT a.def, a.id AS id1, b.id AS id2, hamming(a.fp, b.fp) AS d,
       left(cb.body, 5) AS prefix, substr(cb.body, 6) = ca.body AS rest_equal
  FROM edits a JOIN edits b ON a.def = b.def AND a.id < b.id AND hamming(a.fp, b.fp) <= 3
  JOIN corpus ca ON ca.id = a.id JOIN corpus cb ON cb.id = b.id ORDER BY 1, 2;

-- A database whose server encoding is not UTF8: text is converted, fingerprints agree.
\set regress_db :DBNAME
CREATE DATABASE simhash_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c simhash_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION simhash;
SELECT simhash_v0('Crème brûlée à la française') AS latin1_fp,
       simhash('Crème brûlée à la française', '{"tokenizer": "ngram"}'::jsonb) AS latin1_ngram,
       simhash('Crème brûlée, café au lait, pâtisserie française, déjà vu') AS latin1_v1;
SELECT * FROM simhash_features('Crème brûlée');
SELECT simhash(ARRAY['é'], ARRAY[1.0]::float8[]) AS latin1_weighted;
\c :regress_db
SELECT simhash_v0('Crème brûlée à la française') AS utf8_fp,
       simhash('Crème brûlée à la française', '{"tokenizer": "ngram"}'::jsonb) AS utf8_ngram,
       simhash('Crème brûlée, café au lait, pâtisserie française, déjà vu') AS utf8_v1;
SELECT simhash(ARRAY['é'], ARRAY[1.0]::float8[]) AS utf8_weighted;
DROP DATABASE simhash_latin1;
SELECT simhash_v0('中国') AS utf8_zh \gset
-- SQL_ASCII: bytes are taken as UTF-8; invalid ones are refused with 22021.
CREATE DATABASE simhash_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c simhash_ascii
CREATE EXTENSION simhash;
SELECT simhash_v0('中国') = :utf8_zh AS sql_ascii_takes_utf8_bytes;
\set VERBOSITY sqlstate
SELECT simhash(convert_from('\xff41'::bytea, 'SQL_ASCII'));
\set VERBOSITY default
\c :regress_db
DROP DATABASE simhash_ascii;

-- Definition 2 (2.0.0 to 2.2.0, simhash_v2; definition 3 too): traditional-only characters fold
-- to simplified ones, so a copy in traditional characters gets the original's fingerprint;
-- simplified text keeps its definition 1 fingerprint, which simhash_v1 and {"definition": "1"}
-- still give.
SELECT simhash_v2('中共中央總書記、國家主席江澤民發表新年講話，向全國各族人民致以新年的祝賀') AS traditional,
       simhash_v2('中共中央总书记、国家主席江泽民发表新年讲话，向全国各族人民致以新年的祝贺') AS simplified,
       simhash('中共中央總書記、國家主席江澤民發表新年講話，向全國各族人民致以新年的祝賀')
           = simhash('中共中央总书记、国家主席江泽民发表新年讲话，向全国各族人民致以新年的祝贺') AS folded_under_3,
       simhash_v1('中共中央總書記、國家主席江澤民發表新年講話，向全國各族人民致以新年的祝賀') AS traditional_v1,
       simhash('中共中央總書記、國家主席江澤民發表新年講話，向全國各族人民致以新年的祝賀', '{"definition": "1"}'::jsonb) AS traditional_opt1;
SELECT count(*) AS paragraphs, count(*) FILTER (WHERE simhash_v2(body) IS NOT DISTINCT FROM simhash_v1(body)) AS unchanged
FROM corpus WHERE id % 10 = 1;
SELECT feature FROM simhash_features('國家主席發表講話');
SELECT feature FROM simhash_features_v2('國家主席發表講話');
