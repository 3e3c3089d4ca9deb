#!/usr/bin/env bash
# pg_upgrade: a PostgreSQL 15 cluster with simhash databases at 1.1.0 and at the current
# version is upgraded into a new cluster of the major PG names: 15 itself (the same
# binaries, target/pgroot), or 17 or 18, whose pg_upgrade runs in its root with 15's
# binaries (tests/harness/root.sh gives the root 15's libraries). The current version's
# database carries segment columns, block indexes, a segment dedup trigger and its GIN index.
# pg_upgrade recreates each extension at the version its database had, every member
# object by its C symbol, so the library must still export 1.1.0's. Afterwards each
# database has its version, every table's rows equal the old cluster's, the same writes
# give the same rows (the triggers and the segment dedup trigger's GIN pre-check work),
# and ALTER EXTENSION simhash UPDATE takes the 1.1.0 database to the current version with
# definition 1 kept, as an update in place does (docs/fingerprint.md). amcheck finds every
# btree index of the upgraded databases sound, heap entries included.
# Runs on clusters of its own, as tests/integration/crash.sh does.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
corpus=$root/target/corpus/peoples_daily_199801.txt
new_bin=$pgroot/usr/lib/postgresql/$pg_major/bin
# 15's build of this tree, for the old cluster: the one `make test PG=15` installed, unless a
# source file is newer. Building it here again cost 112 s a major: cargo names a cdylib's
# output without its features' hash, so 15's build and this major's overwrite each other, and
# this major's package build (make test-deb) then compiled its own again.
if [ "$pg_major" != 15 ] && [ "${SKIP_INSTALL:-0}" != 1 ]; then
    so=$root/target/pgroot/usr/lib/postgresql/15/lib/simhash.so
    if [ ! -e "$so" ] || [ -n "$(cd "$root" && find src crates sql Cargo.toml Cargo.lock -newer "$so" -print -quit)" ]; then
        PG=15 bash "$h/cluster.sh" install
    fi
fi
# The old side is the host's PostgreSQL 15 (target/pgroot), but for 18: Debian's 15.20 (and
# 17.12) record every column's pg_attver in attoptions, which sid's 18.6 predates, so its
# pg_dump writes "SET (pg_attver=...)" and its server refuses it: any pg_upgrade from 15.20 to
# 18.6 fails, with simhash or without. For 18 the old side is the oldest 15 that this
# machine's Debian suites have (15.18 in bookworm), unpacked into target/pg15-VERSION/pgroot,
# with this tree's 15 build copied in.
old_pgroot=$root/target/pgroot
if [ "$pg_major" = 18 ]; then
    old_version=$(apt-cache madison postgresql-15 | awk '{ print $3 }' | sort -V | head -1)
    old_pgroot=$root/target/pg15-$old_version/pgroot
    if [ ! -x "$old_pgroot/usr/lib/postgresql/15/bin/postgres" ]; then
        rm -rf "$old_pgroot" "$old_pgroot.new" && mkdir -p "$old_pgroot.new"
        (cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root "postgresql-15=$old_version" >/dev/null)
        dpkg -x "$tmp"/postgresql-15_*.deb "$old_pgroot.new"
        mv "$old_pgroot.new" "$old_pgroot"
    fi
    cp "$root/target/pgroot/usr/lib/postgresql/15/lib/simhash.so" "$old_pgroot/usr/lib/postgresql/15/lib/"
    cp "$root/target/pgroot/usr/share/postgresql/15/extension/simhash"* "$old_pgroot/usr/share/postgresql/15/extension/"
fi
old_bin=$old_pgroot/usr/lib/postgresql/15/bin
old() { PG=15 SIMHASH_PGROOT=$old_pgroot bash "$h/cluster.sh" "$@"; }   # the old cluster is 15's, whatever PG is

writes() { # DB: new rows, copies the dedup trigger skips, and in simhash_cur reposts the segment dedup trigger skips
    psql -d "$1" -v trad="$trad_doc" >/dev/null <<'SQL'
INSERT INTO docs(id, body) VALUES (100001, :'trad'), (100002, :'trad' || '（转载）');
INSERT INTO docs(id, body) SELECT 200000 + id, body FROM docs WHERE id IN (2, 3);
SQL
    [ "$1" != simhash_cur ] ||
        psql -d "$1" -c "INSERT INTO sdedup(id, body) SELECT 100000 + id, body || '这是一句新加的话。' FROM sdedup WHERE id IN (2, 3)" >/dev/null
}
state() { # DB: the extension's version, its indexes and triggers, and every table's digest
    q -d "$1" -c "SELECT extversion FROM pg_extension WHERE extname = 'simhash'"
    q -d "$1" -c "SELECT indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY indexname"
    q -d "$1" -c "SELECT tgrelid::regclass || ' ' || tgname || ' ' || tgfoid::regproc FROM pg_trigger WHERE NOT tgisinternal ORDER BY 1"
    table_digest "$1" docs
    [ "$1" = simhash_cur ] && table_digest "$1" arts sdedup
    return 0
}

old start pgu_old
at_exit "old stop pgu_old"
eval "$(old env pgu_old)"
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
old stop pgu_old

# pg_upgrade wants the new cluster made by initdb and stopped, with data checksums as the
# old one's: none (18's initdb turns them on by default).
checksums=; [ "$pg_major" -ge 18 ] && checksums=--no-data-checksums
INITDB_ARGS=$checksums bash "$h/cluster.sh" start pgu_new
at_exit "bash '$h/cluster.sh' stop pgu_new"
bash "$h/cluster.sh" stop pgu_new
if ! out=$(cd "$run_dir/pgu_new" && as_postgres "$new_bin/pg_upgrade" -b "$old_bin" -B "$new_bin" \
        -d "$run_dir/pgu_old/data" -D "$run_dir/pgu_new/data" -s "$run_dir/pgu_new" -p 50432 -P 50433 2>&1); then
    echo "$out" | tail -20
    echo "FAIL pg_upgrade"; exit 1
fi
echo "ok   pg_upgrade from $("$old_bin/postgres" -V | awk '{ print $3 }') to $pg_major: $(grep -c '^Checking\|^Performing\|^Restoring\|^Copying' <<<"$out") steps, \"$(grep -o 'Upgrade Complete' <<<"$out")\""
bash "$h/cluster.sh" restart pgu_new
eval "$(bash "$h/cluster.sh" env pgu_new)"
for db in simhash_old simhash_cur; do
    if diff <(state "$db") "$run_dir/pgu_old/$db.before"; then
        echo "ok   $db: version $(head -1 "$run_dir/pgu_old/$db.before") kept, rows equal the old cluster's"
    else
        fail "$db: version or rows differ from the old cluster's (diff above)"
    fi
done
for db in simhash_old simhash_cur; do
    n=$(q -d "$db" -c "CREATE EXTENSION amcheck" -c "
        SELECT count(*) FROM (SELECT bt_index_check(c.oid, true)
          FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
         WHERE a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace) s") &&
        echo "ok   $db: amcheck's bt_index_check (heapallindexed) passes on its $n btree indexes" ||
        fail "$db: amcheck"
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
old restart pgu_old
eval "$(old env pgu_old)"
writes simhash_cur
check "simhash_cur: the same writes give the same rows before and after pg_upgrade" \
    "$(state simhash_cur | md5sum)" "$(md5sum <<<"$new_cur")"
psql -d simhash_old -c "ALTER EXTENSION simhash UPDATE"
writes simhash_old
check "simhash_old: the same update and writes give the same rows before and after pg_upgrade" \
    "$(state simhash_old | md5sum)" "$(md5sum <<<"$new_old")"
exit $status
