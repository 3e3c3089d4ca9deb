#!/usr/bin/env bash
# What decision 3 (7.0.0, docs/decision.md) costs against 6.0.0's decision 2 in the same run
# (issue 53: "triggers and bulk pairs within 10% of 6.0.0 in the same run"). 6.0's decision is
# still in the extension, the same C code 6.0.0 ran: its triggers under their _d2 names, its
# bulk runs under the setting simhash.decision = 'd2'; so each figure sits beside its 6.0.0
# baseline on the same cluster. Release build, its own cluster.
#   - Inserts, pgbench, 8 clients, one row per transaction, DURATION seconds per table, the
#     tables alternated ROUNDS times, on tables of N rows (default 100,000: a corpus paragraph
#     of 100-300 characters and another):
#       similarity trigger (simhash_similarity_dedup_trigger('body', '0.5', 'skip') on a
#       simhash_ops index) and fingerprint trigger (simhash_dedup_trigger('fp', 'body', '3',
#       'skip') on 4 block columns), each against its _d2, on two workloads:
#         repost: a row of the table with its first ideograph changed (a candidate the
#                 decision reads and calls the same passage: skipped);
#         fresh:  two random paragraphs joined, each sentence tagged with ten characters of a
#                 third (insert_rounds' fresh rows: few candidates).
#   - A frame: VARIANTS (default 3,000) product titles of one frame, every one a candidate of
#     every other at 0.5, and 1,000 more inserted one by one through 'link' triggers (so both
#     tables hold the same rows): each decision reads candidates, most similar first, until
#     one is the same passage; decision 3 also reads the new row's frame in its first 16
#     candidates. The worst case of the decision's cost, not a typical one.
#   - Bulk: ROWS (default 200,000) texts, 90% Markov paragraphs of 200-500 characters and 10%
#     reposts (tests/bench/similarity_pairs.sh's): simhash_similarity_pairs and _clusters
#     at 0.5, simhash_duplicates and simhash_clusters with a text column at 3, each under
#     simhash.decision 'balanced' (7.0's default) and 'd2', server-side seconds, the fastest
#     of ROUNDS runs each, alternated.
# Prints "name  value  baseline  ratio" lines: value 7.0's, baseline 6.0's in the same run;
# ratio value / baseline (rates: above 1 is faster; seconds: below 1 is faster). 6.0.0's own
# run of this bench, against 5.x, is in docs/performance.md.
#   N=100000 DURATION=15 ROUNDS=2 VARIANTS=3000 ROWS=200000 PARTS="inserts frame bulk" bash tests/bench/decision.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
N=${N:-100000}
DURATION=${DURATION:-15}
ROUNDS=${ROUNDS:-2}
VARIANTS=${VARIANTS:-3000}
ROWS=${ROWS:-200000}
CLIENTS=8
markov_file=$(bench_paragraphs "$ROWS")
install_extension
own_cluster decisionbench "shared_buffers = 2GB" "max_wal_size = 16GB" "work_mem = 256MB" \
    "shared_preload_libraries = 'simhash'" "max_parallel_workers_per_gather = 0"
q -c "CREATE EXTENSION simhash"
load_paragraphs
row_width=44
row name value baseline ratio
part() { [[ " ${PARTS:-inserts frame bulk} " == *" $1 "* ]]; }

