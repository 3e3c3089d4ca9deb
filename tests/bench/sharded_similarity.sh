#!/usr/bin/env bash
# Similarity across shards (issue 35): a coordinator and 3 shards on this machine
# (tests/harness/shards.sh, sim_shards.sh; Unix sockets), each figure next to its one-node
# baseline from the same run: the coordinator's own tables, holding every row. All four
# clusters share this machine's 2 cores, so the shards do not run on separate machines as
# they would in production. ROWS (default 100,000) texts: 90% paragraphs of 200-500
# characters from an order-3 Markov chain trained on People's Daily (as similarity_pairs.sh)
# and 10% reposts of them, loaded in bulk (triggers off, each copy written to its owner).
#   1. copies per document at 3 and 16 shards, computed (s·(1 − (1 − 1/s)^m) for a text of m
#      distinct owner keys) and measured, and bytes per document: the copies with their
#      simhash_ops indexes (the text carried, the design shipped) against a copy table that
#      would carry only the owned keys (int[] and a GIN index: the design that fetches the
#      text from its shard instead);
#   2. lookup p50 (one pgbench client, LOOKUP_SECONDS): similarity ≥ 0.5 to a stored text,
#      through the coordinator against one node's simhash_ops index;
#   3. inserts with skip at similarity 0.5 (lib.sh's insert_rounds: two random corpus
#      paragraphs joined, CLIENTS clients, ROUNDS rounds of DURATION seconds): through the
#      coordinator (simhash_similarity_shard_trigger, the shards' triggers) against
#      simhash_similarity_dedup_trigger on one node; the same with link (no subtransaction);
#      and what fetching a candidate's text
#      from its shard would add per insert: a lookup of 3 ids through the coordinator;
#   4. bulk pairs at 0.5: every shard's simhash_similarity_shard_pairs (band keys,
#      sim_shard_bulk) at once against simhash_similarity_pairs gathering every text on the
#      coordinator, and against one node's local table; the slowest shard run alone; the
#      pairs compared (0 differ); the clusters. One shard of 16: tests/bench/sharded_pairs.sh.
# Prints "name value baseline ratio" (ratio = value / baseline).
#   ROWS=100000 LOOKUP_SECONDS=10 CLIENTS=4 DURATION=10 ROUNDS=2 bash tests/bench/sharded_similarity.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
ROWS=${ROWS:-100000} LOOKUP_SECONDS=${LOOKUP_SECONDS:-10} CLIENTS=${CLIENTS:-4} DURATION=${DURATION:-10} ROUNDS=${ROUNDS:-2}
P=simshardbench S=3
fresh=$((ROWS * 9 / 10))
f=$(markov "zh_paragraphs_$fresh" "$root/target/corpus/peoples_daily_199801.txt" "$fresh" 200 500 seed=2026)
install_extension
# shellcheck source=../harness/shards.sh
source "$h/shards.sh"
# shellcheck source=../harness/sim_shards.sh
source "$h/sim_shards.sh"
shards_start $P $S
sim_shards $P $S
sim_shard_dedup $P $S 0.5
sim_coordinator $P $P-c $S skip
eval "$(bash "$h/cluster.sh" env $P-c)"   # psql and pgbench default to the coordinator
csecs() { num "$(secs c -c "SET client_min_messages = warning" -c "$1")"; }
num() { awk -v a="$1" 'BEGIN {printf "%.3f", a}'; }
row_width=60
row name value baseline ratio

# --- Load ------------------------------------------------------------------------------
for i in $(seq 0 $((S - 1))); do on $P-$i -c "ALTER TABLE doc_copies DISABLE TRIGGER dedup" >/dev/null; done
t0=$(now)
c >/dev/null <<SQL
CREATE TABLE one_node (id bigserial PRIMARY KEY, body text NOT NULL);
\\copy one_node(body) FROM '$f' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')
$(reposts_sql one_node)
ALTER TABLE one_node ADD COLUMN owners3 int[], ADD COLUMN owners16 int[];
UPDATE one_node SET owners3 = simhash_similarity_owners(body, $S), owners16 = simhash_similarity_owners(body, 16);
$(for i in $(seq 0 $((S - 1))); do echo "ALTER FOREIGN TABLE doc_copies_$i OPTIONS (ADD batch_size '1000');"; done)
ALTER TABLE docs DISABLE TRIGGER b_copies;
INSERT INTO docs(id, body) SELECT id, body FROM one_node;
INSERT INTO doc_copies(shard, id, body) SELECT o, id, body FROM one_node, unnest(owners3) o;
ALTER TABLE docs ENABLE TRIGGER b_copies;
CREATE INDEX one_node_body ON one_node USING gin (body simhash_ops);
VACUUM ANALYZE one_node;
SQL
for i in $(seq 0 $((S - 1))); do
    on $P-$i -c "ALTER TABLE doc_copies ENABLE TRIGGER dedup" -c "VACUUM ANALYZE docs" -c "VACUUM ANALYZE doc_copies" >/dev/null
