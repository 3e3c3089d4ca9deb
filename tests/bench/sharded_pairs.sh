#!/usr/bin/env bash
# Bulk pairs across shards by band keys (issue 39: "each shard's run <= 0.5x one node's over
# all rows; the union of the shards' pairs equals one node's pairs; at 16 shards one shard's
# run <= 0.15x one node's"), release build. S (default 3) shards and one node, clusters on
# this machine on Unix sockets (tests/harness/shards.sh: PREFIX-0..S-1, and PREFIX-c as the
# one node). ROWS (default 1,000,000) texts as similarity_pairs.sh builds them (90% Markov
# paragraphs of 200-500 characters and 10% reposts), the one node holding all, shard i those
# with (hashint8(id) + 2^31) % S = i (id % S would put every reposted original,
# id % 9 = 4, on shard 1 of 3). Every shard, as the design has it (sql/similarity/shard.sql, "Bulk pairs
# across shards"):
#   docs(id, body, keys bytea GENERATED ALWAYS AS (simhash_similarity_band_keys(body, 0.5))
#   STORED), the view doc_keys(shard, id, keys) of its own, and through postgres_fdw the other
#   shards': other_keys (list-partitioned on shard, a foreign partition per shard) and
#   other_docs (their documents, a UNION ALL of foreign tables);
# then, each shard alone in turn (one machine per shard would run them at once):
#   simhash_similarity_shard_pairs('docs', 'id', 'body', 'other_keys', 'other_docs', i, S, 0.5)
# against simhash_similarity_pairs over every row on the one node, both written out with
# \copy and timed by the client; the union of the shards' pairs against the one node's, pair
# for pair and value for value. And a model of one shard of 16, on the one node: its 1/16 of
# the documents (id % 16 = 0) local, the band keys of the shards
# simhash_similarity_exchange(0, 16) names as foreign rows (a local table, filtered by the
# function), the texts of its cross candidates read from the one node's table (through a
# primary key, where a real shard would fetch them through postgres_fdw).
# By band ranges (5.1.0; sql/similarity/shard.sql, "Bulk pairs across many shards"): every
# shard also has the view doc_band_slices (its documents' slices for each shard), and
# through postgres_fdw all_band_slices and all_band_candidates; each shard in turn makes its
# band_candidates (simhash_similarity_band_candidates), then each in turn measures its own
# (simhash_similarity_candidate_pairs): a shard's time is the sum of its two steps. And the
# same at 16 shards, modelled on the one node (all 16 shards' candidates, shard 0's measures).
# Prints "name  value  baseline  ratio" lines (ratio = value / baseline).
#   ROWS=1000000 S=3 bash tests/bench/sharded_pairs.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
ROWS=${ROWS:-1000000} S=${S:-3}
P=simbandbench
fresh=$((ROWS * 9 / 10))
f=$(markov "zh_paragraphs_$fresh" "$root/target/corpus/peoples_daily_199801.txt" "$fresh" 200 500 seed=2026)
install_extension
# shellcheck source=../harness/shards.sh
source "$h/shards.sh"
shards_start $P "$S"
row_width=60
row name value baseline ratio
one() { PGOPTIONS="-c client_min_messages=warning" on $P-c "$@"; }
shard() { local i=$1; shift; PGOPTIONS="-c client_min_messages=warning" on "$P-$i" "$@"; }

# --- The one node: every row ----------------------------------------------------------
one -q >/dev/null <<SQL
CREATE EXTENSION simhash;
CREATE TABLE one_node (id bigserial PRIMARY KEY, body text NOT NULL);
\\copy one_node(body) FROM '$f' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')
$(reposts_sql one_node)
VACUUM ANALYZE one_node;
SQL
rows=$(one -At -c "SELECT count(*) FROM one_node")
row "texts" "$rows" - -

