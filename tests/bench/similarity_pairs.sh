#!/usr/bin/env bash
# Bulk pairs by similarity (issue 39: "at 1M texts >= 5x rensa and >= 30x datasketch end to
# end; on the English documentation corpus's paragraphs >= 5x rensa; the same pairs and
# values as brute force at 20k texts"), release build, its own cluster. ROWS (default
# 1,000,000) texts: 90% paragraphs of 200-500 characters written by an order-3 Markov chain
# trained on People's Daily (distinct texts, see similarity.sh) and 10% reposts of them (the
# first sentence dropped, one character changed, or a source line added), ids in a table.
#   - ours: CREATE TABLE ours AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM
#     t', 0.5): wall seconds, server side;
#   - rensa (pinned, in a virtualenv under target/) end to end (tests/bench/rensa_pairs.py):
#     the texts exported with \copy, read, shingled as measure 2 does, R-MinHash of 128
#     values, RMinHashLSH with RENSA_BANDS (default 32) bands of 128 / RENSA_BANDS rows (rensa's
#     docs use 128 values in 8 bands for 0.8; 32 x 4 puts the S-curve's (1/b)^(1/r) at 0.42,
#     below 0.5), every text queried, every candidate checked exactly (Jaccard of the shingle
#     sets >= 0.5; without measure 2's figure agreement). Then, untimed: measure 2
#     (simhash_similarity in SQL) of rensa's kept pairs; every one at >= 0.5 must be among
#     ours; and ours checked value for value against simhash_similarity(a, b) (SAMPLE pairs,
#     default all of them);
#   - datasketch (pinned) end to end on DS_ROWS (default 200,000) of the texts, scaled to ROWS
#     linearly (it holds every text's shingle set: 1M would not fit in 24 GB; its LSH queries
#     grow faster than the rows, so linear scaling flatters it): the texts exported with
#     \copy, read, 3-character shingles (the measure's for Chinese text), a MinHash of 128
#     permutations, MinHashLSH(threshold 0.5) built and queried for every text: the candidate
#     pairs, which datasketch does not measure;
#   - the English documentation corpus (target/corpus/pydocs.txt and english.txt, distinct
#     lines in order of first occurrence, as make quality reads them): ours against rensa;
#   - at CHECK_ROWS (default 20,000) of the texts: simhash_similarity_pairs against the brute
#     force (crates/simhash-core/examples/quality_similarity allpairs: prefix filtering, the
#     same pairs as comparing every two texts), pair for pair and value for value.
# Prints "name  value  baseline  ratio" lines (ratio: how many times faster ours is).
#   ROWS=1000000 CHECK_ROWS=20000 DS_ROWS=200000 RENSA_BANDS=32 SAMPLE=0 bash tests/bench/similarity_pairs.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
ROWS=${ROWS:-1000000}
CHECK_ROWS=${CHECK_ROWS:-20000}
DS_ROWS=${DS_ROWS:-200000}
[ "$DS_ROWS" -le "$ROWS" ] || DS_ROWS=$ROWS
RENSA_BANDS=${RENSA_BANDS:-32}
SAMPLE=${SAMPLE:-0}
corpus=$root/target/corpus/peoples_daily_199801.txt
venv=$root/target/bench-venv
pins=("datasketch==1.6.5" "numpy==2.2.6" "scipy==1.15.3" "rensa==0.5.0")
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
"$venv/bin/python" -c 'import importlib.metadata as m, sys
assert all(m.version(n) == v for n, v in (p.split("==") for p in sys.argv[1:]))' "${pins[@]}" 2>/dev/null ||
    "$venv/bin/pip" install -q "${pins[@]}"
cargo build --release -q -p simhash-core --example quality_similarity
fresh=$((ROWS * 9 / 10))
f=$(markov "zh_paragraphs_$fresh" "$corpus" "$fresh" 200 500 seed=2026)
install_extension
own_cluster simpairsbench "shared_buffers = 2GB" "max_wal_size = 16GB" "shared_preload_libraries = 'simhash'" \
    "max_parallel_workers_per_gather = 0" "work_mem = 256MB"
q -c "CREATE EXTENSION simhash"
q -c "CREATE TABLE t(id bigserial PRIMARY KEY, body text)" \
  -c "\\copy t(body) FROM '$f' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
  -c "$(reposts_sql t)" \
  -c "VACUUM ANALYZE t"
rows=$(q -c "SELECT count(*) FROM t")

