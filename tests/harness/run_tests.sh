#!/usr/bin/env bash
# `make test`: the pure-Rust core's unit and property tests, the SQL surface against a real
# PostgreSQL server of the major PG names (15 by default, or 17 or 18 in their Debian roots:
# tests/harness/major.sh): the pg_regress golden files in tests/pg_regress and the
# integration scripts in tests/integration (each exits non-zero on failure), and the
# formatting and lint gates (cargo fmt --check, cargo clippy -D warnings over both crates,
# no import cycle among either crate's modules).
#
# Steps run side by side (tests/harness/pool.sh): the regression files, each in a copy of the
# regression database, and the integration scripts, each with databases or clusters of its
# own, in one queue, longest first, $pool_jobs at once; the compiling gates (the core's
# tests, clippy) beside them at a lower priority. Each step's log is printed whole when it
# ends.
#
# What cannot differ by major runs with PG=15 only (docs/development.md, "What runs once"):
# the core's tests (plain Rust, in the optimized profile ci-test), fmt, imports, and clippy,
# which lints the code for every major at once against the bindings pgrx ships (step clippy
# for 15, step pg16 for 16, 17 and 18: 16 is in no Debian suite this machine reaches, and the
# code differs by major only in src/pg_compat.rs). A run for 17 or 18 says which steps it
# leaves to 15. Each step's time goes to target/ci/steps.tsv (.ci/run prints the slowest).
# Ends with one line "N passed, N failed".
#
#   run_tests.sh [NAME...]   only the named tests (`make test T="fingerprints/search crash"`): a
#                            regression file (tests/pg_regress/sql/NAME.sql, NAME such as
#                            fingerprints/search), an integration script
#                            (tests/integration/NAME.sh), or one of the steps core, fmt,
#                            clippy, imports, pg16. An unknown name lists the valid ones.
#                            SIMHASH_JOBS=N: N steps at once (1: one after another).
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$h/regress_db.sh"
source "$h/pool.sh"
cd "$root"

mapfile -t all_regress < <(regress_tests)
mapfile -t all_integration < <(names_in tests/integration sh)
# Steps that cannot differ by major: run with PG=15 (CI runs 15 first).
gates=(core fmt clippy imports pg16)

