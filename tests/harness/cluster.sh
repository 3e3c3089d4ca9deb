#!/usr/bin/env bash
# Throwaway PostgreSQL clusters for tests, the demo and benchmarks, on the major PG names
# (15 by default; 17 and 18 in their Debian roots: tests/harness/major.sh).
#
# The extension is installed into a private, relocated copy of the major's PostgreSQL
# (target/pgroot for 15, target/pgNN/pgroot for the others), never into /usr: tests cannot
# pick up a stale system install, and several work trees can test side by side. initdb
# refuses root, so servers run as the `postgres` user and listen only on a Unix socket
# inside their data directory.
#
#   cluster.sh install             build (release) and install the extension into the pgroot;
#                                  SIMHASH_BUILD_SRC: of another source tree (packaging/
#                                  build-deb.sh: the previous release's), with this tree's
#                                  major set-up, so that its build shares this one's bindings
#   cluster.sh start NAME [GUC=V]  initdb ($INITDB_ARGS too) + start target/run/NAME, extra
#                                  settings appended
#   cluster.sh stop NAME
#   cluster.sh kill NAME           kill -9 the postmaster and every child of it, as a crash would
#   cluster.sh restart NAME        start NAME's existing data directory again (crash recovery)
#   cluster.sh env NAME            print PGHOST/PGPORT/PGUSER exports for NAME
#
# SIMHASH_SYSTEM_PG=1: servers run on the major's system binaries (the host's /usr, or the
# root's) and so on the extension files installed there (tests/package/test.sh tests a
# package that way); `install` refuses then.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
source "$root/tests/harness/major.sh"
bin=$pgroot/usr/lib/postgresql/$pg_major/bin
[ "${SIMHASH_SYSTEM_PG:-0}" = 1 ] && bin=$sys_bin
run=${SIMHASH_RUN_DIR:-$root/target/run}
port=5432   # Unix socket only; the socket lives in each cluster's own directory.

cmd=${1:?usage: cluster.sh install|start|stop|kill|restart|env NAME}
shift

