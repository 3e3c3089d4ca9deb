# A sharded simhash cluster on one machine (README.md, "Scaling out"), for
# tests/integration/sharded.sh and tests/bench/sharded.sh. Sourced after lib.sh, not run:
#   source "$h/shards.sh"
#   shards_start PREFIX N           clusters PREFIX-c (coordinator) and PREFIX-0..N-1,
#                                   stopped at exit
#   shards_schema PREFIX N K ACTION the tables below, K the distance bound of the keys
#   shards_stop PREFIX N
#   shard_server PREFIX I           SQL: the coordinator's server shardI and user mapping
#   union_view NAME N               SQL: the view NAME, UNION ALL of NAME_0..NAME_{N-1}
#   slowest_shard PREFIX N SQL      seconds of SQL run alone on each shard, the most
#   on NAME [psql args...]          psql on cluster NAME
#   c [psql args...]                psql on the coordinator $P-c, notices off
#
# Every shard i holds:
#   docs(id bigint PRIMARY KEY, body text, fp bigint, dup_of bigint), 4 block indexes;
#   doc_keys(shard int = i, id bigint PRIMARY KEY, fp bigint, dup_of bigint), K+1 block
#     indexes and simhash_dedup_fp_trigger('fp', K, 'link', 'dup_of');
#   doc_pairs, the view simhash_shard_duplicates('public.doc_keys', K, N).
# The coordinator holds, over postgres_fdw servers PREFIX-i (Unix sockets only):
#   docs, hash-partitioned on id, partition i = shard i's docs, with the triggers a_fp
#     (simhash_update_trigger, on INSERT and UPDATE OF body) and b_keys
#     (simhash_shard_trigger(..., ACTION[, 'dup_of']), on INSERT, UPDATE and DELETE);
#   doc_keys, list-partitioned on shard, partition i = shard i's doc_keys;
#   doc_pairs, UNION ALL of every shard's doc_pairs (async append).
on() { # on NAME [psql args...]
    local name=$1; shift
    in_cluster "$name" psql "$@"
}

c() { PGOPTIONS="${PGOPTIONS:-} -c client_min_messages=warning" on "$P-c" "$@"; }

shards_start() { # PREFIX N
    local i
    at_exit "shards_stop $1 $2 >/dev/null 2>&1"
    # Every remote connection is a new backend: preloading spares each the dictionary build.
    for i in $(seq 0 $(($2 - 1))) c; do
        bash "$h/cluster.sh" start "$1-$i" "shared_preload_libraries = 'simhash'" "max_connections = 60" &
    done
    wait
}

shards_stop() { # PREFIX N
    local i
    for i in $(seq 0 $(($2 - 1))) c; do bash "$h/cluster.sh" stop "$1-$i"; done
}

# SQL for the coordinator: server shardI (Unix socket of cluster PREFIX-I; extensions
# 'simhash', async, parallel commit) and the user mapping.
shard_server() { # PREFIX I
    cat <<SQL
CREATE SERVER shard$2 FOREIGN DATA WRAPPER postgres_fdw
    OPTIONS (host '$run_dir/$1-$2', port '5432', dbname 'postgres',
             extensions 'simhash', async_capable 'true', parallel_commit 'true', fetch_size '10000');
CREATE USER MAPPING FOR postgres SERVER shard$2 OPTIONS (user 'postgres');
SQL
}

# SQL: the view NAME, the UNION ALL of NAME_0 .. NAME_{N-1} (every shard's, at once).
union_view() { # NAME N
    local i
    printf 'CREATE VIEW %s AS ' "$1"
    for i in $(seq 0 $(($2 - 1))); do
        [ "$i" -gt 0 ] && printf ' UNION ALL '
        printf 'SELECT * FROM %s_%s' "$1" "$i"
    done
    echo ";"
}

# Seconds of SQL run alone on each shard in turn, the most of them: what one machine per
# shard would take.
slowest_shard() { # PREFIX N SQL
    local i t0 most=0
    for i in $(seq 0 $(($2 - 1))); do
        t0=$(now); PGOPTIONS="-c client_min_messages=warning" on "$1-$i" -c "$3" >/dev/null
        most=$(awk -v a="$most" -v b="$(since "$t0")" 'BEGIN {print (b > a ? b : a)}')
    done
    awk -v a="$most" 'BEGIN {printf "%.3f", a}'
}

shards_schema() { # PREFIX N K ACTION
    local p=$1 n=$2 k=$3 action=$4 i link=""
    [ "$action" = link ] && link=", 'dup_of'"
    for i in $(seq 0 $((n - 1))); do
        on "$p-$i" >/dev/null <<SQL
CREATE EXTENSION simhash;
CREATE TABLE docs (id bigint PRIMARY KEY, body text, fp bigint, dup_of bigint);
SELECT simhash_create_blocks('docs', 'fp', 4);
CREATE TABLE doc_keys (shard int NOT NULL CHECK (shard = $i), id bigint PRIMARY KEY, fp bigint NOT NULL, dup_of bigint);
SELECT simhash_create_blocks('doc_keys', 'fp', $((k + 1)));
CREATE TRIGGER dedup BEFORE INSERT ON doc_keys
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '$k', 'link', 'dup_of');
CREATE VIEW doc_pairs AS SELECT * FROM simhash_shard_duplicates('public.doc_keys', $k, $n);
SQL
    done
    {
        echo "CREATE EXTENSION simhash; CREATE EXTENSION postgres_fdw;"
        echo "CREATE TABLE docs (id bigint NOT NULL, body text, fp bigint, dup_of bigint) PARTITION BY HASH (id);"
        echo "CREATE TABLE doc_keys (shard int NOT NULL, id bigint NOT NULL, fp bigint NOT NULL, dup_of bigint) PARTITION BY LIST (shard);"
        for i in $(seq 0 $((n - 1))); do
            shard_server "$p" "$i"
            cat <<SQL
CREATE FOREIGN TABLE docs_$i PARTITION OF docs FOR VALUES WITH (MODULUS $n, REMAINDER $i)
    SERVER shard$i OPTIONS (table_name 'docs');
CREATE FOREIGN TABLE doc_keys_$i PARTITION OF doc_keys FOR VALUES IN ($i)
    SERVER shard$i OPTIONS (table_name 'doc_keys');
CREATE FOREIGN TABLE doc_pairs_$i (id1 bigint, id2 bigint, distance int)
    SERVER shard$i OPTIONS (table_name 'doc_pairs');
SQL
        done
        union_view doc_pairs "$n"
        echo "CREATE TRIGGER a_fp BEFORE INSERT OR UPDATE OF body ON docs FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body');"
        echo "CREATE TRIGGER b_keys BEFORE INSERT OR UPDATE OR DELETE ON docs FOR EACH ROW
                  EXECUTE FUNCTION simhash_shard_trigger('id', 'fp', 'public.doc_keys', '$k', '$n', '$action'$link);"
    } | on "$p-c" >/dev/null
}
