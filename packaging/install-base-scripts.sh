#!/usr/bin/env bash
# Installs the install scripts of earlier releases that sql/ keeps (sql/simhash--X.Y.Z.sql,
# with one "--") beside the current one, which pgrx writes; pgrx installs only the upgrade
# scripts (two "--"). Each lets `CREATE EXTENSION simhash VERSION 'X.Y.Z'` take a dump made
# under that release with the fingerprint definitions its objects were made with
# (docs/fingerprint.md, "Restoring a dump made under 1.x").
#
#   packaging/install-base-scripts.sh EXTENSION_DIR
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
for f in "$src"/sql/simhash--*.sql; do
    case ${f##*/} in
        *--*--*) ;;
        *) install -m 0644 "$f" "${1:?EXTENSION_DIR}/" ;;
    esac
done
