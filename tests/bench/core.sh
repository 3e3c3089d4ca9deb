#!/usr/bin/env bash
# The core crate's micro-benchmarks (crates/simhash-core/examples/bench_*.rs), with no
# server: each prints its figures next to a baseline from the same run.
#   bench_corpus_plans      batch-against-corpus lookups per plan, scan and chunk size, ns/row
#                           against a plain sequential pass over the corpus
#   bench_corpus_crossover  4 against 10 tables around the cost model's crossover
#   bench_corpus_threads    the whole pass with 0-3 lookup threads, against the lookups alone
# Sizes are the examples' defaults (1M batch, 2M-4M corpus); CORE_BENCH_ARGS_<NAME> overrides.
set -euo pipefail
cd "$(dirname "$0")/../.."
cargo build -q --release -p simhash-core --examples
for b in bench_corpus_plans bench_corpus_crossover bench_corpus_threads; do
    var=CORE_BENCH_ARGS_$b
    echo "--- $b ${!var:-}"
    # shellcheck disable=SC2086 # the arguments are words
    cargo run -q --release -p simhash-core --example "$b" -- ${!var:-}
done
