#!/usr/bin/env bash
# pg_config.sh SAVED PREFIX [--FLAG...]: answers as a pg_config would, from SAVED (that
# pg_config's full output), with PREFIX before each directory. A root's pg_config cannot run
# on this host (it needs a newer glibc), and pgrx, building on the host, needs the root's
# paths as the host sees them.
# pg_config.sh --write OUT SAVED PREFIX: writes OUT, an executable pg_config that answers so
# (tests/harness/root.sh for the root's, cluster.sh install for a root major's pgroot).
set -euo pipefail
if [ "$1" = --write ]; then
    out=$2
    printf '#!/bin/sh\n# pg_config from %s (tests/harness/pg_config.sh).\nexec /bin/bash %q %q %q "$@"\n' \
        "$3" "$(cd "$(dirname "$0")" && pwd)/pg_config.sh" "$3" "$4" >"$out"
    chmod +x "$out"
    exit 0
fi
saved=$1 prefix=$2
shift 2
dirs='BINDIR|DOCDIR|HTMLDIR|INCLUDEDIR|PKGINCLUDEDIR|INCLUDEDIR-SERVER|LIBDIR|PKGLIBDIR|LOCALEDIR|MANDIR|SHAREDIR|SYSCONFDIR|PGXS'
[ $# -gt 0 ] || { sed -E "s#^($dirs) = #\1 = $prefix#" "$saved"; exit 0; }
for flag in "$@"; do
    key=${flag#--}
    key=${key^^}
    line=$(grep -m1 "^$key = " "$saved") || { echo "pg_config: invalid argument: $flag" >&2; exit 1; }
    value=${line#"$key = "}
    [[ $key =~ ^($dirs)$ ]] && value=$prefix$value
    echo "$value"
done
