#!/usr/bin/env bash
# Issue 53's table of one template through README's recipe and trigger, decision 3 beside
# 6.0's (decision 2) in the same run: N rows (default 2,000) of "For an explanation of the terms
# used in this section, see attributes(7). Interface Attribute Value <name>() Thread safety
# MT-Safe", <name> 10 to 20 random letters, every row another function.
#   - bulk: the pairs simhash_similarity_pairs returns at 0.5, and the rows README's DELETE
#     would remove (simhash_similarity_clusters' rows with id <> cluster_id), under
#     simhash.decision 'balanced' (7.0's default) and 'd2';
#   - trigger: README's (similarity 0.5 or containment 0.8, 'link'), with its _d2 twin on a
#     copy: the rows linked among the N, among 50 new rows of the frame, and of 50 reposts (a
#     full stop added to every N/50th row) the ones linked to their own row.
#   - issue 55's baseline, in the same run: the same bulk pairs, and the same trigger's N rows
#     and 50 new rows, over N + 50 unrelated texts of the frame's length (Markov text, 110 to
#     160 characters): value the templated table's seconds, baseline the unrelated one's.
# Prints "name  value  baseline  ratio" lines (value: 7.0's, baseline: 6.0's, but for the
# templated-against-unrelated rows); the counts are the point of the first rows.
#   N=2000 bash tests/bench/template_table.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
N=${N:-2000}
install_extension
own_cluster templatebench "shared_buffers = 512MB" "max_parallel_workers_per_gather = 0"
q -c "CREATE EXTENSION simhash"
template_table "$((N + 50))" 0.53
q -c "CREATE TABLE news AS SELECT n AS id, body FROM tpl WHERE n <= $N"
row_width=36
row name value baseline ratio
row distinct_rows "$(q -c "SELECT count(DISTINCT body) FROM tpl")" - -
bulk() { # DECISION SQL
    q -c "SET simhash.decision = '$1'" -c "$2"
}
for what in pairs deleted; do
    case $what in
        pairs) sql="SELECT count(*) FROM simhash_similarity_pairs('SELECT id::bigint, body FROM news', 0.5)" ;;
        deleted) sql="SELECT count(*) FILTER (WHERE id <> cluster_id) FROM simhash_similarity_clusters('SELECT id::bigint, body FROM news', 0.5)" ;;
    esac
    row "bulk_$what" "$(bulk balanced "$sql")" "$(bulk d2 "$sql")" -
done
declare -A linked frame reposts secs
for d in d3 d2; do
    suffix=""; [ $d = d2 ] && suffix=_d2
    q -c "CREATE TABLE posts_$d(id serial PRIMARY KEY, body text, dup_of int)" \
      -c "CREATE INDEX ON posts_$d USING gin (body simhash_ops) WITH (fastupdate = off)" \
      -c "CREATE TRIGGER posts_dedup BEFORE INSERT OR UPDATE OF body ON posts_$d FOR EACH ROW
          EXECUTE FUNCTION simhash_similarity_dedup_trigger$suffix('body', '0.5', 'link', 'dup_of', '{\"min_containment\": 0.8}')"
    t0=$(date +%s.%N)
    q -c "INSERT INTO posts_$d(body) SELECT body FROM tpl WHERE n <= $N ORDER BY n"
    secs[$d]=$(echo "$(date +%s.%N) - $t0" | bc -l)
    linked[$d]=$(q -c "SELECT count(dup_of) FROM posts_$d")
    q -c "INSERT INTO posts_$d(body) SELECT body FROM tpl WHERE n > $N ORDER BY n"
    frame[$d]=$(q -c "SELECT count(dup_of) FROM posts_$d WHERE id > $N")
    q -c "INSERT INTO posts_$d(body) SELECT body || '.' FROM tpl WHERE n % ($N / 50) = 0 AND n <= $N ORDER BY n"
    reposts[$d]=$(q -c "SELECT count(*) FROM posts_$d p JOIN posts_$d o ON o.id = p.dup_of WHERE p.id > $N + 50 AND p.body = o.body || '.'")/$(q -c "SELECT count(*) FROM posts_$d WHERE id > $N + 50")
done
row trigger_rows_linked "${linked[d3]}" "${linked[d2]}" -
row trigger_new_frame_rows_linked "${frame[d3]}" "${frame[d2]}" -
row trigger_reposts_linked_to_their_row "${reposts[d3]}" "${reposts[d2]}" -
a=$(printf %.1f "${secs[d3]}") b=$(printf %.1f "${secs[d2]}")
row trigger_insert_rows_s "$a" "$b" "$(ratio "$a" "$b")"

# Issue 55: the templated table against unrelated texts of the same length and number, through
# the same trigger (decision 3) and the same bulk pairs; seconds, the unrelated table's the
# baseline.
plain_table "$((N + 50))" "zh_tpl_$N" 55
timed() { printf %.2f "$(secs q -c "$1")"; } # SQL: its seconds (lib.sh's secs), rounded
declare -A bulk_s rows_s new_s
for src in tpl plain; do
    bulk_s[$src]=$(timed "SELECT count(*) FROM simhash_similarity_pairs('SELECT n::bigint, body FROM $src WHERE n <= $N', 0.5)")
    q -c "CREATE TABLE t55_$src(id serial PRIMARY KEY, body text, dup_of int)" \
      -c "CREATE INDEX ON t55_$src USING gin (body simhash_ops) WITH (fastupdate = off)" \
      -c "CREATE TRIGGER posts_dedup BEFORE INSERT OR UPDATE OF body ON t55_$src FOR EACH ROW
          EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of', '{\"min_containment\": 0.8}')"
    rows_s[$src]=$(timed "INSERT INTO t55_$src(body) SELECT body FROM $src WHERE n <= $N ORDER BY n")
    new_s[$src]=$(timed "INSERT INTO t55_$src(body) SELECT body FROM $src WHERE n > $N ORDER BY n")
done
row "templated_vs_unrelated_rows, median chars" "$N, $(q -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY length(body)) FROM tpl")" \
    "$N, $(q -c "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY length(body)) FROM plain")" -
row bulk_pairs_s "${bulk_s[tpl]}" "${bulk_s[plain]}" "$(ratio "${bulk_s[tpl]}" "${bulk_s[plain]}")"
row trigger_insert_N_rows_s "${rows_s[tpl]}" "${rows_s[plain]}" "$(ratio "${rows_s[tpl]}" "${rows_s[plain]}")"
row trigger_insert_50_new_rows_s "${new_s[tpl]}" "${new_s[plain]}" "$(ratio "${new_s[tpl]}" "${new_s[plain]}")"
