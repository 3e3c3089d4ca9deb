-- The dedup decision (6.0.0; docs/decision.md): every dedup path finds candidates by its index
-- and keeps a row apart unless a reader would call the two texts the same passage. Product
-- variants (another colour, size, gender, model, capacity) and log lines of another host go
-- in; their reposts (punctuation, case, a marketing prefix, full-width digits) do not. 5.x's
-- decision, the measure alone, is still there as the _d1 functions. The bulk recipe's star
-- clusters delete only rows with a kept near-duplicate; pairs and clusters equal a brute force.
CREATE EXTENSION IF NOT EXISTS simhash;

-- 1. The decision on the pairs of issue 46, and on reposts of them.
SELECT a, b, round(simhash_similarity(a, b)::numeric, 2) AS similarity, simhash_same_passage(a, b) AS same
  FROM (VALUES ('Leather case for Apple iPhone 13, black', 'Leather case for Apple iPhone 13, brown'),
               ('Men''s running shoes, lightweight, breathable mesh, size 42', 'Women''s running shoes, lightweight, breathable mesh, size 42'),
               ('小米手环7 NFC版 黑色', '小米手环7 NFC版 白色'),
               ('ERROR: connection to 10.0.0.5 refused by host db-primary', 'ERROR: connection to 10.0.0.5 refused by host db-replica'),
               ('Invoice 1001: 8 units of item 331 at 17.5 EUR, total 140.0 EUR, due 2024-01-02',
                'Invoice 1002: 8 units of item 331 at 17.5 EUR, total 140.0 EUR, due 2024-01-02'),
               ('Leather case for Apple iPhone 13, black', 'LEATHER CASE FOR APPLE IPHONE １３ / BLACK'),
               ('小米手环7 NFC版 黑色', '【限时特惠】小米手环7 NFC版 黑色'),
               ('ERROR: connection to 10.0.0.5 refused by host db-primary', 'app-1 | ERROR: connection to 10.0.0.5 refused by host db-primary')) v(a, b);
-- Either way round the same; NULL in, NULL out; a text without a letter or digit is nobody's.
SELECT simhash_same_passage('乔石会见爱沙尼亚议长', '李岚清会见爱沙尼亚议长') AS ab,
       simhash_same_passage('李岚清会见爱沙尼亚议长', '乔石会见爱沙尼亚议长') AS ba,
       simhash_same_passage(NULL, 'x') AS null_in, simhash_same_passage('，。', '，。') AS no_letters;
-- simhash_explain says why: each difference and the verdict, after the shingles.
SELECT kind, item, in_a, in_b FROM simhash_explain('小米手环7 NFC版 黑色', '小米手环7 NFC版 白色') WHERE kind IN ('difference', 'decision');
SELECT kind, item FROM simhash_explain('中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响。',
                                       '本报讯：中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响。（责任编辑：李明）')
 WHERE kind IN ('difference', 'decision');
SELECT count(*) FILTER (WHERE kind IN ('shingle', 'figure')) = (SELECT count(*) FROM simhash_explain_d1('a b c d e f', 'a b c d e g')) AS d1_rows_are_the_shingles
  FROM simhash_explain('a b c d e f', 'a b c d e g');

