#!/usr/bin/env bash
# `make quality`: how well each fingerprint definition finds near-duplicates, measured on
# the People's Daily corpus (January 1998) in one deterministic run: edited pairs at two
# lengths, unrelated and hard negative pairs, precision over the whole corpus, for the
# python-jieba baseline, the 0.3.0 and 1.0 definitions and the tuning candidates of
# tests/quality/quality.py. Prints one main table, a candidates table and the issue's
# targets as PASS/FAIL, then segment fingerprints against 1.0 (tests/quality/segments.py:
# their table and targets, met or not); writes everything to target/quality/ (report.txt,
# the pairs). Then tests/quality/languages.py: English, Japanese and mixed Chinese+Latin text
# besides the Chinese sets, recall and precision by one judge, simhash and segments beside
# pg_trgm and 5-gram shingles (target/quality/languages.txt; corpora from corpora.sh). Then
# tests/quality/similarity.py: exact similarity (measure 2, measure 1 beside it), recall over
# the repost edits and under 6.0's dedup decision (the gate AND quality_decision's dup) beside it,
# the stock-index check, the index (target/quality/similarity.txt). Then
# tests/quality/labels.py: precision and recall by the pairs labelled by reading
# (tests/quality/labels/pairs.tsv), measure 2 and 1 beside pg_trgm and the decision beside
# 5.2.0's (the gate alone) with 6.0's targets; the same two on the short texts
# (labels/short_pairs.tsv) with the agreement of their second reading
# (labels/short_pairs_second.tsv); each corpus's post-stratified precision of the measure
# (target/quality/labels.txt; its corpus pair counts are kept in target/quality/cache/, about
# 15 minutes the first time, the English corpus most of it). Last tests/quality/apart.py: the
# independent sets of tests/quality/apart/ (reposts, one-slot variants, figure families) under
# 5.2.0's and 6.0's decisions against their targets (target/quality/apart.tsv: the sets;
# target/quality/apart.txt: the report; a few seconds).
# Exits non-zero only on an error, including server pairs that differ from the brute force.
#
# Takes about 2.5 minutes on 2 shared cores once built for quality.py (python jieba over the
# 40,741 distinct texts, and 16,491 more for the segments section), ~10 s for the server
# check, 1-3.5 minutes for languages.py; plus the release builds of quality_fp and of the
# extension (cluster.sh install) when the sources changed.
#
#   QUALITY_NO_SERVER=1      skip the server check (no install, no cluster)
#   QUALITY_SERVER_LEGACY=1  the installed extension predates the `definition` option:
#                            check only 0.3.0, as simhash(body)
#   SKIP_INSTALL=1           use the extension already installed in target/pgroot
#   QUALITY_CANDIDATES="label=spec;label=spec"   other candidates than quality.py's list
#   QUALITY_SETS=english,japanese   languages.py's sets (default chinese,english,japanese,mixed);
#                            empty: skip languages.py
#   QUALITY_LANGUAGES_ONLY=1 run languages.py alone (no quality.py, no server pairs of simhash)
#   QUALITY_SIMHASH_RULES=SPEC  languages.py's simhash column from `quality_fp --rules SPEC`
#   QUALITY_LABELS=0         skip labels.py
#   QUALITY_APART=0          skip apart.py
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
cd "$root"
corpus=$root/target/corpus/peoples_daily_199801.txt
out=$root/target/quality
venv=target/quality-venv

bash "$h/corpus.sh"
bash tests/quality/corpora.sh
sets=${QUALITY_SETS-chinese,english,japanese,mixed}
# similarity.py's sets: languages.py's and the Python documentation (QUALITY_SIMILARITY_SETS;
# empty: skip it).
sim_sets=${QUALITY_SIMILARITY_SETS-chinese,english,pydocs,japanese,mixed}
only=${QUALITY_LANGUAGES_ONLY:-0}

