# The helpers every test, bench, quality and fuzz script shares. Sourced, not run:
#   source "$(dirname "$0")/../harness/lib.sh"
# It sets root (the checkout), h (tests/harness), run_dir (where clusters live), tmp (a
# scratch directory removed at exit) and status (0; check and fail set it to 1: end a
# script with `exit $status`), and what tests/harness/major.sh sets for the major PG names
# (pg_major, sysroot, pgroot...: a script for PG=17 or 18 runs in that root's mount
# namespace), and defines:
#   psql ARGS...                psql without ~/.psqlrc, quiet, stopping at the first error
#   q ARGS...                   psql, tuples only and unaligned, notices and warnings below
#                               WARNING off: for values read into the script
#   now                         seconds since the epoch, with nanoseconds
#   since T0                    seconds from T0 (a `now`) to now
#   secs COMMAND...             runs COMMAND, its output into $tmp/out, prints its seconds
#   ratio A B                   A / B with 2 decimals (every bench prints its ratios so),
#                               "-" when B is 0
#   pct P                       the P-th fraction (0.5, 0.99) of the numbers on stdin
#   explain_times FILE          runs the SQL of FILE: "planning_ms execution_ms" per
#                               EXPLAIN (ANALYZE, FORMAT JSON) in it
#   cancel_delay TIMEOUT_MS SQL seconds from a statement_timeout of TIMEOUT_MS to the end
#                               of SQL (how promptly it is cancelled)
#   sqlstate PSQL-ARGS...       runs `q PSQL-ARGS...`: "ok", or the SQLSTATE it ended with
#                               (57014 for a statement_timeout)
#   pgbench_figure FILE LABEL   the number on the line "LABEL: N" of pgbench's output FILE
#   dedup_writers CLIENTS TXS PER_TX ISOLATION
#                               8 concurrent dedup writers (try_item.sql's try_items):
#                               pgbench, TXS transactions of PER_TX items per client,
#                               40001/40P01 retried; output in $tmp/pgbench.{out,err}
#   dedup_round TRIGGER_CALL CLIENTS TXS PER_TX ISOLATION
#                               empties docs and outcome, makes TRIGGER_CALL (e.g.
#                               "simhash_dedup_trigger('fp', 'body', '3', 'skip')") docs'
#                               dedup trigger, then runs dedup_writers; returns its status
#   group_round TRIGGER_CALL PER_TX ISOLATION LABEL PAIRS_SQL PAIRS_NAME
#                               dedup_round of $clients clients over work items in groups
#                               (work(item, g): segment_items.sql, similarity_items.sql;
#                               $items items in $groups groups), then checks that every item
#                               was done once, docs holds exactly one row per group and only
#                               inserted items, PAIRS_SQL (a brute-force count of near pairs
#                               among docs) is 0 and pgbench failed no transaction; prints
#                               "ok   LABEL, ISOLATION, PER_TX rows/transaction: ..." or fails
#   load_segment_items THETA [K]
#                               in the current (empty) database: the extension, the corpus
#                               as src, segment_items.sql's work items at resemblance THETA
#                               within K bits (default 0), try_item.sql; sets items, groups
#   load_paragraphs             the table para2(pid, body) of the corpus paragraphs of
#                               100-300 characters, pid 1..n; sets npara to n
#   row NAME VALUE BASELINE RATIO   one "name value baseline ratio" line of a bench;
#                               the name column is $row_width (default 40) wide
#   check NAME GOT WANT         prints "ok   NAME: GOT", or "FAIL NAME: got GOT, expected
#                               WANT" and sets status=1
#   fail MESSAGE...             prints "FAIL MESSAGE" and sets status=1
#   step NAME COMMAND...        a suite's step: runs COMMAND, counts it in passed or failed
#                               ("--- ok: NAME (N s)" / "--- FAILED: NAME (N s)"), goes on
#                               either way; with SIMHASH_STEP_TIMES=FILE (.ci/run), appends
#                               "seconds<TAB>PG<TAB>NAME" to FILE
#   step_done NAME STATUS SECS  counts a step that ended elsewhere (tests/harness/pool.sh)
#   summary                     prints "N passed, N failed"; fails if any step failed
#   at_exit COMMAND             runs the shell COMMAND at exit (last added, first run)
#   fresh_db DB                 drops DB if it exists, creates it, drops it at exit
#   install_extension           builds and installs the extension into target/pgroot,
#                               unless SKIP_INSTALL=1 (make bench installs once for all)
#   own_cluster NAME [GUC=V...] starts the throwaway cluster NAME, stops it at exit, and
#                               points PGHOST/PGPORT/PGUSER at it; fails if it cannot start
#   markov NAME CORPUS N MIN MAX [ARG...]
#                               prints target/bench/markov/NAME.txt, made once: N texts of
#                               MIN-MAX characters from an order-3 Markov chain trained on
#                               CORPUS (crates/simhash-core/examples/markov_corpus.rs)
#   bench_paragraphs ROWS       markov's file of the benches' ROWS * 0.9 paragraphs of 200-500
#                               characters (seed 2026; reposts_sql adds the other tenth)
#   insert_rounds TABLE...      the dedup benchmarks' inserts (after load_paragraphs): into
#                               each TABLE a row of two random paragraphs joined (a TABLE
#                               named *_fresh: each sentence tagged with ten characters of
#                               a third, so that it is no repost), CLIENTS clients for
#                               DURATION seconds, the tables alternated in each of ROUNDS
#                               rounds; sets tps[TABLE] to the mean rate
#   names_in DIR EXT            the names of DIR/*.EXT without the extension, sorted
#   in_cluster NAME COMMAND...  runs COMMAND (psql, pgbench...) against cluster NAME
#   table_digest DB TABLE...    per table, its name and the md5 of its rows in id order
#   trad_doc                    a traditional-character text: definition 1 gives it too few
#                               features (NULL), definition 2 folds it to simplified
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
h=$root/tests/harness
source "$h/major.sh"
run_dir=${SIMHASH_RUN_DIR:-$root/target/run}
status=0

