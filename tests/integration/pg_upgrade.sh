#!/usr/bin/env bash
# pg_upgrade: a cluster with simhash databases at 1.1.0 and at the current version is
# upgraded into a new cluster (both PostgreSQL 15, the same binaries, target/pgroot).
# pg_upgrade recreates each extension at the version its database had, every member
# object by its C symbol, so the library must still export 1.1.0's. Afterwards each
# database has its version, every table's rows equal the old cluster's, the same writes
# give the same rows (the triggers and the segment dedup trigger's GIN pre-check work),
# and ALTER EXTENSION simhash UPDATE takes the 1.1.0 database to the current version with
# definition 1 kept, as an update in place does (docs/fingerprint.md).
# Runs on clusters of its own, as tests/integration/crash.sh does.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
corpus=$root/target/corpus/peoples_daily_199801.txt
bin=$root/target/pgroot/usr/lib/postgresql/15/bin

writes() { # DB: new rows, copies the dedup trigger skips, and in simhash_cur reposts the segment dedup trigger skips
    psql -d "$1" -v trad="$trad_doc" >/dev/null <<'SQL'
INSERT INTO docs(id, body) VALUES (100001, :'trad'), (100002, :'trad' || '（转载）');
INSERT INTO docs(id, body) SELECT 200000 + id, body FROM docs WHERE id IN (2, 3);
SQL
    [ "$1" != simhash_cur ] ||
        psql -d "$1" -c "INSERT INTO sdedup(id, body) SELECT 100000 + id, body || '这是一句新加的话。' FROM sdedup WHERE id IN (2, 3)" >/dev/null
}
state() { # DB: the extension's version and every table's digest
    q -d "$1" -c "SELECT extversion FROM pg_extension WHERE extname = 'simhash'"
    table_digest "$1" docs
    [ "$1" = simhash_cur ] && table_digest "$1" arts sdedup
    return 0
}

own_cluster pgu_old
for db in simhash_old simhash_cur; do
    ext="CREATE EXTENSION simhash"
    [ $db = simhash_old ] && ext+=" VERSION '1.1.0'"
    createdb "$db"
    psql -d "$db" -v trad="$trad_doc" >/dev/null <<SQL
$ext;
CREATE TEMP TABLE lines(id serial PRIMARY KEY, body text);
\\copy lines(body) FROM '$corpus'
DELETE FROM lines WHERE id > 1000;
INSERT INTO lines(id, body) VALUES (5000, :'trad');
CREATE TABLE docs(id int PRIMARY KEY, body text, fp bigint,
                  fp_gen bigint GENERATED ALWAYS AS (simhash(body)) STORED);
CREATE TRIGGER docs_fp BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');
CREATE TRIGGER docs_dedup BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
INSERT INTO docs(id, body) SELECT id, body FROM lines;
SELECT simhash_create_blocks('docs', 'fp');
SQL
done
psql -d simhash_cur -v src=docs -f "$h/segment_tables.sql" >/dev/null
for db in simhash_old simhash_cur; do state "$db" >"$run_dir/pgu_old/$db.before"; done
bash "$h/cluster.sh" stop pgu_old

# pg_upgrade wants the new cluster made by initdb and stopped.
bash "$h/cluster.sh" start pgu_new
at_exit "bash '$h/cluster.sh' stop pgu_new"
bash "$h/cluster.sh" stop pgu_new
if ! out=$(cd "$run_dir/pgu_new" && runuser -u postgres -- "$bin/pg_upgrade" -b "$bin" -B "$bin" \
        -d "$run_dir/pgu_old/data" -D "$run_dir/pgu_new/data" -s "$run_dir/pgu_new" -p 50432 -P 50433 2>&1); then
    echo "$out" | tail -20
    echo "FAIL pg_upgrade"; exit 1
fi
echo "ok   pg_upgrade: $(grep -c '^Checking\|^Performing\|^Restoring\|^Copying' <<<"$out") steps, \"$(grep -o 'Upgrade Complete' <<<"$out")\""
bash "$h/cluster.sh" restart pgu_new
eval "$(bash "$h/cluster.sh" env pgu_new)"
for db in simhash_old simhash_cur; do
    if diff <(state "$db") "$run_dir/pgu_old/$db.before"; then
        echo "ok   $db: version $(head -1 "$run_dir/pgu_old/$db.before") kept, rows equal the old cluster's"
    else
        fail "$db: version or rows differ from the old cluster's (diff above)"
    fi
done

# The same writes in the upgraded cluster and in the old one (started again on its data).
writes simhash_cur
new_cur=$(state simhash_cur)
psql -d simhash_old -c "ALTER EXTENSION simhash UPDATE"
writes simhash_old
new_old=$(state simhash_old)
check "simhash_old, updated after pg_upgrade: its trigger calls" \
    "$(q -d simhash_old -c "SELECT tgfoid::regproc FROM pg_trigger WHERE tgname = 'docs_fp'")" simhash_update_trigger_v1
check "simhash_old, updated after pg_upgrade: a new traditional-character row keeps definition 1 (NULL)" \
    "$(q -d simhash_old -c "SELECT count(*) FROM docs WHERE id = 100001 AND fp IS NULL AND fp_gen IS NULL")" 1
bash "$h/cluster.sh" stop pgu_new
bash "$h/cluster.sh" restart pgu_old
eval "$(bash "$h/cluster.sh" env pgu_old)"
writes simhash_cur
check "simhash_cur: the same writes give the same rows before and after pg_upgrade" \
    "$(state simhash_cur | md5sum)" "$(md5sum <<<"$new_cur")"
psql -d simhash_old -c "ALTER EXTENSION simhash UPDATE"
writes simhash_old
check "simhash_old: the same update and writes give the same rows before and after pg_upgrade" \
    "$(state simhash_old | md5sum)" "$(md5sum <<<"$new_old")"
exit $status
