-- Texts stored compressed (issue 55, item 4; src/text.rs, crates/simhash-core/src/text/pglz.rs):
-- a text of 1 MB or more stored pglz-compressed is decompressed by the extension, with a check
-- for cancellation every megabyte, where PostgreSQL's detoast had none. Every function reads
-- it as PostgreSQL's detoast does: the same fingerprint, keys and measures as the same text
-- held in memory uncompressed (`body || ''`, a new value).
CREATE EXTENSION IF NOT EXISTS simhash;

CREATE TABLE stored(id int PRIMARY KEY, body text);
ALTER TABLE stored ALTER body SET COMPRESSION pglz;
-- A quarter of the corpus's paragraphs in two orders (1.4 MB each; repeats near and far, which
-- pglz's copies of 3 to 273 bytes from 4,095 back meet in every form), and one of 0.5 MB,
-- below the size the extension decompresses itself.
INSERT INTO stored
SELECT n, string_agg(body || ' ' || (id % (n + 1)), E'\n' ORDER BY (id * n) % 1009, id)
FROM corpus, (VALUES (1), (2)) v(n) WHERE id % 4 = 0 GROUP BY n;
INSERT INTO stored SELECT 3, left(string_agg(body, E'\n' ORDER BY id), 170000) FROM corpus;
-- Two texts stored another way: lz4-compressed, and out of line uncompressed.
CREATE TABLE stored_other(id int PRIMARY KEY, lz4 text COMPRESSION lz4, plain text);
ALTER TABLE stored_other ALTER plain SET STORAGE EXTERNAL;
INSERT INTO stored_other SELECT id, body || '', body || '' FROM stored WHERE id = 2;

SELECT id, pg_column_compression(body) AS method, octet_length(body) >= 1048576 AS over_1mb,
       pg_column_size(body) < octet_length(body) AS compressed
FROM stored ORDER BY id;
SELECT pg_column_compression(lz4), pg_column_compression(plain),
       pg_column_size(plain) >= octet_length(plain) AS uncompressed FROM stored_other;

-- The same answers as for the text in memory.
SELECT id,
       simhash(body) = simhash(body || '') AS fingerprint,
       simhash_keys(body) = simhash_keys(body || '') AS keys,
       simhash_similarity(body, body || '') = 1 AS similarity
FROM stored ORDER BY id;
SELECT simhash(lz4) = simhash(lz4 || '') AS lz4, simhash(plain) = simhash(plain || '') AS plain,
       simhash(lz4) = simhash(plain) AS same_text
FROM stored_other;
-- Two values of the table at once, each decompressed on its own.
SELECT a.id, b.id, simhash_similarity(a.body, b.body) = simhash_similarity(a.body || '', b.body || '') AS same
FROM stored a JOIN stored b ON a.id = 1 AND b.id = 2;

-- A cancelled read ends with 57014, and the session goes on.
SET statement_timeout = '10ms';
\set VERBOSITY sqlstate
SELECT simhash(body) FROM stored WHERE id = 2;
\set VERBOSITY default
RESET statement_timeout;
SELECT simhash(body) = simhash(body || '') AS after_a_cancel FROM stored WHERE id = 2;
