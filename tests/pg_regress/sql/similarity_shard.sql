-- Similarity across shards (issue 35): where a text's copies go, a contract like the
-- fingerprint (golden values, the same as crates/simhash-core/src/similarity/shard.rs pins),
-- and one shard's part of a bulk run. The sharded setup itself runs in
-- tests/integration/sharded_similarity.sh (2 coordinators and 3 shards).
CREATE EXTENSION IF NOT EXISTS simhash;

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

-- One shard's pairs, over 3 shards, each shard over the copies routed to it: together one
-- node's, each once.
CREATE TABLE sim_shard_texts AS
SELECT g::bigint AS id, CASE WHEN g % 3 = 0 THEN b || '又一次' ELSE b END AS body
  FROM (SELECT g, repeat(md5((g / 3)::text), 3) AS b FROM generate_series(1, 300) g) x;
CREATE TABLE sim_shard_got AS
SELECT s, p.* FROM generate_series(0, 2) s,
     simhash_similarity_owned_pairs(format('SELECT id, body FROM sim_shard_texts WHERE %s = ANY (simhash_similarity_owners(body, 3))', s), 0.5, s, 3) p;
SELECT count(*) AS pairs, count(DISTINCT (id1, id2)) AS distinct_pairs,
       (SELECT count(*) FROM simhash_similarity_pairs('SELECT id, body FROM sim_shard_texts', 0.5)) AS one_node,
       (SELECT count(*) FROM ((SELECT id1, id2, similarity FROM sim_shard_got
                               EXCEPT ALL SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM sim_shard_texts', 0.5))
                              UNION ALL
                              (SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM sim_shard_texts', 0.5)
                               EXCEPT ALL SELECT id1, id2, similarity FROM sim_shard_got)) x) AS differ
  FROM sim_shard_got;
-- No copy table: no pairs, under either measure (the trailing measure, 2 by default, or 1:
-- 4.x's simhash_similarity_shard_pairs_m1 passes 1).
CREATE TABLE sim_shard_empty (shard int, id bigint, body text);
SELECT count(*) FROM simhash_similarity_shard_pairs('sim_shard_empty', 0.5, 3);
SELECT (SELECT count(*) FROM simhash_similarity_shard_pairs('sim_shard_empty', 0.5, 3, 1)) AS measure_1,
       (SELECT count(*) FROM simhash_similarity_shard_pairs_m1('sim_shard_empty', 0.5, 3)) AS m1;

-- Errors: 22023.
\set VERBOSITY sqlstate
SELECT simhash_similarity_key_owner(1, 0);
SELECT simhash_similarity_owners('x', -1);
SELECT count(*) FROM simhash_similarity_owned_pairs('SELECT id, body FROM sim_shard_texts', 0.2, 0, 3);
SELECT count(*) FROM simhash_similarity_owned_pairs('SELECT id, body FROM sim_shard_texts', 1.5, 0, 3);
SELECT count(*) FROM simhash_similarity_owned_pairs('SELECT id, body FROM sim_shard_texts', 0.5, 3, 3);
\set VERBOSITY default
SELECT simhash_similarity_owners('x', 0);
SELECT count(*) FROM simhash_similarity_owned_pairs('SELECT id, body FROM sim_shard_texts', 0.2, 0, 3);
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
DROP TABLE sim_shard_texts, sim_shard_got, sim_shard_empty, sim_shard_docs;
