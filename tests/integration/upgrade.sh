#!/usr/bin/env bash
# Upgrade path: every shipped version, installed from its frozen install script
# (tests/upgrade/simhash--<v>.sql, or sql/simhash--<v>.sql for one the package ships) and
# updated with ALTER EXTENSION simhash UPDATE, must end with exactly the objects of a fresh
# CREATE EXTENSION simhash: same functions (with volatility, strictness, parallel safety,
# support function, C symbol, defaults and comments), operators and other member objects. And what a database built under 0.x
# computes must not change with the update to 1.0.0: its triggers, generated columns and
# expression indexes keep fingerprint definition 0 (sql/simhash--0.3.0--1.0.0.sql), while
# simhash() called by name gives definition 1. Likewise from 1.x (definition 1) and 2.x
# (definition 2, fingerprints and segments) to the current major, and from 4.x (measure 1 of
# exact similarity: a generated column, a view answered from a simhash_ops index, a
# similarity dedup trigger). Run by
# tests/harness/run_tests.sh against its test cluster (PGHOST etc. exported).
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
ext_dir=$pgroot/usr/share/postgresql/$pg_major/extension
# Two sentences of English: definition 3's English IDFs give it another fingerprint than
# definition 2's median IDF, and its segments are word shingles, not its two sentences.
english_doc="The central bank raised interest rates by half a point on Tuesday, surprising investors who had expected a pause. Markets fell sharply across Europe and Asia after the announcement of the decision."

# Everything that defines the extension's SQL surface, one line per object, sorted.
describe() { # DB
    psql -d "$1" -At <<'SQL'
WITH members AS (
    SELECT classid, objid FROM pg_depend
     WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e'
       AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'simhash'))
SELECT line FROM (
    SELECT 'object ' || pg_describe_object(classid, objid, 0) AS line FROM members
    UNION ALL
    SELECT format('function %s returns %s lang %s vol %s strict %s parallel %s support %s src %s bin %s cost %s rows %s config %s comment %s',
                  p.oid::regprocedure, pg_get_function_result(p.oid), l.lanname, p.provolatile,
                  p.proisstrict, p.proparallel, p.prosupport, p.prosrc, p.probin, p.procost,
                  p.prorows, p.proconfig, obj_description(p.oid, 'pg_proc'))
           || CASE WHEN l.lanname IN ('sql', 'plpgsql') THEN ' def ' || md5(pg_get_functiondef(p.oid)) ELSE '' END
           || ' args ' || pg_get_function_arguments(p.oid)
      FROM members m JOIN pg_proc p ON m.classid = 'pg_proc'::regclass AND p.oid = m.objid
      JOIN pg_language l ON l.oid = p.prolang
    UNION ALL
    SELECT format('operator %s code %s commutator %s negator %s restrict %s join %s comment %s',
                  o.oid::regoperator, o.oprcode, o.oprcom::regoperator, o.oprnegate::regoperator,
                  o.oprrest, o.oprjoin, obj_description(o.oid, 'pg_operator'))
      FROM members m JOIN pg_operator o ON m.classid = 'pg_operator'::regclass AND o.oid = m.objid
) d ORDER BY line;
SQL
}

