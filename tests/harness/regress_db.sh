# Sourced: the pg_regress run over tests/pg_regress, shared by tests/harness/run_tests.sh (on
# the harness's build) and tests/package/test.sh (installcheck on a packaged install).
# Sourced after lib.sh. Needs PGHOST/PGPORT/PGUSER for a running server (cluster.sh env) and
# the corpus (tests/harness/corpus.sh).
#   regress_db_create         the regression database simhash_regress: the extension, a `corpus`
#                             table of real news paragraphs, and regress_try.sql's helpers
#                             (regress_try(sql), the error; regress_plan(sql), the plan)
#   regress_tests             the pg_regress test names, one a line (`fingerprints/search`)
#   regress_one OUTDIR NAME   one file, in a database of its own made from simhash_regress
#                             (a file copy), so that files run side by side (tests/harness/
#                             pool.sh) and none sees what another left; its results under
#                             OUTDIR/NAME/; on failure, the head of its diffs
#   regress_run OUTDIR [NAME...]  the named files (default: all) side by side, longest first,
#                             each a step "regress: NAME" (lib.sh's step: counted, timed)
regress_db_create() {
    createdb simhash_regress &&
    psql -d simhash_regress \
        -c "CREATE EXTENSION simhash" \
        -c "CREATE TABLE corpus(id serial PRIMARY KEY, body text NOT NULL)" \
        -c "\\copy corpus(body) FROM '$root/target/corpus/peoples_daily_199801.txt'" \
        -f "$root/tests/harness/regress_try.sql"
}

# Names relative to sql/, a measure's folder included (`similarity/dedup`), sorted.
regress_tests() { (cd "$root/tests/pg_regress/sql" && find . -name '*.sql' | sed 's|^\./||; s|\.sql$||' | sort); }

regress_one() { # OUTDIR NAME
    local name=$2 out=$1/$2 db rc=0
    db=regress_${name//\//_}
    # A file needs the template to itself only while its copy is made, and no file connects
    # to the template: copies made side by side do not wait on one another.
    dropdb --if-exists "$db" 2>/dev/null
    createdb -T simhash_regress "$db" || return 1
    rm -rf "$out"
    # pg_regress writes results/NAME.out and makes no folder for a NAME with one.
    mkdir -p "$out/results/$(dirname "$name")"
    # The major's own pg_regress and psql (in its root for 17 and 18: tests/harness/major.sh).
    in_sysroot "/usr/lib/postgresql/$pg_major/lib/pgxs/src/test/regress/pg_regress" \
        --use-existing --dbname="$db" --bindir="$sys_bin" \
        --host="$PGHOST" --port="$PGPORT" --user=postgres \
        --inputdir="$root/tests/pg_regress" --outputdir="$out" "$name" >"$out/pg_regress.txt" 2>&1 || rc=$?
    # Its one line: "test NAME ... ok 596 ms" (15), "ok 1 - NAME 596 ms" (16 and later).
    grep -E "^(test |ok |not ok )|FAILED|failed" "$out/pg_regress.txt"
    if [ $rc != 0 ]; then
        [ -s "$out/regression.diffs" ] && head -200 "$out/regression.diffs"
        [ -s "$out/regression.diffs" ] || cat "$out/pg_regress.txt"
        echo "regression file $name failed: the whole diff is $out/regression.diffs; its database $db is kept"
        return $rc
    fi
    dropdb "$db"
}

regress_run() { # OUTDIR [NAME...]
    local out=$1 steps=() name
    shift
    [ $# -gt 0 ] || set -- $(regress_tests)
    mapfile -t steps < <(pool_order "$pg_major" "${@/#/regress: }")
    for name in "${steps[@]}"; do pool_start "$name" regress_one "$out" "${name#regress: }"; done
    pool_wait
}