psql() { command psql -X -q -v ON_ERROR_STOP=1 "$@"; }
q() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" psql -At "$@"; }

table_digest() {
    local db=$1 t
    shift
    for t in "$@"; do
        q -d "$db" -c "SELECT '$t ' || coalesce(md5(string_agg(r::text, '|' ORDER BY r.id)), '-') FROM $t r"
    done
}
trad_doc="中共中央總書記、國家主席江澤民發表一九九八年新年講話《邁向充滿希望的新世紀》。"

now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
secs() {
    local t0
    t0=$(now)
    "$@" >"$tmp/out"
    since "$t0"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b == 0) print "-"; else printf "%.2f\n", a / b }'; }
pct() { sort -g | awk -v p="$1" '{ a[NR] = $1 } END { i = int((NR - 1) * p + 0.5) + 1; print a[i] }'; }
cancel_delay() {
    local t0
    t0=$(now)
    q -c "SET statement_timeout = '$1ms'" -c "$2" >/dev/null 2>&1 || true
    echo "$(since "$t0") - $1 / 1000" | bc -l
}
sqlstate() {
    local out
    if out=$(q -v VERBOSITY=sqlstate -c "\\set VERBOSITY sqlstate" "$@" 2>&1); then
        echo ok
    else
        echo "$out" | grep -oE '[0-9A-Z]{5}' | tail -1
    fi
}
pgbench_figure() { sed -n "s/^$2: \([0-9]*\).*/\1/p" "$1"; }
dedup_writers() {
    # Client c, transaction i handles items 8(per_tx i + j) + c for j < per_tx; i only
    # advances after COMMIT, so a retried transaction handles the same items again.
    printf 'BEGIN;\nSELECT try_items(:client_id, :i, :per_tx);\nCOMMIT;\n\\set i :i + 1\n' >"$tmp/insert.sql"
    PGOPTIONS="-c default_transaction_isolation=${4// /\\ } -c deadlock_timeout=50ms" \
        pgbench -n -c "$1" -j 2 -t "$2" --max-tries=1000 -D i=0 -D per_tx="$3" -f "$tmp/insert.sql" \
        >"$tmp/pgbench.out" 2>"$tmp/pgbench.err"
}
dedup_round() {
    psql -c "SET client_min_messages = warning" -c "TRUNCATE docs, outcome" \
         -c "DROP TRIGGER IF EXISTS docs_dedup ON docs" \
         -c "CREATE TRIGGER docs_dedup BEFORE INSERT OR UPDATE OF body ON docs FOR EACH ROW EXECUTE FUNCTION $1"
    dedup_writers "$2" "$3" "$4" "$5"
}
group_round() {
    local txs=$(( (items + clients * $2 - 1) / (clients * $2) )) rc=0 retried failed done inserted rows not_one pairs line
    dedup_round "$1" "$clients" "$txs" "$2" "$3" || rc=$?
    retried=$(pgbench_figure "$tmp/pgbench.out" "number of transactions retried")
    failed=$(pgbench_figure "$tmp/pgbench.out" "number of failed transactions")
    read -r done inserted rows not_one pairs < <(psql -AtF' ' <<SQL
SELECT (SELECT count(*) FROM outcome),
       (SELECT count(*) FROM outcome WHERE result = 'inserted'),
       (SELECT count(*) FROM docs),
       (SELECT count(*) FROM (SELECT w.g FROM work w LEFT JOIN docs d ON d.id = w.item
                              GROUP BY w.g HAVING count(d.id) <> 1) x),
       $5;
SQL
    )
    line="$4, $3, $2 rows/transaction: attempted $items, done $done, inserted $inserted, rows $rows (expected $groups, one per group; groups without exactly one: $not_one), transactions retried ${retried:-?}, failed ${failed:-?}; $6: $pairs"
    if [ "$rc" -ne 0 ] || [ "$done" -ne "$items" ] || [ "$rows" -ne "$groups" ] || [ "$not_one" -ne 0 ] \
        || [ "$pairs" -ne 0 ] || [ "$rows" -ne "$inserted" ] || [ "${failed:-1}" -ne 0 ]; then
        fail "$line (pgbench exit $rc)"
        tail -5 "$tmp/pgbench.err"
    else
        echo "ok   $line"
    fi
}
load_segment_items() {
    psql -c "CREATE EXTENSION simhash" \
         -c "CREATE TABLE src(id serial PRIMARY KEY, body text NOT NULL)" \
         -c "\\copy src(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
    psql -v theta="$1" -v k="${2:-0}" -f "$h/segment_items.sql" >/dev/null
    psql -f "$h/try_item.sql" >/dev/null
    items=$(psql -Atc "SELECT count(*) FROM work")
    groups=$(psql -Atc "SELECT count(DISTINCT g) FROM work")
}
load_paragraphs() {
    psql -c "CREATE TABLE para(pid serial PRIMARY KEY, body text NOT NULL)" \
        -c "\\copy para(body) FROM '$root/target/corpus/peoples_daily_199801.txt'"
    q -c "DELETE FROM para WHERE length(body) NOT BETWEEN 100 AND 300"
    q -c "CREATE TABLE para2 AS SELECT row_number() OVER (ORDER BY pid)::int AS pid, body FROM para;
       ALTER TABLE para2 ADD PRIMARY KEY (pid)"
    npara=$(q -c "SELECT count(*) FROM para2")
}
# The benches' reposts (issue 39's "paragraphs plus 10% reposts"): an INSERT that adds to table
# $1 (id, body) one row in nine again, its first sentence dropped, one character changed, or a
# source line added, in turn.
reposts_sql() {
    cat <<SQL
INSERT INTO $1(body)
SELECT CASE id % 3 WHEN 0 THEN regexp_replace(body, '^[^。！？]*[。！？]', '')
                   WHEN 1 THEN overlay(body placing '某' from 1 + (id % 50)::int for 1)
                   ELSE '（新华社北京１月１日电）' || body END
  FROM $1 WHERE id % 9 = 4;
SQL
}
# template_table ROWS SEED: the table tpl(n, body) of issue 53's and 55's template in the
# current database, ROWS rows of "For an explanation of the terms used in this section, see
# attributes(7). Interface Attribute Value <name>() Thread safety MT-Safe", a name of 10 to 20
# random letters each (setseed(SEED)).
template_table() {
    q -c "SELECT setseed($2)" -c "CREATE TABLE tpl AS
SELECT g AS n, format('For an explanation of the terms used in this section, see attributes(7). Interface Attribute Value %s() Thread safety MT-Safe',
       (SELECT string_agg(chr(97 + (random() * 25)::int), '') FROM generate_series(1, 10 + (random() * 10)::int + g * 0))) AS body
  FROM generate_series(1, $1) g"
}

