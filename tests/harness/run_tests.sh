#!/usr/bin/env bash
# `make test`: the pure-Rust core's unit and property tests, then the SQL surface against a
# real PostgreSQL server of the major PG names (15 by default, or 17 or 18 in their Debian
# roots: tests/harness/major.sh) (pg_regress golden files in tests/pg_regress), then the
# integration scripts in tests/integration (each exits non-zero on failure), then the
# formatting and lint gates (cargo fmt --check, cargo clippy -D warnings over both crates
# built for that major, no import cycle among either crate's modules). With PG=15, the step
# pg16 checks that the extension compiles for PostgreSQL 16, which no reachable Debian suite
# has, against pgrx's pre-generated bindings; with PG=15 only, as are the core's tests (plain
# Rust, the same for every major).
# Ends with one line "N passed, N failed".
#
#   run_tests.sh [NAME...]   only the named tests (`make test T="search crash"`): a
#                            regression file (tests/pg_regress/sql/NAME.sql, all named ones
#                            in one pg_regress run on the same regression database), an
#                            integration script (tests/integration/NAME.sh), or one of the
#                            steps core, fmt, clippy, imports, pg16. An unknown name lists the
#                            valid ones.
set -uo pipefail
source "$(dirname "$0")/lib.sh"
source "$h/regress_db.sh"
cd "$root"

mapfile -t all_regress < <(regress_tests)
mapfile -t all_integration < <(names_in tests/integration sh)
gates=(fmt clippy imports)
# The core is plain Rust, the same for every major: tested once, with 15 (CI runs 15 first).
[ "$pg_major" = 15 ] && gates=(core "${gates[@]}" pg16)

# What to run: everything, or the steps the arguments name.
regress=() integration=() want_gates=()
if [ $# -eq 0 ]; then
    regress=("${all_regress[@]}") integration=("${all_integration[@]}") want_gates=("${gates[@]}")
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

echo "PostgreSQL $pg_major: $(in_sysroot "$sys_bin/postgres" --version)${sysroot:+ (in ${sysroot#"$root/"})}"
wants core && step "core unit tests (cargo test -p simhash-core)" cargo test -q -p simhash-core

if [ ${#regress[@]} -gt 0 ] || [ ${#integration[@]} -gt 0 ]; then
    if ! bash "$h/cluster.sh" install; then
        echo "--- FAILED: building/installing the extension"
        echo "$passed passed, $((failed + 1)) failed"; exit 1
    fi
    own_cluster test "shared_buffers = 256MB"
fi

if [ ${#regress[@]} -gt 0 ]; then
    # The regression database has the extension, a `corpus` table of real news paragraphs and
    # the error-capturing helper regress_try(sql) (regress_db.sh, shared with make test-deb).
    regress_db_create
    label="${#regress[@]} files"; [ $# -gt 0 ] && label=${regress[*]}
    step "pg_regress ($label)" regress_run target/regress "${regress[@]}"
fi

for t in "${integration[@]}"; do
    step "integration: $t.sh" bash "tests/integration/$t.sh"
done

wants fmt && step "format (cargo fmt --all --check)" cargo fmt --all --check
# The root crate with the features of this major's build: pg15 is the default (Cargo.toml).
# --keep-going: a crate that fails does not hide the warnings of the others.
wants clippy && step "lint (cargo clippy --workspace --all-targets ${cargo_features:+$cargo_features }-- -D warnings)" \
    cargo clippy -q --workspace --all-targets --keep-going $cargo_features -- -D warnings
wants imports && step "imports (no import cycle among either crate's modules)" \
    python3 "$h/import_cycles.py" crates/simhash-core/src src

# pgrx-pg-sys reads its checked-in bindings (src/include/pg16.rs) when built with the cfg
# docsrs, which tests/harness/rustc_docsrs.sh gives to that crate alone.
wants pg16 && step "pg16 (cargo check --features pg16, pgrx's pre-generated bindings)" \
    env RUSTC_WRAPPER="$h/rustc_docsrs.sh" DOCS_RS=1 cargo check -q --no-default-features --features pg16 \
    --target-dir target/check-pg16

summary
