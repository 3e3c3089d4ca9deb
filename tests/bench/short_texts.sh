#!/usr/bin/env bash
# README's dedup trigger on a table of short texts (issue 47): N (default 1,000,000) Markov
# texts cut to 20 to 90 characters (posts, titles, comments) with the simhash_ops index README
# shows (fastupdate off), each figure beside its baseline from the same run:
#   - inserts from one client through README's example, simhash_similarity_dedup_trigger(
#     'body', '0.5', 'link', 'dup_of', '{"min_containment": 0.8}'), against the same trigger
#     without min_containment, alternated ROUNDS times, DURATION seconds each; the texts are
#     FRESH other Markov texts, a tenth of them reposts of a table row ('转发：' prepended);
#   - 8 writers against one through README's example (unrelated texts: no two wait for each
#     other);
#   - lookups: WHERE simhash_containment($1, body) >= 0.8 for LOOKUPS texts of 30 characters
#     (an excerpt of a row, or a fresh text), p50 latency, against the similarity lookup
#     (>= 0.5) with the same texts.
# Release build, its own cluster.
#   N=1000000 DURATION=20 ROUNDS=2 LOOKUPS=2000 bash tests/bench/short_texts.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
N=${N:-1000000}
DURATION=${DURATION:-20}
ROUNDS=${ROUNDS:-2}
LOOKUPS=${LOOKUPS:-2000}
FRESH=100000
corpus=$root/target/corpus/peoples_daily_199801.txt
texts=$(markov "zh_short_$N" "$corpus" "$N" 20 80 seed=47)
fresh=$(markov "zh_short_fresh_$FRESH" "$corpus" "$FRESH" 20 80 seed=4747)
install_extension
own_cluster shortbench "shared_buffers = 2GB" "max_wal_size = 16GB" "shared_preload_libraries = 'simhash'"
q -c "CREATE EXTENSION simhash"
copy="WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')"
# The chain's texts run to a sentence end past their length: each is cut to 20-90 characters
# (uniform by its line number), as the issue's posts are.
q -c "CREATE TABLE posts(id bigserial PRIMARY KEY, body text, dup_of bigint)" \
  -c "CREATE TEMP TABLE raw(n serial, body text)" \
  -c "\\copy raw(body) FROM '$texts' $copy" \
  -c "INSERT INTO posts(body) SELECT left(body, 20 + (n::bigint * 7919 % 71)::int) FROM raw ORDER BY n" \
  -c "CREATE TABLE fresh(i serial PRIMARY KEY, body text)" \
  -c "TRUNCATE raw" -c "\\copy raw(body) FROM '$fresh' $copy" \
  -c "INSERT INTO fresh(body) SELECT left(body, 20 + (n::bigint * 7919 % 71)::int) FROM raw ORDER BY n" \
  -c "UPDATE fresh f SET body = '转发：' || p.body FROM posts p WHERE f.i % 10 = 0 AND p.id = f.i * 7"
start=$(date +%s.%N)
q -c "CREATE INDEX posts_body ON posts USING gin (body simhash_ops) WITH (fastupdate = off)"
build=$(echo "$(date +%s.%N) - $start" | bc -l)
q -c "VACUUM ANALYZE posts" -c "CHECKPOINT"
row_width=44
row name value baseline ratio
row "rows, median characters" "$(q -c "SELECT count(*) FROM posts")" \
    "$(q -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY length(body)) FROM posts")" -
row "texts of 50 characters or fewer (short lookups)" "$(q -c "SELECT count(*) FROM posts WHERE length(body) <= 50")" - -
row index_build_s "$(printf %.1f "$build")" - -
row index_bytes "$(q -c "SELECT pg_relation_size('posts_body')")" "$(q -c "SELECT pg_relation_size('posts')")" -

with="simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of', '{\"min_containment\": 0.8}')"
without="simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of')"
cat >"$tmp/insert.sql" <<EOF
\\set i random(1, $FRESH)
INSERT INTO posts(body) SELECT body FROM fresh WHERE i = :i;
EOF
use() { q -c "DROP TRIGGER IF EXISTS dedup ON posts" -c "CREATE TRIGGER dedup BEFORE INSERT ON posts FOR EACH ROW EXECUTE FUNCTION $1"; }
tps() { # CLIENTS SEED: inserts per second over DURATION
    pgbench -n -c "$1" -j 2 -T "$DURATION" --random-seed="$2" --max-tries=10 -f "$tmp/insert.sql" >"$tmp/out" 2>&1
    sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$tmp/out"
}
declare -A rate
for r in $(seq 1 "$ROUNDS"); do
    use "$with"; rate[with]=$(echo "${rate[with]:-0} + $(tps 1 "$r") / $ROUNDS" | bc -l)
    use "$without"; rate[without]=$(echo "${rate[without]:-0} + $(tps 1 "$r") / $ROUNDS" | bc -l)
    use "$with"; rate[eight]=$(echo "${rate[eight]:-0} + $(tps 8 "$r") / $ROUNDS" | bc -l)
done
a=$(printf %.1f "${rate[with]}") b=$(printf %.1f "${rate[without]}") c=$(printf %.1f "${rate[eight]}")
row "inserts_per_s_containment_vs_without" "$a" "$b" "$(ratio "$a" "$b")"
row "inserts_per_s_8_writers_vs_1" "$c" "$a" "$(ratio "$c" "$a")"
row "reposts_linked_of_inserted" "$(q -c "SELECT count(dup_of) FROM posts")" "$(q -c "SELECT count(*) - $N FROM posts")" -

# Lookups: 30 characters, half an excerpt of a row, half fresh.
q -c "CREATE TABLE queries AS
SELECT g AS i, CASE WHEN g % 2 = 0 THEN substr(p.body, 1, 30) ELSE substr(f.body, 1, 30) END AS q
  FROM generate_series(1, $LOOKUPS) g JOIN posts p ON p.id = g * 397 % $N + 1 JOIN fresh f ON f.i = g" \
  -c "ANALYZE queries"
p50() { # SQL: the median latency in ms of LOOKUPS runs of SQL with :i random
    printf '\\set i random(1, %s)\n%s\n' "$LOOKUPS" "$1" >"$tmp/lookup.sql"
    rm -f "$tmp"/pgbench_log.*
    (cd "$tmp" && pgbench -n -c 1 -t "$LOOKUPS" -l -f "$tmp/lookup.sql" >/dev/null 2>&1)
    awk '{print $3}' "$tmp"/pgbench_log.* | sort -n | awk '{a[NR]=$1} END {printf "%.2f", a[int((NR+1)/2)] / 1000}'
}
c=$(p50 "SELECT count(*) FROM posts WHERE simhash_containment((SELECT q FROM queries WHERE i = :i), body) >= 0.8;")
s=$(p50 "SELECT count(*) FROM posts WHERE simhash_similarity((SELECT q FROM queries WHERE i = :i), body) >= 0.5;")
row "lookup_p50_ms_containment_vs_similarity" "$c" "$s" "$(ratio "$c" "$s")"
q -c "EXPLAIN (ANALYZE, BUFFERS, COSTS OFF) SELECT count(*) FROM posts
      WHERE simhash_containment((SELECT q FROM queries WHERE i = 2), body) >= 0.8" | sed 's/^/  /'