# --- The shards ------------------------------------------------------------------------
t0=$(now)
for i in $(seq 0 $((S - 1))); do
    {
        cat <<SQL
CREATE EXTENSION simhash;
CREATE EXTENSION postgres_fdw;
CREATE TABLE docs (id bigint PRIMARY KEY, body text NOT NULL,
                   keys bytea GENERATED ALWAYS AS (simhash_similarity_band_keys(body, 0.5)) STORED);
CREATE VIEW doc_keys AS SELECT $i AS shard, id, keys FROM docs;
CREATE TABLE other_keys (shard int NOT NULL, id bigint NOT NULL, keys bytea) PARTITION BY LIST (shard);
CREATE VIEW doc_band_slices AS SELECT t.shard, d.id, simhash_similarity_band_slice(d.keys, $i, t.shard, $S) AS slice
  FROM public.docs d, generate_series(0, $((S - 1))) AS t(shard) WHERE d.keys IS NOT NULL;
CREATE TABLE band_candidates (home int NOT NULL, id1 bigint NOT NULL, id2 bigint NOT NULL);
SQL
        docs=()
        slices="SELECT shard, id, slice FROM doc_band_slices" cands="SELECT home, id1, id2 FROM band_candidates"
        for j in $(seq 0 $((S - 1))); do
            [ "$j" = "$i" ] && continue
            shard_server $P "$j"
            cat <<SQL
CREATE FOREIGN TABLE other_keys_$j PARTITION OF other_keys FOR VALUES IN ($j)
    SERVER shard$j OPTIONS (table_name 'doc_keys');
CREATE FOREIGN TABLE other_docs_$j (id bigint, body text) SERVER shard$j OPTIONS (table_name 'docs');
SQL
            docs+=("SELECT id, body FROM other_docs_$j")
            cat <<SQL
CREATE FOREIGN TABLE band_slices_$j (shard int, id bigint, slice bytea) SERVER shard$j OPTIONS (table_name 'doc_band_slices');
CREATE FOREIGN TABLE band_candidates_$j (home int, id1 bigint, id2 bigint) SERVER shard$j OPTIONS (table_name 'band_candidates');
SQL
            slices+=" UNION ALL SELECT shard, id, slice FROM band_slices_$j"
            cands+=" UNION ALL SELECT home, id1, id2 FROM band_candidates_$j"
        done
        printf 'CREATE VIEW other_docs AS %s;\n' "$(printf '%s UNION ALL ' "${docs[@]}" | sed 's/ UNION ALL $//')"
        echo "CREATE VIEW all_band_slices AS $slices;"
        echo "CREATE VIEW all_band_candidates AS $cands;"
    } | shard "$i" -q >/dev/null
    one -c "\\copy (SELECT id, body FROM one_node WHERE (hashint8(id)::int8 + 2147483648) % $S = $i) TO '$tmp/shard_$i.csv' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" >/dev/null
    shard "$i" -q -c "\\copy docs(id, body) FROM '$tmp/shard_$i.csv' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
        -c "VACUUM ANALYZE docs" >/dev/null
done
row "load_s of the shards (band keys computed on insert)" "$(printf %.0f "$(since "$t0")")" - -

# --- Runs ----------------------------------------------------------------------------------
copy_secs() { # FILE SELECT COMMAND...: seconds of COMMAND -c "\copy (SELECT) TO FILE"
    local t0 file=$1 sql=$2
    shift 2
    t0=$(now)
    "$@" -c "\\copy ($sql) TO '$file'" >/dev/null
    since "$t0"
}
fmt() { awk -F'\t' '{ printf "%d\t%d\t%.15g\n", $1, $2, $3 }' "$@" | sort; }
t_one=$(copy_secs "$tmp/one.tsv" "SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM one_node', 0.5)" one)
most=0
for i in $(seq 0 $((S - 1))); do
    ti=$(copy_secs "$tmp/pairs_$i.tsv" "SELECT * FROM simhash_similarity_shard_pairs('docs', 'id', 'body', 'other_keys', 'other_docs', $i, $S, 0.5)" shard "$i")
    row "shard $i of $S: pairs_s / one node's over all rows" "$(printf %.1f "$ti")" "$(printf %.1f "$t_one")" "$(ratio "$ti" "$t_one")"
    most=$(awk -v a="$most" -v b="$ti" 'BEGIN {print (b > a ? b : a)}')
