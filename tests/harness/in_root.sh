#!/usr/bin/env bash
# in_root.sh CMD [ARG...]: runs CMD, a path as the root of PostgreSQL $PG sees it, in that
# root and in the current directory, with the root's mounts (tests/harness/major.sh). The
# client wrappers in target/pgNN/root/.simhash/bin call it, so that `psql` on the host is
# the major's own psql.
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/tests/harness/major.sh"
in_sysroot "$@"