# N NAME SEED: the table `plain(n, body)` beside template_table's, N Markov texts of its rows'
# length (110 to 160 characters) from People's Daily, cached as NAME.
plain_table() {
    local texts
    texts=$(markov "$2" "$root/target/corpus/peoples_daily_199801.txt" "$1" 110 160 seed="$3")
    q -c "CREATE TABLE plain(n serial, body text)" \
      -c "\\copy plain(body) FROM '$texts' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
      -c "UPDATE plain SET body = left(body, 110 + n % 51)"
}

markov() {
    local f=$root/target/bench/markov/$1.txt
    if [ ! -s "$f" ]; then
        mkdir -p "$(dirname "$f")"
        (cd "$root" && cargo build --release -q -p simhash-core --example markov_corpus)
        "$root/target/release/examples/markov_corpus" "$2" "$3" "$4" "$5" "${@:6}" >"$f.part"
        mv "$f.part" "$f"
    fi
    echo "$f"
}
bench_paragraphs() {
    local n=$(($1 * 9 / 10))
    markov "zh_paragraphs_$n" "$root/target/corpus/peoples_daily_199801.txt" "$n" 200 500 seed=2026
}
insert_rounds() {
    local t r rate body
    declare -gA tps
    for t in "$@"; do
        body="x.body || y.body"
        [ "${t%_fresh}" = "$t" ] || body="regexp_replace($body, '([。；！？])', substr(z.body, 5, 10) || '\\1', 'g')"
        cat >"$tmp/$t.sql" <<EOF
\\set a random(1, $npara)
\\set b random(1, $npara)
\\set c random(1, $npara)
INSERT INTO $t(body) SELECT $body FROM para2 x, para2 y, para2 z WHERE x.pid = :a AND y.pid = :b AND z.pid = :c;
EOF
        tps[$t]=0
    done
    for r in $(seq 1 "$ROUNDS"); do
        for t in "$@"; do
            pgbench -n -c "$CLIENTS" -j 2 -T "$DURATION" --random-seed="$r" --max-tries=10 -f "$tmp/$t.sql" >"$tmp/out" 2>&1
            rate=$(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$tmp/out")
            tps[$t]=$(echo "${tps[$t]} + ${rate:-0}" | bc)
        done
    done
    for t in "$@"; do tps[$t]=$(echo "scale=1; ${tps[$t]} / $ROUNDS" | bc); done
}
explain_times() {
    psql -At -f "$1" | tr -d '\n' |
        grep -o '"Planning Time": [0-9.]*\|"Execution Time": [0-9.]*' | awk '{print $3}' | paste - -
}
row() { printf "%-${row_width:-40}s %14s %14s %10s\n" "$@"; }

check() {
    if [ "$2" = "$3" ]; then echo "ok   $1: $2"; else echo "FAIL $1: got $2, expected $3"; status=1; fi
}
fail() { echo "FAIL $*"; status=1; }

passed=0 failed=0
step() {
    local name=$1 rc=0
    shift
    local t0=$SECONDS
    echo "=== $name"
    "$@" || rc=$?
    step_done "$name" $rc $((SECONDS - t0))
}
step_done() { # NAME STATUS SECONDS: counts a step that ended (step, tests/harness/pool.sh)
    if [ "$2" = 0 ]; then passed=$((passed + 1)); echo "--- ok: $1 ($3 s)"
    else failed=$((failed + 1)); echo "--- FAILED: $1 ($3 s)"; fi
    [ -z "${SIMHASH_STEP_TIMES:-}" ] || printf '%s\t%s\t%s\n' "$3" "$pg_major" "$1" >>"$SIMHASH_STEP_TIMES"
}
summary() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; }

