-- Work items for concurrent dedup writers (tests/integration/trigger_concurrency.sh, crash.sh):
-- real paragraphs, every third followed by planted variants within distance :k of it: an
-- exact copy, and one character replaced at a quarter, a half, three quarters of its length
-- when that stays within :k. Items are numbered so that a paragraph and its variants are
-- consecutive, hence handed to different writers at the same moment.
--   psql -v k=3 -v stride=7 -v paragraphs=1500 -f dedup_items.sql   (needs a table src(id, body))
-- Creates para(pid, body), cand(pid, var, body, fp) and work(item PRIMARY KEY, body, fp);
-- fingerprints by simhash(), distances by PostgreSQL's bit_count (not the extension's).
CREATE TABLE para AS
SELECT row_number() OVER (ORDER BY id) AS pid, body FROM src
WHERE length(body) BETWEEN 80 AND 300 AND id % :stride = 0
ORDER BY id LIMIT :paragraphs;
CREATE TABLE cand AS
SELECT p.pid, 0 AS var, p.body, simhash(p.body) AS fp FROM para p
UNION ALL
SELECT p.pid, v.var, v.body, simhash(v.body) FROM para p,
    LATERAL (VALUES (1, overlay(p.body placing '某' from length(p.body) / 4 for 1)),
                    (2, overlay(p.body placing '某' from length(p.body) / 2 for 1)),
                    (3, overlay(p.body placing '某' from 3 * length(p.body) / 4 for 1)),
                    (4, p.body)) v(var, body)
WHERE p.pid % 3 = 0;
DELETE FROM cand c USING cand b
WHERE c.var > 0 AND b.pid = c.pid AND b.var = 0
  AND bit_count((c.fp # b.fp)::bit(64)) > :k;
CREATE TABLE work AS
SELECT (row_number() OVER (ORDER BY pid, var) - 1)::int AS item, body, fp FROM cand;
ALTER TABLE work ADD PRIMARY KEY (item);
