# Similarity dedup and bulk pairs across postgres_fdw shards (docs/scaling-out.md, "Dedup
# and bulk pairs by similarity across shards"), for tests/integration/sharded_similarity.sh
# and tests/bench/sharded_similarity.sh. Sourced after lib.sh and shards.sh, not run:
#   sim_shards PREFIX N              on every shard i (cluster PREFIX-i): docs(id, body,
#                                    dup_of) with its simhash_ops index, and doc_copies(shard
#                                    = i, id, body, dup_of) with its simhash_ops index
#   sim_shard_dedup PREFIX N THETA [OPTIONS]
#                                    (re)creates every shard's trigger on doc_copies:
#                                    simhash_similarity_dedup_trigger('body', THETA, 'link',
#                                    'dup_of'[, OPTIONS])
#   sim_shard_bulk PREFIX N THETA    bulk pairs by band keys at THETA on every shard i:
#                                    docs.band_keys, a generated column of
#                                    simhash_similarity_band_keys(body, THETA); servers to the
#                                    other shards, their docs as docs_j, the views peer_docs and
#                                    peer_band_keys, and the view doc_pairs of the shard's
#                                    simhash_similarity_shard_pairs
#   sim_shard_band_ranges PREFIX N THETA
#                                    bulk pairs by band ranges, after sim_shard_bulk, on every
#                                    shard i: the view doc_band_slices (every document's slice
#                                    for each shard), all_band_slices (every shard's, through
#                                    band_slices_j), the table band_candidates and
#                                    all_band_candidates (every shard's), and the view
#                                    doc_band_pairs of simhash_similarity_candidate_pairs
#   sim_shard_band_candidates PREFIX N THETA
#                                    the first step, on every shard in turn: band_candidates
#                                    from simhash_similarity_band_candidates
#   sim_coordinator PREFIX NAME N ACTION
#                                    on the cluster NAME: servers shard0..N-1 (Unix sockets),
#                                    docs hash-partitioned on id, doc_copies list-partitioned
#                                    on shard, doc_pairs (UNION ALL of every shard's), the
#                                    trigger b_copies: simhash_similarity_shard_trigger('id',
#                                    'body', 'public.doc_copies', N, ACTION[, 'dup_of']), and
#                                    copy_mismatches(): how many copies break the routing
sim_shards() { # PREFIX N
    local i
    for i in $(seq 0 $(($2 - 1))); do
        on "$1-$i" >/dev/null <<SQL
CREATE EXTENSION IF NOT EXISTS simhash;
CREATE TABLE docs (id bigint PRIMARY KEY, body text, dup_of bigint);
CREATE INDEX docs_body ON docs USING gin (body simhash_ops);
CREATE TABLE doc_copies (shard int NOT NULL CHECK (shard = $i), id bigint PRIMARY KEY, body text NOT NULL, dup_of bigint);
CREATE INDEX doc_copies_body ON doc_copies USING gin (body simhash_ops);
SQL
    done
}

sim_shard_dedup() { # PREFIX N THETA [OPTIONS]
    local i options=""
    [ -n "${4:-}" ] && options=", '$4'"
    for i in $(seq 0 $(($2 - 1))); do
        PGOPTIONS="-c client_min_messages=warning" on "$1-$i" >/dev/null <<SQL
DROP TRIGGER IF EXISTS dedup ON doc_copies;
CREATE TRIGGER dedup BEFORE INSERT ON doc_copies FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '$3', 'link', 'dup_of'$options);
SQL
    done
}

sim_shard_bulk() { # PREFIX N THETA
    local i j docs keys
    for i in $(seq 0 $(($2 - 1))); do
        docs="" keys=""
        {
            echo "CREATE EXTENSION IF NOT EXISTS postgres_fdw;"
            echo "DROP VIEW IF EXISTS doc_pairs, peer_docs, peer_band_keys, doc_band_pairs, all_band_slices, doc_band_slices;"
            echo "ALTER TABLE docs DROP COLUMN IF EXISTS band_keys;"
            echo "ALTER TABLE docs ADD COLUMN band_keys bytea GENERATED ALWAYS AS (simhash_similarity_band_keys(body, $3)) STORED;"
            for j in $(seq 0 $(($2 - 1))); do
                [ "$j" = "$i" ] && continue
                echo "DROP SERVER IF EXISTS shard$j CASCADE;"
                shard_server "$1" "$j"
                echo "CREATE FOREIGN TABLE docs_$j (id bigint, body text, band_keys bytea) SERVER shard$j OPTIONS (table_name 'docs');"
                docs+="${docs:+ UNION ALL }SELECT id, body FROM docs_$j"
                keys+="${keys:+ UNION ALL }SELECT $j AS shard, id, band_keys AS keys FROM docs_$j"
            done
            echo "CREATE VIEW peer_docs AS $docs;"
            echo "CREATE VIEW peer_band_keys AS $keys;"
            echo "CREATE VIEW doc_pairs AS SELECT * FROM simhash_similarity_shard_pairs("
            echo "    'public.docs', 'id', 'body', 'public.peer_band_keys', 'public.peer_docs', $i, $2, $3);"
        } | PGOPTIONS="-c client_min_messages=warning" on "$1-$i" >/dev/null
    done
}

