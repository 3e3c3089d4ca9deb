-- No row lost for its figures (measure 2, 5.0.0): rows that differ only in their figures
-- (invoices, a month's index quotes, ten years of a statistics row, a release's "Changed in
-- version" lines) are different rows, and the similarity dedup trigger with README's
-- settings takes every one of them; a repost of any of them (a prefix, a trailing source,
-- a letter changed, never a figure) is still rejected. Measure 1 read every digit as 0, so
-- it took all the rows of a set for one (similarity_m1.sql, section 6).
CREATE EXTENSION IF NOT EXISTS simhash;

CREATE TABLE fig(id int PRIMARY KEY, set text NOT NULL, body text NOT NULL);
CREATE INDEX fig_body ON fig USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON fig
    FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'reject', '{"min_containment": 0.8}');
-- full_width(s): People's Daily's digits (full-width) and decimal point (a middle dot, or
-- the full-width stop, which NFKC makes '.').
CREATE FUNCTION pg_temp.full_width(s text, point text DEFAULT '·') RETURNS text LANGUAGE sql IMMUTABLE
    AS $$ SELECT translate(s, '0123456789.', '０１２３４５６７８９' || point) $$;
CREATE TEMP TABLE items(id int PRIMARY KEY, set text, body text);
-- (a) 1,000 invoices: the number, quantity, item, unit price, total and due date vary
-- (quantity and item together never repeat: 97 * 89 > 1,000).
INSERT INTO items
SELECT n, 'a invoices', format('Invoice %s: %s units of item %s at %s EUR, total %s EUR, due %s',
                               20000 + n * 7, q, i, to_char(p, 'FM99990.00'), to_char(q * p, 'FM9,999,990.00'),
                               to_char(date '2024-01-01' + n * 37 % 730, 'YYYY-MM-DD'))
  FROM generate_series(1, 1000) n,
       LATERAL (SELECT 1 + n * 7 % 97 AS q, 100 + n * 13 % 89 AS i, (500 + n * 7331 % 99500) / 100.0 AS p) v;
-- (b) a month of daily index quotes: People's Daily's "上证指数" line (open, high, low,
-- close) and an English close, for 31 days.
INSERT INTO items
SELECT 2000 + d, 'b quotes', '上证指数' || pg_temp.full_width(format('%s　%s　%s　%s', o, o + 6.42 + d % 5, o - 4.17 - d % 3, c))
  FROM generate_series(1, 31) d,
       LATERAL (SELECT 1137.53 + d * 3.19 AS o, 1139.08 + d * 3.31 + (d * 7 % 11) AS c) v
UNION ALL
SELECT 2100 + d, 'b quotes', format('S&P 500 closed at %s, %s %s%%', to_char(c, 'FM9,999.00'),
                                    CASE WHEN d % 3 = 0 THEN 'down' ELSE 'up' END, to_char(0.07 + d * 0.13 % 1.9, 'FM0.00'))
  FROM generate_series(1, 31) d, LATERAL (SELECT 4512.35 + d * 11.37 AS c) v;
