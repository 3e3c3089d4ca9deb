#!/usr/bin/env bash
# `make demo`: a throwaway cluster with the extension, the People's Daily corpus in a
# table, its fingerprints and the near-duplicate pairs within 3 bits (simhash_duplicates: the
# self-join it ran before took 38 of its 54 s); then what 2.x adds,
# segments: three reposts of one paragraph that simhash() misses and simhash_similar finds,
# why they match (simhash_explain), the same over 1,300 paragraphs, dedup on insert by
# resemblance, and the corpus's pairs by resemblance beside those within 3 bits. All in
# plain SQL. The cluster keeps running; the last line says how to connect (and how to stop it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$root"
# Simplified characters and their traditional forms, the 226 most frequent in the corpus
# with one traditional form (from OpenCC's table behind definition 2's fold): translate()
# with them writes a paragraph in traditional characters, as a Hong Kong or Taiwan repost.
simp='国为会业发这经个来对进们时产长实学开动关电现于报区济制体过场与说记机员资华务设总农将从万问两种党强军内导题领还术统结并应点东联组队决门调达义间团张战据广议书际计价办举亚众项节职话风无规认论难车质运处条图气观级数县传别创剧给没协乡样变选几标争证视贫优极纪专续尔见头单营势参构马历织积费亿灾坚艺户线该谈严乐赛转许带罗责确权银识兴连况医约讯环么范刘划响继则仅爱稳较备获双厂负热儿钱讲访亲断满评护维声陈泽欧远类镇红财贸货层师销检让须监显届边复装荣验础摄习紧画馆'
trad='國為會業發這經個來對進們時產長實學開動關電現於報區濟製體過場與說記機員資華務設總農將從萬問兩種黨強軍內導題領還術統結並應點東聯組隊決門調達義間團張戰據廣議書際計價辦舉亞眾項節職話風無規認論難車質運處條圖氣觀級數縣傳別創劇給沒協鄉樣變選幾標爭證視貧優極紀專續爾見頭單營勢參構馬歷織積費億災堅藝戶線該談嚴樂賽轉許帶羅責確權銀識興連況醫約訊環麼範劉劃響繼則僅愛穩較備獲雙廠負熱兒錢講訪親斷滿評護維聲陳澤歐遠類鎮紅財貿貨層師銷檢讓須監顯屆邊復裝榮驗礎攝習緊畫館'
bash "$h/cluster.sh" install
bash "$h/cluster.sh" start demo "shared_preload_libraries = 'simhash'"
eval "$(bash "$h/cluster.sh" env demo)"
psql -v simp="$simp" -v trad="$trad" <<SQL
CREATE EXTENSION simhash;
CREATE TABLE news(id serial PRIMARY KEY, body text NOT NULL, fp bigint);
\\copy news(body) FROM '$root/target/corpus/peoples_daily_199801.txt'
\\echo '== 1. Fingerprint every paragraph of the People''s Daily, January 1998'
\\timing on
UPDATE news SET fp = simhash(body);
\\timing off
-- Lines with fewer than 6 features (bylines, captions, titles) get no fingerprint.
SELECT count(*) AS paragraphs, pg_size_pretty(sum(octet_length(body))) AS text,
       count(*) FILTER (WHERE fp IS NULL) AS too_short_to_fingerprint FROM news;
\\echo '== 2. A paragraph, its fingerprint, and the features behind it'
SELECT id, left(body, 40) AS body, fp FROM news WHERE id = 4;
SELECT * FROM simhash_features((SELECT body FROM news WHERE id = 4)) LIMIT 8;
\\echo '== 3. Edit one character of a paragraph: the fingerprint moves a few bits (hamming, or the <~> operator)'
SELECT id, char_length(body) AS chars, fp <~> simhash(overlay(body PLACING '某' FROM char_length(body) / 2 FOR 1)) AS distance_after_edit
  FROM news WHERE char_length(body) >= 200 ORDER BY id LIMIT 6;
\\echo '== 4. Near-duplicate pairs within distance 3 in the corpus (short boilerplate lines and identical'
\\echo '==    texts excluded): simhash_duplicates, every pair within k from block tables, not a self-join'
SET client_min_messages = warning;
SELECT d.id1, d.id2, d.distance AS d, left(a.body, 28) AS body1, left(b.body, 28) AS body2
  FROM simhash_duplicates('SELECT id::bigint, fp FROM news WHERE char_length(body) > 30', 3) d
  JOIN news a ON a.id = d.id1 JOIN news b ON b.id = d.id2
 WHERE a.body <> b.body
 ORDER BY d.distance, d.id1 LIMIT 15;
RESET client_min_messages;

\\echo '== 5. Segments (2.x): one call adds news.body_segments, the fingerprints of every minimal run of'
\\echo '==    sentences with 6 features, with the trigger that keeps it and a GIN index'
\\timing on
CALL simhash_create_segments('news', 'body');
\\timing off
SELECT count(*) FILTER (WHERE cardinality(body_segments) > 0) AS paragraphs_with_segments,
       sum(cardinality(body_segments)) AS segments FROM news;

\\echo '== 6. Three reposts of paragraph 603: simhash() within 3 bits misses each; simhash_similar finds'
\\echo '==    paragraph 603 with its resemblance, and how much of each text the other contains'
CREATE TEMP TABLE reposts AS
WITH p AS (SELECT body, regexp_split_to_array(body, '(?<=[。！？])(?!\$)') AS s FROM news WHERE id = 603)
SELECT 1 AS n, 'its 2nd sentence dropped' AS repost, array_to_string(s[1:1] || s[3:], '') AS body FROM p
UNION ALL
SELECT 2, 'an excerpt: its first 60% of sentences', array_to_string(s[1:ceil(cardinality(s) * 0.6)::int], '') FROM p
UNION ALL
SELECT 3, 'in traditional characters, with a source line', translate(body, :'simp', :'trad') || '（轉載自《人民日報》）'
  FROM p;
