#!/usr/bin/env bash
# Throwaway PostgreSQL clusters for tests, the demo and benchmarks.
#
# The extension is installed into a private, relocated copy of the system's PostgreSQL 15
# (target/pgroot), never into /usr: tests cannot pick up a stale system install, and
# several work trees can test side by side. initdb refuses root, so servers run as the
# `postgres` user and listen only on a Unix socket inside their data directory.
#
#   cluster.sh install             build (release) and install the extension into target/pgroot
#   cluster.sh start NAME [GUC=V]  initdb + start target/run/NAME, extra settings appended
#   cluster.sh stop NAME
#   cluster.sh kill NAME           kill -9 the postmaster and every child of it, as a crash would
#   cluster.sh restart NAME        start NAME's existing data directory again (crash recovery)
#   cluster.sh env NAME            print PGHOST/PGPORT/PGUSER exports for NAME
#
# SIMHASH_SYSTEM_PG=1: servers run on the system's own binaries and so on the extension files
# installed in /usr (tests/package/test.sh tests a package that way); `install` refuses then.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
pg_major=15
sys_bin=/usr/lib/postgresql/$pg_major/bin
pgroot=$root/target/pgroot
bin=$pgroot/usr/lib/postgresql/$pg_major/bin
[ "${SIMHASH_SYSTEM_PG:-0}" = 1 ] && bin=$sys_bin
run=${SIMHASH_RUN_DIR:-$root/target/run}
port=5432   # Unix socket only; the socket lives in each cluster's own directory.

cmd=${1:?usage: cluster.sh install|start|stop|kill|restart|env NAME}
shift

case $cmd in
install)
    [ "${SIMHASH_SYSTEM_PG:-0}" = 1 ] && { echo "cluster.sh: install goes to target/pgroot, not with SIMHASH_SYSTEM_PG=1" >&2; exit 2; }
    if [ ! -x "$bin/postgres" ]; then
        mkdir -p "$pgroot/usr/lib/postgresql" "$pgroot/usr/share/postgresql"
        cp -a /usr/lib/postgresql/$pg_major "$pgroot/usr/lib/postgresql/"
        cp -a /usr/share/postgresql/$pg_major "$pgroot/usr/share/postgresql/"
    fi
    # SIMHASH_DEBUG=1: a debug build, quicker to compile while iterating.
    profile=--release; [ "${SIMHASH_DEBUG:-0}" = 1 ] && profile=
    (cd "$root" && cargo pgrx install $profile --pg-config "$bin/pg_config" >/dev/null)
    bash "$root/packaging/install-base-scripts.sh" "$pgroot/usr/share/postgresql/$pg_major/extension"
    ;;
start)
    name=${1:?NAME}; shift
    dir=$run/$name
    "$0" stop "$name" >/dev/null 2>&1 || true
    rm -rf "$dir"; mkdir -p "$dir"
    # Every directory above the data directory must be traversable by postgres.
    d=$dir; while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    chown postgres "$dir"
    runuser -u postgres -- "$bin/initdb" -D "$dir/data" -U postgres --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1
    {
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$dir'"
        echo "port = $port"
        echo "fsync = off"
        echo "max_connections = 40"
        for setting in "$@"; do echo "$setting"; done
    } >>"$dir/data/postgresql.conf"
    # A developer's RUST_BACKTRACE would put Rust backtraces into error DETAILs.
    env -u RUST_BACKTRACE runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null
    "$0" env "$name" >"$dir/env"
    ;;
stop)
    name=${1:?NAME}
    dir=$run/$name
    [ -d "$dir/data" ] && runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
kill)
    # The postmaster's children are each in a session of their own, so a signal to its
    # process group would miss them. Stopped first, it can fork no child between the
    # listing and the kill; the children are killed right after it (left alone, a busy
    # backend goes on writing until it notices that the postmaster is gone).
    name=${1:?NAME}
    pidfile=$run/$name/data/postmaster.pid
    pid=$(head -1 "$pidfile" 2>/dev/null) || { echo "cluster.sh: $name is not running" >&2; exit 1; }
    kill -STOP "$pid"
    children=$(ps -o pid= --ppid "$pid" | tr -d ' ' | tr '\n' ' ')
    kill -KILL "$pid" $children 2>/dev/null || true
    for _ in $(seq 600); do
        alive=0
        for p in $pid $children; do kill -0 "$p" 2>/dev/null && alive=1; done
        [ $alive = 0 ] && exit 0
        sleep 0.05
    done
    echo "cluster.sh: processes of $name still alive after kill -9: $pid $children" >&2; exit 1
    ;;
restart)
    name=${1:?NAME}
    dir=$run/$name
    # After a kill pg_ctl warns about the stale postmaster.pid; only a failure is shown.
    if ! out=$(env -u RUST_BACKTRACE runuser -u postgres -- "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start 2>&1); then
        echo "$out" >&2; exit 1
    fi
    ;;
env)
    name=${1:?NAME}
    echo "export PGHOST=$run/$name PGPORT=$port PGUSER=postgres PATH=$sys_bin:\$PATH"
    ;;
*)
    echo "cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac
