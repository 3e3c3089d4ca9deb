-- simhash(text), simhash(text, jsonb), simhash(text[], float8[]), simhash_features, hamming, <~>

-- Golden fingerprints: a stored fingerprint must never change silently between versions.
SELECT doc, simhash(doc) FROM (VALUES
    ('我爱北京天安门'),
    ('迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）'),
    ('Near-duplicate detection for web crawling'),
    ('中国Chinese混合mixed文本text 2026年')) AS t(doc);
SELECT simhash('迈向充满希望的新世纪', '{"tokenizer": "ngram", "n": 2}'::jsonb),
       simhash('迈向充满希望的新世纪', '{"weighting": "binary"}'::jsonb),
       simhash('迈向充满希望的新世纪', '{"weighting": "tf"}'::jsonb);

-- simhash(doc) is simhash(doc, '{}').
SELECT simhash(body) = simhash(body, '{}'::jsonb) AS same FROM corpus WHERE id <= 200 GROUP BY 1;

-- Normalization: full-width and case fold to the same features.
SELECT simhash('ＡＢＣ　１９９８年') = simhash('abc 1998年') AS nfkc_lower;

-- No features (empty, punctuation, stop words only): the fingerprint is 0.
SELECT simhash(''), simhash('，。！？…'), simhash('的 了 the and of');
SELECT count(*) FROM simhash_features('，。！');

-- simhash_features shows exactly what simhash folds: refolding it gives the same fingerprint.
SELECT * FROM simhash_features('经济发展，经济合作。Economic growth 2026');
SELECT count(*) AS docs, count(*) FILTER (WHERE refold = fp) AS refold_equal FROM (
    SELECT simhash(c.body) AS fp,
           (SELECT simhash(array_agg(f.feature ORDER BY f.ord), array_agg(f.weight ORDER BY f.ord))
              FROM simhash_features(c.body) WITH ORDINALITY AS f(feature, weight, ord)) AS refold
      FROM corpus c WHERE id <= 500 AND simhash(c.body) <> 0) s;
SELECT * FROM simhash_features('ab, ab', '{"tokenizer": "ngram", "n": 2, "weighting": "tf"}');

-- Caller-supplied features and weights.
SELECT simhash(ARRAY['a', 'b', 'c'], ARRAY[1.0, 2.0, -0.5]::float8[]);
SELECT simhash(ARRAY[]::text[], ARRAY[]::float8[]);
SELECT simhash(ARRAY['x'], ARRAY[1.0]::float8[]) = simhash(ARRAY['x', 'x'], ARRAY[0.5, 0.5]::float8[]) AS repeats_add;

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
\set VERBOSITY default
SELECT simhash('x', '{"tokenizer": "icu"}'::jsonb);
SELECT simhash('x', '{"tokeniser": "jieba"}'::jsonb);
SELECT simhash(ARRAY['a', 'b'], ARRAY[1.0]::float8[]);

-- STRICT: NULL in, NULL out.
SELECT simhash(NULL::text) IS NULL AS a, simhash('x', NULL::jsonb) IS NULL AS b, hamming(NULL, 1) IS NULL AS c;

-- hamming and <~>
SELECT hamming(0, 0), hamming(0, -1), hamming(5, 6), 5::bigint <~> 6::bigint AS op,
       hamming(-9223372036854775808, 0);
SELECT count(*) FILTER (WHERE hamming(a, b) <> bit_count((a # b)::bit(64))) AS mismatches
  FROM (SELECT (random() * 2^62)::bigint * (CASE WHEN random() < 0.5 THEN -1 ELSE 1 END) AS a,
               (random() * 2^62)::bigint AS b FROM generate_series(1, 10000)) r;

-- Real text: every ~300-character news paragraph (280-320 characters) and copies
-- with 1 and 2 characters changed. Distances are pinned exactly (golden values).
CREATE TEMP TABLE edits AS
    SELECT id, simhash(body) AS fp,
           simhash(overlay(body PLACING '某' FROM char_length(body) / 2 FOR 1)) AS fp1,
           simhash(overlay(overlay(body PLACING '某' FROM char_length(body) / 3 FOR 1)
                           PLACING '甲' FROM 2 * char_length(body) / 3 FOR 1)) AS fp2
      FROM corpus WHERE char_length(body) BETWEEN 280 AND 320;
-- The first such paragraph.
SELECT id, hamming(fp, fp1) AS one_char, hamming(fp, fp2) AS two_chars FROM edits ORDER BY id LIMIT 1;
-- The distribution over all of them (README, "How similar is similar").
SELECT count(*) AS paragraphs,
       round(avg((hamming(fp, fp1) <= 3)::int), 2) AS one_char_within_3,
       round(avg((hamming(fp, fp2) <= 3)::int), 2) AS two_chars_within_3,
       percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY hamming(fp, fp1)) AS one_char_p50_p90_p99,
       percentile_disc(ARRAY[0.5, 0.9, 0.99]) WITHIN GROUP (ORDER BY hamming(fp, fp2)) AS two_chars_p50_p90_p99
  FROM edits;
-- Unrelated paragraphs are far apart: distances centre on 32, and almost none are within 3.
SELECT count(*) AS pairs, round(avg(d), 1) AS mean, min(d),
       percentile_disc(ARRAY[0.01, 0.5, 0.99]) WITHIN GROUP (ORDER BY d) AS p01_p50_p99,
       count(*) FILTER (WHERE d <= 3) AS within_3
  FROM (SELECT hamming(a.fp, b.fp) AS d FROM edits a JOIN edits b ON a.id < b.id) s;

-- A database whose server encoding is not UTF8: text is converted, fingerprints agree.
CREATE DATABASE simhash_latin1 ENCODING 'LATIN1' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c simhash_latin1
SET client_encoding = 'UTF8';
CREATE EXTENSION simhash;
SELECT simhash('Crème brûlée à la française') AS latin1_fp,
       simhash('Crème brûlée à la française', '{"tokenizer": "ngram"}'::jsonb) AS latin1_ngram;
SELECT * FROM simhash_features('Crème brûlée');
SELECT simhash(ARRAY['é'], ARRAY[1.0]::float8[]) AS latin1_weighted;
\c simhash_regress
SELECT simhash('Crème brûlée à la française') AS utf8_fp,
       simhash('Crème brûlée à la française', '{"tokenizer": "ngram"}'::jsonb) AS utf8_ngram;
SELECT simhash(ARRAY['é'], ARRAY[1.0]::float8[]) AS utf8_weighted;
DROP DATABASE simhash_latin1;
SELECT simhash('中国') AS utf8_zh \gset
-- SQL_ASCII: bytes are taken as UTF-8; invalid ones are refused with 22021.
CREATE DATABASE simhash_ascii ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0;
\c simhash_ascii
CREATE EXTENSION simhash;
SELECT simhash('中国') = :utf8_zh AS sql_ascii_takes_utf8_bytes;
\set VERBOSITY sqlstate
SELECT simhash(convert_from('\xff41'::bytea, 'SQL_ASCII'));
\set VERBOSITY default
\c simhash_regress
DROP DATABASE simhash_ascii;
