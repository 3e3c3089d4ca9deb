#!/usr/bin/env bash
# simhash_dedup_trigger under concurrency (issue 4): 8 pgbench clients insert ~2,000 real
# paragraphs, a third of them followed by planted variants within distance 3, arranged so
# that a paragraph and its variants are inserted by different clients at the same moment.
# For actions reject and skip, under READ COMMITTED and REPEATABLE READ, with two rows per
# transaction (so lock order across rows can deadlock), and with 100 rows per transaction
# (the table-wide lock escalation), pgbench retrying 40001/40P01:
#   - every item is processed exactly once (one outcome row each);
#   - brute force (PostgreSQL's bit_count, not the extension) finds 0 pairs within 3 that
#     the dedup decision calls the same passage (simhash_same_passage: 6.0 keeps a variant
#     whose planted '某' took a digit's place apart from its paragraph);
#   - every item that has no other item within 3 is present (nothing lost);
#   - every rejected or skipped item has a row within 3 in the table that is the same
#     passage (no false refusal);
#   - pgbench reports no failed transaction and no aborted client.
# Expects PGHOST/PGPORT/PGUSER of a running cluster with the extension installed.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
export PGDATABASE=simhash_trigger_conc
k=3
clients=8

fresh_db "$PGDATABASE"
psql -c "CREATE EXTENSION simhash"
psql -c "CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL)" \
     -c "\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
# 1,500 paragraphs, every third with planted variants (tests/harness/dedup_items.sql).
psql -v k=$k -v stride=7 -v paragraphs=1500 -f "$h/dedup_items.sql" >/dev/null
psql -f "$h/try_item.sql" >/dev/null
psql >/dev/null <<SQL
-- Items with no other item within $k: whatever the interleaving, they must all be inserted.
CREATE TABLE lonely AS
SELECT item FROM work w WHERE NOT EXISTS
    (SELECT 1 FROM work o WHERE o.item <> w.item AND bit_count((o.fp # w.fp)::bit(64)) <= $k);

CREATE TABLE docs(id int PRIMARY KEY, body text, fp bigint);
SELECT simhash_create_blocks('docs', 'fp');
-- Each run below replaces these indexes with its own.
DROP INDEX docs_fp_block0_of4_idx, docs_fp_block1_of4_idx, docs_fp_block2_of4_idx, docs_fp_block3_of4_idx;
SQL
items=$(psql -Atc "SELECT count(*) FROM work")
planted=$(psql -Atc "SELECT count(*) FROM cand WHERE var > 0")
lonely=$(psql -Atc "SELECT count(*) FROM lonely")
echo "items $items (planted variants $planted, items without any near-duplicate $lonely), $clients clients"

# action, isolation, items per transaction, block indexes. 2 items: lock order across rows
# can deadlock. 100 items (up to 400 block keys): transactions escalate to the table-wide
# key. Block indexes plain or covering (INCLUDE (fp)): both pre-check paths of src/probe.rs.
while IFS=, read -r action iso per_tx indexes; do
        txs=$(( (items + clients * per_tx - 1) / (clients * per_tx) ))
        include=""; [ "$indexes" = covering ] && include="INCLUDE (fp)"
        psql -q <<SQL
SET client_min_messages = warning;
DROP INDEX IF EXISTS $(seq -s, -f 'docs_block%g' 0 3);
SELECT format('CREATE INDEX docs_block%s ON docs (fp_block%s_of4) $include', i, i) FROM generate_series(0, 3) i \gexec
SQL
        rc=0
        dedup_round "simhash_dedup_trigger('fp', 'body', '$k', '$action')" $clients "$txs" "$per_tx" "$iso" || rc=$?
        retried=$(pgbench_figure "$tmp/pgbench.out" "number of transactions retried")
        retries=$(pgbench_figure "$tmp/pgbench.out" "total number of retries")
        failed=$(pgbench_figure "$tmp/pgbench.out" "number of failed transactions")
        read -r done inserted refused pairs lost unjustified rows < <(psql -AtF' ' <<SQL
SELECT (SELECT count(*) FROM outcome),
       (SELECT count(*) FROM outcome WHERE result = 'inserted'),
       (SELECT count(*) FROM outcome WHERE result <> 'inserted'),
       (SELECT count(*) FROM docs a JOIN docs b ON a.id < b.id AND bit_count((a.fp # b.fp)::bit(64)) <= $k
            AND simhash_same_passage(a.body, b.body)),
       (SELECT count(*) FROM lonely l WHERE NOT EXISTS (SELECT 1 FROM docs d WHERE d.id = l.item)),
       (SELECT count(*) FROM outcome o JOIN work w USING (item) WHERE o.result <> 'inserted'
            AND NOT EXISTS (SELECT 1 FROM docs d WHERE bit_count((d.fp # w.fp)::bit(64)) <= $k
                                                   AND simhash_same_passage(d.body, w.body))),
       (SELECT count(*) FROM docs);
SQL
        )
        line="$action, $iso, $per_tx rows/transaction, $indexes block indexes: attempted $items, done $done, inserted $inserted, $([ "$action" = reject ] && echo rejected || echo skipped) $refused, transactions retried ${retried:-?} (retries ${retries:-?}), failed ${failed:-?}; brute-force same-passage pairs within $k: $pairs, lost $lost, unjustified $unjustified"
        if [ "$rc" -ne 0 ] || [ "$done" -ne "$items" ] || [ "$pairs" -ne 0 ] || [ "$lost" -ne 0 ] \
            || [ "$unjustified" -ne 0 ] || [ "$rows" -ne "$inserted" ] || [ "${failed:-1}" -ne 0 ]; then
            fail "$line (pgbench exit $rc)"
            tail -5 "$tmp/pgbench.err"
        else
            echo "ok   $line"
        fi
done <<'RUNS'
reject,read committed,2,plain
reject,repeatable read,2,plain
skip,read committed,2,covering
skip,repeatable read,2,covering
reject,read committed,100,covering
skip,repeatable read,100,plain
RUNS
exit $status
