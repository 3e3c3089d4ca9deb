#!/usr/bin/env bash
# Bulk pairs by similarity (issue 34: "bulk pairs at 1M texts ≥ 5× datasketch MinHash LSH end
# to end (threshold 0.5, 128 permutations), with the same pairs as brute force at 20k texts"),
# release build, its own cluster. ROWS (default 1,000,000) texts: 90% paragraphs of 200-500
# characters written by an order-3 Markov chain trained on People's Daily (distinct texts,
# see similarity.sh) and 10% reposts of them (the first sentence dropped, one character
# changed, or a source line added), ids in a table.
#   - simhash_similarity_pairs('SELECT id, body FROM t', 0.5): wall seconds, server side;
#   - datasketch (pinned, in a virtualenv under target/) end to end: the texts exported with
#     \copy, read, each text's shingles (5-character shingles of its letters and digits,
#     lowercased, NFKC: 3-character shingles, the measure's for Chinese text), a MinHash
#     of 128 permutations, MinHashLSH(threshold 0.5) built and queried for every text: the
#     candidate pairs, which datasketch does not measure;
#   - at CHECK_ROWS (default 20,000) of the texts: simhash_similarity_pairs against the brute
#     force (crates/simhash-core/examples/quality_similarity allpairs: prefix filtering, the
#     same pairs as comparing every two texts), pair for pair and value for value.
# Prints "name  value  baseline  ratio" lines.
#   ROWS=1000000 CHECK_ROWS=20000 bash tests/bench/similarity_pairs.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
ROWS=${ROWS:-1000000}
CHECK_ROWS=${CHECK_ROWS:-20000}
corpus=$root/target/corpus/peoples_daily_199801.txt
venv=$root/target/bench-venv
pins=("datasketch==1.6.5" "numpy==2.2.6" "scipy==1.15.3")
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
  -c "INSERT INTO t(body)
      SELECT CASE id % 3 WHEN 0 THEN regexp_replace(body, '^[^。！？]*[。！？]', '')
                         WHEN 1 THEN overlay(body placing '某' from 1 + (id % 50)::int for 1)
                         ELSE '（新华社北京１月１日电）' || body END
        FROM t WHERE id % 9 = 4" \
  -c "VACUUM ANALYZE t"
rows=$(q -c "SELECT count(*) FROM t")

# Ours, server side.
ours=$(q -c "SET client_min_messages = warning" -c "CREATE TEMP TABLE x(n bigint, s float8)" -c "
DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); n bigint; BEGIN
  SELECT count(*) INTO n FROM simhash_similarity_pairs('SELECT id, body FROM t', 0.5);
  INSERT INTO x VALUES (n, extract(epoch FROM clock_timestamp() - t0)); END \$\$" -c "SELECT n, s FROM x")
read -r our_pairs our_s <<<"${ours//|/ }"

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
t0=$(now)
q -c "\\copy (SELECT id, replace(replace(body, E'\\t', ' '), E'\\n', ' ') FROM t) TO '$tmp/texts.tsv' WITH (FORMAT csv, DELIMITER e'\\t', QUOTE e'\\x01')"
lsh_pairs=$("$venv/bin/python" "$tmp/lsh.py" "$tmp/texts.tsv")
lsh_s=$(since "$t0")

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

row_width=44
row name value baseline ratio
row "texts" "$rows" - -
row "bulk_pairs_s_vs_datasketch_lsh" "$(printf %.1f "$our_s")" "$(printf %.1f "$lsh_s")" "$(ratio "$lsh_s" "$our_s")x"
row "bulk_pairs_found_vs_lsh_candidates" "$our_pairs" "$lsh_pairs" "$(ratio "$our_pairs" "$lsh_pairs")"
row "pairs_differing_from_brute_force_$CHECK_ROWS" "$differ" "$(wc -l <"$tmp/brute.tsv")" -
bash "$h/cluster.sh" stop simpairsbench
