#!/usr/bin/env bash
# Installs what building and testing need on a fresh Debian 12 machine, as root.
# Idempotent: each step is skipped when already done (cargo-pgrx takes ~5 minutes to build).
set -euo pipefail

PG_MAJOR=15
PGRX_VERSION=0.18.1   # pgrx 0.19 needs rustc 1.96; this machine has 1.95.
PG_CONFIG=/usr/lib/postgresql/$PG_MAJOR/bin/pg_config

packages=(postgresql-$PG_MAJOR postgresql-server-dev-$PG_MAJOR libclang-dev clang sudo pkg-config bc
          dpkg-dev binutils lintian jq)   # the last four: make deb and make test-deb
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
    echo "bootstrap: cargo install cargo-pgrx $PGRX_VERSION (about 5 minutes)"
    cargo install cargo-pgrx --version "$PGRX_VERSION" --locked
fi

if ! grep -qs "^pg$PG_MAJOR = \"$PG_CONFIG\"" "${PGRX_HOME:-$HOME/.pgrx}/config.toml"; then
    echo "bootstrap: cargo pgrx init --pg$PG_MAJOR $PG_CONFIG"
    cargo pgrx init --pg$PG_MAJOR "$PG_CONFIG"
fi
