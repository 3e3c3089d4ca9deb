#!/usr/bin/env bash
# Dump and restore: nothing lost, and nothing computed differently afterwards.
#
# 1. A database of the current version holding what the README makes (an update trigger,
#    generated columns of simhash() and simhash_v1(), block columns and indexes, a view with
#    ~=, a dedup trigger, segment search, a segment dedup trigger within 12 bits) is dumped
#    in pg_dump's custom format (restored by pg_restore --exit-on-error) and as plain SQL
#    (restored by psql with ON_ERROR_STOP), each into a new database. Every table's rows,
#    generated columns included (the restore computes them again), equal the source's; the
#    same inserts then give the same rows in source and copy (the restored triggers work);
#    the block indexes answer ~= with the source's pairs and pass amcheck.
# 2. A database made under 1.1.0 (whose install script the package ships), restored as
#    docs/fingerprint.md says: CREATE EXTENSION simhash VERSION '1.1.0', pg_restore, ALTER
#    EXTENSION simhash UPDATE. Its rows and what its triggers compute keep definition 1.
#    The same dump restored into a fresh install instead computes its generated column
#    with definition 2: the reason for the procedure, and the check that this test sees it.
# Run by tests/harness/run_tests.sh against its test cluster (PGHOST etc. exported).
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
corpus=$root/target/corpus/peoples_daily_199801.txt
dir=$(mktemp -d)
at_exit "rm -rf '$dir'"

# --- 1. The current version, both dump formats.
fresh_db simhash_dump_src
psql -d simhash_dump_src -v trad="$trad_doc" >/dev/null <<SQL
CREATE EXTENSION simhash;
CREATE TEMP TABLE lines(id serial PRIMARY KEY, body text);
\copy lines(body) FROM '$corpus'
INSERT INTO lines(body) VALUES (:'trad');
DELETE FROM lines WHERE id > 3000 AND body <> :'trad';
CREATE TABLE news(id int PRIMARY KEY, body text, fp bigint,
                  fp_gen bigint GENERATED ALWAYS AS (simhash(body)) STORED,
                  fp_v1 bigint GENERATED ALWAYS AS (simhash_v1(body)) STORED);
CREATE TRIGGER news_fp BEFORE INSERT OR UPDATE ON news
    FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');
INSERT INTO news(id, body) SELECT id, body FROM lines;
-- Reposts, so that news_near has pairs to find.
INSERT INTO news(id, body) SELECT 10000 + id, body || '（转载自人民日报）' FROM lines WHERE id % 10 = 0;
SELECT simhash_create_blocks('news', 'fp');
CREATE INDEX news_gen_block0 ON news ((simhash_block(fp_gen, 0, 4)));
CREATE VIEW news_near AS SELECT a.id AS a, b.id AS b FROM news a JOIN news b ON a.fp ~= b.fp AND a.id < b.id;
CREATE TABLE dedup(id int PRIMARY KEY, body text, fp bigint);
CREATE TRIGGER dedup BEFORE INSERT ON dedup
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
INSERT INTO dedup(id, body) SELECT id, body FROM lines;
\\set src lines
\\i $h/segment_tables.sql
SQL
tables=(news dedup arts sdedup)
echo "source: $(q -d simhash_dump_src -c "SELECT format('%s news rows, %s kept by the dedup trigger, %s by the segment dedup trigger, %s pairs in news_near',
    (SELECT count(*) FROM news), (SELECT count(*) FROM dedup), (SELECT count(*) FROM sdedup), (SELECT count(*) FROM news_near))")"
table_digest simhash_dump_src "${tables[@]}" >"$dir/src.txt"

pg_dump -d simhash_dump_src -Fc -f "$dir/src.dump"
pg_dump -d simhash_dump_src -f "$dir/src.sql"
fresh_db simhash_dump_custom
fresh_db simhash_dump_plain
if ! pg_restore -d simhash_dump_custom --exit-on-error "$dir/src.dump"; then
    echo "FAIL pg_restore of the custom-format dump"; exit 1
fi
if ! psql -d simhash_dump_plain -f "$dir/src.sql" >/dev/null; then
    echo "FAIL psql of the plain dump"; exit 1
fi

