# Sourced: the pg_regress run over tests/pg_regress, shared by tests/harness/run_tests.sh (on
# the harness's build) and tests/package/test.sh (installcheck on a packaged install).
# Sourced after lib.sh. Needs PGHOST/PGPORT/PGUSER for a running server (cluster.sh env) and
# the corpus (tests/harness/corpus.sh).
#   regress_db_create         the regression database simhash_regress: the extension, a `corpus`
#                             table of real news paragraphs, and regress_try.sql's helpers
#                             (regress_try(sql), the error; regress_plan(sql), the plan)
#   regress_tests             the pg_regress test names, one a line (`fingerprints/search`)
#   regress_run OUTDIR [NAME...]  pg_regress over the named tests (default: all) into OUTDIR;
#                             shows the diffs' head on failure; with SIMHASH_STEP_TIMES (lib.sh,
#                             step), appends each file's time to it as "regress: NAME"
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

regress_run() { # OUTDIR [NAME...]
    local rc=0 out=$1
    shift
    [ $# -gt 0 ] || set -- $(regress_tests)
    mkdir -p "$out"
    # pg_regress writes results/NAME.out and makes no folder for a NAME with one.
    local name
    for name in "$@"; do mkdir -p "$out/results/$(dirname "$name")"; done
    # The major's own pg_regress and psql (in its root for 17 and 18: tests/harness/major.sh).
    in_sysroot "/usr/lib/postgresql/$pg_major/lib/pgxs/src/test/regress/pg_regress" \
        --use-existing --dbname=simhash_regress --bindir="$sys_bin" \
        --host="$PGHOST" --port="$PGPORT" --user=postgres \
        --inputdir="$root/tests/pg_regress" --outputdir="$out" "$@" | tee "$out/pg_regress.txt"
    rc=${PIPESTATUS[0]}
    # "test NAME ... ok 596 ms" (15), "ok 1 - NAME 596 ms" (16 and later).
    [ -z "${SIMHASH_STEP_TIMES:-}" ] || awk -v pg="$pg_major" '
        / ms$/ && ($1 == "test" || $1 == "ok" || $1 == "not") {
            name = ($1 == "test") ? $2 : $(NF - 2)
            printf "%d\t%s\tregress: %s\n", $(NF - 1) / 1000 + 0.5, pg, name
        }' "$out/pg_regress.txt" >>"$SIMHASH_STEP_TIMES"
    [ -s "$out/regression.diffs" ] && head -200 "$out/regression.diffs"
    return $rc
}