-- (c) ten years of a statistics row (output, last year's, growth): People's Daily's table
-- row, its figures run together, and an English one.
INSERT INTO items
SELECT 3000 + y, 'c statistics', '大型拖拉机（万台）' || pg_temp.full_width(format('%s%s%s', to_char(a, 'FM990.00'), to_char(a - 2.47, 'FM990.00'),
                                                                        to_char(9.13 + y * 0.71, 'FM90.00')), '．')
  FROM generate_series(1, 10) y, LATERAL (SELECT 26.40 + y * 2.83 AS a) v
UNION ALL
SELECT 3100 + y, 'c statistics', format('Grain output (million tonnes): %s, up %s%% on the previous year', to_char(a, 'FM990.0'),
                                        to_char(1.3 + y * 0.4, 'FM0.0'))
  FROM generate_series(1, 10) y, LATERAL (SELECT 445.9 + y * 5.7 AS a) v;
-- (d) a release's "Changed in version" lines: one sentence for twelve versions, and others.
INSERT INTO items
SELECT 4000 + v, 'd versions', format('Changed in version 3.%s: Accepts a path-like object.', v) FROM generate_series(1, 12) v
UNION ALL
SELECT 4100 + n, 'd versions', s FROM unnest(ARRAY[
    'Changed in version 3.3: Added the dir_fd parameter.',
    'Changed in version 3.10: Added the dir_fd parameter.',
    'Changed in version 3.4: The new file descriptor is now non-inheritable.',
    'Changed in version 3.5: If the system call is interrupted and the signal handler does not raise an exception, the function now retries the system call.',
    'Changed in version 3.6: If the system call is interrupted and the signal handler does not raise an exception, the function now retries the system call.',
    'Changed in version 3.11: The encoding parameter was added.']) WITH ORDINALITY x(s, n);
SELECT set, count(*) AS items, min(body) AS example FROM items GROUP BY set ORDER BY set;

-- 1. Every row goes in, one INSERT each: none is rejected, in any set.
CREATE TEMP TABLE tried AS
SELECT id, set, regress_try(format('INSERT INTO fig VALUES (%s, %L, %L)', id, set, body)) AS result FROM items ORDER BY id;
SELECT t.set, count(*) AS items, count(*) FILTER (WHERE t.result = 'ok') AS inserted,
       (SELECT count(*) FROM fig f WHERE f.set = t.set) AS rows
  FROM tried t GROUP BY t.set ORDER BY t.set;
SELECT id, result FROM tried WHERE result <> 'ok' ORDER BY id;
-- What measure 1 made of them: the rows of each set like its first at 0.5 or more.
SELECT set, count(*) FILTER (WHERE simhash_similarity_m1(body, (SELECT body FROM items f WHERE f.set = i.set ORDER BY id LIMIT 1)) >= 0.5) AS m1_like_first,
       count(*) FILTER (WHERE simhash_similarity(body, (SELECT body FROM items f WHERE f.set = i.set ORDER BY id LIMIT 1)) >= 0.5) AS m2_like_first
  FROM items i GROUP BY set ORDER BY set;

-- 2. Reposts are rejected (23505), each as a near-duplicate of its own original: a prefix
-- ("Fwd: ", "转载："), a trailing source, or one letter changed; every figure as it was.
CREATE TEMP TABLE reposts(id int GENERATED ALWAYS AS IDENTITY (START 10000) PRIMARY KEY, of int, how text, body text);
INSERT INTO reposts(of, how, body)
SELECT id, 'Fwd: ', 'Fwd: ' || body FROM items WHERE id IN (1, 500, 1000, 2105, 3103, 4001, 4012, 4104)
UNION ALL SELECT id, '转载：', '转载：' || body FROM items WHERE id IN (2001, 2031, 3001, 3010)
UNION ALL SELECT id, '(via Reuters)', body || ' (via Reuters)' FROM items WHERE id IN (2, 2117, 2131, 3105, 4105)
UNION ALL SELECT id, '（新华社）', body || '（新华社）' FROM items WHERE id IN (2015, 3005)
UNION ALL SELECT id, 'a letter', replace(replace(replace(replace(body, 'units', 'unite'), 'closed', 'clozed'),
                                                 'object', 'objekt'), 'previous', 'prewious')
  FROM items WHERE id IN (3, 999, 2120, 3107, 4006, 4011);
CREATE TEMP TABLE reposted AS
SELECT r.id, r.of, r.how, regress_try(format('INSERT INTO fig VALUES (%s, %L, %L)', r.id, 'repost', r.body)) AS result
  FROM reposts r ORDER BY r.id;
SELECT of, how, left(result, 5) AS sqlstate, result LIKE format('%%Key (id)=(%s) has similarity%%', of) AS names_its_original,
       substring(result FROM 'has similarity ([0-9.]+)') AS similarity
  FROM reposted ORDER BY id;
SELECT count(*) AS reposts_in FROM fig WHERE set = 'repost';

-- 3. People's Daily's market overviews (the corpus): each index's line of one week (or
-- year) against its line of another share no figure: measure 2 scores them 0.3 at most, and
-- measure 1, every digit a 0, 1. They go in through the trigger too.
CREATE TEMP TABLE quotes AS
SELECT id, body, substring(body FROM '^[^０-９]+') AS name FROM corpus
 WHERE body ~ '^(上证|深证|成份指数)' AND body ~ '[０-９][．·][０-９]' AND length(body) < 40;
