#!/usr/bin/env bash
# `make demo`: a throwaway cluster with the extension and the People's Daily corpus in a
# table; exact similarity first: a simhash_ops GIN index, three reposts of one paragraph found
# by similarity and containment (the plan, and why they match: simhash_explain), the same over
# 1,300 paragraphs beside simhash() within 3 bits and segments, a repost rejected on insert,
# and the corpus's pairs by the dedup decision (and those it keeps apart); then fingerprints: simhash(), its features, and the pairs within 3
# bits (simhash_duplicates). All in plain SQL. The cluster keeps running; the last line says
# how to connect (and how to stop it).
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
\\echo '== 1. Exact similarity: a GIN index on the text, whose keys are a sample of each text''s shingles'
\\timing on
CREATE INDEX news_body_sim ON news USING gin (body simhash_ops);
\\timing off
ANALYZE news;
SELECT count(*) AS paragraphs, pg_size_pretty(sum(octet_length(body))) AS text,
       pg_size_pretty(pg_relation_size('news_body_sim')) AS index FROM news;

\\echo '== 2. Three reposts of paragraph 603: its 2nd sentence dropped, an excerpt, a copy in traditional'
\\echo '==    characters with a source line'
CREATE TEMP TABLE reposts AS
WITH p AS (SELECT body, regexp_split_to_array(body, '(?<=[。！？])(?!\$)') AS s FROM news WHERE id = 603)
SELECT 1 AS n, 'its 2nd sentence dropped' AS repost, array_to_string(s[1:1] || s[3:], '') AS body FROM p
UNION ALL
SELECT 2, 'an excerpt: its first 60% of sentences', array_to_string(s[1:ceil(cardinality(s) * 0.6)::int], '') FROM p
UNION ALL
SELECT 3, 'in traditional characters, with a source line', translate(body, :'simp', :'trad') || '（轉載自《人民日報》）'
  FROM p;
SELECT n, repost, char_length(body) AS chars, left(body, 22) || '…' || right(body, 12) AS text FROM reposts ORDER BY n;
\\echo '==    Each found through the index: similarity >= 0.5 for a repost, containment >= 0.8 for an excerpt'
SELECT r.repost, n.id AS found, round(simhash_similarity(r.body, n.body)::numeric, 2) AS similarity,
       round(simhash_containment(r.body, n.body)::numeric, 2) AS repost_in_row
  FROM reposts r JOIN news n ON simhash_similarity(n.body, r.body) >= 0.5 OR simhash_containment(r.body, n.body) >= 0.8
 ORDER BY r.n, n.id;
EXPLAIN (COSTS OFF) SELECT id FROM news WHERE simhash_similarity(body, (SELECT body FROM reposts WHERE n = 1)) >= 0.5;

\\echo '== 3. Why the first repost matches: its shingles (3 Chinese characters) and figures (digits as written)'
\\echo '==    and which text has each; the shared shingles over all of them, times the figures'' agreement, are'
\\echo '==    the similarity'
SELECT kind, count(*) FILTER (WHERE in_a AND in_b) AS shared, count(*) FILTER (WHERE in_a AND NOT in_b) AS only_603,
       count(*) FILTER (WHERE in_b AND NOT in_a) AS only_repost, min(similarity) AS similarity
  FROM simhash_explain((SELECT body FROM news WHERE id = 603), (SELECT body FROM reposts WHERE n = 1)) GROUP BY kind;
SELECT kind, item FROM simhash_explain((SELECT body FROM news WHERE id = 603), (SELECT body FROM reposts WHERE n = 1))
 WHERE in_a AND NOT in_b;

\\echo '== 4. The same three reposts of every paragraph of 200-450 characters with 5 or more sentences: how many'
\\echo '==    exact similarity finds (>= 0.5; excerpt: containment >= 0.8), beside simhash() within 3 bits and'
\\echo '==    segments at resemblance >= 0.7 (excerpt: containment >= 0.5)'
UPDATE news SET fp = simhash(body);
WITH p AS (
    SELECT id, body, fp, regexp_split_to_array(body, '(?<=[。！？])(?!\$)') AS s FROM news
     WHERE char_length(body) BETWEEN 200 AND 450),
r AS (
    SELECT p.*, v.n, v.body AS repost FROM p CROSS JOIN LATERAL (VALUES
        (1, array_to_string(s[1:1] || s[3:], '')),
        (2, array_to_string(s[1:ceil(cardinality(s) * 0.6)::int], '')),
        (3, translate(p.body, :'simp', :'trad') || '（轉載自《人民日報》）')) v(n, body)
     WHERE cardinality(s) >= 5)