done
rows=$(c -At -c "SELECT count(*) FROM one_node")
row "load_${rows}_docs_and_copies_s (bulk, triggers off)" "$(num "$(since "$t0")")" - -

# --- 1. Copies per document, and their bytes -------------------------------------------
for s in $S 16; do
    read -r computed measured < <(c -At -F' ' -c "
        SELECT avg($s * (1 - (1 - 1.0 / $s) ^ m)), avg(cardinality(owners$s))
          FROM (SELECT owners$s, (SELECT count(DISTINCT k >> 1) FROM unnest(simhash_keys(body)) k) AS m FROM one_node) x")
    row "copies_per_doc_${s}_shards measured / computed" "$(num "$measured")" "$(num "$computed")" "$(ratio "$measured" "$computed")"
done
copies=0 copy_bytes=0 doc_bytes=0 keys_bytes=0
for i in $(seq 0 $((S - 1))); do
    copies=$((copies + $(on $P-$i -At -c "SELECT count(*) FROM doc_copies")))
    copy_bytes=$((copy_bytes + $(on $P-$i -At -c "SELECT pg_total_relation_size('doc_copies')")))
    doc_bytes=$((doc_bytes + $(on $P-$i -At -c "SELECT pg_total_relation_size('docs')")))
done
check "copies on the shards are the routing's" "$copies" "$(c -At -c "SELECT sum(cardinality(owners3)) FROM one_node")"
# The fetch design's copy table: the owned keys only, on shard 0, scaled to the 3 shards.
on $P-0 >/dev/null <<SQL
CREATE TABLE key_copies (shard int, id bigint PRIMARY KEY, keys int[] NOT NULL);
INSERT INTO key_copies SELECT 0, c.id, ARRAY(SELECT k FROM unnest(simhash_keys(c.body)) k
                                              WHERE simhash_similarity_key_owner(k, $S) = 0) FROM doc_copies c;
CREATE INDEX ON key_copies USING gin (keys);
VACUUM ANALYZE key_copies;
SQL
keys_bytes=$(( $(on $P-0 -At -c "SELECT pg_total_relation_size('key_copies')") * copies / $(on $P-0 -At -c "SELECT count(*) FROM key_copies") ))
text_bytes=$(c -At -c "SELECT sum(octet_length(body)) FROM one_node")
row "copy_bytes_per_doc carried text / the documents (all shards)" "$((copy_bytes / rows))" "$((doc_bytes / rows))" "$(ratio "$copy_bytes" "$doc_bytes")"
row "copy_bytes_per_doc owned keys only (fetch design) / carried" "$((keys_bytes / rows))" "$((copy_bytes / rows))" "$(ratio "$keys_bytes" "$copy_bytes")"
row "text_bytes_per_doc (UTF-8)" "$((text_bytes / rows))" - -

# --- 2. Lookups ------------------------------------------------------------------------
c >/dev/null <<'SQL'
CREATE FUNCTION lookup(tbl regclass, i bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE q text; n bigint;
BEGIN
    SELECT body INTO q FROM one_node WHERE id = i;
    EXECUTE format('SELECT count(*) FROM %s WHERE simhash_similarity(body, $1) >= 0.5', tbl) INTO n USING q;
    RETURN n;
END $$;
SQL
for i in $(seq 0 $((S - 1))); do
    c -c "ALTER SERVER shard$i OPTIONS (ADD options '-c cursor_tuple_fraction=1')" >/dev/null
done
for t in docs one_node; do
    printf '%s\n' "\\set i random(1, $rows)" "SELECT lookup('$t', :i);" >"$tmp/$t.sql"
    pgbench -n -c 1 -T 2 -f "$tmp/$t.sql" postgres >/dev/null   # warm caches and connections
    (cd "$tmp" && pgbench -n -c 1 -T "$LOOKUP_SECONDS" -l --log-prefix="$t" -f "$tmp/$t.sql" postgres >/dev/null)
done
logged_ms() { cat "$@" | awk '{print $3 / 1000}'; }
for p in 0.50 0.99; do
    a=$(logged_ms "$tmp"/docs.* | pct $p); o=$(logged_ms "$tmp"/one_node.* | pct $p)
    row "lookup_sim05_p${p#0.}_ms fan-out $S shards / one node" "$a" "$o" "$(ratio "$a" "$o")"
    [ $p = 0.50 ] && lookup_p50=$a
done

# --- 3. Inserts with dedup -------------------------------------------------------------
load_paragraphs >/dev/null
c >/dev/null <<SQL
CREATE SEQUENCE ids START 10000000;
ALTER TABLE docs ALTER id SET DEFAULT nextval('ids');
CREATE TRIGGER dedup BEFORE INSERT ON one_node FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'skip');
SQL
insert_rounds docs one_node
row "insert_skip_rows_per_s $CLIENTS clients, coordinator / one node" "${tps[docs]}" "${tps[one_node]}" "$(ratio "${tps[docs]}" "${tps[one_node]}")"
# link: the same check without skip's subtransaction (a SAVEPOINT on each shard), and no
# insert fails.
c >/dev/null <<SQL
DROP TRIGGER b_copies ON docs;
CREATE TRIGGER b_copies BEFORE INSERT OR UPDATE OR DELETE ON docs FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_shard_trigger('id', 'body', 'public.doc_copies', '$S', 'link', 'dup_of');
ALTER TABLE one_node ADD COLUMN dup_of bigint;
DROP TRIGGER dedup ON one_node;
CREATE TRIGGER dedup BEFORE INSERT ON one_node FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of');
SQL
insert_rounds docs one_node
row "insert_link_rows_per_s $CLIENTS clients, coordinator / one node" "${tps[docs]}" "${tps[one_node]}" "$(ratio "${tps[docs]}" "${tps[one_node]}")"
printf '%s\n' "\\set a random(1, $rows)" "SELECT count(body) FROM docs WHERE id = ANY (ARRAY[:a, :a + 7, :a + 13]::bigint[]);" >"$tmp/fetch.sql"
(cd "$tmp" && pgbench -n -c 1 -T "$LOOKUP_SECONDS" -l --log-prefix=fetch -f "$tmp/fetch.sql" postgres >/dev/null)
fetch=$(logged_ms "$tmp"/fetch.* | pct 0.50)
row "fetch design: 3 texts from their shards p50_ms / a lookup" "$fetch" "$lookup_p50" "$(ratio "$fetch" "$lookup_p50")"

# --- 4. Bulk pairs ---------------------------------------------------------------------
c -c "DELETE FROM docs WHERE id >= 10000000" -c "DELETE FROM one_node WHERE id > $rows" -c "VACUUM ANALYZE one_node" >/dev/null
sim_shard_bulk $P $S 0.5
ts=$(csecs "CREATE TABLE sharded AS SELECT * FROM doc_pairs")
tg=$(csecs "CREATE TABLE gathered AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM docs', 0.5)")
to=$(csecs "CREATE TABLE single AS SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM one_node', 0.5)")
read -r pairs differ < <(c -At -F' ' -c "SELECT (SELECT count(*) FROM single),
    (SELECT count(*) FROM ((TABLE sharded EXCEPT ALL TABLE single) UNION ALL (TABLE single EXCEPT ALL TABLE sharded)) x)")
check "bulk pairs over the shards vs one node ($pairs pairs of $rows texts)" "$differ differ" "0 differ"
tmax=$(slowest_shard $P $S "SELECT count(*) FROM doc_pairs")
row "bulk_pairs_${rows}_s shards / gathering ($pairs pairs)" "$ts" "$tg" "$(ratio "$ts" "$tg")"
row "bulk_pairs_${rows}_s slowest shard alone / one node" "$tmax" "$to" "$(ratio "$tmax" "$to")"
row "bulk_pairs_${rows}_s shards / one node" "$ts" "$to" "$(ratio "$ts" "$to")"
tcs=$(csecs "SELECT count(*) FROM simhash_components('SELECT id1, id2 FROM doc_pairs')")
tcg=$(csecs "SELECT count(*) FROM simhash_similarity_clusters('SELECT id, body FROM docs', 0.5)")
row "bulk_clusters_${rows}_s shards+components / gathering" "$tcs" "$tcg" "$(ratio "$tcs" "$tcg")"
# One shard's part of a 16-shard layout: tests/bench/sharded_pairs.sh models it (band keys).
exit $status
