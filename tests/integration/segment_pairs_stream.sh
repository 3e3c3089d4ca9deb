#!/usr/bin/env bash
# Bounded work and prompt cancel in simhash_segment_pairs and simhash_segment_clusters
# (issue 19, "Every long loop cancels within 100 ms"; the pattern of batch_stream.sh). No
# timing thresholds: each check is a liveness bound or an SQLSTATE.
#   - 4,000 rows with one segment (8·10⁶ pairs at max_rows 5000): LIMIT 10 returns the first
#     pairs in order under statement_timeout = 60s, and counting them all under 200 ms ends
#     with 57014;
#   - the same segment at the default max_rows (1000) is a frequent passage: no pair, at once;
#   - simhash_segment_clusters over 3M rows under 200 ms ends with 57014.
# Expects PGHOST/PGPORT/PGUSER of a running cluster with the extension installed.
set -euo pipefail
source "$(dirname "$0")/../harness/lib.sh"
export PGDATABASE=simhash_segment_pairs_stream
fresh_db "$PGDATABASE"
q -c "CREATE EXTENSION simhash"

# Whether SQL, run under a 200 ms statement_timeout, ends with 57014 (query_canceled).
cancelled() { [ "$(sqlstate -c "SET statement_timeout = '200ms'" -c "$1")" = 57014 ]; }

one="SELECT i::bigint, ''{42}''::bigint[] FROM generate_series(1, 4000) i"
got=$(q -c "SET statement_timeout = '60s'" \
        -c "SELECT string_agg(id1 || '-' || id2, ' ')
              FROM (SELECT * FROM simhash_segment_pairs('$one', 0.5, 5000) LIMIT 10) p" 2>&1) || true
want="1-2 1-3 1-4 1-5 1-6 1-7 1-8 1-9 1-10 1-11"
[ "$got" = "$want" ] || fail "LIMIT 10 over 4,000 rows with one segment: got '$got', want '$want'"
got=$(q -c "SET statement_timeout = '60s'" -c "SELECT count(*) FROM simhash_segment_pairs('$one', 0.5)" 2>&1) || true
[ "$got" = 0 ] || fail "one segment in 4,000 rows at max_rows 1000: got '$got' pairs, want 0"
cancelled "SELECT count(*) FROM simhash_segment_pairs('$one', 0.5, 5000)" ||
    fail "count(*) of 8·10⁶ pairs under a 200 ms timeout did not end with 57014"
cancelled "SELECT count(*) FROM simhash_segment_clusters('SELECT i::bigint, ARRAY[hashint8extended(i, 0), hashint8extended(i / 2, 1)] FROM generate_series(1, 3000000) i', 0.5)" ||
    fail "simhash_segment_clusters over 3M rows under a 200 ms timeout did not end with 57014"

exit $status
