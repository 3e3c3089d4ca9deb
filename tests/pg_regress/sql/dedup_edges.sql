-- Configurations in which a dedup trigger would silently do the wrong thing (issue 49): each
-- trigger refuses them at its first row, with an error that names the problem. On 5.2.0
-- every insert below succeeded and corrupted a row or checked nothing. Then messages that
-- misled, and scores out of range.
CREATE EXTENSION IF NOT EXISTS simhash;

-- 1. A link column that is the text, the fingerprint, the segments or the key column: a
-- link would overwrite it (5.2.0 set fp to NULL, body to NULL or to another row's key).
CREATE TABLE edge_link(id bigint PRIMARY KEY, body text, fp bigint, segs bigint[], note text, dup_of bigint);
CREATE INDEX ON edge_link USING gin (body simhash_ops);
CREATE FUNCTION edge_fire(how text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('CREATE TRIGGER edge BEFORE INSERT ON edge_link FOR EACH ROW EXECUTE FUNCTION %s', how);
    r := regress_try($q$INSERT INTO edge_link(id, body) VALUES (1, 'the quick brown fox jumps over the lazy dog')$q$);
    DROP TRIGGER edge ON edge_link;
    DELETE FROM edge_link;
    RETURN r;
END $$;
SELECT how, edge_fire(how) FROM (VALUES
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', 'fp')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', 'body')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', 'id')$$),
    ($$simhash_similarity_dedup_trigger('body', '0.5', 'link', 'body')$$),
    ($$simhash_similarity_dedup_trigger('body', '0.5', 'link', 'id')$$),
    ($$simhash_segments_dedup_trigger('segs', 'body', '0.5', 'link', 'segs')$$),
    ($$simhash_segments_dedup_trigger('segs', 'body', '0.5', 'link', 'id')$$),
    -- A column of its own: fine.
    ($$simhash_dedup_trigger('fp', 'body', '3', 'link', 'dup_of')$$),
    ($$simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of')$$)
) v(how);
-- A text key linked to the text column (the issue's second case).
CREATE TABLE edge_textkey(body text PRIMARY KEY);
CREATE TRIGGER edge BEFORE INSERT ON edge_textkey FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'body');
SELECT regress_try($$INSERT INTO edge_textkey VALUES ('the quick brown fox jumps over the lazy dog')$$) AS text_key_link;
SELECT count(*) AS rows FROM edge_textkey;

-- 2. A stored generated column as the text: computed after BEFORE triggers, so the trigger
-- would read NULL (5.2.0 let two identical rows in, and left fp NULL).
CREATE TABLE edge_gen(id int PRIMARY KEY, title text, body text, fp bigint, segs bigint[], dup_of int,
                      norm text GENERATED ALWAYS AS (lower(title) || ' ' || body) STORED);
CREATE INDEX ON edge_gen USING gin (norm simhash_ops);
SELECT how, regress_try(format($f$CREATE TRIGGER edge BEFORE INSERT ON edge_gen FOR EACH ROW EXECUTE FUNCTION %s;
                                   INSERT INTO edge_gen(id, title, body) VALUES (1, 'Fox', 'the quick brown fox jumps over the lazy dog')$f$, how))
FROM (VALUES
    ($$simhash_similarity_dedup_trigger('norm', '0.5', 'reject')$$),
    ($$simhash_update_trigger('fp', 'norm')$$),
    ($$simhash_dedup_trigger('fp', 'norm', '3', 'reject')$$),
    ($$simhash_segments_dedup_trigger('segs', 'norm', '0.5', 'reject')$$)
) v(how);
SELECT count(*) AS rows FROM edge_gen;

-- 3. A dedup trigger created on a partitioned table is cloned onto each partition, where it
-- would check only the partition a row goes to (5.2.0 accepted both rows below). Created on
-- a partition itself, it dedups within that partition, as documented.
CREATE TABLE edge_pt(id int, body text, fp bigint, segs bigint[]) PARTITION BY RANGE (id);
CREATE TABLE edge_pt_a PARTITION OF edge_pt FOR VALUES FROM (0) TO (100);
CREATE TABLE edge_pt_b PARTITION OF edge_pt FOR VALUES FROM (100) TO (200);
CREATE INDEX ON edge_pt USING gin (body simhash_ops);
SELECT how, regress_try(format($f$CREATE TRIGGER edge BEFORE INSERT ON edge_pt FOR EACH ROW EXECUTE FUNCTION %s;
                                   INSERT INTO edge_pt(id, body) VALUES (1, 'the quick brown fox jumps over the lazy dog'),
                                                                        (150, 'the quick brown fox jumps over the lazy dog')$f$, how))
FROM (VALUES
    ($$simhash_similarity_dedup_trigger('body', '0.5', 'reject')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'reject')$$),
    ($$simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject')$$)
) v(how);
SELECT count(*) AS rows FROM edge_pt;
CREATE TRIGGER edge BEFORE INSERT ON edge_pt_a FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'reject');
SELECT regress_try($$INSERT INTO edge_pt(id, body) VALUES (1, 'the quick brown fox jumps over the lazy dog')$$) AS first,
       regress_try($$INSERT INTO edge_pt(id, body) VALUES (2, 'the quick brown fox jumps over the lazy dog')$$) AS same_partition,
       regress_try($$INSERT INTO edge_pt(id, body) VALUES (150, 'the quick brown fox jumps over the lazy dog')$$) AS other_partition;

-- 4. Messages. Options that are JSON but no object are reported as options (5.2.0 read '[]'
-- and 'null' as a misplaced link column); a score outside [0, 1] is no simhash_score (5.2.0
-- accepted 5, -1 and NaN).
SELECT how, edge_fire(how) FROM (VALUES
    ($$simhash_similarity_dedup_trigger('body', '0.5', 'reject', '[]')$$),
    ($$simhash_similarity_dedup_trigger('body', '0.5', 'reject', 'null')$$),
    ($$simhash_dedup_trigger('fp', 'body', '3', 'reject', '[]')$$),
    ($$simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject', 'null')$$)
) v(how);
SELECT v, regress_try(format('SELECT %s::simhash_score', v)) AS cast
FROM (VALUES ('0'), ('1'), ('0.5'), ('5'), ('(-1)'), ($$'NaN'$$)) x(v);

-- 5. A bulk function's query: one SELECT (5.2.0: 42P11 "cannot open multi-query plan as
-- cursor" for an empty one, and "DELETE is not allowed in a non-volatile function", a
-- function the user never wrote, for a DELETE … RETURNING).
SET client_min_messages = warning;
SELECT q, regress_try(format('SELECT * FROM simhash_duplicates(%L, 3)', q)) AS duplicates,
       regress_try(format('SELECT * FROM simhash_similarity_pairs(%L, 0.5)', replace(q, 'fp', 'body'))) AS similarity_pairs
FROM (VALUES (''), ('  ;  '),
             ('SELECT id, fp FROM edge_link; SELECT 1'),
             ('DELETE FROM edge_link RETURNING id, fp'),
             ('SELECT id, fp FROM edge_link FOR UPDATE'),
             ('WITH d AS (DELETE FROM edge_link RETURNING *) SELECT id, fp FROM d'),
             ('SELECT id, fp FROM edge_link'),
             ('TABLE edge_link')) x(q);
RESET client_min_messages;

-- 6. Two rows of one id: every bulk function refuses the query (21000), before any pair
-- (5.2.0: simhash_clusters gave (1, 1) twice, simhash_similarity_pairs over ids 1, 1, 2 gave
-- (1, 2) twice, simhash_duplicates no pair). The corpus of simhash_duplicates(batch,
-- corpus) streams and is not held: its ids are checked where a repeat shows, an id whose
-- pairs come again (adjacent or not). Rows with a NULL value take no part, so their ids are
-- free.
CREATE TABLE edge_ids(id bigint, body text, fp bigint, segs bigint[], keys bytea);
INSERT INTO edge_ids(id, body) VALUES (1, 'the quick brown fox jumps over the lazy dog'),
    (1, 'the quick brown fox jumps over the lazy dog'), (2, 'the quick brown fox jumps over the lazy dog!'),
    (3, NULL), (3, NULL);
UPDATE edge_ids SET fp = 42 + id % 3, segs = simhash_segments(body), keys = simhash_similarity_band_keys(body, 0.5);
SET client_min_messages = warning;
SELECT f, regress_try(format('SELECT * FROM %s', f)) AS result
FROM (VALUES
    ($$simhash_duplicates('SELECT id, fp FROM edge_ids', 3)$$),
    ($$simhash_duplicates('SELECT id, fp, body FROM edge_ids', 3)$$),
    ($$simhash_clusters('SELECT id, fp FROM edge_ids', 3)$$),
    ($$simhash_duplicates('SELECT id, fp FROM edge_ids', 'SELECT 9::bigint, 42::bigint', 3)$$),
    ($$simhash_duplicates('SELECT 9::bigint, 42::bigint', 'SELECT id, fp FROM edge_ids', 3)$$),
    ($$simhash_duplicates('SELECT 9::bigint, 42::bigint, body FROM edge_ids LIMIT 1', 'SELECT id, fp, body FROM edge_ids', 3)$$),
    ($$simhash_duplicates('SELECT 9::bigint, 42::bigint', 'SELECT id, fp FROM edge_ids WHERE id > 1', 3)$$),
    ($$simhash_duplicates('SELECT 9::bigint, 42::bigint', 'VALUES (1::bigint, 42::bigint), (2, 42), (1, 42)', 3)$$),
    ($$simhash_duplicates('SELECT 9::bigint, 42::bigint', 'VALUES (1::bigint, 42::bigint), (2, 42), (3, 42)', 3)$$),
    ($$simhash_owned_duplicates('SELECT id, fp FROM edge_ids', 3, 0, 2)$$),
    ($$simhash_similarity_pairs('SELECT id, body FROM edge_ids', 0.5)$$),
    ($$simhash_similarity_pairs('SELECT id, body FROM edge_ids', 0.2)$$),
    ($$simhash_similarity_clusters('SELECT id, body FROM edge_ids', 0.5)$$),
    ($$simhash_similarity_pairs_d1('SELECT id, body FROM edge_ids', 0.5)$$),
    ($$simhash_similarity_clusters_d1('SELECT id, body FROM edge_ids', 0.5)$$),
    ($$simhash_similarity_pairs_m1('SELECT id, body FROM edge_ids', 0.5)$$),
    ($$simhash_similarity_owned_pairs_m1('SELECT id, body FROM edge_ids', 0.5, 0, 2)$$),
    ($$simhash_similarity_home_pairs('SELECT id, body FROM edge_ids', 'SELECT 9::bigint, keys FROM edge_ids LIMIT 1', 0.5)$$),
    ($$simhash_similarity_home_pairs('SELECT 9::bigint, body FROM edge_ids LIMIT 1', 'SELECT id, keys FROM edge_ids', 0.5)$$),
    ($$simhash_similarity_band_candidates('SELECT id, simhash_similarity_band_slice(keys, 0, 0, 1) FROM edge_ids WHERE keys IS NOT NULL', 0.5)$$),
    ($$simhash_segment_pairs('SELECT id, segs FROM edge_ids', 0.5)$$),
    ($$simhash_segment_clusters('SELECT id, segs FROM edge_ids', 0.5)$$),
    ($$simhash_similarity_pairs('SELECT id, body FROM edge_ids WHERE id > 1', 0.5)$$)) x(f);

-- 7. simhash_duplicates(query, NULL) resolves to the form (batch, corpus): 22004 instead of
-- no row (5.2.0 returned an empty set).
SELECT regress_try($$SELECT * FROM simhash_duplicates('SELECT id, fp FROM edge_ids', NULL)$$) AS corpus_null,
       regress_try($$SELECT * FROM simhash_duplicates(NULL, 'SELECT id, fp FROM edge_ids')$$) AS batch_null,
       regress_try($$SELECT * FROM simhash_duplicates('SELECT 9::bigint, 42::bigint', 'SELECT 9::bigint, 42::bigint', NULL)$$) AS k_null;
RESET client_min_messages;

-- (Bulk pairs of texts of one to six shingles, issue 49's fourth case: similarity_pairs.sql.)

DROP TABLE edge_ids;
DROP TABLE edge_link, edge_textkey, edge_gen, edge_pt;
DROP FUNCTION edge_fire(text);
