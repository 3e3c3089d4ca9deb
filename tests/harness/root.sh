#!/usr/bin/env bash
# root.sh MAJOR: makes sure target/pgMAJOR/root is a complete Debian root with that major's
# PostgreSQL (server, contrib, headers, pg_regress), and makes it if not. tests/harness/major.sh
# calls it on every run for PG=17 or 18; a complete root costs a stat and a checksum.
# root.sh --check MAJOR: exits 0 if the root is complete, 1 if not, and changes nothing.
#
#   17: Debian trixie's postgresql-17;  18: Debian sid's postgresql-18.
#
# A root is complete when its stamp (.simhash/stamp, written last) names this script's
# checksum and the host's postgres uid and gid. A root without it (a build stopped by a full
# disk, an interrupted download, a kill) or with another one (this recipe changed) is
# removed and built again, never used. The build goes to a directory of its own, renamed
# into place at the end. debootstrap and apt run in a mount namespace of their own, so the
# /proc they mount inside the root goes away with them.
#
# Besides the major's packages, a root gets:
#   - the postgres user with the host's uid and gid: data directories under target/run are
#     made on the host and used by the root's server;
#   - the shared libraries of the host's PostgreSQL 15 that the root lacks, so that 15's
#     binaries run in it (pg_upgrade from 15, tests/integration/pg_upgrade.sh);
#   - .simhash/pg_config, which answers as the root's pg_config with the root's directory
#     before each path (pgrx's bindings, built on the host), and .simhash/bin/, the major's
#     client programs for the host (each runs in the root through tests/harness/in_root.sh).
set -euo pipefail
check_only=0
[ "${1:-}" = --check ] && { check_only=1; shift; }
major=${1:?usage: root.sh [--check] MAJOR}
root=$(cd "$(dirname "$0")/../.." && pwd)
h=$root/tests/harness
case $major in
17) suite=trixie ;;
18) suite=sid ;;
*) echo "root.sh: no root recipe for PostgreSQL $major (the roots are 17 and 18)" >&2; exit 2 ;;
esac
dir=$root/target/pg$major/root
uid=$(id -u postgres) gid=$(id -g postgres)
stamp="recipe $(sha256sum "$0" | cut -c1-16) postgres $uid:$gid"

complete() { [ "$(cat "$dir/.simhash/stamp" 2>/dev/null)" = "$stamp" ] && [ -x "$dir/usr/lib/postgresql/$major/bin/postgres" ]; }
complete && exit 0
[ $check_only = 1 ] && exit 1

mkdir -p "$root/target/pg$major"
exec 9>"$root/target/pg$major/root.lock"
flock 9
complete && exit 0   # another run built it while this one waited

# A directory with a mount under it is never removed (rm would go through the mount).
unmounted() { ! grep -q " $1[/ ]" /proc/self/mountinfo; }
for d in "$dir" "$dir.new"; do
    unmounted "$d" || { echo "root.sh: $d has mounts in this namespace; not rebuilding it" >&2; exit 1; }
done
if [ -e "$dir" ]; then
    echo "root.sh: $dir is incomplete or from another recipe: removing it, to build it again" >&2
    rm -rf "$dir"
fi
rm -rf "$dir.new"
log=$root/target/pg$major/root.log
: >"$log"
start=$SECONDS
echo "root.sh: building $dir (Debian $suite, PostgreSQL $major), once; log in $log" >&2
step() { # what, then the command; its output goes to the log, shown when it fails
    local what=$1
    shift
    if ! "$@" >>"$log" 2>&1; then
        echo "root.sh: $what failed; the last lines of $log:" >&2
        tail -20 "$log" >&2
        exit 1
    fi
    echo "root.sh: $what: $((SECONDS - start)) s" >&2
}
command -v debootstrap >/dev/null || step "apt-get install debootstrap" \
    env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends debootstrap
step "debootstrap $suite" unshare --mount debootstrap --variant=minbase "$suite" "$dir.new"

# The postgres user before the packages, so that postgresql-common keeps its ids; no
# cluster made by the packages, and no service started. The mirror this machine reaches
# can serve a sid Release file past its Valid-Until (seen: 19 days), which apt refuses.
packages="postgresql-$major postgresql-server-dev-$major"
step "apt-get install $packages" unshare --mount chroot "$dir.new" /bin/sh -euc "
mount -t proc proc /proc
getent passwd $uid >/dev/null && { echo 'uid $uid is taken in the root'; exit 1; }
getent group $gid >/dev/null || groupadd -g $gid postgres
useradd -u $uid -g $gid -r -d /var/lib/postgresql -s /bin/bash postgres
mkdir -p /etc/postgresql-common
echo 'create_main_cluster = false' >/etc/postgresql-common/createcluster.conf
printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d
chmod +x /usr/sbin/policy-rc.d
echo 'Acquire::Check-Valid-Until "false";' >/etc/apt/apt.conf.d/99simhash-valid-until
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $packages
apt-get clean
umount /proc"

# Host PostgreSQL 15's libraries that the root lacks (ICU 72, LDAP 2.5...), by soname.
pg15_libs() {
    local so path lib=$dir.new/usr/local/lib/simhash-pg15 have
    mkdir -p "$lib"
    have=$(chroot "$dir.new" /sbin/ldconfig -p)
    for f in /usr/lib/postgresql/15/bin/* /usr/lib/postgresql/15/lib/*.so; do
        ldd "$f" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $1, $3 }'
    done | sort -u | while read -r so path; do
        grep -q "^[[:space:]]*$so " <<<"$have" || cp -L "$path" "$lib/"
    done
    echo /usr/local/lib/simhash-pg15 >"$dir.new/etc/ld.so.conf.d/simhash-pg15.conf"
    chroot "$dir.new" /sbin/ldconfig
    ls "$lib"
}
step "PostgreSQL 15's libraries" pg15_libs

wrappers() {
    local bin=$dir.new/.simhash/bin p
    mkdir -p "$bin"
    chroot "$dir.new" /usr/lib/postgresql/$major/bin/pg_config >"$dir.new/.simhash/pg_config.out"
    bash "$h/pg_config.sh" --write "$dir.new/.simhash/pg_config" "$dir/.simhash/pg_config.out" "$dir"
    for p in "$dir.new/usr/lib/postgresql/$major/bin/"*; do
        p=$(basename "$p")
        printf '#!/bin/sh\n# PostgreSQL %s'"'"'s %s, run in its root (tests/harness/root.sh).\nexec env PG=%s /bin/bash %q %q "$@"\n' \
            "$major" "$p" "$major" "$h/in_root.sh" "/usr/lib/postgresql/$major/bin/$p" >"$bin/$p"
        chmod +x "$bin/$p"
    done
}
step "pg_config and client wrappers" wrappers

echo "$stamp" >"$dir.new/.simhash/stamp"
sync -f "$dir.new/.simhash/stamp"
mv "$dir.new" "$dir"
echo "root.sh: $dir is ready ($(du -sh "$dir" | cut -f1), $(chroot "$dir" /usr/lib/postgresql/$major/bin/postgres --version)) in $((SECONDS - start)) s" >&2
