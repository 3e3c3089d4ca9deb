#!/usr/bin/env bash
# `make test-deb` (PG=15, 17 or 18): the Debian package on that major's system PostgreSQL,
# this machine's own for 15 and its Debian root's for 17 and 18 (tests/harness/major.sh:
# dpkg, the server and its clients run in the root). Run after `make deb`, as root, on a
# system (the host, or the root) where simhash is not installed in /usr:
#   - the package's contents, size, Depends, and META.json's version;
#   - lintian: no error;
#   - upgrade: the previous release's package (packaging/previous-deb.sh), CREATE EXTENSION and a
#     stored row, then this package over it and ALTER EXTENSION simhash UPDATE; skipped, and
#     said so, when the previous release had no package for this major (2.1.1 had 15's only);
#   - installcheck: tests/pg_regress on a server run from the system binaries, on a fresh
#     CREATE EXTENSION at this version, set up as `make test` does (tests/harness/regress_db.sh),
#     but the slow files `make test` ran on the same build (installcheck_tests), side by side
#     (tests/harness/pool.sh), each file a step;
#   - dpkg -r leaves no file behind under /usr.
# Leaves the system as it found it. Ends with one line "N passed, N failed".
set -uo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
. packaging/versions.sh
. tests/harness/regress_db.sh
. tests/harness/pool.sh
package=postgresql-$pg_major-simhash
ext=/usr/share/postgresql/$pg_major/extension   # as the system (the host, or the root) sees them
lib=/usr/lib/postgresql/$pg_major/lib
version=$(cargo_version Cargo.toml)
deb=target/deb/${package}_${version}_amd64.deb
work=target/deb/test
export SIMHASH_SYSTEM_PG=1   # cluster.sh: servers on /usr's binaries and extension files
die() { echo "test-deb: $*" >&2; echo "$passed passed, $((failed + 1)) failed"; exit 1; }
installed() { in_sysroot dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "ok installed"; }
dpkg() { # postgresql-common's triggers talk; shown only when dpkg fails
    in_sysroot dpkg "$@" >"$work/dpkg.log" 2>&1 || { cat "$work/dpkg.log"; return 1; }
}

[ "$(id -u)" = 0 ] || die "needs root (dpkg -i, servers run as postgres)"
installed && die "$package is installed already; this test installs and removes it: dpkg -r $package first"
for f in "$sysroot$ext"/simhash.control "$sysroot$ext"/simhash--*.sql "$sysroot$lib"/simhash.so; do
    [ -e "$f" ] && die "$f is in /usr but no package owns it (a source install?): remove simhash's files from $sysroot$ext and $sysroot$lib first"
done
[ -s "$deb" ] || die "$deb not found: make deb"
[ -s target/corpus/peoples_daily_199801.txt ] || die "no corpus: make corpus"
rm -rf "$work"; mkdir -p "$work"

at_exit 'installed && dpkg --purge "$package"'

