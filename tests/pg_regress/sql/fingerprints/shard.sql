-- Scaling out (issue 12): the key-routing functions, whose hash is a contract like the
-- fingerprint (golden values, the same as crates/simhash-core/src/fingerprints/shard.rs pins), the
-- fingerprint-only dedup trigger, and simhash_components. The sharded setup itself runs in
-- tests/integration/sharded.sh (a coordinator and 3 shards).
CREATE EXTENSION IF NOT EXISTS simhash;

-- regress_try(sql) (tests/harness/regress_try.sql): 'ok', or the error as SQLSTATE: message / DETAIL / HINT.

-- Golden values: 0x0123456789abcdef at k = 3 over 16 shards, and two more shapes.
SELECT j, simhash_key_owner(x'0123456789abcdef'::bigint, j, 3, 16) FROM generate_series(0, 3) j;
SELECT simhash_key_owners(x'0123456789abcdef'::bigint, 3, 16);
SELECT simhash_key_owner(x'0123456789abcdef'::bigint, 0, 0, 1000) AS k0, simhash_key_owner(-1, 6, 6, 7) AS k6;
-- One shard owns everything; NULL in, NULL out.
SELECT simhash_key_owners(42, 63, 1), simhash_key_owners(NULL, 3, 3), simhash_pair_owner(1, NULL, 3, 3);

-- Errors: 22023.
\set VERBOSITY sqlstate
SELECT simhash_key_owner(1, 4, 3, 16);
SELECT simhash_key_owner(1, -1, 3, 16);
SELECT simhash_key_owners(1, 64, 16);
SELECT simhash_key_owners(1, -1, 16);
SELECT simhash_pair_owner(1, 2, 3, 0);
\set VERBOSITY default
SELECT simhash_key_owner(1, 4, 3, 16);
SELECT simhash_key_owners(1, 3, 0);

-- Against brute force: 20,000 pairs at distance 0..3 (random bits flipped). Each meets on
-- its pair owner, which holds a key of both (the owner of their first equal block), and
-- pair_owner is symmetric.
CREATE TABLE shard_pairs AS
SELECT g, a, a # coalesce((SELECT bit_or(1::bigint << (hashint8extended(g * 8 + b, 2) & 63)::int)
                            FROM generate_series(1, g % 4) b), 0) AS b, 3 + g % 14 AS shards