# The benchmark's Python packages, pinned: jieba's dictionary is part of the baseline, and
# OpenCC's s2t tables make the traditional-character copies of the segments section.
pins=("jieba==0.42.1" "numpy==2.2.6" "opencc-python-reimplemented==0.1.7")
[ -x $venv/bin/python ] || python3 -m venv $venv
$venv/bin/python -c 'import importlib.metadata as m, sys
assert all(m.version(n) == v for n, v in (p.split("==") for p in sys.argv[1:]))' "${pins[@]}" 2>/dev/null ||
    $venv/bin/pip install -q "${pins[@]}"

cargo build --release -q -p simhash-core --example quality_fp --example quality_similarity --example quality_decision \
    --example decision_features
# Decision 3's fit and its leave-one-source-out figures (make fit-decision: this part alone).
fit() {
    $venv/bin/python tests/quality/fit_decision.py --features target/release/examples/decision_features \
        --measure target/release/examples/quality_similarity --cache "$out/fit_measure.json" --out "$out/fit_decision.md"
}
if [ "${1:-}" = fit ]; then
    mkdir -p "$out"
    fit
    exit
fi

rm -rf "$out/server"
mkdir -p "$out/server"
server=(--server "$out/server")
if [ "${QUALITY_NO_SERVER:-0}" = 1 ]; then
    server=()