# One EXIT trap for every script; a script adds to it rather than setting its own.
exit_commands=()
at_exit() { exit_commands=("$1" "${exit_commands[@]}"); }
# A background process of the script, killed at exit if still running.
kill_at_exit() { at_exit "kill $1 2>/dev/null || true"; }
run_exit_commands() {
    local c
    for c in "${exit_commands[@]}"; do eval "$c" || true; done
}
trap run_exit_commands EXIT

tmp=$(mktemp -d)
at_exit 'rm -rf "$tmp"'

fresh_db() {
    dropdb --if-exists "$1" >/dev/null 2>&1 || true
    createdb "$1"
    at_exit "dropdb --if-exists '$1' >/dev/null 2>&1"
}

install_extension() { [ "${SKIP_INSTALL:-0}" = 1 ] || bash "$h/cluster.sh" install; }

own_cluster() {
    local name=$1
    bash "$h/cluster.sh" start "$@" || return 1
    at_exit "bash '$h/cluster.sh' stop '$name'"
    eval "$(bash "$h/cluster.sh" env "$name")"
}

names_in() {
    local f
    for f in "$1"/*."$2"; do [ -e "$f" ] && basename "$f" ".$2"; done | sort
}

in_cluster() {
    local name=$1
    shift
    (eval "$(bash "$h/cluster.sh" env "$name")" && "$@")
}