-- 2. Products: 12 items, each in 5 variants, each posted again 4 ways, through README's
-- similarity trigger (link, min_containment 0.8) and the fingerprint trigger of
-- docs/fingerprints.md (skip): every item and variant goes in unlinked, every repost is linked
-- to (or skipped as) its own item.
CREATE TEMP TABLE items AS
SELECT row_number() OVER (ORDER BY i, k) AS id, i, k, body FROM (
    SELECT i, k, format(t, v[1], v[2], v[3]) AS body
      FROM unnest(ARRAY['%s leather case for Apple iPhone %s, %s, magnetic closure, card slot',
                        '%s running shoes, lightweight, breathable mesh, %s, size %s',
                        '小米手环%s NFC版 %s 运动心率血氧监测 %s',
                        'Samsung Galaxy Watch%s %s GPS smartwatch, %s case, sleep tracking',
                        '%s羽绒服 冬季新款 连帽保暖外套 %s %s码',
                        'Kingston %s USB flash drive %s, %s, metal casing',
                        'ThinkPad X1 Carbon Gen %s laptop, %s, %s RAM, 14-inch display',
                        '%s款运动鞋 透气网面 防滑耐磨 %s %s码',
                        'Stanley %s vacuum flask %s, %s, leakproof lid',
                        '华为 WATCH GT %s 智能手表 %s %s表盘 蓝牙通话',
                        'Osprey %s daypack %s, %s, rain cover included',
                        'LEGO Technic %s set %s for ages %s and up']) WITH ORDINALITY AS tpl(t, i),
           LATERAL (SELECT k, CASE i
               WHEN 1 THEN (ARRAY[['Black','13','black'],['Brown','13','brown'],['Black','14','black'],['Black','13','navy'],['Red','13','red']])[k:k]
               WHEN 2 THEN (ARRAY[['Men''s','blue','42'],['Women''s','blue','42'],['Men''s','grey','42'],['Men''s','blue','43'],['Kids''','blue','42']])[k:k]
               WHEN 3 THEN (ARRAY[['7','黑色','标准版'],['7','白色','标准版'],['8','黑色','标准版'],['7','黑色','Pro版'],['7','粉色','标准版']])[k:k]
               WHEN 4 THEN (ARRAY[['5','Women''s','40mm'],['6','Women''s','40mm'],['5','Men''s','40mm'],['5','Women''s','44mm'],['4','Women''s','40mm']])[k:k]
               WHEN 5 THEN (ARRAY[['男士','黑色','L'],['女士','黑色','L'],['男士','白色','L'],['男士','黑色','XL'],['童装','黑色','L']])[k:k]
               WHEN 6 THEN (ARRAY[['DataTraveler','64GB','silver'],['DataTraveler','128GB','silver'],['DataTraveler','64GB','black'],['DataTraveler','256GB','silver'],['Canvas','64GB','silver']])[k:k]
               WHEN 7 THEN (ARRAY[['11','Intel Core Ultra 7','16GB'],['12','Intel Core Ultra 7','16GB'],['11','Intel Core Ultra 5','16GB'],['11','Intel Core Ultra 7','32GB'],['10','Intel Core Ultra 7','16GB']])[k:k]
               WHEN 8 THEN (ARRAY[['男','蓝色','42'],['女','蓝色','42'],['男','灰色','42'],['男','蓝色','43'],['儿童','蓝色','42']])[k:k]
               WHEN 9 THEN (ARRAY[['Classic','1.0L','green'],['Classic','1.4L','green'],['Classic','1.0L','black'],['Adventure','1.0L','green'],['Classic','0.7L','green']])[k:k]
               WHEN 10 THEN (ARRAY[['4','曜石黑','46mm'],['4','银色','46mm'],['5','曜石黑','46mm'],['4','曜石黑','41mm'],['3','曜石黑','46mm']])[k:k]
               WHEN 11 THEN (ARRAY[['Talon 22','M/L','blue'],['Talon 22','S/M','blue'],['Talon 22','M/L','black'],['Talon 26','M/L','blue'],['Tempest 22','M/L','blue']])[k:k]
               ELSE (ARRAY[['42171','Mercedes-AMG','10'],['42172','Mercedes-AMG','10'],['42171','Mercedes-AMG','12'],['42171','Ferrari','10'],['42170','Mercedes-AMG','10']])[k:k]
             END AS m FROM generate_series(1, 5) k) s,
           LATERAL (SELECT ARRAY[m[1][1], m[1][2], m[1][3]] AS v) x
) p;
CREATE TEMP TABLE reposts AS
SELECT 1000 + row_number() OVER (ORDER BY id, how) AS id, id AS of, how, r AS body FROM items,
       LATERAL (VALUES ('punctuation', replace(replace(body, ', ', ' / '), ' ', '  ')),
                       ('case', upper(body)),
                       ('prefix', CASE WHEN body ~ '[一-龥]' THEN '【限时特惠】' || body ELSE 'NEW! ' || body END),
                       ('fullwidth', translate(body, '0123456789', '０１２３４５６７８９'))) x(how, r);
SELECT count(*) AS items, count(DISTINCT body) AS distinct_bodies, (SELECT count(*) FROM reposts) AS reposts FROM items;

CREATE TABLE products(id int PRIMARY KEY, body text NOT NULL, dup_of int);
CREATE INDEX ON products USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON products FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}');
INSERT INTO products SELECT id, body FROM items ORDER BY id;
INSERT INTO products SELECT id, body FROM reposts ORDER BY id;
-- Items and variants: none linked. Reposts: each linked to its item.
SELECT count(*) FILTER (WHERE p.id < 1000 AND p.dup_of IS NULL) AS variants_kept,
       count(*) FILTER (WHERE p.id > 1000 AND p.dup_of = r.of) AS reposts_linked_to_their_item,
       count(*) FILTER (WHERE p.id > 1000 AND p.dup_of IS DISTINCT FROM r.of) AS reposts_otherwise
  FROM products p LEFT JOIN reposts r ON r.id = p.id;
SELECT r.how, count(*) AS reposts, count(*) FILTER (WHERE p.dup_of = r.of) AS linked
  FROM reposts r JOIN products p USING (id) GROUP BY r.how ORDER BY r.how;