else
    if [ "${QUALITY_SERVER_LEGACY:-0}" = 1 ]; then
        definitions=("0.3.0=simhash(body)")
    else
        definitions=("0.3.0=simhash(body, '{\"definition\":\"0\"}'::jsonb)"
                     "1.0=simhash(body, '{\"definition\":\"1\"}'::jsonb)")
    fi
    [ "$only" = 1 ] && definitions=()
    install_extension
    own_cluster quality
    echo "quality: simhash_duplicates(..., 6) on the server for ${definitions[*]%%=*}; pg_trgm similarity()" >&2
    {
        echo "SET client_min_messages = warning;"
        echo "CREATE EXTENSION simhash;"
        echo "CREATE TABLE news(id serial PRIMARY KEY, body text NOT NULL);"
        echo "\\copy news(body) FROM '$corpus'"
        for d in "${definitions[@]}"; do
            # 0 = no features (0.x): set aside, as quality.py does; NULL rows are ignored anyway.
            echo "CREATE TABLE fp AS SELECT id::bigint, ${d#*=} AS fp FROM news;"
            echo "\\copy (SELECT * FROM simhash_duplicates('SELECT id, fp FROM fp WHERE fp <> 0', 6) ORDER BY 1, 2) TO '$out/server/${d%%=*}.tsv'"
            echo "DROP TABLE fp;"
        done
        # languages.py's pg_trgm in Python against the server's: each corpus line with the next,
        # and with itself and the next joined (baselines.check_pg_trgm).
        echo "CREATE EXTENSION pg_trgm;"
        for name in english japanese mixed; do
            echo "CREATE TABLE c(id serial PRIMARY KEY, body text NOT NULL);"
            echo "\\copy c(body) FROM '$root/target/corpus/$name.txt'"
            echo "\\copy (SELECT a.id, similarity(a.body, b.body), similarity(a.body, a.body || ' ' || b.body) FROM c a JOIN c b ON b.id = a.id + 1 ORDER BY 1) TO '$out/server/pg_trgm_$name.tsv'"
            echo "DROP TABLE c;"
        done
        # labels.py's pg_trgm: each labelled pair's similarity and word_similarity (the greater way
        # round). CSV with a quote character no text has, so that backslashes stay as written.
        grep -v '^#' tests/quality/labels/pairs.tsv >"$tmp/labels.tsv"
        echo "CREATE TABLE labels(pair text PRIMARY KEY, corpus text, drawn text, label int, reason text, a text, b text);"
        echo "\\copy labels FROM '$tmp/labels.tsv' WITH (FORMAT csv, DELIMITER E'\\t', QUOTE E'\\x01', HEADER true)"
        echo "\\copy (SELECT pair, similarity(a, b), greatest(word_similarity(a, b), word_similarity(b, a)) FROM labels ORDER BY pair) TO '$out/server/pg_trgm_labels.tsv'"
        echo "DROP TABLE labels;"
        # similarity.py's server check: bulk pairs, and self-joins through a simhash_ops index.
        echo "SET enable_seqscan = off;"
        for name in ${sim_sets//,/ }; do
            file=$root/target/corpus/$name.txt
            [ "$name" = chinese ] && file=$corpus
            # The corpus's distinct paragraphs in order of first occurrence, as similarity.py reads it.
            echo "CREATE TABLE raw(n serial, body text NOT NULL);"
            echo "\\copy raw(body) FROM '$file'"
            echo "CREATE TABLE c(id serial PRIMARY KEY, body text NOT NULL);"
            echo "INSERT INTO c(body) SELECT body FROM raw GROUP BY body ORDER BY min(n);"
            echo "DROP TABLE raw;"
            echo "CREATE INDEX ON c USING gin (body simhash_ops);"
            echo "ANALYZE c;"
            # The measure's pairs: the brute force decides nothing (6.0.0's default decision made
            # this check differ on every set).
            echo "SET simhash.decision = 'none';"
            echo "\\copy (SELECT * FROM simhash_similarity_pairs('SELECT id::bigint, body FROM c', 0.5)) TO '$out/server/similarity_pairs_$name.tsv'"
            echo "RESET simhash.decision;"
            # The decided pairs with a table's templates joined (the default) and every pair
            # banded and framed (issue 55): what the join misses.
            for t in join band; do
                echo "SET simhash.bulk_templates = '$t';"
                echo "\\copy (SELECT * FROM simhash_similarity_pairs('SELECT id::bigint, body FROM c', 0.5)) TO '$out/server/decided_pairs_${t}_$name.tsv'"
            done
            echo "RESET simhash.bulk_templates;"
            echo "\\copy (SELECT a.id, b.id, simhash_similarity(a.body, b.body) FROM c a JOIN c b ON simhash_similarity(a.body, b.body) >= 0.5 AND a.id < b.id) TO '$out/server/similarity_index_$name.tsv'"
            echo "\\copy (SELECT a.id, b.id FROM c a JOIN c b ON simhash_containment(a.body, b.body) >= 0.8 AND a.id <> b.id WHERE length(a.body) >= 60) TO '$out/server/containment_index_$name.tsv'"
            echo "DROP TABLE c;"
        done
    } | psql
    bash "$h/cluster.sh" stop quality
fi

status=0
[ "$only" = 1 ] || $venv/bin/python tests/quality/quality.py --corpus "$corpus" \
    --fp target/release/examples/quality_fp --out "$out" "${server[@]}" || status=$?
if [ -n "$sets" ]; then
    echo
    $venv/bin/python tests/quality/languages.py --sets "$sets" \
        --fp target/release/examples/quality_fp --out "$out" "${server[@]}" || status=$?
fi
if [ -n "$sim_sets" ]; then
    echo
    $venv/bin/python tests/quality/similarity.py --sets "$sim_sets" \
        --tool target/release/examples/quality_similarity --decision target/release/examples/quality_decision \
        --out "$out" "${server[@]}" || status=$?
fi
if [ "${QUALITY_LABELS:-1}" = 1 ]; then
    echo
    $venv/bin/python tests/quality/labels.py --tool target/release/examples/quality_similarity \
        --decision target/release/examples/quality_decision --out "$out" "${server[@]}" || status=$?
fi
echo
fit || status=$?
if [ "${QUALITY_APART:-1}" = 1 ]; then
    echo
    $venv/bin/python tests/quality/apart.py --tool target/release/examples/quality_similarity \
        --decision target/release/examples/quality_decision --out "$out" || status=$?
fi
exit $status