SELECT n, repost, char_length(body) AS chars, left(body, 22) || '…' || right(body, 12) AS text FROM reposts ORDER BY n;
SELECT r.repost, hamming(simhash(r.body), o.fp) AS simhash_bits, hamming(simhash(r.body), o.fp) <= 3 AS within_3_bits,
       m.id AS found, round(m.resemblance::numeric, 2) AS resemblance,
       round(m.query_in_row::numeric, 2) AS repost_in_603, round(m.row_in_query::numeric, 2) AS "603_in_repost"
  FROM reposts r CROSS JOIN news o
  LEFT JOIN LATERAL (SELECT n.id, s.resemblance, s.query_in_row, s.row_in_query
                       FROM simhash_similar('news', 'body_segments', simhash_segments(r.body)) s
                       JOIN news n ON n.ctid = s.row_ctid ORDER BY s.resemblance DESC, n.id LIMIT 1) m ON true
 WHERE o.id = 603 ORDER BY r.n;

\\echo '== 7. Why the first repost matches: each segment (the text it covers), and its partner in the other'
\\echo '==    text; the credits (1 exact, 0 none; 0.5 within max_distance bits, definition 2 only) add up to the resemblance'
SELECT side, segment, left(sentences, 30) || '…' AS sentences, matched, partner, credit, resemblance
  FROM simhash_explain((SELECT body FROM news WHERE id = 603), (SELECT body FROM reposts WHERE n = 1));

\\echo '== 8. The same three reposts of every paragraph of 200-450 characters with 5 or more sentences:'
\\echo '==    how many simhash() finds within 3 bits, and segments at resemblance >= 0.7 (excerpt: containment >= 0.5)'
WITH p AS (
    SELECT id, body, fp, body_segments, regexp_split_to_array(body, '(?<=[。！？])(?!\$)') AS s FROM news
     WHERE char_length(body) BETWEEN 200 AND 450),
r AS (
    SELECT p.*, v.n, v.body AS repost FROM p CROSS JOIN LATERAL (VALUES
        (1, array_to_string(s[1:1] || s[3:], '')),
        (2, array_to_string(s[1:ceil(cardinality(s) * 0.6)::int], '')),
        (3, translate(p.body, :'simp', :'trad') || '（轉載自《人民日報》）')) v(n, body)
     WHERE cardinality(s) >= 5)
SELECT (SELECT repost FROM reposts x WHERE x.n = r.n) AS repost, count(*) AS paragraphs,
       count(*) FILTER (WHERE hamming(simhash(repost), fp) <= 3) AS simhash_within_3,
       count(*) FILTER (WHERE CASE n WHEN 2 THEN simhash_containment(simhash_segments(repost), body_segments) >= 0.5
                                   ELSE simhash_resemblance(simhash_segments(repost), body_segments) >= 0.7 END)
           AS segments
  FROM r GROUP BY n ORDER BY n;

\\echo '== 9. Dedup on insert by resemblance: the segments trigger becomes a dedup trigger, and the first'
\\echo '==    repost is rejected, DETAIL naming the existing row'
DROP TRIGGER body_segments ON news;
CREATE TRIGGER news_dedup BEFORE INSERT OR UPDATE OF body, body_segments ON news FOR EACH ROW
    EXECUTE FUNCTION simhash_segments_dedup_trigger('body_segments', 'body', '0.7', 'reject');
\\set ON_ERROR_STOP 0
INSERT INTO news(body) SELECT body FROM reposts WHERE n = 1;
\\set ON_ERROR_STOP 1

\\echo '== 10. The corpus''s near-duplicate pairs: by resemblance >= 0.7 (segments) beside within 3 bits'
\\echo '==     (simhash); on both sides lines of 30 characters or fewer excluded, identical texts kept'
SET client_min_messages = warning;
CREATE TEMP TABLE pairs AS
SELECT coalesce(s.id1, d.id1) AS id1, coalesce(s.id2, d.id2) AS id2, s.resemblance, d.distance
  FROM simhash_segment_pairs('SELECT id::bigint, body_segments FROM news WHERE char_length(body) > 30', 0.7) s
  FULL JOIN simhash_duplicates('SELECT id::bigint, fp FROM news WHERE char_length(body) > 30', 3) d
       ON d.id1 = s.id1 AND d.id2 = s.id2;
RESET client_min_messages;
SELECT count(*) FILTER (WHERE resemblance IS NOT NULL) AS by_resemblance,
       count(*) FILTER (WHERE distance IS NOT NULL) AS within_3_bits,
       count(*) FILTER (WHERE resemblance IS NOT NULL AND distance IS NOT NULL) AS both FROM pairs;
SELECT p.id1, p.id2, round(p.resemblance::numeric, 2) AS resemblance, hamming(a.fp, b.fp) AS bits,
       CASE WHEN p.distance IS NULL THEN 'segments only' WHEN p.resemblance IS NULL THEN 'simhash only' ELSE 'both' END
           AS found_by, left(a.body, 16) AS body1, left(b.body, 16) AS body2
  FROM pairs p JOIN news a ON a.id = p.id1 JOIN news b ON b.id = p.id2
 ORDER BY found_by DESC, p.resemblance DESC NULLS LAST, p.id1;
SQL
echo
echo "The demo cluster is running. Connect with:"
echo "  psql -h $PGHOST -p $PGPORT -U postgres"
echo "Stop it with: bash tests/harness/cluster.sh stop demo"
