-- simhash_explain (issue 30; docs/segments.md, "Why two texts match"): each segment of either
-- text with the sentences it covers and its partner in the other, and the figures its
-- credits add up to, which must be simhash_resemblance and simhash_containment of the two
-- texts' simhash_segments, exactly and within k bits.
CREATE EXTENSION IF NOT EXISTS simhash;

-- 1. A repost that drops the first sentence and changes a word of the last one (traditional
-- characters in the second sentence: definition 2 folds them, and shows them folded).
\set a '中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！'
\set b '新年鐘聲即將敲響，人類社會就要進入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族同胞致以新年的祝贺！'
SELECT side, segment, sentences, matched, partner, distance, credit FROM simhash_segments_explain(:'a', :'b');
SELECT DISTINCT resemblance, a_in_b, b_in_a FROM simhash_segments_explain(:'a', :'b');
-- Within k bits: definition 2's segments (definition 3's are shingle hashes, definition3.sql).
SELECT side, segment, matched, partner, distance, credit FROM simhash_segments_explain(:'a', :'b', '{"definition": "2", "max_distance": 12}');
SELECT DISTINCT resemblance, a_in_b, b_in_a,
       resemblance = simhash_resemblance(simhash_segments_v2(:'a'), simhash_segments_v2(:'b'), 12) AS same
  FROM simhash_segments_explain(:'a', :'b', '{"definition": "2", "max_distance": 12}');

-- 2. The sums equal simhash_resemblance and simhash_containment, over corpus paragraphs
-- against a copy without their first sentence and with one character changed, and against
-- the next paragraph, at k = 0, 3 and 12, under definition 2 (whose segments are runs of
-- sentences, matched within k bits); the fingerprints are simhash_segments_v2', in order,
-- and each segment's sentences have it as their simhash_v2().
CREATE TEMP TABLE ex_pairs AS
SELECT c.id, c.body AS a,
       overlay(regexp_replace(c.body, '^[^。！？]*[。！？]', '') PLACING '某' FROM char_length(c.body) / 2 FOR 1) AS b
  FROM corpus c WHERE c.id % 40 = 11 AND char_length(c.body) >= 100
UNION ALL
SELECT c.id + 100000, c.body, n.body FROM corpus c JOIN corpus n ON n.id = c.id + 1 WHERE c.id % 40 = 11;
CREATE TEMP TABLE ex_rows AS
SELECT p.id, k, e.* FROM ex_pairs p, unnest(ARRAY[0, 3, 12]) k,
       simhash_segments_explain(p.a, p.b, jsonb_build_object('definition', '2', 'max_distance', k)) e;
SELECT count(*) AS pairs_k, count(*) FILTER (WHERE near) AS with_near_match,
       count(*) FILTER (WHERE sum_r IS DISTINCT FROM r OR sum_ab IS DISTINCT FROM ab OR sum_ba IS DISTINCT FROM ba)
           AS sums_differ,
       count(*) FILTER (WHERE given_r IS DISTINCT FROM r OR given_ab IS DISTINCT FROM ab OR given_ba IS DISTINCT FROM ba)
           AS given_differ,
       count(*) FILTER (WHERE fa IS DISTINCT FROM sa OR fb IS DISTINCT FROM sb) AS segments_differ
FROM (
    SELECT p.id, k.k,
           coalesce(sum(e.credit) / nullif(count(e.*), 0), 0) AS sum_r,
           coalesce(avg(e.credit) FILTER (WHERE e.side = 'a'), 0) AS sum_ab,
           coalesce(avg(e.credit) FILTER (WHERE e.side = 'b'), 0) AS sum_ba,
           coalesce(min(e.resemblance), 0) AS given_r, coalesce(min(e.a_in_b), 0) AS given_ab,
           coalesce(min(e.b_in_a), 0) AS given_ba,
           bool_or(e.matched = 'near') AS near,
           coalesce(array_agg(e.fingerprint ORDER BY e.segment) FILTER (WHERE e.side = 'a'), '{}') AS fa,
           coalesce(array_agg(e.fingerprint ORDER BY e.segment) FILTER (WHERE e.side = 'b'), '{}') AS fb,
           simhash_segments_v2(p.a) AS sa, simhash_segments_v2(p.b) AS sb,
           simhash_resemblance(simhash_segments_v2(p.a), simhash_segments_v2(p.b), k.k) AS r,
           simhash_containment(simhash_segments_v2(p.a), simhash_segments_v2(p.b), k.k) AS ab,
           simhash_containment(simhash_segments_v2(p.b), simhash_segments_v2(p.a), k.k) AS ba
      FROM ex_pairs p CROSS JOIN unnest(ARRAY[0, 3, 12]) k(k)
      LEFT JOIN ex_rows e ON e.id = p.id AND e.k = k.k
     GROUP BY p.id, p.a, p.b, k.k) s;
SELECT count(*) AS segment_rows, count(*) FILTER (WHERE simhash_v2(sentences) IS DISTINCT FROM fingerprint) AS not_its_text,
       count(*) FILTER (WHERE (matched = 'none') <> (partner IS NULL) OR (matched = 'exact') <> (distance = 0)
                        OR distance > k OR credit <> CASE matched WHEN 'exact' THEN 1 WHEN 'near' THEN 0.5 ELSE 0 END)
           AS inconsistent
FROM ex_rows;

-- Definition 3, the default (exactly): the same sums, and simhash_segments' fingerprints.
SELECT count(*) AS pairs,
       count(*) FILTER (WHERE coalesce(r, 0) IS DISTINCT FROM simhash_resemblance(simhash_segments(a), simhash_segments(b))
                        OR fa IS DISTINCT FROM simhash_segments(a)) AS differ
  FROM (SELECT p.a, p.b, (SELECT min(e.resemblance) FROM simhash_segments_explain(p.a, p.b) e) AS r,
               (SELECT coalesce(array_agg(e.fingerprint ORDER BY e.segment), '{}') FROM simhash_segments_explain(p.a, p.b) e
                 WHERE e.side = 'a') AS fa
          FROM ex_pairs p) x;

-- 3. Options and errors: definition 1 keeps traditional characters (no common segment here);
-- no segment, no row; NULL, no row.
SELECT DISTINCT resemblance FROM simhash_segments_explain(:'a', :'b', '{"definition": "1"}');
SELECT count(*) AS no_rows FROM simhash_segments_explain('', '中国经济发展。');
SELECT count(*) AS null_rows FROM simhash_segments_explain(NULL, :'b');
SELECT regress_try($$SELECT * FROM simhash_segments_explain('a', 'b', '{"max_distance": 65}')$$);
SELECT regress_try($$SELECT * FROM simhash_segments_explain('a', 'b', '{"tokenizer": "ngram"}')$$);
SELECT regress_try($$SELECT * FROM simhash_segments_explain('a', 'b', '{"min_resemblance": 0.5}')$$);

-- 4.0.0: simhash_explain(a, b) explains the similarity (similarity.sql); the three-argument
-- simhash_explain is still the segments' explanation.
SELECT (SELECT array_agg(e ORDER BY e.side, e.segment) FROM simhash_explain(:'a', :'b', '{}') e)
     = (SELECT array_agg(e ORDER BY e.side, e.segment) FROM simhash_segments_explain(:'a', :'b') e) AS same;
