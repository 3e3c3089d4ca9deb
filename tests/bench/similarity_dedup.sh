#!/usr/bin/env bash
# Insert throughput with simhash_similarity_dedup_trigger (issue 34: "dedup insert with 8
# clients ≥ 5× a pg_trgm check trigger, and ≥ 0.5× an insert into the same table with the
# index and no trigger"), release build, its own cluster. Tables of N rows (default 100,000
# corpus paragraphs), written by pgbench, 8 clients, one new row per transaction, DURATION
# seconds each, alternated ROUNDS times. The new rows are two random paragraphs joined
# (200-600 characters), in two workloads:
#   reposts: as they are, so that every new row has rows of the table inside it;
#   fresh:   each sentence tagged with ten characters from a random paragraph, so that its
#            shingles are mostly new: the common case of a text that is no repost.
# Per workload, three tables (the same query inserts into each):
#   plain:  a simhash_ops index, no trigger;
#   dedup:  the index and simhash_similarity_dedup_trigger('body', '0.5', 'skip');
#   trgm:   a gin_trgm_ops index and a PL/pgSQL trigger that skips the row when a row has
#           `body % NEW.body` at pg_trgm.similarity_threshold = 0.5: the check a pg_trgm user
#           writes.
# Prints "name  value  baseline  ratio" lines.
#   N=100000 DURATION=15 ROUNDS=2 bash tests/bench/similarity_dedup.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
N=${N:-100000}
DURATION=${DURATION:-15}
ROUNDS=${ROUNDS:-2}
CLIENTS=8
install_extension
own_cluster simdedupbench "shared_buffers = 1GB" "max_wal_size = 8GB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0"
q -c "CREATE EXTENSION simhash" -c "CREATE EXTENSION pg_trgm"
load_paragraphs
runs="plain dedup trgm plain_fresh dedup_fresh trgm_fresh"
for t in $runs; do
    q -c "CREATE TABLE $t(id bigserial PRIMARY KEY, body text)"
    q -c "INSERT INTO $t(body) SELECT x.body || '。' || g FROM generate_series(1, $N) g JOIN para2 x ON x.pid = 1 + g % $npara"
    case $t in
        trgm*)
            q -c "CREATE INDEX ON $t USING gin (body gin_trgm_ops)"
            q -c "CREATE FUNCTION ${t}_skip() RETURNS trigger LANGUAGE plpgsql SET pg_trgm.similarity_threshold = 0.5 AS \$\$
                  BEGIN
                      IF EXISTS (SELECT 1 FROM $t WHERE body % NEW.body) THEN RETURN NULL; END IF;
                      RETURN NEW;
                  END \$\$"
            q -c "CREATE TRIGGER dedup BEFORE INSERT ON $t FOR EACH ROW EXECUTE FUNCTION ${t}_skip()";;
        *)
            q -c "CREATE INDEX ${t}_sim ON $t USING gin (body simhash_ops) WITH (fastupdate = off)";;
    esac
    case $t in
        dedup*) q -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON $t
                      FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'skip')";;
    esac
    q -c "VACUUM ANALYZE $t"
done
q -c "CHECKPOINT"
insert_rounds $runs
skipped=$(q -c "SELECT (SELECT count(*) FROM dedup) - $N")
row_width=44
row name value baseline ratio
row table_rows "$N" - -
for w in "" _fresh; do
    p=${tps[plain$w]} d=${tps[dedup$w]} g=${tps[trgm$w]}
    row "dedup${w}_tps_vs_index_alone${w}_8_clients" "$d" "$p" "$(ratio "$d" "$p")"
    row "dedup${w}_tps_vs_pg_trgm_check${w}_8_clients" "$d" "$g" "$(ratio "$d" "$g")"
done
row "dedup_rows_kept_of_reposts" "$skipped" - -
bash "$h/cluster.sh" stop simdedupbench
