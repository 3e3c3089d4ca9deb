#!/usr/bin/env bash
# Upgrade path: every shipped version, installed from its frozen install script
# (tests/upgrade/simhash--<v>.sql) and updated with ALTER EXTENSION simhash UPDATE, must
# end with exactly the objects of a fresh CREATE EXTENSION simhash: same functions (with
# volatility, strictness, parallel safety, support function, C symbol, defaults and
# comments), operators and other member objects. Run by tests/harness/run_tests.sh against
# its test cluster (PGHOST etc. exported).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ext_dir=$root/target/pgroot/usr/share/postgresql/15/extension
psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }

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

current=$(sed -n "s/^default_version = '\(.*\)'/\1/p" "$ext_dir/simhash.control")
createdb simhash_upgrade_fresh
trap 'dropdb --if-exists simhash_upgrade_fresh; dropdb --if-exists simhash_upgrade_old' EXIT
psql -d simhash_upgrade_fresh -c "CREATE EXTENSION simhash"
describe simhash_upgrade_fresh >"$root/target/upgrade-fresh.txt"

status=0
for old in "$root"/tests/upgrade/simhash--*.sql; do
    v=$(basename "$old" .sql); v=${v#simhash--}
    cp "$old" "$ext_dir/"
    dropdb --if-exists simhash_upgrade_old; createdb simhash_upgrade_old
    psql -d simhash_upgrade_old -c "CREATE EXTENSION simhash VERSION '$v'" -c "ALTER EXTENSION simhash UPDATE"
    got=$(psql -d simhash_upgrade_old -Atc "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")
    describe simhash_upgrade_old >"$root/target/upgrade-from-$v.txt"
    if [ "$got" != "$current" ]; then
        echo "upgrade from $v: ended at version $got, expected $current"; status=1
    elif ! diff -u "$root/target/upgrade-fresh.txt" "$root/target/upgrade-from-$v.txt"; then
        echo "upgrade from $v to $current: objects differ from a fresh install (diff above)"; status=1
    else
        echo "upgrade from $v to $current: $(wc -l <"$root/target/upgrade-fresh.txt") object lines identical"
    fi
done
exit $status