SELECT name, count(*) AS lines, min(body) AS example FROM quotes GROUP BY name ORDER BY name;
SELECT count(*) AS pairs, max(simhash_similarity(a.body, b.body)::float8) <= 0.3 AS m2_at_most_03,
       round(max(simhash_similarity(a.body, b.body))::numeric, 3) AS m2_max,
       min(simhash_similarity_m1(a.body, b.body)::float8) AS m1_min, max(simhash_similarity_m1(a.body, b.body)::float8) AS m1_max
  FROM quotes a JOIN quotes b ON a.name = b.name AND a.id < b.id;
SELECT count(*) AS lines, count(*) FILTER (WHERE regress_try(format('INSERT INTO fig VALUES (%s, %L, %L)', 100000 + id, 'corpus', body)) = 'ok') AS inserted
  FROM quotes;

-- 4. The fingerprint trigger as docs/fingerprints.md gives it (skip), 6.0's: the same rows all
-- go in, though fingerprints leave figures out (a set's rows are a few bits apart, most 0),
-- since the dedup decision reads the figures. 5.x's trigger (simhash_dedup_trigger_d1) kept
-- few rows of each set. The reposts go in too: a prefix or a source moves a short text's
-- fingerprint more than 3 bits (none is within 3 of its original), which is why
-- docs/fingerprints.md sends short texts to the similarity trigger.
CREATE TABLE fig_fp(id int PRIMARY KEY, set text NOT NULL, body text NOT NULL, fp bigint);
CREATE TRIGGER dedup BEFORE INSERT ON fig_fp FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
CREATE TABLE fig_fp_d1(id int PRIMARY KEY, set text NOT NULL, body text NOT NULL, fp bigint);
CREATE TRIGGER dedup BEFORE INSERT ON fig_fp_d1 FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger_d1('fp', 'body', '3', 'skip');
INSERT INTO fig_fp SELECT id, set, body FROM items ORDER BY id;
INSERT INTO fig_fp_d1 SELECT id, set, body FROM items ORDER BY id;
SELECT i.set, count(*) AS items, count(f.id) AS kept, count(d.id) AS kept_by_d1,
       count(*) FILTER (WHERE simhash(i.body) IS NOT NULL AND EXISTS (
           SELECT FROM items j WHERE j.set = i.set AND j.id < i.id AND hamming(simhash(j.body), simhash(i.body)) <= 3)) AS within_3_of_an_earlier_row
  FROM items i LEFT JOIN fig_fp f USING (id) LEFT JOIN fig_fp_d1 d USING (id) GROUP BY i.set ORDER BY i.set;
INSERT INTO fig_fp SELECT id, 'repost', body FROM reposts ORDER BY id;
SELECT count(*) AS reposts, count(*) FILTER (WHERE NOT EXISTS (SELECT FROM fig_fp f WHERE f.id = r.id)) AS skipped,
       count(*) FILTER (WHERE hamming(simhash(r.body), simhash(i.body)) <= 3) AS within_3_of_original,
       count(*) FILTER (WHERE simhash(r.body) IS NULL) AS without_fingerprint
  FROM reposts r JOIN items i ON i.id = r.of;

DROP TABLE fig, fig_fp, fig_fp_d1;
