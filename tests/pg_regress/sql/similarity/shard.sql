-- Similarity across shards (issues 35 and 39): where a text's copies go, a contract like the
-- fingerprint (golden values, the same as crates/simhash-core/src/similarity/shard.rs pins),
-- and bulk pairs by band keys, each shard's part of a run. The sharded setup itself runs in
-- tests/integration/sharded_similarity.sh (2 coordinators and 3 shards).
CREATE EXTENSION IF NOT EXISTS simhash;
-- The bulk runs say what they do in NOTICEs, some of them every 10 s: not here.
SET client_min_messages = warning;

-- Golden values: keys over 16 shards; a key and its neighbour without the lowest bit share
-- an owner.
SELECT k, simhash_similarity_key_owner(k, 16) FROM unnest(ARRAY[0, 1, 2, 3, 262143, 123456]) k;
SELECT simhash_similarity_key_owner(123456, 3) AS s3, simhash_similarity_key_owner(2, 7) = simhash_similarity_key_owner(3, 7) AS pair;
-- A long text's copies go to its keys' owners; a short one (under 48 shingles) everywhere,
-- as does one without a letter or digit; NULL in, NULL out.
SELECT simhash_similarity_owners('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府。', 16);
SELECT simhash_similarity_owners('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府。', 16)
       = ARRAY(SELECT DISTINCT simhash_similarity_key_owner(k, 16)
                 FROM unnest(simhash_keys('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府。')) k
                ORDER BY 1) AS owners_are_the_keys_owners;
SELECT simhash_similarity_owners('国家主席江泽民发表新年讲话', 5), simhash_similarity_owners('，。', 2),
       simhash_similarity_owners(NULL, 3), simhash_similarity_owners('x', NULL);

-- Bulk pairs over 3 shards by band keys (docs/scaling-out.md): shard s holds the texts of
-- (id / 2) % 3 = s (so that a group of three similar texts has one shard or two) and reads the band keys of the shards simhash_similarity_exchange(s, 3) names;
-- its local pairs come measured, its candidates with a foreign text unmeasured, and measured
-- here as simhash_similarity_shard_pairs does. Together one node's pairs, each once.
CREATE TABLE sim_shard_texts AS
SELECT g::bigint AS id, CASE WHEN g % 3 = 0 THEN b || '又一次' ELSE b END AS body
  FROM (SELECT g, repeat(md5((g / 3)::text), 3) AS b FROM generate_series(1, 300) g) x;
CREATE TABLE sim_shard_keys AS
SELECT (id / 2 % 3)::int AS shard, id, simhash_similarity_band_keys(body, 0.5) AS keys FROM sim_shard_texts;
SELECT count(*) AS texts, min(octet_length(keys)) AS key_bytes, max(octet_length(keys)) AS max_bytes FROM sim_shard_keys;
-- Who reads whose keys: every two shards meet once, at 1 to 6 shards.
SELECT n, string_agg(simhash_similarity_exchange(s, n)::text, ' ' ORDER BY s) AS reads,
       (SELECT count(*) FROM generate_series(0, n - 1) a, unnest(simhash_similarity_exchange(a, n)) b) = n * (n - 1) / 2
       AND NOT EXISTS (SELECT FROM generate_series(0, n - 1) a, generate_series(0, n - 1) b
                        WHERE a < b AND (b = ANY (simhash_similarity_exchange(a, n)))
                                        = (a = ANY (simhash_similarity_exchange(b, n)))) AS every_pair_once
  FROM generate_series(1, 6) n, generate_series(0, n - 1) s GROUP BY n ORDER BY n;
CREATE TABLE sim_shard_got AS
SELECT s, p.* FROM generate_series(0, 2) s,
     simhash_similarity_home_pairs(format('SELECT id, body FROM sim_shard_texts WHERE id / 2 %% 3 = %s', s),
                                   format('SELECT id, keys FROM sim_shard_keys WHERE shard = ANY (%L)', simhash_similarity_exchange(s, 3)),
                                   0.5) p;
SELECT count(*) FILTER (WHERE similarity IS NOT NULL) AS local_pairs,
       count(*) FILTER (WHERE similarity IS NULL) AS candidates_across FROM sim_shard_got;
CREATE TABLE sim_shard_pairs AS
SELECT id1, id2, similarity FROM sim_shard_got WHERE similarity IS NOT NULL
UNION ALL
SELECT least(g.id1, g.id2), greatest(g.id1, g.id2), simhash_similarity(a.body, b.body)::float8
  FROM sim_shard_got g JOIN sim_shard_texts a ON a.id = g.id1 JOIN sim_shard_texts b ON b.id = g.id2
 WHERE g.similarity IS NULL AND simhash_similarity(a.body, b.body) >= 0.5;
