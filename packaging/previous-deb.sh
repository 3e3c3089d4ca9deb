#!/usr/bin/env bash
# Prints the path of the previous release's package for the major PG (default 15),
# target/deb/postgresql-<major>-simhash_<v>_amd64.deb,
# building it first unless it is there already (a cache: a release's package never changes).
# The previous release and its commit come from versions.sh; its source is checked out in a
# temporary git worktree and built with THIS tree's packaging/build-deb.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
. "$here/versions.sh"

read -r version commit < <(previous_release)
deb=$root/target/deb/postgresql-${PG:-15}-simhash_${version}_amd64.deb
# One build at a time: the majors share the worktree (.ci/run builds them ahead of their tests).
mkdir -p "$root/target/deb"
exec 9>"$root/target/deb/previous.lock"
flock 9
if [ ! -s "$deb" ]; then
    wt=$root/target/deb/src-$version
    git -C "$root" worktree remove --force "$wt" 2>/dev/null || rm -rf "$wt"
    git -C "$root" worktree prune
    echo "deb: building the previous release $version from commit ${commit:0:12} in $wt" >&2
    git -C "$root" worktree add --detach -q "$wt" "$commit"
    trap 'git -C "$root" worktree remove --force "$wt"' EXIT
    start=$SECONDS
    bash "$here/build-deb.sh" "$wt" >&2
    echo "deb: previous release $version built in $((SECONDS - start)) s" >&2
fi
echo "$deb"