# Inserts.
part inserts && {
tables="sim_d3 sim_d2 fp_d3 fp_d2"
for t in $tables; do
    q -c "CREATE TABLE $t(id bigserial PRIMARY KEY, body text, fp bigint)"
    # Two paragraphs a row, so that no two rows differ only in a number (which the decision
    # keeps apart, as it does invoices).
    q -c "INSERT INTO $t(body) SELECT x.body || y.body FROM generate_series(1, $N) g
          JOIN para2 x ON x.pid = 1 + g % $npara JOIN para2 y ON y.pid = 1 + (g * 31 + g / $npara) % $npara"
    case $t in
        sim_*) q -c "CREATE INDEX ${t}_sim ON $t USING gin (body simhash_ops) WITH (fastupdate = off)";;
        fp_*) q -c "UPDATE $t SET fp = simhash(body)" -c "SELECT simhash_create_blocks('$t', 'fp', 4)" >/dev/null;;
    esac
    suffix=${t#*_}
    [ "$suffix" = d3 ] && suffix="" || suffix=_$suffix
    case $t in
        sim_*) q -c "CREATE TRIGGER dedup BEFORE INSERT ON $t FOR EACH ROW
                     EXECUTE FUNCTION simhash_similarity_dedup_trigger$suffix('body', '0.5', 'skip')";;
        fp_*) q -c "CREATE TRIGGER dedup BEFORE INSERT ON $t FOR EACH ROW
                    EXECUTE FUNCTION simhash_dedup_trigger$suffix('fp', 'body', '3', 'skip')";;
    esac
    q -c "VACUUM ANALYZE $t"
done
q -c "CHECKPOINT"
declare -A rate added
for t in $tables; do
    cat >"$tmp/${t}_repost.sql" <<EOF
\\set a random(1, $N)
INSERT INTO $t(body) SELECT regexp_replace(body, '[一-龥]', '某') FROM $t WHERE id = :a;
EOF
    cat >"$tmp/${t}_fresh.sql" <<EOF
\\set a random(1, $npara)
\\set b random(1, $npara)
\\set c random(1, $npara)
INSERT INTO $t(body) SELECT regexp_replace(x.body || y.body, '([。；！？])', substr(z.body, 5, 10) || '\\1', 'g')
  FROM para2 x, para2 y, para2 z WHERE x.pid = :a AND y.pid = :b AND z.pid = :c;
EOF
done
for r in $(seq 1 "$ROUNDS"); do
    for w in repost fresh; do
        for t in $tables; do
            before=$(q -c "SELECT count(*) FROM $t")
            pgbench -n -c "$CLIENTS" -j 2 -T "$DURATION" --random-seed="$r" --max-tries=10 -f "$tmp/${t}_$w.sql" >"$tmp/out" 2>&1
            rate[$t$w]=$(echo "${rate[$t$w]:-0} + $(sed -n 's/^tps = \([0-9.]*\) .*/\1/p' "$tmp/out") / $ROUNDS" | bc -l)
            [ $w = repost ] && added[$t]=$(( ${added[$t]:-0} + $(q -c "SELECT count(*) FROM $t") - before ))
        done
    done
done
for kind in sim fp; do
    for w in repost fresh; do
        a=$(printf %.1f "${rate[${kind}_d3$w]}") b=$(printf %.1f "${rate[${kind}_d2$w]}")
        row "${kind}_trigger_${w}_tps_vs_6.0" "$a" "$b" "$(ratio "$a" "$b")"
    done
done
# The reposts each path let in (the fingerprint's: more than 3 bits from their original).
for kind in sim fp; do
    row "${kind}_reposts_inserted" "${added[${kind}_d3]}" "${added[${kind}_d2]}" -
done

}

