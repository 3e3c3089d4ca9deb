#!/usr/bin/env bash
# Issue 55's target for inserts: N rows (default 100,000) of one template ("For an explanation of
# the terms used in this section, see attributes(7). Interface Attribute Value <name>() Thread
# safety MT-Safe", a name of 10 to 20 letters) against N unrelated Markov texts of the same length
# (110 to 160 characters), loaded before README's trigger (similarity 0.5, containment 0.8,
# 'link'), the index built after. In one session each: a first insert (the trigger probes and
# learns the template), M (default 200) new rows one statement each, then M reposts (a full stop
# added to every N/Mth row). Prints "name  value  baseline  ratio", the template's against the
# unrelated table's, and the rows linked.
#   N=100000 M=200 bash tests/bench/template_inserts.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
N=${N:-100000}
M=${M:-200}
install_extension
own_cluster templateinserts "shared_buffers = 1GB" "max_parallel_workers_per_gather = 0"
q -c "CREATE EXTENSION simhash"
template_table "$((N + M))" 0.55
plain_table "$((N + M))" "zh_tpl_inserts_${N}_$M" 55
declare -A first each reposts new_linked reposts_linked
for src in tpl plain; do
    q -c "CREATE TABLE t_$src(id serial PRIMARY KEY, body text, dup_of int)" \
      -c "INSERT INTO t_$src(body) SELECT body FROM $src WHERE n <= $N ORDER BY n" \
      -c "CREATE INDEX ON t_$src USING gin (body simhash_ops) WITH (fastupdate = off)" \
      -c "VACUUM ANALYZE t_$src" \
      -c "CREATE TRIGGER posts_dedup BEFORE INSERT OR UPDATE OF body ON t_$src FOR EACH ROW
          EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'link', 'dup_of', '{\"min_containment\": 0.8}')"
    # One session: psql's \timing gives each statement's milliseconds.
    mapfile -t ms < <(q -c "\\timing on" \
        -c "INSERT INTO t_$src(body) SELECT body FROM $src WHERE n = $N + 1" \
        -c "DO \$\$ DECLARE r record; BEGIN FOR r IN SELECT body FROM $src WHERE n > $N + 1 ORDER BY n LOOP
              INSERT INTO t_$src(body) VALUES (r.body); END LOOP; END \$\$" \
        -c "INSERT INTO t_$src(body) SELECT body || '.' FROM $src WHERE n % ($N / $M) = 0 AND n <= $N ORDER BY n" |
        sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p')
    first[$src]=$(printf %.1f "${ms[0]}")
    each[$src]=$(echo "${ms[1]} / ($M - 1)" | bc -l | xargs printf %.3f)
    reposts[$src]=$(echo "${ms[2]} / $M" | bc -l | xargs printf %.3f)
    new_linked[$src]=$(q -c "SELECT count(dup_of) FROM t_$src WHERE id > $N AND id <= $N + $M")
    reposts_linked[$src]=$(q -c "SELECT count(*) FROM t_$src p JOIN t_$src o ON o.id = p.dup_of WHERE p.id > $N + $M AND p.body = o.body || '.'")
done
row_width=36
row name template unrelated ratio
row first_insert_ms "${first[tpl]}" "${first[plain]}" "$(ratio "${first[tpl]}" "${first[plain]}")"
row insert_new_row_ms "${each[tpl]}" "${each[plain]}" "$(ratio "${each[tpl]}" "${each[plain]}")"
row insert_repost_ms "${reposts[tpl]}" "${reposts[plain]}" "$(ratio "${reposts[tpl]}" "${reposts[plain]}")"
row new_rows_linked "${new_linked[tpl]}/$((M - 1))" "${new_linked[plain]}/$((M - 1))" -
row reposts_linked_to_their_row "${reposts_linked[tpl]}/$M" "${reposts_linked[plain]}/$M" -
