#!/usr/bin/env bash
# Every ```sql example of README.md and docs/*.md runs as written on a real server (issue 30):
# each page's examples in order in a database of its own, after the tables the page assumes
# (tests/harness/doc_examples.py sets them up and says why). Fails with the page and line of
# any example that errors, or that does not fail the way the page says it does.
# Expects PGHOST/PGPORT/PGUSER of a running cluster with the extension installed.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
at_exit 'psql -d postgres -c "DROP ROLE IF EXISTS app" >/dev/null 2>&1 || true'
python3 "$h/doc_examples.py" "$root"
