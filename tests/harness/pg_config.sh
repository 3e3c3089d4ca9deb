#!/usr/bin/env bash
# pg_config.sh SAVED PREFIX [--FLAG...]: answers as a pg_config would, from SAVED (that
# pg_config's full output), with PREFIX before each directory. A root's pg_config cannot run
# on this host (it needs a newer glibc), and pgrx, building on the host, needs the root's
# paths as the host sees them (tests/harness/root.sh writes the wrapper that calls this).
set -euo pipefail
saved=$1 prefix=$2
shift 2
[ $# -gt 0 ] || { sed -E "s#^(BINDIR|DOCDIR|HTMLDIR|INCLUDEDIR|PKGINCLUDEDIR|INCLUDEDIR-SERVER|LIBDIR|PKGLIBDIR|LOCALEDIR|MANDIR|SHAREDIR|SYSCONFDIR|PGXS) = #\1 = $prefix#" "$saved"; exit 0; }
for flag in "$@"; do
    key=${flag#--}
    key=${key^^}
    line=$(grep -m1 "^$key = " "$saved") || { echo "pg_config: invalid argument: $flag" >&2; exit 1; }
    value=${line#"$key = "}
    case $key in
    BINDIR | DOCDIR | HTMLDIR | INCLUDEDIR | PKGINCLUDEDIR | INCLUDEDIR-SERVER | LIBDIR | PKGLIBDIR | LOCALEDIR | MANDIR | SHAREDIR | SYSCONFDIR | PGXS)
        value=$prefix$value ;;
    esac
    echo "$value"
done