# The same writes in the source and in each copy: a new row for each trigger, a copy the
# dedup trigger skips, a repost (a sentence added) the segment dedup trigger skips, and an
# update that the update trigger fingerprints again.
writes() { # DB
    psql -d "$1" -v trad="$trad_doc" >/dev/null <<'SQL'
INSERT INTO news(id, body) VALUES (100001, :'trad' || '新华社北京一月一日电。');
UPDATE news SET body = body || '（完）' WHERE id IN (2, 3, 5);
INSERT INTO dedup(id, body) SELECT 100000 + id, body FROM dedup WHERE id IN (2, 3);
INSERT INTO arts(id, body) VALUES (100001, :'trad');
INSERT INTO sdedup(id, body) SELECT 100000 + id, body || '这是一句新加的话，说的是别的事情。' FROM sdedup WHERE id IN (2, 3);
SQL
}
writes simhash_dump_src
table_digest simhash_dump_src "${tables[@]}" >"$dir/src-after.txt"
for copy in custom plain; do
    db=simhash_dump_$copy
    if diff <(table_digest "$db" "${tables[@]}") "$dir/src.txt"; then
        echo "ok   $copy dump: rows of ${tables[*]} equal the source's, generated columns included"
    else
        fail "$copy dump: restored rows differ from the source's (diff above)"
    fi
    writes "$db"
    if diff <(table_digest "$db" "${tables[@]}") "$dir/src-after.txt"; then
        echo "ok   $copy dump: the same inserts and update give the source's rows (triggers restored)"
    else
        fail "$copy dump: after the same writes, rows differ from the source's (diff above)"
    fi
    near="SELECT md5(string_agg(a || ' ' || b, ',' ORDER BY a, b)) FROM news_near"
    got=$(PGOPTIONS="-c enable_seqscan=off" q -d "$db" -c "$near")
    want=$(q -d simhash_dump_src -c "$near")
    plan=$(PGOPTIONS="-c enable_seqscan=off" q -d "$db" -c "EXPLAIN (COSTS OFF) SELECT * FROM news_near")
    check "$copy dump: news_near through the block indexes equals the source's" "$got" "$want"
    grep -q 'news_fp_block[0-9]_of4' <<<"$plan" || fail "$copy dump: news_near does not use the block indexes: $plan"
    checked=$(q -d "$db" -c "CREATE EXTENSION amcheck" -c "SELECT count(bt_index_check(c.oid, true))
        FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_am a ON a.oid = c.relam
       WHERE a.amname = 'btree' AND c.relnamespace = 'public'::regnamespace")
    echo "ok   $copy dump: amcheck passed $checked btree indexes"
done

# --- 2. A dump made under 1.1.0.
fresh_db simhash_dump_old
psql -d simhash_dump_old -v trad="$trad_doc" >/dev/null <<SQL
CREATE EXTENSION simhash VERSION '1.1.0';
CREATE TEMP TABLE lines(id serial PRIMARY KEY, body text);
\copy lines(body) FROM '$corpus'
DELETE FROM lines WHERE id > 500;
INSERT INTO lines(id, body) VALUES (1000, :'trad'), (1001, '這是繁體中文的文章，講的是香港和臺灣的新聞報導與評論。');
CREATE TABLE docs(id int PRIMARY KEY, body text, fp bigint,
                  fp_gen bigint GENERATED ALWAYS AS (simhash(body)) STORED);
CREATE TRIGGER docs_fp BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');
INSERT INTO docs(id, body) SELECT id, body FROM lines;
SQL
pg_dump -d simhash_dump_old -Fc -f "$dir/old.dump"
table_digest simhash_dump_old docs >"$dir/old.txt"
fresh_db simhash_dump_kept
psql -d simhash_dump_kept -c "CREATE EXTENSION simhash VERSION '1.1.0'"
if ! pg_restore -d simhash_dump_kept --exit-on-error "$dir/old.dump"; then
    echo "FAIL pg_restore of the 1.1.0 dump into 1.1.0"; exit 1
fi
psql -d simhash_dump_kept -c "ALTER EXTENSION simhash UPDATE"
if diff <(table_digest simhash_dump_kept docs) "$dir/old.txt"; then
    echo "ok   1.1.0 dump, restored into 1.1.0 and updated: rows equal the source's"
else
    fail "1.1.0 dump, restored into 1.1.0 and updated: rows differ (diff above)"
fi
for db in simhash_dump_old simhash_dump_kept; do
    psql -d "$db" -c "INSERT INTO docs(id, body) SELECT 2000 + id, body || '（转载）' FROM docs WHERE id IN (7, 1001)"
done
check "1.1.0 dump, restored and updated: new rows get definition 1, as in the source" \
    "$(table_digest simhash_dump_kept docs)" "$(table_digest simhash_dump_old docs)"
check "1.1.0 dump, restored and updated: its trigger calls" \
    "$(q -d simhash_dump_kept -c "SELECT tgfoid::regproc FROM pg_trigger WHERE tgname = 'docs_fp'")" simhash_update_trigger_v1
fresh_db simhash_dump_fresh
pg_restore -d simhash_dump_fresh --exit-on-error "$dir/old.dump"
changed=$(q -d simhash_dump_fresh -c "SELECT count(*) FROM docs WHERE fp_gen IS DISTINCT FROM simhash_v1(body)")
if [ "$changed" -gt 0 ]; then
    echo "ok   1.1.0 dump restored into a fresh install instead: $changed rows' generated fingerprints computed with definition 2 (why docs/fingerprint.md says otherwise)"
else
    fail "1.1.0 dump restored into a fresh install: no generated fingerprint changed; this test cannot see the difference it guards"
fi
exit $status
