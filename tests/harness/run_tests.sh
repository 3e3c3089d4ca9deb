#!/usr/bin/env bash
# `make test`: the pure-Rust core's unit and property tests, then the SQL surface against a
# real PostgreSQL 15 server (pg_regress golden files in tests/pg_regress), then the
# integration scripts in tests/integration (each exits non-zero on failure).
# Ends with one line "N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
h=tests/harness
passed=0 failed=0
step() { # step NAME COMMAND...: run, count, keep going
    local name=$1; shift
    echo "=== $name"
    if "$@"; then passed=$((passed + 1)); echo "--- ok: $name"
    else failed=$((failed + 1)); echo "--- FAILED: $name"; fi
}

step "core unit tests (cargo test -p simhash-core)" cargo test -q -p simhash-core
if ! bash $h/cluster.sh install; then
    echo "--- FAILED: building/installing the extension"
    echo "$passed passed, $((failed + 1)) failed"; exit 1
fi
bash $h/cluster.sh start test "shared_buffers = 256MB"
trap 'bash $h/cluster.sh stop test' EXIT
eval "$(bash $h/cluster.sh env test)"

# The regression database has the extension, a `corpus` table of real news paragraphs and
# the error-capturing helper regress_try(sql).
createdb simhash_regress
psql -X -q -v ON_ERROR_STOP=1 -d simhash_regress \
    -c "CREATE EXTENSION simhash" \
    -c "CREATE TABLE corpus(id serial PRIMARY KEY, body text NOT NULL)" \
    -c "\\copy corpus(body) FROM '$root/target/corpus/peoples_daily_199801.txt'" \
    -f $h/regress_try.sql

mapfile -t regress_tests < <(ls tests/pg_regress/sql/*.sql | xargs -n1 basename | sed 's/\.sql$//' | sort)
mkdir -p target/regress
step "pg_regress (${#regress_tests[@]} files)" \
    /usr/lib/postgresql/15/lib/pgxs/src/test/regress/pg_regress \
    --use-existing --dbname=simhash_regress --bindir=/usr/lib/postgresql/15/bin \
    --host="$PGHOST" --port="$PGPORT" --user=postgres \
    --inputdir=tests/pg_regress --outputdir=target/regress "${regress_tests[@]}"
[ -s target/regress/regression.diffs ] && head -200 target/regress/regression.diffs

for t in tests/integration/*.sh; do
    [ -e "$t" ] || continue
    step "integration: $(basename "$t")" bash "$t"
done

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
