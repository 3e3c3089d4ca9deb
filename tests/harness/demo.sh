#!/usr/bin/env bash
# `make demo`: a throwaway cluster with the extension, the People's Daily corpus in a
# table, its fingerprints, and the near-duplicate pairs, all in plain SQL. The cluster
# keeps running; the last line says how to connect (and how to stop it).
set -euo pipefail
source "$(dirname "$0")/lib.sh"
cd "$root"
bash "$h/cluster.sh" install
bash "$h/cluster.sh" start demo "shared_preload_libraries = 'simhash'"
eval "$(bash "$h/cluster.sh" env demo)"
psql <<SQL
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
\\echo '== 4. Near-duplicate pairs within distance 3 in the corpus (short boilerplate lines excluded)'
SELECT a.id AS id1, b.id AS id2, hamming(a.fp, b.fp) AS d, left(a.body, 28) AS body1, left(b.body, 28) AS body2
  FROM news a JOIN news b ON a.id < b.id AND hamming(a.fp, b.fp) <= 3
 WHERE char_length(a.body) > 30 AND char_length(b.body) > 30 AND a.body <> b.body
 ORDER BY d, a.id LIMIT 15;
SQL
echo
echo "The demo cluster is running. Connect with:"
echo "  psql -h $PGHOST -p $PGPORT -U postgres"
echo "Stop it with: bash tests/harness/cluster.sh stop demo"
