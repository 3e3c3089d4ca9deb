#!/usr/bin/env bash
# Insert throughput with simhash_segments_dedup_trigger (issues 19 and 29: "insert with
# segment dedup, 8 clients", against the segments trigger alone and a pg_trgm check), release
# build, its own cluster. Tables of N rows (default 100,000
# corpus paragraphs; segments filled by simhash_create_segments, whose GIN index has
# fastupdate off), written by pgbench, 8 clients, one new row per transaction, DURATION
# seconds each, alternated ROUNDS times. The new rows are two random paragraphs joined
# (200-600 characters), in two workloads:
#   reposts: as they are, so every new row shares its segments with ~10 rows of the table;
#   fresh:   each sentence tagged with ten characters from a random paragraph, so that its
#            segments are new (98% of them): the common case of a text that is no repost.
# Per workload, three tables (the same query inserts into each):
#   plain:    no segments at all;
#   segments: simhash_segments_trigger (the column kept, no check);
#   dedup:    simhash_segments_dedup_trigger(..., '0.7', 'skip') (kept, locked, checked;
#             0.7, definition 3's advised resemblance);
#   trgm:     no segments; a PL/pgSQL trigger that skips the row when a row has
#             `body % NEW.body` (pg_trgm's similarity >= 0.3), through a GIN gin_trgm_ops index:
#             the check a pg_trgm user writes (issue 29's peer).
# Prints "name  value  baseline  ratio" lines.
#   N=100000 DURATION=15 ROUNDS=2 bash tests/bench/segments_dedup.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
N=${N:-100000}
DURATION=${DURATION:-15}
ROUNDS=${ROUNDS:-2}
CLIENTS=8
install_extension
own_cluster segdedupbench "shared_buffers = 1GB" "max_wal_size = 8GB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0"

q -c "CREATE EXTENSION simhash"
load_paragraphs
runs="plain segments dedup trgm plain_fresh segments_fresh dedup_fresh trgm_fresh"
q -c "CREATE EXTENSION pg_trgm"
for t in $runs; do
    q -c "CREATE TABLE $t(id bigserial PRIMARY KEY, body text)"
    q -c "INSERT INTO $t(body) SELECT x.body || '。' || g FROM generate_series(1, $N) g JOIN para2 x ON x.pid = 1 + g % $npara"
    case $t in
        plain*) ;;
        trgm*)
            q -c "CREATE INDEX ON $t USING gin (body gin_trgm_ops)"
            q -c "CREATE FUNCTION ${t}_skip() RETURNS trigger LANGUAGE plpgsql AS \$\$
                  BEGIN
                      IF EXISTS (SELECT 1 FROM $t WHERE body % NEW.body) THEN RETURN NULL; END IF;
                      RETURN NEW;
                  END \$\$"
            q -c "CREATE TRIGGER dedup BEFORE INSERT ON $t FOR EACH ROW EXECUTE FUNCTION ${t}_skip()";;
        *) q -c "SET client_min_messages = warning" -c "CALL simhash_create_segments('$t', 'body')" >/dev/null;;
    esac
    q -c "VACUUM ANALYZE $t"
done
for t in dedup dedup_fresh; do
    q -c "DROP TRIGGER body_segments ON $t"
    q -c "CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body, body_segments ON $t
       FOR EACH ROW EXECUTE FUNCTION simhash_segments_dedup_trigger('body_segments', 'body', '0.7', 'skip')"
done
q -c "CHECKPOINT"

insert_rounds $runs
row_width=40
row name value baseline ratio
row table_rows "$N" - -
for w in "" _fresh; do
    p=${tps[plain$w]} s=${tps[segments$w]} d=${tps[dedup$w]} g=${tps[trgm$w]}
    row "dedup${w}_tps_vs_plain${w}_8_clients" "$d" "$p" "$(ratio "$d" "$p")"
    row "dedup${w}_tps_vs_segments${w}_8_clients" "$d" "$s" "$(ratio "$d" "$s")"
    row "dedup${w}_tps_vs_pg_trgm_check${w}_8_clients" "$d" "$g" "$(ratio "$d" "$g")"
    row "segments${w}_tps_vs_plain${w}_8_clients" "$s" "$p" "$(ratio "$s" "$p")"
done