SELECT (SELECT repost FROM reposts x WHERE x.n = r.n) AS repost, count(*) AS paragraphs,
       count(*) FILTER (WHERE CASE n WHEN 2 THEN simhash_containment(repost, body) >= 0.8
                                   ELSE simhash_similarity(repost, body) >= 0.5 END) AS similarity,
       count(*) FILTER (WHERE hamming(simhash(repost), fp) <= 3) AS simhash_within_3,
       count(*) FILTER (WHERE CASE n WHEN 2 THEN simhash_containment(simhash_segments(repost), simhash_segments(body)) >= 0.5
                                   ELSE simhash_resemblance(simhash_segments(repost), simhash_segments(body)) >= 0.7 END)
           AS segments
  FROM r GROUP BY n ORDER BY n;

\\echo '== 5. Dedup on insert: a trigger rejects a row whose similarity with an existing one is 0.5 or more,'
\\echo '==    DETAIL naming the existing row, safely under concurrent writers'
CREATE TRIGGER news_dedup BEFORE INSERT OR UPDATE OF body ON news FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'reject');
\\set ON_ERROR_STOP 0
INSERT INTO news(body) SELECT body FROM reposts WHERE n = 1;
\\set ON_ERROR_STOP 1
DROP TRIGGER news_dedup ON news;

\\echo '== 6. The corpus''s near-duplicate pairs: similarity >= 0.5 and the same passage by the dedup decision'
\\echo '==    (lines of 30 or fewer and identical texts left out), beside simhash() within 3 bits, both decided;'
\\echo '==    then the pairs 5.x called duplicates that the decision keeps apart, and why (docs/decision.md)'
SET client_min_messages = warning;
CREATE TEMP TABLE pairs AS
SELECT coalesce(s.id1, d.id1) AS id1, coalesce(s.id2, d.id2) AS id2, s.similarity, d.distance
  FROM simhash_similarity_pairs('SELECT id::bigint, body FROM news WHERE char_length(body) > 30', 0.5) s
  FULL JOIN simhash_duplicates('SELECT id::bigint, fp, body FROM news WHERE char_length(body) > 30', 3) d
       ON d.id1 = s.id1 AND d.id2 = s.id2;
CREATE TEMP TABLE pairs_d1 AS
SELECT * FROM simhash_similarity_pairs_d1('SELECT id::bigint, body FROM news WHERE char_length(body) > 30', 0.5);
RESET client_min_messages;
DELETE FROM pairs p USING news a, news b WHERE a.id = p.id1 AND b.id = p.id2 AND a.body = b.body;
DELETE FROM pairs_d1 p USING news a, news b WHERE a.id = p.id1 AND b.id = p.id2 AND a.body = b.body;
SELECT count(*) FILTER (WHERE similarity IS NOT NULL) AS by_similarity,
       count(*) FILTER (WHERE distance IS NOT NULL) AS within_3_bits,
       count(*) FILTER (WHERE similarity IS NOT NULL AND distance IS NOT NULL) AS both,
       (SELECT count(*) FROM pairs_d1) AS by_similarity_5x FROM pairs;
SELECT p.id1, p.id2, round(p.similarity::numeric, 2) AS similarity, hamming(a.fp, b.fp) AS bits,
       left(a.body, 16) AS body1, left(b.body, 16) AS body2
  FROM pairs p JOIN news a ON a.id = p.id1 JOIN news b ON b.id = p.id2
 WHERE p.similarity IS NOT NULL ORDER BY p.similarity, p.id1 LIMIT 12;
SELECT p.id1, p.id2, round(p.similarity::numeric, 2) AS similarity, left(a.body, 14) AS body1, left(b.body, 14) AS body2,
       (SELECT item FROM simhash_explain(a.body, b.body) e WHERE e.kind = 'decision') AS decision
  FROM pairs_d1 p JOIN news a ON a.id = p.id1 JOIN news b ON b.id = p.id2
 WHERE NOT EXISTS (SELECT FROM pairs q WHERE q.id1 = p.id1 AND q.id2 = p.id2 AND q.similarity IS NOT NULL)
 ORDER BY p.similarity DESC, p.id1 LIMIT 12;

\\echo '== 7. Fingerprints: simhash() folds a text into 64 bits; one edited character moves it a few bits'
SELECT id, left(body, 40) AS body, fp FROM news WHERE id = 4;
SELECT * FROM simhash_features((SELECT body FROM news WHERE id = 4)) LIMIT 8;
SELECT id, char_length(body) AS chars, fp <~> simhash(overlay(body PLACING '某' FROM char_length(body) / 2 FOR 1)) AS distance_after_edit
  FROM news WHERE char_length(body) >= 200 ORDER BY id LIMIT 6;
SQL
echo
echo "The demo cluster is running. Connect with:"
echo "  psql -h $PGHOST -p $PGPORT -U postgres"
echo "Stop it with: bash tests/harness/cluster.sh stop demo"