# Ours, server side.
ours=$(q -c "SET client_min_messages = warning" -c "CREATE TEMP TABLE x(n bigint, s float8)" -c "
DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
  CREATE TABLE ours AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM t', 0.5);
  INSERT INTO x SELECT count(*), extract(epoch FROM clock_timestamp() - t0) FROM ours; END \$\$" -c "SELECT n, s FROM x")
read -r our_pairs our_s <<<"${ours//|/ }"

# rensa, end to end.
t0=$(now)
q -c "\\copy (SELECT id, replace(replace(body, E'\\t', ' '), E'\\n', ' ') FROM t) TO '$tmp/texts.tsv' WITH (FORMAT csv, DELIMITER e'\\t', QUOTE e'\\x01')"
read -r rensa_candidates rensa_kept < <("$venv/bin/python" "$root/tests/bench/rensa_pairs.py" "$tmp/texts.tsv" "$tmp/rensa.tsv" bands="$RENSA_BANDS")
rensa_s=$(since "$t0")
# Measure 2 of rensa's kept pairs, against ours; ours against simhash_similarity(a, b).
sample_sql="TABLE ours"
[ "$SAMPLE" -gt 0 ] && sample_sql="SELECT * FROM ours ORDER BY hashint8(id1 * 7919 + id2) LIMIT $SAMPLE"
read -r rensa_m2 rensa_m2_missed rensa_fig ours_unfound checked wrong < <(q -F' ' -c "CREATE TEMP TABLE rp(id1 bigint, id2 bigint, j float8)" \
  -c "\\copy rp FROM '$tmp/rensa.tsv'" -c "CREATE INDEX ON ours(id1, id2)" -c "ANALYZE ours" -c "
WITH m AS (SELECT rp.id1, rp.id2, simhash_similarity(a.body, b.body) AS s FROM rp JOIN t a ON a.id = rp.id1 JOIN t b ON b.id = rp.id2),
     v AS (SELECT o.similarity, simhash_similarity(a.body, b.body) AS s FROM ($sample_sql) o JOIN t a ON a.id = o.id1 JOIN t b ON b.id = o.id2)
SELECT (SELECT count(*) FROM m WHERE s >= 0.5),
       (SELECT count(*) FROM m WHERE s >= 0.5 AND NOT EXISTS (SELECT FROM ours o WHERE o.id1 = m.id1 AND o.id2 = m.id2)),
       (SELECT count(*) FROM m WHERE s < 0.5),
       (SELECT count(*) FROM ours o WHERE NOT EXISTS (SELECT FROM rp WHERE rp.id1 = o.id1 AND rp.id2 = o.id2)),
       (SELECT count(*) FROM v), (SELECT count(*) FROM v WHERE s IS DISTINCT FROM similarity)")
[ "$rensa_m2_missed" = 0 ] || echo "similarity_pairs: $rensa_m2_missed of rensa's pairs at measure 2 >= 0.5 are not among ours" >&2
[ "$wrong" = 0 ] || echo "similarity_pairs: $wrong of our $checked pairs differ from simhash_similarity(a, b)" >&2

# datasketch, end to end.
cat >"$tmp/lsh.py" <<'EOF'
import sys, time, unicodedata
from datasketch import MinHash, MinHashLSH
path, = sys.argv[1:]
ids, sets = [], []
for line in open(path, encoding="utf-8"):
    i, text = line.rstrip("\n").split("\t", 1)
    s = "".join(c for c in unicodedata.normalize("NFKC", text).lower() if c.isalnum())
    ids.append(int(i))
    sets.append({s[j:j + 3].encode() for j in range(max(1, len(s) - 2))})
lsh = MinHashLSH(threshold=0.5, num_perm=128)
hashes = []
for i, sh in zip(ids, sets):
    m = MinHash(num_perm=128)
    m.update_batch(list(sh))
    lsh.insert(i, m)
    hashes.append(m)
pairs = 0
for i, m in zip(ids, hashes):
    pairs += sum(1 for j in lsh.query(m) if j > i)
print(pairs)
EOF
# On DS_ROWS of the texts: the first DS_ROWS * 0.9 fresh ones and their reposts.
df=$((DS_ROWS * 9 / 10))
t0=$(now)
q -c "\\copy (SELECT id, replace(replace(body, E'\\t', ' '), E'\\n', ' ') FROM t WHERE id <= $df OR id BETWEEN $fresh + 1 AND $fresh + $df / 9) TO '$tmp/texts_ds.tsv' WITH (FORMAT csv, DELIMITER e'\\t', QUOTE e'\\x01')"
lsh_pairs=$("$venv/bin/python" "$tmp/lsh.py" "$tmp/texts_ds.tsv")
lsh_measured_s=$(since "$t0")
ds_rows=$(wc -l <"$tmp/texts_ds.tsv")
lsh_s=$(echo "$lsh_measured_s * $rows / $ds_rows" | bc -l)
ds_ours=$(q -c "SELECT count(*) FROM ours WHERE (id1 <= $df OR id1 BETWEEN $fresh + 1 AND $fresh + $df / 9) AND (id2 <= $df OR id2 BETWEEN $fresh + 1 AND $fresh + $df / 9)")

# The English documentation corpus's distinct paragraphs: ours against rensa.
q -c "CREATE TABLE raw(n serial, body text NOT NULL)" -c "\\copy raw(body) FROM '$root/target/corpus/pydocs.txt'" \
  -c "\\copy raw(body) FROM '$root/target/corpus/english.txt'" \
  -c "CREATE TABLE en(id bigserial PRIMARY KEY, body text NOT NULL)" \
  -c "INSERT INTO en(body) SELECT body FROM raw GROUP BY body ORDER BY min(n)" -c "DROP TABLE raw" -c "VACUUM ANALYZE en"
en_rows=$(q -c "SELECT count(*) FROM en")
en=$(q -c "SET client_min_messages = warning" -c "CREATE TEMP TABLE x(n bigint, s float8)" -c "
DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
  CREATE TABLE en_ours AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM en', 0.5);
  INSERT INTO x SELECT count(*), extract(epoch FROM clock_timestamp() - t0) FROM en_ours; END \$\$" -c "SELECT n, s FROM x")
read -r en_pairs en_s <<<"${en//|/ }"
t0=$(now)
q -c "\\copy (SELECT id, replace(replace(body, E'\\t', ' '), E'\\n', ' ') FROM en) TO '$tmp/en.tsv' WITH (FORMAT csv, DELIMITER e'\\t', QUOTE e'\\x01')"
read -r en_rensa_candidates en_rensa_kept < <("$venv/bin/python" "$root/tests/bench/rensa_pairs.py" "$tmp/en.tsv" "$tmp/en_rensa.tsv" bands="$RENSA_BANDS")
en_rensa_s=$(since "$t0")

# The check against the brute force, on the first CHECK_ROWS * 0.9 fresh texts and the reposts
# of those (ids past the fresh ones, in the order of their originals).
cf=$((CHECK_ROWS * 9 / 10))
check="id <= $cf OR id BETWEEN $fresh + 1 AND $fresh + $cf / 9"
q -c "\\copy (SELECT id FROM t WHERE $check ORDER BY id) TO '$tmp/check_ids.txt'"
q -c "\\copy (SELECT json_build_array(body) -> 0 FROM t WHERE $check ORDER BY id) TO '$tmp/check.json' WITH (FORMAT csv, DELIMITER e'\\x02', QUOTE e'\\x01')"
# allpairs numbers the texts from 0 in file order: back to ids.
target/release/examples/quality_similarity allpairs 0.5 2 <"$tmp/check.json" |
    awk 'NR == FNR { id[FNR - 1] = $1; next } { printf "%d\t%d\t%.15g\n", id[$1], id[$2], $3 }' "$tmp/check_ids.txt" - |
    sort >"$tmp/brute.tsv"
q -c "SET client_min_messages = warning" -c "\\copy (SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM t WHERE $check', 0.5)) TO '$tmp/server.tsv'"
awk -F'\t' '{ printf "%d\t%d\t%.15g\n", $1, $2, $3 }' "$tmp/server.tsv" | sort >"$tmp/server_sorted.tsv"
differ=$(comm -3 "$tmp/brute.tsv" "$tmp/server_sorted.tsv" | wc -l)
[ "$differ" = 0 ] || echo "similarity_pairs: $differ pairs differ from the brute force at $CHECK_ROWS texts" >&2

row_width=60
row name value baseline ratio
row "texts" "$rows" - -
row "bulk_pairs_s ours / rensa end to end" "$(printf %.1f "$our_s")" "$(printf %.1f "$rensa_s")" "$(ratio "$rensa_s" "$our_s")x"
row "bulk_pairs_s ours / datasketch (${ds_rows} texts x$(ratio "$rows" "$ds_rows"))" "$(printf %.1f "$our_s")" "$(printf %.1f "$lsh_s")" "$(ratio "$lsh_s" "$our_s")x"
row "datasketch_s measured at $ds_rows texts" "$(printf %.1f "$lsh_measured_s")" - -
row "pairs ours / rensa's kept (Jaccard >= 0.5)" "$our_pairs" "$rensa_kept" "$(ratio "$our_pairs" "$rensa_kept")"
row "rensa candidates checked / kept" "$rensa_candidates" "$rensa_kept" -
row "rensa's kept at measure 2 >= 0.5 / not among ours" "$rensa_m2" "$rensa_m2_missed" -
row "rensa's kept below 0.5 at measure 2 (figures)" "$rensa_fig" - -
row "ours not found by rensa (its LSH misses)" "$ours_unfound" "$our_pairs" -
row "ours checked against simhash_similarity / differing" "$checked" "$wrong" -
row "pairs ours / datasketch candidates at $ds_rows texts" "$ds_ours" "$lsh_pairs" "$(ratio "$ds_ours" "$lsh_pairs")"
row "english_texts" "$en_rows" - -
row "english bulk_pairs_s ours / rensa end to end" "$(printf %.2f "$en_s")" "$(printf %.2f "$en_rensa_s")" "$(ratio "$en_rensa_s" "$en_s")x"
row "english pairs ours / rensa's kept" "$en_pairs" "$en_rensa_kept" "$(ratio "$en_pairs" "$en_rensa_kept")"
row "pairs_differing_from_brute_force_$CHECK_ROWS" "$differ" "$(wc -l <"$tmp/brute.tsv")" -
bash "$h/cluster.sh" stop simpairsbench