# What to run: everything, or the steps the arguments name.
regress=() integration=() want_gates=()
if [ $# -eq 0 ]; then
    regress=("${all_regress[@]}") integration=("${all_integration[@]}")
    if [ "$pg_major" = 15 ]; then
        want_gates=("${gates[@]}")
    else
        echo "PostgreSQL $pg_major: the steps ${gates[*]} cannot differ by major and ran with PG=15 (docs/development.md)"
    fi
else
    for name in "$@"; do
        known=0
        [[ " ${all_regress[*]} " == *" $name "* ]] && { regress+=("$name"); known=1; }
        [[ " ${all_integration[*]} " == *" $name "* ]] && { integration+=("$name"); known=1; }
        [[ " ${gates[*]} " == *" $name "* ]] && { want_gates+=("$name"); known=1; }
        if [ $known = 0 ]; then
            echo "run_tests.sh: unknown test '$name'. Valid names:" >&2
            echo "  steps:       ${gates[*]}" >&2
            echo "  pg_regress:  ${all_regress[*]}" >&2
            echo "  integration: ${all_integration[*]}" >&2
            exit 2
        fi
    done
fi
wants() { [[ " ${want_gates[*]} " == *" $1 "* ]]; }

echo "PostgreSQL $pg_major: $(in_sysroot "$sys_bin/postgres" --version)${sysroot:+ (in ${sysroot#"$root/"})}, $pool_jobs steps at once"
# Clippy over both crates, for each major against the bindings pgrx-pg-sys ships (the cfg
# docsrs, which tests/harness/rustc_docsrs.sh gives to that crate alone): no headers and no
# bindgen, so the four majors share one build of the dependencies in target/lint (about 200 s
# in all, where one major's clippy against its headers took 231 s). --keep-going: a crate
# that fails does not hide the warnings of the others.
# The first major lints every target of both crates; the others only the extension's library,
# the one target whose code differs by major (the core has no major; the extension's test
# target is its library again, under cfg(test): 22 s of CPU a major against 8 s for the library).
lint() { # MAJOR...
    local m targets=(--workspace --all-targets)
    for m in "$@"; do
        env RUSTC_WRAPPER="$h/rustc_docsrs.sh" DOCS_RS=1 cargo clippy -q "${targets[@]}" --keep-going \
            --no-default-features --features "pg$m" --target-dir target/lint -- -D warnings || return 1
        targets=(-p simhash --lib)
    done
}
# The compiling steps fill the time that the server's steps leave idle: started first, at
# a lower priority, beside the others (tests/harness/pool.sh). Clippy's majors share
# target/lint, so they run one after another in one step.
# --lib --tests: the unit and integration tests, not the examples, which clippy checks (building
# them optimized here took 46 of the step's 162 s of CPU) and which have no test of their own.
wants core && pool_start_idle "core unit tests (cargo test --profile ci-test -p simhash-core --lib --tests)" \
    cargo test -q --profile ci-test -p simhash-core --lib --tests
lint_majors=()
wants clippy && lint_majors+=(15)
# PostgreSQL 16 is in no suite these machines reach: the code must compile and lint for it
# against pgrx's bindings, as for 17 and 18, whose own runs test the built library.
wants pg16 && lint_majors+=(16 17 18)
[ ${#lint_majors[@]} -gt 0 ] && pool_start_idle \
    "lint (cargo clippy --workspace --all-targets -- -D warnings, PostgreSQL ${lint_majors[*]}; pgrx's shipped bindings)" \
    lint "${lint_majors[@]}"

if [ ${#regress[@]} -gt 0 ] || [ ${#integration[@]} -gt 0 ]; then
    if ! bash "$h/cluster.sh" install; then
        echo "--- FAILED: building/installing the extension"
        pool_wait
        echo "$passed passed, $((failed + 1)) failed"; exit 1
    fi
    # Steps side by side: connections for several pgbench runs of 8 clients at once.
    # Preloaded, as README advises: a backend's first call built the lexicon, 15-25% of the
    # steps' CPU (perf, all of 15's steps). No JIT: LLVM compiled the steps' costly plans, 7%.
    # The lazy load and JIT stay tested: make test-deb's installcheck runs on a cluster with
    # neither setting, and batch_stream.sh cancels a first call in a cluster of its own.
    own_cluster test "shared_buffers = 256MB" "max_connections = 120" \
        "shared_preload_libraries = 'simhash'" "jit = off"
fi

# The regression files and the integration scripts in one queue, longest first. Each
# regression file has a database of its own, a copy of the regression database: the
# extension, a `corpus` table of real news paragraphs and the error-capturing helper
# regress_try(sql) (regress_db.sh, shared with make test-deb). Each integration script has
# databases or clusters of its own.
queue=()
if [ ${#regress[@]} -gt 0 ]; then
    step "the regression database (the extension, the corpus, regress_try)" regress_db_create
    queue+=("${regress[@]/#/regress: }")
fi
for t in "${integration[@]}"; do queue+=("integration: $t.sh"); done
mapfile -t queue < <(pool_order "$pg_major" "${queue[@]}")
for s in "${queue[@]}"; do
    case $s in
    regress:*) pool_start "$s" regress_one target/regress "${s#regress: }" ;;
    integration:*) pool_start "$s" bash "tests/integration/${s#integration: }" ;;
    esac
done

wants fmt && pool_start "format (cargo fmt --all --check)" cargo fmt --all --check
wants imports && pool_start "imports (no import cycle among either crate's modules)" \
    python3 "$h/import_cycles.py" crates/simhash-core/src src
pool_wait

summary
