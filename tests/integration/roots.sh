#!/usr/bin/env bash
# The majors' set-up (tests/harness/major.sh, root.sh): an unsupported major stops at once
# with a message naming the supported ones; for PG=17 or 18, the root's mounts exist in the
# run's own mount namespace and not in the host's (they go away with the run), and a root
# whose stamp is missing or from another recipe is found incomplete (root.sh rebuilds such a
# root; the stamp is put back at exit).
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"

for m in 14 16 19; do
    out=$(PG=$m bash "$h/cluster.sh" env x 2>&1) && rc=0 || rc=$?
    check "PG=$m: cluster.sh exits with 2, naming the supported majors" \
        "$rc $(grep -c 'supported PostgreSQL majors are 15, 17, 18' <<<"$out")" "2 1"
done
rc=0; bash "$h/root.sh" 16 >/dev/null 2>&1 || rc=$?
check "root.sh 16: no recipe, exit 2" "$rc" 2

if [ -n "$sysroot" ]; then
    check "PG=$pg_major: the root's /proc, /tmp and checkout are mounted in this run's namespace" \
        "$(mountpoint -q "$sysroot/proc" && mountpoint -q "$sysroot/tmp" && echo yes)" yes
    check "PG=$pg_major: none of the root's mounts is in the host's namespace (PID 1's)" \
        "$(grep -c " $sysroot/" /proc/1/mountinfo || true)" 0
    check "PG=$pg_major: root.sh --check finds the root complete" "$(bash "$h/root.sh" --check "$pg_major" && echo yes)" yes
    stamp=$sysroot/.simhash/stamp
    cp "$stamp" "$tmp/stamp"
    at_exit "cp '$tmp/stamp' '$stamp'"
    echo "recipe 0000000000000000 postgres 0:0" >"$stamp"
    check "PG=$pg_major: with another recipe's stamp, root.sh --check finds it incomplete" \
        "$(bash "$h/root.sh" --check "$pg_major" || echo no)" no
    rm "$stamp"
    check "PG=$pg_major: without a stamp (a build stopped halfway), root.sh --check finds it incomplete" \
        "$(bash "$h/root.sh" --check "$pg_major" || echo no)" no
    cp "$tmp/stamp" "$stamp"
fi
exit $status
