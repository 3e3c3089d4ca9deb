# Sourced (by lib.sh, cluster.sh, root.sh and packaging/): which PostgreSQL major a run is
# for, and how its programs are reached. Needs `root` (the checkout) set.
#
#   PG=15 (the default)  Debian 12's own PostgreSQL, on this host.
#   PG=17, PG=18         Debian's packages of that major, in a Debian root under
#                        target/pg$PG/root (tests/harness/root.sh makes it on first use):
#                        their binaries need glibc 2.38 or newer, and this host has 2.36.
#
# For a root, the sourcing script runs again in a mount namespace of its own, where the
# checkout, /tmp, /dev/shm and /proc are mounted into the root at their own paths. So every
# path means the same inside the root and out (a data directory, a socket, a scratch file),
# and the mounts go away with the run's last process, however it ends. The library is
# built on the host (glibc 2.36 symbols load in a newer glibc) against the root's headers.
#
# Sets:
#   pg_major          15, 17 or 18
#   pg_majors         the supported majors, "15 17 18"
#   sysroot           "" for 15, else the root's directory
#   sys_bin           the major's bin directory, as its programs see it
#   client_bin        a directory of this major's client programs (psql, pg_dump, pgbench...)
#                     that run from the host
#   pgroot            the private copy of the major's PostgreSQL that `cluster.sh install`
#                     installs the extension into (never the system's, never the root's /usr);
#                     SIMHASH_PGROOT names another (pg_upgrade.sh's old side for 18, the
#                     previous release's build in packaging/build-deb.sh)
#   cargo_features    the cargo flags that select the major (pgrx's bindings)
# Exports PGRX_PG_CONFIG_PATH for a root (a pg_config that answers with the root's paths, for
# pgrx's bindings), and unsets it for 15 (pgrx's config.toml, .ci/bootstrap.sh).
# Defines:
#   in_sysroot CMD...   CMD (a path as the root sees it) in the root, in this directory
#   as_postgres CMD...  the same as the postgres user (initdb refuses root)
pg_majors="15 17 18"
pg_major=${PG:-15}
case " $pg_majors " in
*" $pg_major "*) ;;
*)
    echo "PG=$pg_major is not supported: the supported PostgreSQL majors are ${pg_majors// /, } (make test PG=17)." >&2
    [ "$pg_major" = 16 ] && echo "No Debian suite this machine reaches has PostgreSQL 16; make test checks that the source compiles for it (step pg16)." >&2
    exit 2
    ;;
esac
export PG=$pg_major

if [ "$pg_major" = 15 ]; then
    sysroot=
    sys_bin=/usr/lib/postgresql/15/bin
    client_bin=$sys_bin
    pgroot=${SIMHASH_PGROOT:-$root/target/pgroot}   # another 15 (pg_upgrade.sh's old side for 18)
    cargo_features=
    unset PGRX_PG_CONFIG_PATH
    in_sysroot() { command "$@"; }   # command: never a shell function of the same name
    as_postgres() { runuser -u postgres -- "$@"; }
else
    sysroot=$root/target/pg$pg_major/root
    sys_bin=/usr/lib/postgresql/$pg_major/bin
    client_bin=$sysroot/.simhash/bin
    pgroot=${SIMHASH_PGROOT:-$root/target/pg$pg_major/pgroot}
    cargo_features="--no-default-features --features pg$pg_major"
    export PGRX_PG_CONFIG_PATH=$sysroot/.simhash/pg_config
    # `cd` in the root to this directory (the same path there, when it is under the
    # checkout or /tmp), else to /.
    in_sysroot() { chroot "$sysroot" /bin/sh -c 'cd "$0" 2>/dev/null || cd /; exec "$@"' "$PWD" "$@"; }
    as_postgres() { in_sysroot runuser -u postgres -- "$@"; }

    # Inside a run's namespace (the root's /proc is mounted) all this is done already: the
    # root was checked when the run began, and is not checked again under its servers.
    if ! mountpoint -q "$sysroot/proc"; then
        # $$ survives exec: the marker tells the script, run again, that it is the one that
        # entered the namespace and must mount.
        if [ "${SIMHASH_NS:-}" != "$$" ]; then
            bash "$root/tests/harness/root.sh" "$pg_major" || exit 1
            export SIMHASH_NS=$$
            exec unshare --mount --propagation private -- "$BASH" "$0" "$@"
        fi
        mount -t proc proc "$sysroot/proc"
        mount --bind /dev/shm "$sysroot/dev/shm"
        mount --bind /tmp "$sysroot/tmp"
        if [ ! -e "$sysroot$root/Cargo.toml" ]; then   # a checkout under /tmp is there already
            mkdir -p "$sysroot$root"
            mount --bind "$root" "$sysroot$root"
        fi
    fi
fi