# --- The package file itself.
contents() {
    local listing bad expected f size depends
    listing=$(dpkg-deb -c "$deb") || return 1
    bad=$(awk '$2 != "root/root" { print "owner: " $0 } $1 ~ /^d/ && $1 != "drwxr-xr-x" { print "mode: " $0 }
               $1 ~ /^-/ && $1 != "-rw-r--r--" { print "mode: " $0 }' <<<"$listing")
    [ -z "$bad" ] || { echo "$bad"; return 1; }
    expected=(".$lib/simhash.so" ".$ext/simhash.control" ".$ext/simhash--$version.sql"
              "./usr/share/doc/$package/copyright" "./usr/share/doc/$package/changelog.gz")
    for f in sql/simhash--*.sql; do expected+=(".$ext/$(basename "$f")"); done
    for f in "${expected[@]}"; do
        grep -q " $f\$" <<<"$listing" || { echo "missing from the package: $f"; return 1; }
    done
    size=$(stat -c %s "$deb")
    echo "package: $(basename "$deb"), $((size / 1024)) KiB, $(grep -c '^-' <<<"$listing") files"
    [ "$size" -lt $((20 * 1024 * 1024)) ] || { echo "package is over 20 MB"; return 1; }
    depends=$(dpkg-deb -f "$deb" Depends)
    echo "Depends: $depends"
    grep -Eq "(^|, )postgresql-$pg_major(,|\$)" <<<"$depends" || { echo "Depends lacks postgresql-$pg_major"; return 1; }
    dpkg-deb -x "$deb" "$work/x"
    if readelf -S "$work/x/$lib/simhash.so" | grep -q '\.symtab'; then echo "simhash.so is not stripped"; return 1; fi
    # The control file names this version (pgrx fills @CARGO_VERSION@ in).
    grep -q "^default_version = '$version'" "$work/x/$ext/simhash.control" || { echo "control file: default_version is not $version"; return 1; }
}
step "package contents, size, Depends, stripped library" contents

meta_version() {
    local v
    v=$(jq -r '.version + " " + .provides.simhash.version' META.json) || return 1
    [ "$v" = "$version $version" ] || { echo "META.json says $v, Cargo.toml $version"; return 1; }
}
step "META.json version is Cargo.toml's ($version)" meta_version

run_lintian() {
    lintian --fail-on error --info "$deb" | tee "$work/lintian.txt"
    local rc=${PIPESTATUS[0]}
    echo "lintian: $(grep -c '^E:' "$work/lintian.txt") errors, $(grep -c '^W:' "$work/lintian.txt") warnings"
    return "$rc"
}
step "lintian: no error" run_lintian

# --- Upgrade from the previous release's package, if it had one for this major.
read -r prev_version prev_commit < <(previous_release)
prev_deb= prev_has_major=0
git show "$prev_commit:tests/harness/major.sh" 2>/dev/null | grep -q "^pg_majors=.*\b$pg_major\b" && prev_has_major=1
[ "$pg_major" = 15 ] && prev_has_major=1   # every release had 15's package
previous_deb() { prev_deb=$(bash packaging/previous-deb.sh) && echo "$(basename "$prev_deb")"; }
if [ $prev_has_major = 1 ]; then
    step "previous release's package (packaging/previous-deb.sh)" previous_deb
else
    echo "=== upgrade from the previous release: skipped, $prev_version had no package for PostgreSQL $pg_major"
fi
find "$sysroot/usr" -xdev | sort >"$work/usr-before.txt"   # before anything is installed

# Stopped at exit (own_cluster) before the package is purged: last added, first run.
own_cluster package || die "could not start a server on $sys_bin${sysroot:+ in $sysroot}"

upgrade() {
    local doc="１２月３１日，中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》。"
    local v fp
    [ -n "$prev_deb" ] || return 1
    dpkg -i "$prev_deb" || return 1
    createdb upgrade &&
    psql -d upgrade -c "CREATE EXTENSION simhash" \
         -c "CREATE TABLE docs(id int PRIMARY KEY, body text, fp bigint)" &&
    psql -d upgrade -v doc="$doc" <<<"INSERT INTO docs VALUES (1, :'doc', simhash(:'doc'))" || return 1
    v=$(psql -d upgrade -Atc "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")
    [ "$v" = "$prev_version" ] || { echo "installed $prev_version's package, CREATE EXTENSION gave $v"; return 1; }
    dpkg -i "$deb" || return 1
    psql -d upgrade -c "ALTER EXTENSION simhash UPDATE" || return 1
    v=$(psql -d upgrade -Atc "SELECT extversion FROM pg_extension WHERE extname = 'simhash'")
    echo "extension version: $prev_version, after the update $v"
    [ "$v" = "$version" ] || { echo "after ALTER EXTENSION simhash UPDATE the version is $v, not $version"; return 1; }
    # Fingerprints are a stored contract: the new library gives the stored row the same one,
    # through simhash_vN of the previous major N when the major changed simhash() (3.0.0 keeps
    # 2.x's simhash as simhash_v2), else through simhash() itself (4.0.0 changed explain only).
    local fn=simhash
    [ "${prev_version%%.*}" = "${version%%.*}" ] ||
        [ "$(psql -d upgrade -Atc "SELECT to_regproc('simhash_v${prev_version%%.*}') IS NOT NULL")" != t ] ||
        fn=simhash_v${prev_version%%.*}
    fp=$(psql -d upgrade -Atc "SELECT $fn(body) = fp AND fp IS NOT NULL FROM docs WHERE id = 1")
    [ "$fp" = t ] || { echo "$fn() on the stored row after the update: '$fp', not the stored fingerprint"; return 1; }
}
[ $prev_has_major = 1 ] &&
    step "upgrade: $prev_version's package, then $version's over it, ALTER EXTENSION simhash UPDATE" upgrade

# --- installcheck: the regression suite against the installed files.
[ "$(in_sysroot dpkg-query -W -f='${Version}' "$package" 2>/dev/null)" = "$version" ] || dpkg -i "$deb"
# The regression files but those over 4 s in make test (brute-force comparisons over the
# corpus, measure 1, bulk pairs, kNN, the fingerprint trigger, the band index; 54 s of the
# 66 s its files took on 5.1.0's PG 15 run): make test ran them on this same build and major;
# here the question is whether the package's files work (its one install script, its library),
# which the other files, one or more per concept, answer.
installcheck_tests() {
    regress_tests | grep -vx -e segments/pairs -e fingerprints/search -e fingerprints/pairs -e similarity/similarity \
        -e similarity/figures -e compat/m1 -e similarity/pairs -e similarity/band -e fingerprints/nearest \
        -e fingerprints/trigger
}
installcheck_db() {
    regress_db_create || return 1
    psql -d simhash_regress -Atc "SELECT 'installed extension ' || extversion FROM pg_extension WHERE extname = 'simhash'"
}
step "installcheck: the regression database on the packaged install" installcheck_db
regress_run "$root/$work/regress" $(installcheck_tests)

# --- Removal leaves nothing behind.
bash tests/harness/cluster.sh stop package
removal() {
    dpkg -r "$package" || return 1
    installed && { echo "$package still installed after dpkg -r"; return 1; }
    find "$sysroot/usr" -xdev | sort >"$work/usr-after.txt"
    diff "$work/usr-before.txt" "$work/usr-after.txt" || { echo "files under /usr differ before the install and after dpkg -r"; return 1; }
}
step "dpkg -r $package leaves no file behind under /usr" removal

summary