case $cmd in
install)
    [ "${SIMHASH_SYSTEM_PG:-0}" = 1 ] && { echo "cluster.sh: install goes to target/pgroot, not with SIMHASH_SYSTEM_PG=1" >&2; exit 2; }
    # One install into a pgroot at a time (.ci/run builds 17 and 18 ahead, beside 15's tests).
    mkdir -p "$(dirname "$pgroot")"
    exec 8>"$pgroot.lock"
    flock 8
    if [ ! -x "$bin/postgres" ]; then
        rm -rf "$pgroot"
        mkdir -p "$pgroot.new/usr/lib/postgresql" "$pgroot.new/usr/share/postgresql"
        cp -a "$sysroot/usr/lib/postgresql/$pg_major" "$pgroot.new/usr/lib/postgresql/"
        cp -a "$sysroot/usr/share/postgresql/$pg_major" "$pgroot.new/usr/share/postgresql/"
        mv "$pgroot.new" "$pgroot"
    fi
    # The pgroot's own pg_config tells cargo pgrx where to install. A root's runs in the
    # root, and its answers (paths under the checkout) hold on the host too.
    pg_config=$bin/pg_config
    if [ -n "$sysroot" ]; then
        in_sysroot "$pg_config" >"$pgroot/pg_config.out"
        pg_config=$pgroot/pg_config
        bash "$root/tests/harness/pg_config.sh" --write "$pg_config" "$pgroot/pg_config.out" ""
    fi
    # SIMHASH_DEBUG=1: a debug build, quicker to compile while iterating.
    profile=--release; [ "${SIMHASH_DEBUG:-0}" = 1 ] && profile=
    src=${SIMHASH_BUILD_SRC:-$root}
    # One install at a time per target directory, whatever the major or the tree: every build
    # there writes one file (deps/libsimhash.so, below), which cargo pgrx install copies after
    # cargo is done, and the units' kept state below is put back and saved around it. (The
    # lock alone did not stop CI's 17 package from holding an 18 library: the builds ran in
    # turn, and the cause was the fingerprint, below.)
    target_dir=${CARGO_TARGET_DIR:-$src/target}
    mkdir -p "$target_dir"
    exec 7>"$target_dir/simhash-install.lock"
    flock 7
    # A cdylib's file in deps/ carries no hash, so every major and tree builds the same
    # deps/libsimhash.so; and cargo keeps one fingerprint per tree, whatever the major. So after
    # the previous release's build for 18 (ahead, in CI), this tree's build for 17 was fresh and
    # took 6.0.0's 18 library (make test-deb PG=17: "version mismatch"); and each change of
    # major built the library again (~50 s). So each unit (major, tree) keeps what its last
    # build left, the library and the fingerprint, and puts them back before cargo runs: cargo
    # then judges the unit as if it had run last, takes the library when fresh, and builds it
    # when its sources changed since. With nothing kept, the library goes and cargo builds it.
    build=$target_dir/$([ -n "$profile" ] && echo release || echo debug)
    unit=$pg_major-$(realpath "$src" | md5sum | cut -c1-12)
    kept=$build/simhash-units
    mkdir -p "$kept"
    if [ "$(cat "$kept/last" 2>/dev/null)" != "$unit" ]; then
        rm -f "$build/deps/libsimhash.so"
        if [ -s "$kept/$unit/fingerprint" ]; then
            fp=$build/.fingerprint/$(cat "$kept/$unit/fingerprint")
            rm -rf "$fp" && cp -a "$kept/$unit/$(basename "$fp")" "$fp"
            cp -p "$kept/$unit/libsimhash.so" "$build/deps/libsimhash.so"
        fi
    fi
    touch "$kept/.before"
    (cd "$src" && cargo pgrx install $profile --pg-config "$pg_config" >/dev/null)
    # Built (not fresh): the fingerprint cargo wrote just now is this unit's.
    fp=$(find "$build/.fingerprint" -path '*/simhash-[0-9a-f]*/lib-simhash.json' -newer "$kept/.before" | head -1)
    if [ -n "$fp" ]; then
        fp=$(dirname "$fp")
        rm -rf "$kept/$unit.new" && mkdir "$kept/$unit.new"
        cp -a "$fp" "$kept/$unit.new/" && cp -p "$build/deps/libsimhash.so" "$kept/$unit.new/"
        basename "$fp" >"$kept/$unit.new/fingerprint"
        rm -rf "$kept/$unit" && mv "$kept/$unit.new" "$kept/$unit"
    fi
    echo "$unit" >"$kept/last"
    exec 7>&-
    # The check that it worked: the library names its major's server headers, and no other's.
    majors=$(grep -aoE 'postgresql/[0-9]+/server/' "$pgroot/usr/lib/postgresql/$pg_major/lib/simhash.so" | sort -u | cut -d/ -f2 | tr '\n' ' ')
    if [ "$majors" != "$pg_major " ]; then
        echo "cluster.sh install: the library installed for PostgreSQL $pg_major was built against the headers of ${majors:-no major}" >&2
        exit 1
    fi
    bash "$src/packaging/install-base-scripts.sh" "$pgroot/usr/share/postgresql/$pg_major/extension"
    ;;
start)
    name=${1:?NAME}; shift
    dir=$run/$name
    "$0" stop "$name" >/dev/null 2>&1 || true
    rm -rf "$dir"; mkdir -p "$dir"
    # Every directory above the data directory must be traversable by postgres.
    d=$dir; while [ "$d" != / ]; do chmod o+x "$d" 2>/dev/null || true; d=$(dirname "$d"); done
    chown postgres "$dir"
    # INITDB_ARGS: more initdb options (tests/integration/pg_upgrade.sh: --no-data-checksums).
    as_postgres "$bin/initdb" -D "$dir/data" -U postgres --auth=trust \
        --encoding=UTF8 --locale=C.UTF-8 ${INITDB_ARGS:-} >"$dir/initdb.log" 2>&1
    {
        echo "listen_addresses = ''"
        echo "unix_socket_directories = '$dir'"
        echo "port = $port"
        echo "fsync = off"
        echo "max_connections = 40"
        for setting in "$@"; do echo "$setting"; done
    } >>"$dir/data/postgresql.conf"
    # A developer's RUST_BACKTRACE would put Rust backtraces into error DETAILs.
    (unset RUST_BACKTRACE; as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start >/dev/null)
    "$0" env "$name" >"$dir/env"
    ;;
stop)
    name=${1:?NAME}
    dir=$run/$name
    [ -d "$dir/data" ] && as_postgres "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
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
    if ! out=$(unset RUST_BACKTRACE; as_postgres "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w start 2>&1); then
        echo "$out" >&2; exit 1
    fi
    ;;
env)
    name=${1:?NAME}
    echo "export PGHOST=$run/$name PGPORT=$port PGUSER=postgres PATH=$client_bin:\$PATH"
    ;;
*)
    echo "cluster.sh: unknown command $cmd" >&2; exit 2 ;;
esac