sim_shard_band_ranges() { # PREFIX N THETA
    local i j slices cands
    for i in $(seq 0 $(($2 - 1))); do
        slices="SELECT shard, id, slice FROM doc_band_slices" cands="SELECT home, id1, id2 FROM band_candidates"
        {
            echo "DROP VIEW IF EXISTS doc_band_pairs, all_band_slices, all_band_candidates, doc_band_slices;"
            echo "DROP TABLE IF EXISTS band_candidates;"
            echo "CREATE TABLE band_candidates (home int NOT NULL, id1 bigint NOT NULL, id2 bigint NOT NULL);"
            echo "CREATE VIEW doc_band_slices AS SELECT t.shard, d.id, simhash_similarity_band_slice(d.band_keys, $i, t.shard, $2) AS slice
                    FROM public.docs d, generate_series(0, $(($2 - 1))) AS t(shard) WHERE d.band_keys IS NOT NULL;"
            for j in $(seq 0 $(($2 - 1))); do
                [ "$j" = "$i" ] && continue
                echo "CREATE FOREIGN TABLE band_slices_$j (shard int, id bigint, slice bytea) SERVER shard$j OPTIONS (table_name 'doc_band_slices');"
                echo "CREATE FOREIGN TABLE band_candidates_$j (home int, id1 bigint, id2 bigint) SERVER shard$j OPTIONS (table_name 'band_candidates');"
                slices+=" UNION ALL SELECT shard, id, slice FROM band_slices_$j"
                cands+=" UNION ALL SELECT home, id1, id2 FROM band_candidates_$j"
            done
            echo "CREATE VIEW all_band_slices AS $slices;"
            echo "CREATE VIEW all_band_candidates AS $cands;"
            echo "CREATE VIEW doc_band_pairs AS SELECT * FROM simhash_similarity_candidate_pairs("
            echo "    'public.docs', 'id', 'body', 'public.all_band_candidates', 'public.peer_docs', $i, $3);"
        } | PGOPTIONS="-c client_min_messages=warning" on "$1-$i" >/dev/null
    done
}

sim_shard_band_candidates() { # PREFIX N THETA
    local i
    for i in $(seq 0 $(($2 - 1))); do
        PGOPTIONS="-c client_min_messages=warning" on "$1-$i" >/dev/null <<SQL
TRUNCATE band_candidates;
INSERT INTO band_candidates
SELECT * FROM simhash_similarity_band_candidates('SELECT id, slice FROM public.all_band_slices WHERE shard = $i', $3);
SQL
    done
}

sim_coordinator() { # PREFIX NAME N ACTION
    local p=$1 name=$2 n=$3 action=$4 i link=""
    [ "$action" = link ] && link=", 'dup_of'"
    {
        echo "CREATE EXTENSION IF NOT EXISTS simhash; CREATE EXTENSION IF NOT EXISTS postgres_fdw;"
        echo "CREATE TABLE docs (id bigint NOT NULL, body text, dup_of bigint) PARTITION BY HASH (id);"
        echo "CREATE TABLE doc_copies (shard int NOT NULL, id bigint NOT NULL, body text NOT NULL, dup_of bigint) PARTITION BY LIST (shard);"
        for i in $(seq 0 $((n - 1))); do
            shard_server "$p" "$i"
            cat <<SQL
CREATE FOREIGN TABLE docs_$i PARTITION OF docs FOR VALUES WITH (MODULUS $n, REMAINDER $i)
    SERVER shard$i OPTIONS (table_name 'docs', batch_size '1000');
CREATE FOREIGN TABLE doc_copies_$i PARTITION OF doc_copies FOR VALUES IN ($i)
    SERVER shard$i OPTIONS (table_name 'doc_copies');
CREATE FOREIGN TABLE doc_pairs_$i (id1 bigint, id2 bigint, similarity float8)
    SERVER shard$i OPTIONS (table_name 'doc_pairs');
CREATE FOREIGN TABLE doc_band_pairs_$i (id1 bigint, id2 bigint, similarity float8)
    SERVER shard$i OPTIONS (table_name 'doc_band_pairs');
SQL
        done
        union_view doc_pairs "$n"
        union_view doc_band_pairs "$n"
        cat <<SQL
CREATE TRIGGER b_copies BEFORE INSERT OR UPDATE OR DELETE ON docs FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_shard_trigger('id', 'body', 'public.doc_copies', '$n', '$action'$link);
CREATE FUNCTION copy_mismatches() RETURNS bigint LANGUAGE sql AS \$\$
    SELECT count(*) FROM
        (SELECT o AS shard, d.id, d.body FROM docs d, unnest(simhash_similarity_owners(d.body, $n)) o
          WHERE d.body IS NOT NULL) e
        FULL JOIN doc_copies k ON k.shard = e.shard AND k.id = e.id AND k.body = e.body
     WHERE e.id IS NULL OR k.id IS NULL \$\$;
SQL
    } | on "$name" >/dev/null
}