-- 5.x's decision, the measure alone, linked most variants to their first item.
CREATE TABLE products_d1(id int PRIMARY KEY, body text NOT NULL, dup_of int);
CREATE INDEX ON products_d1 USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT ON products_d1 FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger_d1('body', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}');
INSERT INTO products_d1 SELECT id, body FROM items ORDER BY id;
SELECT count(*) FILTER (WHERE dup_of IS NOT NULL) > 30 AS d1_links_variants FROM products_d1;

-- The fingerprint trigger as docs/fingerprints.md gives it: variants in, reposts skipped.
CREATE TABLE fp_products(id int PRIMARY KEY, body text NOT NULL, fp bigint);
CREATE TRIGGER dedup BEFORE INSERT ON fp_products FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
INSERT INTO fp_products SELECT id, body FROM items ORDER BY id;
INSERT INTO fp_products SELECT id, body FROM reposts ORDER BY id;
SELECT count(*) FILTER (WHERE id < 1000) AS variants_in, count(*) FILTER (WHERE id > 1000) AS reposts_in,
       (SELECT count(*) FROM reposts r WHERE simhash(r.body) IS NOT NULL
           AND EXISTS (SELECT FROM fp_products f WHERE f.id = r.of AND hamming(f.fp, simhash(r.body)) <= 3)) AS reposts_within_3
  FROM fp_products;