# Objects that use the extension the way 0.x's README says, in a database at version $2.
# A 1.x, 2.x or 3.x database gets a dedup trigger, which must go on rejecting after the
# update, and a generated column and an update trigger, which must keep the definition they
# were made with: 1 for 1.x (2.0 folds traditional characters; 1.x did not), 2 for 2.x (3.0
# gives Latin words English IDFs), 3 for 3.x. A 2.x or later database also gets a segments
# column, generated and kept by the segments trigger (3.0's segments are word shingles).
before_update() { # DB VERSION
    if [ "${2%%.*}" != 0 ]; then
        psql -d "$1" -c "CREATE TABLE dedup(id int PRIMARY KEY, body text, fp bigint)" \
             -c "CREATE TRIGGER dedup BEFORE INSERT ON dedup FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject')" \
             -c "CREATE TABLE docs1(id int PRIMARY KEY, body text, fp bigint,
                     fp_gen bigint GENERATED ALWAYS AS (simhash(body)) STORED)" \
             -c "CREATE TRIGGER fp BEFORE INSERT ON docs1 FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body')"
        [ "${2%%.*}" = 1 ] && return 0
        psql -d "$1" -c "CREATE TABLE segs(id int PRIMARY KEY, body text, s bigint[],
                             s_gen bigint[] GENERATED ALWAYS AS (simhash_segments(body)) STORED)" \
             -c "CREATE TRIGGER s BEFORE INSERT ON segs FOR EACH ROW EXECUTE FUNCTION simhash_segments_trigger('s', 'body')"
        if [ "${2%%.*}" -ge 4 ]; then
            # Measure 1 reads every digit as 0: two invoices are one text to it.
            psql -d "$1" -c "CREATE TABLE sim(id int PRIMARY KEY, body text,
                                 s float8 GENERATED ALWAYS AS (simhash_similarity(body, 'Invoice 1041: total 250.00 EUR due 2024-03-01')) STORED)" \
                 -c "CREATE INDEX sim_body ON sim USING gin (body simhash_ops)" \
                 -c "CREATE VIEW sim_v AS SELECT id FROM sim WHERE simhash_similarity(body, 'Invoice 1041: total 250.00 EUR due 2024-03-01') >= 0.9" \
                 -c "CREATE TABLE simdedup(id int PRIMARY KEY, body text)" \
                 -c "CREATE TRIGGER d BEFORE INSERT ON simdedup FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'reject')"
        fi
        [ "${2%%.*}" = 2 ] || return 0
        # The 3.0 library under 2.x's SQL (before the update): still definition 2, which
        # gives this English text another fingerprint and other segments than definition 3.
        local same
        same=$(psql -d "$1" -At -v doc="$english_doc" <<'SQL'
SELECT simhash(:'doc') = simhash(:'doc', '{"definition": "2"}'::jsonb)
       AND simhash(:'doc') <> simhash(:'doc', '{"definition": "3"}'::jsonb)
       AND simhash_segments(:'doc') = simhash_segments(:'doc', '{"definition": "2"}')
       AND simhash_segments(:'doc') <> simhash_segments(:'doc', '{"definition": "3"}');
SQL
)
        [ "$same" = t ] || { echo "upgrade from $2: before the update, simhash() or simhash_segments() was not definition 2"; return 1; }
        echo "upgrade from $2: before the update, definition 2: t"
        return 0
    fi
    psql -d "$1" -c "CREATE TABLE docs(id int PRIMARY KEY, body text, fp bigint,
                         fp_gen bigint GENERATED ALWAYS AS (simhash(body)) STORED)" \
         -c "CREATE INDEX docs_expr ON docs (simhash(body))" \
         -c "CREATE VIEW docs_v AS SELECT id, simhash(body, '{}'::jsonb) AS fp FROM docs"
    # The 1.0 library under 0.x's SQL (before the update): still definition 0, 0.3.0's
    # golden value (tests/pg_regress/expected/fingerprints/fingerprint.out).
    local fp
    fp=$(psql -d "$1" -At -c "SELECT simhash('迈向充满希望的新世纪——一九九八年新年讲话（附图片１张）')")
    if [ "$fp" != -3610455768483434172 ]; then
        echo "upgrade from $2: before the update, simhash() gave $fp, not definition 0's -3610455768483434172"
        return 1
    fi
    [ "$2" = 0.1.0 ] && return 0   # the triggers came with 0.2.0
    psql -d "$1" -c "CREATE TABLE dedup(id int PRIMARY KEY, body text, fp bigint, fp2 bigint)" \
         -c "CREATE TRIGGER a_fp BEFORE INSERT ON dedup FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp2', 'body')" \
         -c "CREATE TRIGGER b_dedup BEFORE INSERT ON dedup FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject')" \
         -c "ALTER TABLE dedup DISABLE TRIGGER a_fp"
}
# After ALTER EXTENSION UPDATE: rows written now get definition 0 from those objects.
# Prints what differs, returns non-zero if anything does.
after_update() { # DB VERSION
    if [ "${2%%.*}" != 0 ]; then
        local doc="１２月３１日，中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》。"
        psql -d "$1" -v doc="$doc" <<<"INSERT INTO dedup(id, body) VALUES (1, :'doc')" >/dev/null
        if psql -d "$1" -v doc="$doc" <<<"INSERT INTO dedup(id, body) VALUES (2, :'doc')" 2>/dev/null; then
            echo "upgrade from $2: a dedup trigger created under $2 accepted a copy after the update"; return 1
        fi
        echo "upgrade from $2: dedup trigger keeps rejecting: t"
        # Definition 1 gives $trad_doc too few features (jieba knows few traditional
        # words): NULL. A 2.x database made its objects with definition 2, and keeps it:
        # its fingerprint of an English text (median IDFs) and its segments (runs of
        # sentences) differ from definition 3's. A 3.x database keeps definition 3.
        local def=1 fn=simhash_v1 trig=simhash_update_trigger_v1 doc=$trad_doc
        case ${2%%.*} in
            2) def=2 fn=simhash_v2 trig=simhash_update_trigger_v2 doc=$english_doc ;;
            3 | 4 | 5 | 6) def=3 fn=simhash trig=simhash_update_trigger doc=$english_doc ;;
        esac
        got=$(psql -d "$1" -At -v doc="$doc" -v def=$def -v fn=$fn -v trig=$trig <<'SQL'
INSERT INTO docs1(id, body) VALUES (1, :'doc');
SELECT 'generated column keeps definition ' || :def || ': ' || (fp_gen IS NOT DISTINCT FROM :fn(body)
       AND (fp_gen IS DISTINCT FROM simhash(body)) = (:def <> 3)) FROM docs1;
SELECT 'update trigger keeps definition ' || :def || ': ' || (fp IS NOT DISTINCT FROM :fn(body)) FROM docs1;
SELECT 'trigger calls ' || :'trig' || ': ' || (tgfoid::regproc::text = :'trig')
  FROM pg_trigger WHERE tgrelid = 'docs1'::regclass;
SQL
) || return 1
        if [ "$def" != 1 ]; then
            local segfn=simhash_segments segtrig=simhash_segments_trigger
            [ "$def" = 2 ] && segfn=simhash_segments_v2 segtrig=simhash_segments_trigger_v2
            got+=$'\n'$(psql -d "$1" -At -v doc="$doc" -v def=$def -v fn=$segfn -v trig=$segtrig <<'SQL'
INSERT INTO segs(id, body) VALUES (1, :'doc');
SELECT 'segments keep definition ' || :def || ': ' || (s = :fn(body) AND s_gen = s AND cardinality(s) > 0
       AND (s <> simhash_segments(body)) = (:def <> 3)) FROM segs;
SELECT 'segments trigger calls ' || :'trig' || ': ' || (tgfoid::regproc::text = :'trig')
  FROM pg_trigger WHERE tgrelid = 'segs'::regclass;
SQL
) || return 1
        fi
        if [ "${2%%.*}" = 4 ]; then
            # Measure 1 kept: the invoice of other figures is 1 to it (measure 2: below 0.05).
            got+=$'\n'$(psql -d "$1" -At <<'SQL'
INSERT INTO sim VALUES (1, 'Invoice 7782: total 990.15 EUR due 2025-11-30');
SELECT 'generated column keeps measure 1: ' || (s = 1 AND simhash_similarity(body, 'Invoice 1041: total 250.00 EUR due 2024-03-01') < 0.05) FROM sim;
SET enable_seqscan = off;
SELECT 'view keeps measure 1: ' || (count(*) = 1) FROM sim_v;
CREATE FUNCTION pg_temp.plan(q text) RETURNS SETOF text LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY EXECUTE 'EXPLAIN ' || q; END $$;
SELECT 'view answered from the simhash_ops_m1 index: ' || (count(*) = 1) FROM pg_temp.plan('SELECT * FROM sim_v') p
 WHERE p LIKE '%Bitmap Index Scan on sim_body%';
SELECT 'the index is simhash_ops_m1''s: ' || (opcname = 'simhash_ops_m1') FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0]
 WHERE i.indexrelid = 'sim_body'::regclass;
