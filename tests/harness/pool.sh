# Sourced after lib.sh: steps run side by side, at most $pool_jobs at once, each with a log of
# its own that is printed whole when the step ends, so that outputs never interleave. A step
# is counted as lib.sh's `step` counts it ("--- ok: NAME (N s)", passed/failed, the time in
# SIMHASH_STEP_TIMES), and its seconds are its own, from its start to its end.
#
#   pool_jobs             how many at once: SIMHASH_JOBS, else nproc + 1 (on 2 cores, 3 was
#                         the quickest: docs/development.md, "Side by side")
#   pool_start NAME CMD...    starts CMD as the step NAME once fewer than pool_jobs run
#                         (waiting for one to end first)
#   pool_start_idle NAME CMD...  starts CMD at once, at a lower CPU priority (nice 5), not
#                         counted in pool_jobs: a compile that fills the time the server-bound
#                         steps leave idle (the core's tests, clippy). Not nice 19: on 2 cores
#                         beside .ci/run's builds ahead (nice 19) and a busy server, the core's
#                         tests at 19 took 735 s, the longest step of the run
#   pool_wait             waits for every step started
#   pool_order PG NAME... the NAMEs, longest first by the times of the last run of this major
#                         (target/ci/durations-PG.tsv, which pool_wait writes), else by
#                         tests/harness/durations.tsv; names never timed come first
pool_jobs=${SIMHASH_JOBS:-$(($(nproc) + 1))}
pool_dir=$tmp/pool
mkdir -p "$pool_dir"
declare -A pool_name=() pool_log=() pool_counted=()
pool_busy=0   # counted steps running
pool_seq=0

pool_launch() { # NICE NAME CMD...
    local nice=$1 name=$2 log
    shift 2
    pool_seq=$((pool_seq + 1))
    log=$pool_dir/$pool_seq.log
    # The step's own seconds, whenever the pool gets to reap it.
    (
        t0=$SECONDS
        # renice, not nice: CMD may be a shell function; what the subshell starts inherits it.
        [ "$nice" = 0 ] || renice -n "$nice" -p $BASHPID >/dev/null
        "$@" </dev/null
        rc=$?
        echo $((SECONDS - t0)) >"$log.secs"
        exit $rc
    ) >"$log" 2>&1 &
    pool_name[$!]=$name
    pool_log[$!]=$log
}

pool_start() {
    local name=$1
    shift
    while [ "$pool_busy" -ge "$pool_jobs" ]; do pool_reap; done
    pool_launch 0 "$name" "$@"
    pool_counted[$!]=1
    pool_busy=$((pool_busy + 1))
}

pool_start_idle() {
    local name=$1
    shift
    pool_launch 5 "$name" "$@"
}

# Waits for one step to end, prints its log and counts it.
pool_reap() {
    local pid rc=0 secs name log
    [ ${#pool_name[@]} -gt 0 ] || return 0
    wait -n -p pid "${!pool_name[@]}" || rc=$?
    name=${pool_name[$pid]} log=${pool_log[$pid]}
    secs=$(cat "$log.secs" 2>/dev/null || echo 0)
    unset "pool_name[$pid]" "pool_log[$pid]"
    if [ -n "${pool_counted[$pid]:-}" ]; then
        unset "pool_counted[$pid]"
        pool_busy=$((pool_busy - 1))
    fi
    echo "=== $name"
    cat "$log"
    step_done "$name" "$rc" "$secs"
    printf '%s\t%s\n' "$name" "$secs" >>"$pool_dir/durations.tsv"
}

pool_wait() {
    while [ ${#pool_name[@]} -gt 0 ]; do pool_reap; done
    # This run's times order the next run's queue; names this run did not time keep theirs.
    local f=$root/target/ci/durations-$pg_major.tsv
    mkdir -p "$(dirname "$f")"
    if [ -s "$pool_dir/durations.tsv" ]; then
        { cat "$pool_dir/durations.tsv"; cat "$f" 2>/dev/null || true; } | awk -F'\t' '!seen[$1]++' >"$f.new"
        mv "$f.new" "$f"
        : >"$pool_dir/durations.tsv"
    fi
}

pool_order() { # PG NAME...
    local f=$root/target/ci/durations-$1.tsv
    shift
    [ -s "$f" ] || f=$h/durations.tsv
    printf '%s\n' "$@" | awk -F'\t' -v f="$f" '
        BEGIN { while ((getline line < f) > 0) { split(line, c, "\t"); t[c[1]] = c[2] } }
        { printf "%s\t%s\n", ($0 in t) ? t[$0] : 1e9, $0 }' | sort -t$'\t' -k1,1gr -k2,2 | cut -f2
}
