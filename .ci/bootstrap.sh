#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian 12 machine, as root.
# Idempotent: each step is skipped when already done (cargo-pgrx takes ~1.5 minutes to build).
#
#   bootstrap.sh          everything `make test`, `make deb` and `make test-deb` need, for any
#                         major PG: the host's PostgreSQL 15 (the default major, and the old
#                         side of pg_upgrade to 17 and 18), debootstrap (the roots of 17 and
#                         18: tests/harness/root.sh), dpkg-dev and lintian (packages)
#   bootstrap.sh build    only what `make install` needs: clang, pkg-config, cargo-pgrx and
#                         the server headers of the major PG (default 15) from this machine's
#                         own Debian suite, which has them for its own major
set -euo pipefail

PGRX_VERSION=0.18.1   # pgrx 0.19 needs rustc 1.96; this machine has 1.95.
PG_MAJOR=${PG:-15}

packages=(libclang-dev clang pkg-config)
if [ "${1:-}" = build ]; then
    packages+=(postgresql-server-dev-$PG_MAJOR)
else
    packages+=(postgresql-15 postgresql-server-dev-15 sudo bc debootstrap
               dpkg-dev binutils lintian jq)   # the last four: make deb and make test-deb
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
    echo "bootstrap: apt-get install ${missing[*]}"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if ! cargo pgrx --version 2>/dev/null | grep -q " $PGRX_VERSION\$"; then
    # --debug: 87 s to build here against 197 s optimized, and `cargo pgrx install` takes the
    # same 34 s with either (its work is cargo's and the linker's).
    echo "bootstrap: cargo install --debug cargo-pgrx $PGRX_VERSION (about 1.5 minutes)"
    cargo install cargo-pgrx --version "$PGRX_VERSION" --locked --debug
fi

# The host's PostgreSQL 15 in pgrx's config.toml, for builds with the default feature pg15.
# Other majors' builds name their pg_config in PGRX_PG_CONFIG_PATH instead (the Makefile's
# install, tests/harness/major.sh).
PG_CONFIG=/usr/lib/postgresql/15/bin/pg_config
if [ -x "$PG_CONFIG" ] && ! grep -qs "^pg15 = \"$PG_CONFIG\"" "${PGRX_HOME:-$HOME/.pgrx}/config.toml"; then
    echo "bootstrap: cargo pgrx init --pg15 $PG_CONFIG"
    cargo pgrx init --pg15 "$PG_CONFIG"
fi