-- 3. Log lines: another host or status is another event; the same line with a container
-- prefix or other spacing is not.
CREATE TABLE logs(id serial PRIMARY KEY, line text, dup_of int);
CREATE INDEX ON logs USING gin (line simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT ON logs FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('line', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}');
INSERT INTO logs(line) VALUES
    ('ERROR: connection to 10.0.0.5 refused by host db-primary'),
    ('ERROR: connection to 10.0.0.5 refused by host db-replica'),
    ('ERROR: connection to 10.0.0.6 refused by host db-primary'),
    ('GET /api/orders/1842 HTTP/1.1 200 5123'),
    ('GET /api/orders/1842 HTTP/1.1 404 5123'),
    ('app-1 | ERROR: connection to 10.0.0.5 refused by host db-primary'),
    ('GET  /api/orders/1842  HTTP/1.1  200  5123');
SELECT id, dup_of, line FROM logs ORDER BY id;

-- 4. The bulk recipe (README, "Bulk deduplication") on a slice of the corpus with many
-- near-duplicate lines: every row it deletes has, among the kept rows, a row of similarity
-- 0.5 or more that the decision calls the same passage: its cluster's.
CREATE TABLE news AS SELECT id, body FROM corpus WHERE id <= 6000;
ALTER TABLE news ADD PRIMARY KEY (id);
CREATE TEMP TABLE c AS SELECT * FROM simhash_similarity_clusters('SELECT id::bigint, body FROM news', 0.5);
CREATE TEMP TABLE before AS SELECT * FROM news;
DELETE FROM news n USING c WHERE n.id = c.id AND c.id <> c.cluster_id;
SELECT (SELECT count(*) FROM before) - (SELECT count(*) FROM news) AS deleted,
       count(*) FILTER (WHERE k.id IS NULL) AS cluster_row_not_kept,
       count(*) FILTER (WHERE NOT (simhash_similarity(d.body, k.body) >= 0.5 AND simhash_same_passage(d.body, k.body))) AS unlike_their_kept_row
  FROM c JOIN before d ON d.id = c.id LEFT JOIN news k ON k.id = c.cluster_id
 WHERE c.id <> c.cluster_id;
-- The pairs equal the brute force (every pair at 0.5 that the decision calls the same
-- passage), and 5.x's pairs hold the ones it kept apart.
CREATE TEMP TABLE slice AS SELECT id, body FROM corpus WHERE id <= 1500 AND length(body) < 200;
CREATE TEMP TABLE brute AS
SELECT a.id AS id1, b.id AS id2 FROM slice a JOIN slice b ON a.id < b.id
 WHERE simhash_similarity(a.body, b.body) >= 0.5 AND simhash_same_passage(a.body, b.body);
CREATE TEMP TABLE got AS SELECT id1, id2 FROM simhash_similarity_pairs('SELECT id::bigint, body FROM slice', 0.5);
SELECT (SELECT count(*) FROM brute) AS brute, (SELECT count(*) FROM got) AS got,
       (SELECT count(*) FROM (SELECT * FROM brute EXCEPT SELECT * FROM got) x) AS missed,
       (SELECT count(*) FROM (SELECT * FROM got EXCEPT SELECT * FROM brute) x) AS extra,
       (SELECT count(*) FROM simhash_similarity_pairs_d1('SELECT id::bigint, body FROM slice', 0.5)) AS d1_pairs;
-- The star clusters equal the rule run row by row in id order over those pairs.
CREATE FUNCTION pg_temp.stars() RETURNS TABLE(id bigint, cluster_id bigint) LANGUAGE plpgsql AS $$
DECLARE r record; c bigint;
BEGIN
    CREATE TEMP TABLE kept(id bigint PRIMARY KEY) ON COMMIT DROP;
    CREATE TEMP TABLE star(id bigint PRIMARY KEY, cluster_id bigint) ON COMMIT DROP;
    FOR r IN SELECT x.id FROM (SELECT g.id1 AS id FROM got g UNION SELECT g.id2 FROM got g) x ORDER BY x.id LOOP
        SELECT k.id INTO c FROM got g JOIN slice a ON a.id = g.id1 JOIN slice b ON b.id = g.id2
          JOIN kept k ON k.id = CASE WHEN g.id1 = r.id THEN g.id2 ELSE g.id1 END
         WHERE (g.id1 = r.id OR g.id2 = r.id) AND k.id < r.id
         ORDER BY simhash_similarity(a.body, b.body) DESC, k.id LIMIT 1;
        IF c IS NULL THEN
            INSERT INTO kept VALUES (r.id);
            INSERT INTO star VALUES (r.id, r.id);
        ELSE
            INSERT INTO star VALUES (r.id, c);
        END IF;
    END LOOP;
    RETURN QUERY SELECT s.id, s.cluster_id FROM star s;
END $$;
BEGIN;
SELECT count(*) AS rows_in_clusters, count(*) FILTER (WHERE s.cluster_id IS DISTINCT FROM c.cluster_id) AS differ
  FROM simhash_similarity_clusters('SELECT id::bigint, body FROM slice', 0.5) c FULL JOIN pg_temp.stars() s USING (id);
COMMIT;

-- 5. Fingerprint pairs with a text column decide too, against their brute force; without
-- one they are 5.x's. Their clusters are star clusters. The products of section 2, their
-- reposts and the corpus slice: variants and reposts a few bits apart.
CREATE TEMP TABLE fps AS
SELECT id::bigint AS id, simhash(body) AS fp, body FROM (SELECT id, body FROM items UNION ALL SELECT id, body FROM reposts
                                                          UNION ALL SELECT 10000 + id, body FROM slice) x
 WHERE simhash(body) IS NOT NULL;
CREATE TEMP TABLE fp_brute AS
SELECT a.id AS id1, b.id AS id2 FROM fps a JOIN fps b ON a.id < b.id
 WHERE hamming(a.fp, b.fp) <= 3 AND simhash_same_passage(a.body, b.body);
CREATE TEMP TABLE fp_got AS SELECT id1, id2 FROM simhash_duplicates('SELECT id, fp, body FROM fps', 3);
SELECT (SELECT count(*) FROM fp_brute) AS brute, (SELECT count(*) FROM fp_got) AS got,
       (SELECT count(*) FROM (SELECT * FROM fp_brute EXCEPT SELECT * FROM fp_got UNION ALL
                              SELECT * FROM fp_got EXCEPT SELECT * FROM fp_brute) x) AS differ,
       (SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM fps', 3)) AS without_texts,
       (SELECT count(*) FROM fps a JOIN fps b ON a.id < b.id AND hamming(a.fp, b.fp) <= 3) AS within_3;
SELECT count(*) FILTER (WHERE c.id <> c.cluster_id) AS removed,
       count(*) FILTER (WHERE c.id <> c.cluster_id AND NOT EXISTS (
           SELECT FROM fp_got g WHERE (g.id1, g.id2) = (least(c.id, c.cluster_id), greatest(c.id, c.cluster_id)))) AS removed_without_a_pair,
       count(*) FILTER (WHERE c.id <> c.cluster_id AND c.cluster_id IN (SELECT x.id FROM simhash_clusters('SELECT id, fp, body FROM fps', 3) x
                                                                          WHERE x.id <> x.cluster_id)) AS into_a_removed_row
  FROM simhash_clusters('SELECT id, fp, body FROM fps', 3) c;
-- Batch against corpus: both with texts, or neither.
SELECT (SELECT count(*) FROM simhash_duplicates('SELECT id, fp, body FROM fps WHERE id % 7 = 0', 'SELECT id, fp, body FROM fps', 3) d
         WHERE d.batch_id <> d.corpus_id) AS got,
       (SELECT count(*) FROM fps a JOIN fps b ON a.id % 7 = 0 AND a.id <> b.id AND hamming(a.fp, b.fp) <= 3
         AND simhash_same_passage(a.body, b.body)) AS brute;
\set VERBOSITY terse
SELECT * FROM simhash_duplicates('SELECT id, fp, body FROM fps', 'SELECT id, fp FROM fps', 3);
SELECT * FROM simhash_duplicates('SELECT id, fp, 1 FROM fps', 3);
\set VERBOSITY default

DROP TABLE products, products_d1, fp_products, logs, news;