done
row "slowest shard of $S: pairs_s / one node's" "$(printf %.1f "$most")" "$(printf %.1f "$t_one")" "$(ratio "$most" "$t_one")"
fmt "$tmp/one.tsv" >"$tmp/one_sorted.tsv"
fmt "$tmp"/pairs_*.tsv >"$tmp/shards_sorted.tsv"
differ=$(comm -3 "$tmp/one_sorted.tsv" "$tmp/shards_sorted.tsv" | wc -l)
row "pairs: the shards' union (with repeats) / one node's" "$(wc -l <"$tmp/shards_sorted.tsv")" "$(wc -l <"$tmp/one_sorted.tsv")" -
row "pairs differing between the shards' union and one node's" "$differ" 0 -
[ "$differ" = 0 ] || fail "the shards' pairs differ from one node's: $differ"

# --- By band ranges: every shard's candidates, then every shard's measures ------------------
declare -A t_cand
for i in $(seq 0 $((S - 1))); do
    t_cand[$i]=$(secs shard "$i" -c "INSERT INTO band_candidates SELECT * FROM simhash_similarity_band_candidates(
        'SELECT id, slice FROM public.all_band_slices WHERE shard = $i', 0.5)")
done
most=0
for i in $(seq 0 $((S - 1))); do
    tm=$(copy_secs "$tmp/ranges_$i.tsv" "SELECT * FROM simhash_similarity_candidate_pairs('public.docs', 'id', 'body', 'public.all_band_candidates', 'public.other_docs', $i, 0.5)" shard "$i")
    ti=$(awk -v a="${t_cand[$i]}" -v b="$tm" 'BEGIN {print a + b}')
    row "ranges, shard $i of $S: cand + measure_s ($(printf %.1f "${t_cand[$i]}") + $(printf %.1f "$tm"))" \
        "$(printf %.1f "$ti")" "$(printf %.1f "$t_one")" "$(ratio "$ti" "$t_one")"
    most=$(awk -v a="$most" -v b="$ti" 'BEGIN {print (b > a ? b : a)}')
done
row "ranges, slowest shard of $S: pairs_s" "$(printf %.1f "$most")" "$(printf %.1f "$t_one")" "$(ratio "$most" "$t_one")"
fmt "$tmp"/ranges_*.tsv >"$tmp/ranges_sorted.tsv"
differ=$(comm -3 "$tmp/one_sorted.tsv" "$tmp/ranges_sorted.tsv" | wc -l)
row "band ranges: pairs of the shards (with repeats) / one node's" "$(wc -l <"$tmp/ranges_sorted.tsv")" "$(wc -l <"$tmp/one_sorted.tsv")" -
row "band ranges: pairs differing from one node's" "$differ" 0 -
[ "$differ" = 0 ] || fail "the shards' pairs by band ranges differ from one node's: $differ"
cands=$(for i in $(seq 0 $((S - 1))); do shard "$i" -At -c "SELECT count(*) FROM band_candidates"; done | awk '{ s += $1 } END { print s }')
row "band ranges: candidates of all shards (with repeats) / pairs" "$cands" "$(wc -l <"$tmp/one_sorted.tsv")" "$(ratio "$cands" "$(wc -l <"$tmp/one_sorted.tsv")")"

