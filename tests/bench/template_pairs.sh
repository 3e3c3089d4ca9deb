#!/usr/bin/env bash
# Issue 55's target for bulk pairs: README's simhash_similarity_pairs and _clusters at 0.5 (the
# dedup decision, balanced) over N rows (default 100,000) of one template ("For an explanation
# of the terms used in this section, see attributes(7). Interface Attribute Value <name>() Thread
# safety MT-Safe", a name of 10 to 20 letters) and a repost of every 100th (a full stop added),
# against N unrelated Markov texts of the same length (110 to 160 characters) and their reposts
# alike, in the same run: the pairs, the seconds, and the backend's peak resident memory.
# Then the unrelated table under simhash.bulk_templates = 'off' (6.0.0's run: no template looked
# for) against the default, and M (default 2,000) rows of the template under 'off' and 'band'
# (every pair banded and decided with the frame) against the default: the same pairs, and the
# seconds the join saves.
# Prints "name  value  baseline  ratio" lines.
#   N=100000 M=2000 bash tests/bench/template_pairs.sh
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
N=${N:-100000}
M=${M:-2000}
install_extension
own_cluster templatepairs "shared_buffers = 512MB" "max_parallel_workers_per_gather = 0"
q -c "CREATE EXTENSION simhash"
template_table "$N" 0.57
plain_table "$N" "zh_tpl_pairs_$N" 57
for src in tpl plain; do
    q -c "CREATE TABLE t_$src AS SELECT n AS id, body FROM $src
          UNION ALL SELECT $N + n, body || '.' FROM $src WHERE n % 100 = 0"
done
# TABLE FUNCTION SETTING [WHERE]: "rows seconds peak_MB" of one call in a session of its own.
run() {
    local out
    mapfile -t out < <(q -c "SET simhash.bulk_templates = '$3'" -c "\\timing on" \
        -c "SELECT count(*) FROM $2('SELECT id::bigint, body FROM $1 ${4:-}', 0.5)" \
        -c "\\timing off" \
        -c "SELECT substring(pg_read_file('/proc/self/status') FROM 'VmHWM:\\s*(\\d+)')::int / 1024")
    echo "${out[0]} $(echo "$(sed -n 's/^Time: \([0-9.]*\) ms.*/\1/p' <<<"${out[1]}") / 1000" | bc -l | xargs printf %.2f) ${out[2]}"
}
declare -A n s mb
for src in tpl plain; do
    for f in simhash_similarity_pairs simhash_similarity_clusters; do
        read -r n[$src$f] s[$src$f] mb[$src$f] <<<"$(run "t_$src" $f join)"
    done
done
row_width=44
row name template unrelated ratio
row rows "$((N + N / 100))" "$((N + N / 100))" -
for f in simhash_similarity_pairs simhash_similarity_clusters; do
    short=${f#simhash_similarity_}
    row "${short}_rows_returned" "${n[tpl$f]}" "${n[plain$f]}" -
    row "${short}_s" "${s[tpl$f]}" "${s[plain$f]}" "$(ratio "${s[tpl$f]}" "${s[plain$f]}")"
    row "${short}_peak_MB" "${mb[tpl$f]}" "${mb[plain$f]}" "$(ratio "${mb[tpl$f]}" "${mb[plain$f]}")"
done
# No loss elsewhere: the unrelated table without the templates' pass (6.0.0's run).
read -r no so _ <<<"$(run t_plain simhash_similarity_pairs off)"
row name join off ratio
row unrelated_pairs_rows_returned "${n[plainsimhash_similarity_pairs]}" "$no" -
row unrelated_pairs_s "${s[plainsimhash_similarity_pairs]}" "$so" "$(ratio "${s[plainsimhash_similarity_pairs]}" "$so")"
# M rows of the template: the join against every pair banded (with the frame) and 6.0.0's run.
read -r nj sj _ <<<"$(run t_tpl simhash_similarity_pairs join "WHERE id <= $M OR id BETWEEN $N + 1 AND $N + $M")"
for setting in band off; do
    read -r nb sb _ <<<"$(run t_tpl simhash_similarity_pairs $setting "WHERE id <= $M OR id BETWEEN $N + 1 AND $N + $M")"
    row name join "$setting" ratio
    row "template_${M}_pairs_rows_returned" "$nj" "$nb" -
    row "template_${M}_pairs_s" "$sj" "$sb" "$(ratio "$sj" "$sb")"
done