SELECT count(*) AS pairs, count(DISTINCT (id1, id2)) AS distinct_pairs,
       (SELECT count(*) FROM simhash_similarity_pairs('SELECT id, body FROM sim_shard_texts', 0.5)) AS one_node,
       (SELECT count(*) FROM ((SELECT * FROM sim_shard_pairs
                               EXCEPT ALL SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM sim_shard_texts', 0.5))
                              UNION ALL
                              (SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM sim_shard_texts', 0.5)
                               EXCEPT ALL SELECT * FROM sim_shard_pairs)) x) AS differ
  FROM sim_shard_pairs;
-- A text without a letter or digit has no keys; keys of another threshold are no keys of
-- this run (22023, below).
SELECT simhash_similarity_band_keys('，。！', 0.5) IS NULL AS no_keys,
       octet_length(simhash_similarity_band_keys('abcdefgh', 0.8)) AS keys_at_0_8;
-- 4.x's bulk pairs over the copies are measure 1's (similarity_m1.sql); no copy table: none.
CREATE TABLE sim_shard_empty (shard int, id bigint, body text);
SELECT count(*) AS m1 FROM simhash_similarity_shard_pairs_m1('sim_shard_empty', 0.5, 3);

-- Bulk pairs by band ranges (5.1.0): shard t of n reads its slice of every text (a text's
-- home shard is (id / 2) % n) and finds the candidates of its bands, each once, tagged with
-- the home of the lower id; the union, repeats removed and measured, is one node's pairs, at
-- 1, 3 and 7 shards, and at 64 (more shards than the 56 bands: some own none).
CREATE TABLE sim_shard_slices AS
SELECT n, t AS shard, k.id, simhash_similarity_band_slice(k.keys, (k.id / 2 % n)::int, t, n) AS slice
  FROM sim_shard_keys k, (VALUES (1), (3), (7), (64)) v(n), generate_series(0, n - 1) t
 WHERE k.keys IS NOT NULL;
CREATE TABLE sim_shard_cands AS
SELECT v.n, v.t, c.home, c.id1, c.id2 FROM (SELECT DISTINCT n, shard AS t FROM sim_shard_slices) v,
     simhash_similarity_band_candidates(format('SELECT id, slice FROM sim_shard_slices WHERE n = %s AND shard = %s', v.n, v.t), 0.5) c;
CREATE TABLE sim_shard_one AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM sim_shard_texts', 0.5);
SELECT s.n, min(octet_length(slice)) AS min_bytes, max(octet_length(slice)) AS max_bytes,
       (SELECT count(*) FROM sim_shard_cands c WHERE c.n = s.n) AS candidates,
       (SELECT count(*) - count(DISTINCT (t, id1, id2)) FROM sim_shard_cands c WHERE c.n = s.n) AS repeats_in_a_shard,
       (SELECT count(*) FROM sim_shard_cands c WHERE c.n = s.n AND (c.home <> c.id1 / 2 % s.n OR c.id1 >= c.id2)) AS wrong,
       (SELECT count(*) FROM (
          (SELECT m.* FROM (SELECT DISTINCT id1, id2 FROM sim_shard_cands c WHERE c.n = s.n) c
                JOIN sim_shard_texts a ON a.id = c.id1 JOIN sim_shard_texts b ON b.id = c.id2,
                LATERAL (SELECT c.id1, c.id2, simhash_similarity(a.body, b.body)::float8 AS similarity) m
            WHERE m.similarity >= 0.5
           EXCEPT ALL TABLE sim_shard_one)
          UNION ALL
          (TABLE sim_shard_one EXCEPT ALL
           SELECT m.* FROM (SELECT DISTINCT id1, id2 FROM sim_shard_cands c WHERE c.n = s.n) c
                JOIN sim_shard_texts a ON a.id = c.id1 JOIN sim_shard_texts b ON b.id = c.id2,
                LATERAL (SELECT c.id1, c.id2, simhash_similarity(a.body, b.body)::float8 AS similarity) m
            WHERE m.similarity >= 0.5)) x) AS differ_from_one_node,
       (SELECT count(*) FROM sim_shard_one) AS one_node
  FROM sim_shard_slices s GROUP BY s.n ORDER BY s.n;
-- The second step on each of 3 shards: its texts (a view), the others' (remote_docs), every
-- shard's candidates; together one node's pairs, each once.
DO $$ BEGIN
    FOR s IN 0..2 LOOP
        EXECUTE format('CREATE VIEW sim_shard_here_%s AS SELECT * FROM sim_shard_texts WHERE id / 2 %% 3 = %s', s, s);
        EXECUTE format('CREATE VIEW sim_shard_away_%s AS SELECT * FROM sim_shard_texts WHERE id / 2 %% 3 <> %s', s, s);
    END LOOP;
END $$;
CREATE VIEW sim_shard_cands_3 AS SELECT home, id1, id2 FROM sim_shard_cands WHERE n = 3;
CREATE TABLE sim_shard_ranges AS
SELECT p.* FROM generate_series(0, 2) s,
     simhash_similarity_candidate_pairs(format('sim_shard_here_%s', s)::regclass, 'id', 'body', 'sim_shard_cands_3',
                                        format('sim_shard_away_%s', s)::regclass, s, 0.5) p;
SELECT count(*) AS pairs, count(DISTINCT (id1, id2)) AS distinct_pairs,
       (SELECT count(*) FROM ((TABLE sim_shard_ranges EXCEPT ALL TABLE sim_shard_one)
                              UNION ALL (TABLE sim_shard_one EXCEPT ALL TABLE sim_shard_ranges)) x) AS differ
  FROM sim_shard_ranges;

-- Errors: 22023, 42804.
\set VERBOSITY sqlstate
SELECT simhash_similarity_key_owner(1, 0);
SELECT simhash_similarity_owners('x', -1);
SELECT simhash_similarity_band_keys('abc', 0.2);
SELECT simhash_similarity_band_keys('abc', 1.5);
SELECT simhash_similarity_exchange(3, 3);
SELECT count(*) FROM simhash_similarity_home_pairs('SELECT id, body FROM sim_shard_texts', 'SELECT id, keys FROM sim_shard_keys', 0.2);
SELECT count(*) FROM simhash_similarity_home_pairs('SELECT id, body FROM sim_shard_texts', 'SELECT id, keys FROM sim_shard_keys', 0.8);
SELECT count(*) FROM simhash_similarity_home_pairs('SELECT id, body FROM sim_shard_texts', 'SELECT id, body FROM sim_shard_texts', 0.5);
SELECT simhash_similarity_band_slice('\x00', 0, 0, 3);
SELECT simhash_similarity_band_slice(keys, 0, 3, 3) FROM sim_shard_keys LIMIT 1;
SELECT simhash_similarity_band_slice(keys, -1, 0, 3) FROM sim_shard_keys LIMIT 1;
SELECT count(*) FROM simhash_similarity_band_candidates('SELECT id, slice FROM sim_shard_slices WHERE n = 3', 0.5);
SELECT count(*) FROM simhash_similarity_band_candidates('SELECT id, slice FROM sim_shard_slices WHERE n = 1', 0.2);
SELECT count(*) FROM simhash_similarity_band_candidates('SELECT id, slice FROM sim_shard_slices WHERE n = 1', 0.8);
SELECT count(*) FROM simhash_similarity_band_candidates('SELECT id, keys FROM sim_shard_keys', 0.5);
SELECT count(*) FROM simhash_similarity_band_candidates('SELECT id, id FROM sim_shard_keys', 0.5);
SELECT count(*) FROM simhash_similarity_candidate_pairs('sim_shard_here_0', 'id', 'body', 'sim_shard_cands_3', 'sim_shard_away_0', -1, 0.5);
SELECT count(*) FROM simhash_similarity_candidate_pairs('sim_shard_here_0', 'id', 'body', 'sim_shard_cands_3', 'sim_shard_away_0', 0, 1.5);
\set VERBOSITY default
SELECT simhash_similarity_band_slice('\x00', 0, 0, 3);
SELECT count(*) FROM simhash_similarity_band_candidates('SELECT id, slice FROM sim_shard_slices WHERE n = 3', 0.5);
SELECT count(*) FROM simhash_similarity_band_candidates('SELECT id, slice FROM sim_shard_slices WHERE n = 1', 0.8);
SELECT simhash_similarity_owners('x', 0);
SELECT simhash_similarity_band_keys('abc', 0.2);
SELECT count(*) FROM simhash_similarity_home_pairs('SELECT id, body FROM sim_shard_texts', 'SELECT id, keys FROM sim_shard_keys', 0.8);
-- The trigger's arguments (both measures' triggers check them in
-- simhash_similarity_shard_fire, and name themselves).
CREATE TABLE sim_shard_docs (id bigint, body text);
CREATE TRIGGER t BEFORE INSERT ON sim_shard_docs FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_shard_trigger('id', 'body', 'public.sim_shard_empty', '3', 'link');
INSERT INTO sim_shard_docs VALUES (1, 'x');
DROP TRIGGER t ON sim_shard_docs;
CREATE TRIGGER t AFTER INSERT ON sim_shard_docs FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_shard_trigger('id', 'body', 'public.sim_shard_empty', '3', 'reject');
INSERT INTO sim_shard_docs VALUES (1, 'x');
DROP TRIGGER t ON sim_shard_docs;
CREATE TRIGGER t BEFORE INSERT ON sim_shard_docs FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_shard_trigger_m1('id', 'body', 'public.sim_shard_empty', '3');
INSERT INTO sim_shard_docs VALUES (1, 'x');
-- A measure other than 1 or 2 (22023), before anything is written.
SELECT * FROM simhash_similarity_shard_write_keys('sim_shard_empty', 1, 'x', 3, 3);
SELECT * FROM simhash_similarity_shard_repair('sim_shard_docs', 'id', 'body', 'sim_shard_empty', 3, 0);
DROP VIEW sim_shard_cands_3, sim_shard_here_0, sim_shard_here_1, sim_shard_here_2, sim_shard_away_0, sim_shard_away_1, sim_shard_away_2;
DROP TABLE sim_shard_slices, sim_shard_cands, sim_shard_one, sim_shard_ranges;
DROP TABLE sim_shard_texts, sim_shard_keys, sim_shard_got, sim_shard_pairs, sim_shard_empty, sim_shard_docs;
