#!/usr/bin/env bash
# Benchmark of simhash_duplicates(batch, corpus, k) (issue 13, part 1): a BATCH-row batch
# and a SMALL-row batch against a CORPUS-row corpus at k = 3, with the default 2 lookup
# threads, each next to baselines from the same run:
#   - one sequential read of the corpus's (id, fp): SELECT count(*), sum(fp) FROM corpus,
#     before the passes and again after them;
#   - the same pass with simhash.batch_threads = 0 (lookups in the backend);
#   - a join through the block-index rewrite (simhash_near with 4 generated block columns
#     and their indexes on the corpus), timed on the first SAMPLE batch rows and
#     extrapolated per row to the whole batch;
#   - the dedup trigger's insert path: TRIGGER_SAMPLE corpus paragraphs inserted with
#     simhash_dedup_trigger(..., 'skip') into the corpus table itself (a body column and
#     the trigger added in a transaction that is rolled back; the block indexes and their
#     size are the corpus's), rows/s from one session, extrapolated to the whole batch.
# Sizes: BATCH (1000000), SMALL (10000), CORPUS (10000000), SAMPLE (2000), TRIGGER_SAMPLE
# (5000). Release build, its own cluster. Prints "name value baseline ratio" lines.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
BATCH=${BATCH:-1000000} SMALL=${SMALL:-10000} CORPUS=${CORPUS:-10000000}
SAMPLE=${SAMPLE:-2000} TRIGGER_SAMPLE=${TRIGGER_SAMPLE:-5000}
install_extension
own_cluster bqbench "shared_buffers = 1GB" "work_mem = 256MB" "max_parallel_workers_per_gather = 0"

q -c "CREATE EXTENSION simhash"
# Corpus: random fingerprints. Batch ids start at 10^9: 7 of every 10 rows random, the
# other 3 near copies (1 to 3 bits flipped) of a random corpus row, so about 0.3 pairs
# per batch row.
q -c "CREATE UNLOGGED TABLE corpus AS SELECT g AS id, hashint8extended(g, 0) AS fp FROM generate_series(1::bigint, $CORPUS) g"
gen_batch() { # gen_batch TABLE N
    q -c "CREATE UNLOGGED TABLE $1 AS SELECT 1000000000 + g AS id,
         CASE WHEN g % 10 >= 3 THEN hashint8extended(g, 9)
              ELSE hashint8extended(1 + abs(hashint8extended(g, 5)) % $CORPUS, 0)
                   # (1::bigint << (hashint8extended(g, 2) & 63)::int)
                   # CASE WHEN g % 10 >= 1 THEN 1::bigint << (hashint8extended(g, 3) & 63)::int ELSE 0 END
                   # CASE WHEN g % 10 >= 2 THEN 1::bigint << (hashint8extended(g, 4) & 63)::int ELSE 0 END
         END AS fp
       FROM generate_series(1::bigint, $2) g"
    q -c "VACUUM ANALYZE $1"
}
gen_batch batch "$BATCH"
gen_batch small "$SMALL"
q -c "VACUUM ANALYZE corpus"
q -c "SELECT count(*), sum(fp) FROM corpus" >/dev/null   # warm the cache for every reader alike

tseq=$(secs q -c "SELECT count(*), sum(fp) FROM corpus")
tb=$(secs q -c "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM batch', 'SELECT id, fp FROM corpus', 3)"); pb=$(cat "$tmp/out")
ts=$(secs q -c "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM small', 'SELECT id, fp FROM corpus', 3)"); ps=$(cat "$tmp/out")
# The same two passes with the lookups in the backend itself, no worker threads.
tb0=$(secs q -c "SET simhash.batch_threads = 0; SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM batch', 'SELECT id, fp FROM corpus', 3)")
ts0=$(secs q -c "SET simhash.batch_threads = 0; SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM small', 'SELECT id, fp FROM corpus', 3)")
tseq2=$(secs q -c "SELECT count(*), sum(fp) FROM corpus")   # the read again, after the passes

