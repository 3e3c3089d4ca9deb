#!/usr/bin/env bash
# `make deb` (PG=15, 17 or 18; 15 by default): builds
# target/deb/postgresql-<major>-simhash_<version>_amd64.deb, the extension for Debian's
# PostgreSQL of that major (15: Debian 12's; 17: trixie's; 18: sid's, whose library is built
# against the major's headers from its root: tests/harness/major.sh), from a release build
# (<version>: Cargo.toml's).
#
#   packaging/build-deb.sh [SRC]
#
# SRC is the source tree to package (default: this one); tests/package/test.sh passes a git
# worktree of the previous release. Whatever SRC is, the package goes to THIS tree's
# target/deb/, and its packaging (changelog from this tree's CHANGELOG.md, or
# $SIMHASH_CHANGELOG; copyright; control) is this tree's.
#
# The build is the harness's own (tests/harness/cluster.sh install, release), so after
# `make test` nothing is compiled again: the extension's files are taken from the private
# PostgreSQL copy it installs into (target/pgroot, or target/pgNN/pgroot), by name, so a
# stale file left there by another version is never packaged. Another SRC is built by this
# tree's cluster.sh too, into target/deb/pgroot-<version>-<major>, in this tree's target
# directory and with its major's set-up (bindings, Debian root): only SRC's own crates are
# compiled, where a build of its own compiled every dependency again and, for 17 and 18,
# made a Debian root of its own.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
src=$(cd "${1:-$root}" && pwd)
. "$here/versions.sh"
. "$root/tests/harness/major.sh"

package=postgresql-$pg_major-simhash
version=$(cargo_version "$src/Cargo.toml")
maintainer="simhash maintainers <maintainers@users.noreply.a-seed-c7ce3d3b.example>"
out=$root/target/deb
deb=$out/${package}_${version}_amd64.deb
stage=$out/stage-$version
libdir=usr/lib/postgresql/$pg_major/lib
extdir=usr/share/postgresql/$pg_major/extension
docdir=usr/share/doc/$package

mkdir -p "$out"
# The changelog first: a missing CHANGELOG.md fails before a long build, not after.
changelog=$(bash "$here/changelog.sh" "${SIMHASH_CHANGELOG:-$root/CHANGELOG.md}" "$package" "$version" "$maintainer")

echo "deb: release build of $version (tests/harness/cluster.sh install)"
# Whatever the caller exports for its servers (tests/package/test.sh: SIMHASH_SYSTEM_PG=1), the build
# goes to target/pgroot, which cluster.sh install refuses under SIMHASH_SYSTEM_PG.
if [ "$src" != "$root" ]; then
    # One target directory holds both builds, and cargo takes two path crates of one name and
    # version for one build: the core's version must differ from ours (crates/simhash-core/Cargo.toml).
    core=crates/simhash-core/Cargo.toml
    if [ "$(cargo_version "$src/$core")" = "$(cargo_version "$root/$core")" ]; then
        echo "deb: $src's core has this tree's core version $(cargo_version "$root/$core"); give the core the extension's version ($core)" >&2
        exit 1
    fi
    pgroot=$out/pgroot-$version-$pg_major
    env -u SIMHASH_DEBUG -u SIMHASH_SYSTEM_PG SIMHASH_BUILD_SRC="$src" SIMHASH_PGROOT="$pgroot" \
        CARGO_TARGET_DIR="$root/target" bash "$root/tests/harness/cluster.sh" install
else
    env -u SIMHASH_DEBUG -u SIMHASH_SYSTEM_PG bash "$root/tests/harness/cluster.sh" install
fi

rm -rf "$stage"
install -d -m 0755 "$stage/DEBIAN" "$stage/$libdir" "$stage/$extdir" "$stage/$docdir"
# What a release holds: the library, the control file, its install script, and every
# script in sql/: the upgrade scripts (pgrx installs those, simhash--*--*.sql) and the
# earlier releases' install scripts (packaging/install-base-scripts.sh).
install -m 0644 "$pgroot/$libdir/simhash.so" "$stage/$libdir/"
install -m 0644 "$pgroot/$extdir/simhash.control" "$pgroot/$extdir/simhash--$version.sql" "$stage/$extdir/"
for f in "$src"/sql/simhash--*.sql; do
    [ -e "$f" ] && install -m 0644 "$pgroot/$extdir/$(basename "$f")" "$stage/$extdir/"
done
# Debian's strip for a shared object: no symbol table, notes or comments; the dynamic
# symbols PostgreSQL looks up (Pg_magic_func, the *_wrapper functions) stay.
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$stage/$libdir/simhash.so"

gzip -9n <<<"$changelog" >"$stage/$docdir/changelog.gz"
install -m 0644 "$here/copyright" "$stage/$docdir/copyright"
chmod 0644 "$stage/$docdir/changelog.gz"

# Depends: the server, and the shared libraries the library links (dpkg-shlibdeps reads
# them from the ELF file; it wants a debian/control to exist).
shlib_tmp=$(mktemp -d)
trap 'rm -rf "$shlib_tmp"' EXIT
mkdir "$shlib_tmp/debian"
printf 'Source: simhash\n\nPackage: %s\nArchitecture: amd64\n' "$package" >"$shlib_tmp/debian/control"
shlibs=$(cd "$shlib_tmp" && dpkg-shlibdeps -O "$stage/$libdir/simhash.so" | sed -n 's/^shlibs:Depends=//p')
depends="postgresql-$pg_major${shlibs:+, $shlibs}"

size=$(du -sk --exclude=DEBIAN "$stage" | cut -f1)
sed -e "s|@VERSION@|$version|" -e "s|@MAINTAINER@|$maintainer|" -e "s|@INSTALLED_SIZE@|$size|" \
    -e "s|@DEPENDS@|$depends|" -e "s|@MAJOR@|$pg_major|g" "$here/control.in" >"$stage/DEBIAN/control"
(cd "$stage" && find usr -type f | sort | xargs md5sum) >"$stage/DEBIAN/md5sums"
chmod 0644 "$stage/DEBIAN/control" "$stage/DEBIAN/md5sums"
find "$stage" -type d -exec chmod 0755 {} +

dpkg-deb --root-owner-group -Zxz --build "$stage" "$deb" >/dev/null
rm -rf "$stage"
echo "deb: $deb ($(du -h "$deb" | cut -f1))"