FROM (SELECT g, hashint8extended(g, 1) AS a FROM generate_series(1, 20000) g) x;
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE bit_count((a # b)::bit(64)) > 3) AS beyond_3,
       count(*) FILTER (WHERE o IS NULL OR o <> simhash_pair_owner(b, a, 3, shards)
                           OR NOT o = ANY (simhash_key_owners(a, 3, shards))
                           OR NOT o = ANY (simhash_key_owners(b, 3, shards))
                           OR o <> simhash_key_owner(a, (SELECT min(j) FROM generate_series(0, 3) j
                                                          WHERE ((a # b) >> (16 * j)) & 65535 = 0), 3, shards)) AS violations
FROM (SELECT *, simhash_pair_owner(a, b, 3, shards) AS o FROM shard_pairs) p;
-- Key copies per row with 16 shards and k = 3: 16·(1 − (15/16)^4) = 3.64 expected.
SELECT round(avg(cardinality(simhash_key_owners(hashint8extended(g, 3), 3, 16))), 2) AS copies_per_row
FROM generate_series(1, 100000) g;

-- simhash_components over the pairs of simhash_duplicates equals simhash_clusters: the
-- corpus at k = 6, and 3,000 fingerprints in chains (each within 2 bits of the previous).
CREATE TABLE shard_fps AS SELECT id::bigint, simhash(body) AS fp FROM corpus
UNION ALL
SELECT 100000 + g, hashint8extended(g / 30, 7) # ((1::bigint << (g % 30)) - 1) FROM generate_series(1, 3000) g;
SET client_min_messages = warning;
SELECT count(*) AS cluster_rows, count(DISTINCT cluster_id) AS clusters,
       count(*) FILTER (WHERE c.id IS NULL OR s.id IS NULL) AS differ
FROM simhash_components('SELECT id1, id2 FROM simhash_duplicates(''SELECT id, fp FROM shard_fps'', 6)') c
FULL JOIN simhash_clusters('SELECT id, fp FROM shard_fps', 6) s USING (id, cluster_id);
-- Over 5 shards, the pairs each owns (simhash_owned_duplicates) partition the pairs.
SELECT count(*) AS owned_pairs,
       count(DISTINCT (id1, id2)) AS distinct_pairs,
       (SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM shard_fps', 6)) AS all_pairs,
       count(*) FILTER (WHERE (id1, id2, distance) NOT IN
                        (SELECT * FROM simhash_duplicates('SELECT id, fp FROM shard_fps', 6))) AS not_a_pair
FROM generate_series(0, 4) s, simhash_owned_duplicates('SELECT id, fp FROM shard_fps', 6, s, 5);
SELECT count(*) AS limited FROM (SELECT * FROM simhash_owned_duplicates('SELECT id, fp FROM shard_fps', 6, 1, 5) LIMIT 3) x;
RESET client_min_messages;
SELECT regress_try('SELECT * FROM simhash_owned_duplicates(''SELECT 1::bigint, 2::bigint'', 3, 5, 5)');
SELECT regress_try('SELECT * FROM simhash_owned_duplicates(''SELECT 1::bigint, 2::bigint'', 64, 0, 5)');
SELECT * FROM simhash_components('VALUES (5::bigint, 9::bigint), (9, 2), (7, 8), (3, 3), (4, NULL)') ORDER BY cluster_id, id;
SELECT regress_try('SELECT * FROM simhash_components(''SELECT 1, 2'')');
SELECT regress_try('SELECT * FROM simhash_components(''SELECT 1::bigint'')');

-- simhash_dedup_fp_trigger: the row brings its fingerprint.
CREATE TABLE shard_keys (id bigint PRIMARY KEY, fp bigint, dup_of bigint);
SELECT simhash_create_blocks('shard_keys', 'fp', 4);
CREATE TRIGGER dedup BEFORE INSERT ON shard_keys FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'reject');
INSERT INTO shard_keys(id, fp) VALUES (1, 255), (2, NULL), (3, -1);
SELECT regress_try('INSERT INTO shard_keys(id, fp) VALUES (4, 255 # 7)');
SELECT regress_try('INSERT INTO shard_keys(id, fp) VALUES (4, 255 # 15)');
SELECT regress_try('INSERT INTO shard_keys(id, fp) VALUES (5, NULL)');
DROP TRIGGER dedup ON shard_keys;
CREATE TRIGGER dedup BEFORE INSERT ON shard_keys FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'link', 'dup_of');
INSERT INTO shard_keys(id, fp) VALUES (6, 255 # 1), (7, -2), (8, 1::bigint << 40);
SELECT * FROM shard_keys ORDER BY id;
DROP TRIGGER dedup ON shard_keys;
CREATE TRIGGER dedup BEFORE INSERT ON shard_keys FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'skip');
INSERT INTO shard_keys(id, fp) VALUES (9, 255 # 3), (10, x'5555555555555555'::bigint);
SELECT id FROM shard_keys WHERE id >= 9;
-- Its arguments.
DROP TRIGGER dedup ON shard_keys;
CREATE TRIGGER dedup BEFORE INSERT ON shard_keys FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'skip', '{"definition": "0"}');
SELECT regress_try('INSERT INTO shard_keys(id, fp) VALUES (11, 0)');
DROP TRIGGER dedup ON shard_keys;
CREATE TRIGGER dedup BEFORE INSERT ON shard_keys FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'link');
SELECT regress_try('INSERT INTO shard_keys(id, fp) VALUES (11, 0)');
DROP TRIGGER dedup ON shard_keys;
CREATE TRIGGER dedup BEFORE INSERT ON shard_keys FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3');
SELECT regress_try('INSERT INTO shard_keys(id, fp) VALUES (11, 0)');
DROP TRIGGER dedup ON shard_keys;
CREATE TABLE shard_gen (id bigint PRIMARY KEY, body text, fp bigint GENERATED ALWAYS AS (simhash(body)) STORED);
CREATE TRIGGER dedup BEFORE INSERT ON shard_gen FOR EACH ROW
    EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'reject');
SELECT regress_try('INSERT INTO shard_gen(id, body) VALUES (1, ''x'')');

-- simhash_shard_trigger checks how it was declared.
CREATE TABLE shard_docs (id bigint PRIMARY KEY, fp bigint);
CREATE TRIGGER keys BEFORE INSERT ON shard_docs FOR EACH ROW
    EXECUTE FUNCTION simhash_shard_trigger('id', 'fp', 'public.shard_keys', '3');
SELECT regress_try('INSERT INTO shard_docs VALUES (1, 1)');
DROP TRIGGER keys ON shard_docs;
CREATE TRIGGER keys BEFORE INSERT ON shard_docs FOR EACH ROW
    EXECUTE FUNCTION simhash_shard_trigger('id', 'fp', 'public.shard_keys', '3', '2', 'link');
SELECT regress_try('INSERT INTO shard_docs VALUES (1, 1)');
DROP TRIGGER keys ON shard_docs;
CREATE TRIGGER keys AFTER INSERT ON shard_docs FOR EACH ROW
    EXECUTE FUNCTION simhash_shard_trigger('id', 'fp', 'public.shard_keys', '3', '2', 'reject');
SELECT regress_try('INSERT INTO shard_docs VALUES (1, 1)');

DROP TABLE shard_pairs, shard_fps, shard_keys, shard_gen, shard_docs;