# A frame.
part frame && {
q -c "CREATE TABLE variants AS
SELECT row_number() OVER (ORDER BY g) AS n,
       format('%s %s running shoes, lightweight breathable mesh upper, cushioned sole, %s',
              (ARRAY['Nike','Adidas','Puma','Asics','Reebok','Brooks','Saucony','Mizuno','Hoka','Salomon'])[1 + g % 10],
              'model' || chr(65 + g / 10 % 26) || chr(65 + g / 260 % 26),
              (ARRAY['black','white','red','blue','green','grey','navy','orange','pink','purple'])[1 + g / 6760 % 10]) AS body
  FROM generate_series(0, $VARIANTS + 999) g"
for d in d3 d2; do
    suffix=""
    [ $d = d2 ] && suffix=_d2
    q -c "CREATE TABLE frame_$d(id serial PRIMARY KEY, body text, dup_of int)" \
      -c "CREATE INDEX ON frame_$d USING gin (body simhash_ops)" \
      -c "INSERT INTO frame_$d(body) SELECT body FROM variants WHERE n <= $VARIANTS ORDER BY n" \
      -c "CREATE TRIGGER dedup BEFORE INSERT ON frame_$d FOR EACH ROW
          EXECUTE FUNCTION simhash_similarity_dedup_trigger$suffix('body', '0.5', 'link', 'dup_of')" \
      -c "VACUUM ANALYZE frame_$d"
done
candidates=$(q -c "SELECT count(*) FROM frame_d3 f, variants v WHERE v.n = $VARIANTS + 1 AND simhash_similarity(f.body, v.body) >= 0.5")
declare -A frame_s
for d in d3 d2; do
    frame_s[$d]=$(q -c "CREATE TEMP TABLE x(s float8)" -c "
DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); r record; BEGIN
  FOR r IN SELECT body FROM variants WHERE n > $VARIANTS ORDER BY n LOOP INSERT INTO frame_$d(body) VALUES (r.body); END LOOP;
  INSERT INTO x SELECT extract(epoch FROM clock_timestamp() - t0); END \$\$" -c "SELECT round(s::numeric, 2) FROM x")
done
row frame_candidates_per_insert "$candidates" - -
row frame_1000_link_inserts_s "${frame_s[d3]}" "${frame_s[d2]}" "$(ratio "${frame_s[d3]}" "${frame_s[d2]}")"
row frame_rows_linked "$(q -c "SELECT count(dup_of) FROM frame_d3")" "$(q -c "SELECT count(dup_of) FROM frame_d2")" -

}

# Bulk.
part bulk && {
q -c "CREATE TABLE t(id bigserial PRIMARY KEY, body text, fp bigint)" \
  -c "\\copy t(body) FROM '$markov_file' WITH (FORMAT csv, QUOTE e'\\x01', DELIMITER e'\\x02')" \
  -c "$(reposts_sql t)" \
  -c "UPDATE t SET fp = simhash(body)" \
  -c "VACUUM ANALYZE t"
bulk() {  # NAME DECISION SQL: rows and seconds of CREATE TABLE NAME AS SQL under simhash.decision, server side
    q -c "SET client_min_messages = warning" -c "SET simhash.decision = '$2'" -c "DROP TABLE IF EXISTS $1" -c "CREATE TEMP TABLE x(n bigint, s float8)" -c "
DO \$\$ DECLARE t0 timestamptz := clock_timestamp(); BEGIN
  CREATE TABLE $1 AS $3;
  INSERT INTO x SELECT count(*), extract(epoch FROM clock_timestamp() - t0) FROM $1; END \$\$" -c "SELECT n, round(s::numeric, 2) FROM x"
}
bulk_row() {  # NAME SQL: the fastest of ROUNDS runs under 'balanced' and under 'd2', alternated
    local an as bn bs r n s
    for r in $(seq 1 "$ROUNDS"); do
        read -r n s <<<"$(bulk "${1}_d3" balanced "$2" | tr '|' ' ')"
        an=$n; [ -z "${as:-}" ] || (( $(echo "$s < $as" | bc) )) && as=$s
        read -r n s <<<"$(bulk "${1}_d2" d2 "$2" | tr '|' ' ')"
        bn=$n; [ -z "${bs:-}" ] || (( $(echo "$s < $bs" | bc) )) && bs=$s
    done
    row "${1}_s" "$as" "$bs" "$(ratio "$as" "$bs")"
    row "${1}_rows" "$an" "$bn" -
}
row bulk_texts "$(q -c "SELECT count(*) FROM t")" - -
bulk_row similarity_pairs "SELECT * FROM simhash_similarity_pairs('SELECT id, body FROM t', 0.5)"
bulk_row similarity_clusters "SELECT * FROM simhash_similarity_clusters('SELECT id, body FROM t', 0.5)"
bulk_row fingerprint_pairs "SELECT * FROM simhash_duplicates('SELECT id, fp, body FROM t WHERE fp IS NOT NULL', 3)"
bulk_row fingerprint_clusters "SELECT * FROM simhash_clusters('SELECT id, fp, body FROM t WHERE fp IS NOT NULL', 3)"
}
exit $status