# --- One shard of 16, modelled on the one node ---------------------------------------------
one -q >/dev/null <<SQL
CREATE TABLE shard16 AS SELECT id, body FROM one_node WHERE id % 16 = 0;
ALTER TABLE shard16 ADD PRIMARY KEY (id);
CREATE TABLE keys16 AS SELECT (id % 16)::int AS shard, id, simhash_similarity_band_keys(body, 0.5) AS keys
  FROM one_node WHERE id % 16 <> 0;
VACUUM ANALYZE shard16;
VACUUM ANALYZE keys16;
SQL
read -r local16 foreign16 < <(one -At -F' ' -c "SELECT (SELECT count(*) FROM shard16),
    (SELECT count(*) FROM keys16 WHERE shard = ANY (simhash_similarity_exchange(0, 16)))")
t16=$(copy_secs "$tmp/pairs16.tsv" "SELECT * FROM simhash_similarity_shard_pairs('shard16', 'id', 'body', 'keys16', 'one_node', 0, 16, 0.5)" one)
row "16 shards: shard 0's local / foreign key rows" "$local16" "$foreign16" -
row "16 shards: shard 0's pairs_s / one node's over all rows" "$(printf %.1f "$t16")" "$(printf %.1f "$t_one")" "$(ratio "$t16" "$t_one")"
# By band ranges at 16 shards: each shard's candidates over its slice of every document, cut
# from the stored keys by a view and read through postgres_fdw (a loopback server: the one
# node serves what 16 shards would), all 16 in turn; then shard 0's measures of the
# candidates whose lower id it holds (the other texts by primary key, where a real shard
# fetches them through postgres_fdw).
one -q >/dev/null <<SQL
CREATE TABLE keys_all AS SELECT (id % 16)::int AS home, id, simhash_similarity_band_keys(body, 0.5) AS keys FROM one_node;
CREATE VIEW all_slices AS SELECT t.shard, k.id, simhash_similarity_band_slice(k.keys, k.home, t.shard, 16) AS slice
  FROM public.keys_all k, generate_series(0, 15) AS t(shard) WHERE k.keys IS NOT NULL;
CREATE EXTENSION postgres_fdw;
$(shard_server $P c)
CREATE FOREIGN TABLE all_slices_fdw (shard int, id bigint, slice bytea) SERVER shardc OPTIONS (table_name 'all_slices');
CREATE VIEW not16 AS SELECT id, body FROM one_node WHERE id % 16 <> 0;
CREATE TABLE cands16 (home int NOT NULL, id1 bigint NOT NULL, id2 bigint NOT NULL);
VACUUM ANALYZE keys_all;
SQL
most=0
for i in $(seq 0 15); do
    ti=$(secs one -c "INSERT INTO cands16 SELECT * FROM simhash_similarity_band_candidates(
        'SELECT id, slice FROM all_slices_fdw WHERE shard = $i', 0.5)")
    [ "$i" = 0 ] && t16c=$ti
    most=$(awk -v a="$most" -v b="$ti" 'BEGIN {print (b > a ? b : a)}')
done
t16m=$(copy_secs "$tmp/ranges16.tsv" "SELECT * FROM simhash_similarity_candidate_pairs('shard16', 'id', 'body', 'cands16', 'not16', 0, 0.5)" one)
t16r=$(awk -v a="$t16c" -v b="$t16m" 'BEGIN {print a + b}')
row "ranges, 16 shards: shard 0's cand + measure_s ($(printf %.1f "$t16c") + $(printf %.1f "$t16m"))" \
    "$(printf %.1f "$t16r")" "$(printf %.1f "$t_one")" "$(ratio "$t16r" "$t_one")"
row "ranges, 16 shards: the slowest shard's cand_s" "$(printf %.1f "$most")" "$(printf %.1f "$t_one")" "$(ratio "$most" "$t_one")"
row "ranges, 16 shards: shard 0's pairs / one node's" "$(wc -l <"$tmp/ranges16.tsv")" "$(wc -l <"$tmp/one_sorted.tsv")" -
exit $status