INSERT INTO simdedup VALUES (1, 'Invoice 1041: total 250.00 EUR due 2024-03-01');
SQL
) || return 1
            if psql -d "$1" -c "INSERT INTO simdedup VALUES (2, 'Invoice 7782: total 990.15 EUR due 2025-11-30')" 2>/dev/null; then
                got+=$'\n'"similarity dedup trigger keeps measure 1: false"
            else
                got+=$'\n'"similarity dedup trigger keeps measure 1: true"
            fi
            got+=$'\n'$(psql -d "$1" -At -c "SELECT 'similarity trigger calls simhash_similarity_dedup_trigger_m1: ' || (tgfoid::regproc::text = 'simhash_similarity_dedup_trigger_m1') FROM pg_trigger WHERE tgrelid = 'simdedup'::regclass")
        elif [ "${2%%.*}" -ge 5 ]; then
            # Made under 5.x or 6.x: measure 2, kept (the invoice of other figures is far from it).
            got+=$'\n'$(psql -d "$1" -At <<'SQL'
INSERT INTO sim VALUES (1, 'Invoice 7782: total 990.15 EUR due 2025-11-30');
SELECT 'generated column keeps measure 2: ' || (s < 0.05 AND s = simhash_similarity(body, 'Invoice 1041: total 250.00 EUR due 2024-03-01')) FROM sim;
SELECT 'the index is simhash_ops''s: ' || (opcname = 'simhash_ops') FROM pg_index i JOIN pg_opclass o ON o.oid = i.indclass[0]
 WHERE i.indexrelid = 'sim_body'::regclass;
INSERT INTO simdedup VALUES (1, 'Invoice 1041: total 250.00 EUR due 2024-03-01');
INSERT INTO simdedup VALUES (2, 'Invoice 7782: total 990.15 EUR due 2025-11-30');
SELECT 'similarity dedup trigger keeps measure 2: ' || (count(*) = 2) FROM simdedup;
SQL
) || return 1
            if [ "${2%%.*}" = 6 ]; then
                # Made under 6.x: 6.0's decision (2), kept under the names ending in _d2.
                got+=$'\n'$(psql -d "$1" -At <<'SQL'
SELECT 'similarity trigger calls simhash_similarity_dedup_trigger_d2: ' || (tgfoid::regproc::text = 'simhash_similarity_dedup_trigger_d2') FROM pg_trigger WHERE tgrelid = 'simdedup'::regclass;
SELECT 'dedup trigger calls simhash_dedup_trigger_d2: ' || (tgfoid::regproc::text = 'simhash_dedup_trigger_d2') FROM pg_trigger WHERE tgrelid = 'dedup'::regclass AND tgname = 'dedup';
SQL
) || return 1
            fi
        fi
        echo "$got" | sed "s/^/upgrade from $2: /"
        ! grep -qE ': (f|false)$' <<<"$got"
        return
    fi
    local doc="１２月３１日，中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》。"
    local changed="１１月２０日，中共中央总书记、国家主席江泽民发表１９９７年新年讲话《迈向充满希望的新世纪》。"
    local got
    got=$(psql -d "$1" -At -v doc="$doc" -v changed="$changed" <<'SQL'
INSERT INTO docs(id, body) VALUES (1, :'doc');
SELECT 'generated column keeps definition 0: ' || (fp_gen = simhash_v0(body) AND fp_gen <> simhash(body)) FROM docs;
SET enable_seqscan = off;
SELECT 'expression index keeps definition 0: ' || (count(*) = 1) FROM docs WHERE simhash_v0(body) = simhash_v0(:'doc');
SELECT 'view keeps definition 0: ' || (v.fp = simhash_v0(d.body, '{}'::jsonb)) FROM docs_v v JOIN docs d USING (id);
SQL
) || return 1
    if [ "$2" != 0.1.0 ]; then
        got+=$'