# The join through the rewrite, on the first SAMPLE batch rows; its pairs are checked
# against simhash_duplicates on the same rows.
ti=$(secs q -c "SELECT simhash_create_blocks('corpus', 'fp', 4, include_fingerprint => true)")
q -c "VACUUM ANALYZE corpus"
q -c "CREATE TABLE sample AS SELECT id, fp FROM batch ORDER BY id LIMIT $SAMPLE"
q -c "EXPLAIN (COSTS OFF) SELECT count(*) FROM sample b JOIN corpus c ON simhash_near(c.fp, b.fp, 3)" >&2
tj=$(secs q -c "SELECT count(*) FROM sample b JOIN corpus c ON simhash_near(c.fp, b.fp, 3)"); pj=$(cat "$tmp/out")
pjs=$(q -c "SELECT count(*) FROM simhash_duplicates('SELECT id, fp FROM sample', 'SELECT id, fp FROM corpus', 3)")
if [ "$pj" != "$pjs" ]; then echo "MISMATCH: join found $pj pairs on the sample, simhash_duplicates $pjs" >&2; exit 1; fi
tj_batch=$(echo "scale=3; $tj * $BATCH / $SAMPLE" | bc)
tj_small=$(echo "scale=3; $tj * $SMALL / $SAMPLE" | bc)

# The dedup trigger's insert path, rolled back.
psql -c "CREATE TABLE para(body text NOT NULL)" \
    -c "\\copy para(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
q -c "CREATE TABLE para_sample AS SELECT body FROM para WHERE length(body) BETWEEN 100 AND 600 LIMIT $TRIGGER_SAMPLE"
ntrig=$(q -c "SELECT count(*) FROM para_sample")
t0=$(now)
q -c "BEGIN;
   ALTER TABLE corpus ADD COLUMN body text;
   CREATE TRIGGER dedup BEFORE INSERT ON corpus FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
   INSERT INTO corpus(id, body) SELECT -row_number() OVER (), body FROM para_sample;
   ROLLBACK" >/dev/null
tt=$(since "$t0")
trig_rate=$(echo "scale=1; $ntrig / $tt" | bc)
tt_batch=$(echo "scale=3; $BATCH / $trig_rate" | bc)

echo "# ratio = baseline / value: above 1, simhash_duplicates(batch, corpus) is faster"
printf '%-52s %10s %10s %8s\n' name value baseline ratio
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${BATCH}_vs_${CORPUS}_k3_s ($pb pairs) / join" "$tb" "$tj_batch" "$(ratio "$tj_batch" "$tb")"
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${BATCH}_vs_${CORPUS}_k3_s / seq read" "$tb" "$tseq" "$(ratio "$tseq" "$tb")"
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${BATCH}_vs_${CORPUS}_k3_s / seq read again" "$tb" "$tseq2" "$(ratio "$tseq2" "$tb")"
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${BATCH}_vs_${CORPUS}_k3_s / no threads" "$tb" "$tb0" "$(ratio "$tb0" "$tb")"
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${BATCH}_vs_${CORPUS}_k3_s / trigger" "$tb" "$tt_batch" "$(ratio "$tt_batch" "$tb")"
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${SMALL}_vs_${CORPUS}_k3_s ($ps pairs) / join" "$ts" "$tj_small" "$(ratio "$tj_small" "$ts")"
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${SMALL}_vs_${CORPUS}_k3_s / seq read" "$ts" "$tseq" "$(ratio "$tseq" "$ts")"
printf '%-52s %10.2f %10.2f %7sx\n' "batch_${SMALL}_vs_${CORPUS}_k3_s / no threads" "$ts" "$ts0" "$(ratio "$ts0" "$ts")"
printf '%-52s %10.2f %10s %8s\n' "seq_read_corpus_s (count(*), sum(fp))" "$tseq" - -
printf '%-52s %10.3f %10s %8s\n' "join_${SAMPLE}_rows_s ($pj pairs; extrapolated per row)" "$tj" - -
printf '%-52s %10.1f %10s %8s\n' "join_ms_per_batch_row" "$(echo "scale=3; $tj * 1000 / $SAMPLE" | bc)" - -
printf '%-52s %10.1f %10s %8s\n' "trigger_insert_rows_per_s ($ntrig rows, one session)" "$trig_rate" - -
printf '%-52s %10.2f %10s %8s\n' "corpus_block_index_build_s (join baseline only)" "$ti" - -