'$(psql -d "$1" -At -v doc="$doc" -v changed="$changed" <<'SQL'
INSERT INTO dedup(id, body) VALUES (1, :'doc');
SELECT 'dedup trigger keeps definition 0: ' || (fp = simhash_v0(body)) FROM dedup;
-- Definition 1 ignores the changed figures; definition 0, which the trigger keeps, does not.
INSERT INTO dedup(id, body) VALUES (2, :'changed');
SELECT 'changed figures are no near-duplicate under definition 0: ' || (count(*) = 2) FROM dedup;
SELECT 'disabled trigger stays disabled: ' || (fp2 IS NULL) FROM dedup WHERE id = 1;
SELECT 'triggers call the _v0 functions: ' || (count(*) = 2) FROM pg_trigger
 WHERE tgrelid = 'dedup'::regclass AND tgfoid::regproc::text IN ('simhash_update_trigger_v0', 'simhash_dedup_trigger_v0');
SQL
) || return 1
    fi
    echo "$got" | sed "s/^/upgrade from $2: /"
    ! grep -qE ': (f|false)$' <<<"$got"
}

current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ext_dir/simhash.control")
fresh_db simhash_upgrade_fresh
at_exit 'dropdb --if-exists simhash_upgrade_old'
psql -d simhash_upgrade_fresh -c "CREATE EXTENSION simhash"
describe simhash_upgrade_fresh >"$root/target/upgrade-fresh.txt"

# The frozen install scripts, and those of earlier releases that the package ships (sql/).
for old in "$root"/tests/upgrade/simhash--*.sql "$root"/sql/simhash--*.sql; do
    case ${old##*/} in simhash--*--*) continue ;; esac
    v=$(basename "$old" .sql); v=${v#simhash--}
    cp "$old" "$ext_dir/"
    dropdb --if-exists simhash_upgrade_old; createdb simhash_upgrade_old
    psql -d simhash_upgrade_old -c "CREATE EXTENSION simhash VERSION '$v'"
    before_update simhash_upgrade_old "$v" || { status=1; continue; }
    psql -d simhash_upgrade_old -c "ALTER EXTENSION simhash UPDATE"
    got=$(psql -d simhash_upgrade_old -Atc "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")
    describe simhash_upgrade_old >"$root/target/upgrade-from-$v.txt"
    if [ "$got" != "$current" ]; then
        echo "upgrade from $v: ended at version $got, expected $current"; status=1
    elif ! after_update simhash_upgrade_old "$v"; then
        echo "upgrade from $v: objects built under $v changed what they compute (above)"; status=1
    elif ! diff -u "$root/target/upgrade-fresh.txt" "$root/target/upgrade-from-$v.txt"; then
        echo "upgrade from $v to $current: objects differ from a fresh install (diff above)"; status=1
    else
        echo "upgrade from $v to $current: $(wc -l <"$root/target/upgrade-fresh.txt") object lines identical"
    fi
done
exit $status
