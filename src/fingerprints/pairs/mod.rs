//! Bulk near-duplicate detection over the `(id bigint, fp bigint)` rows of queries
//! (sql/fingerprints/pairs.sql):
//! - `all_pairs.rs`: `simhash_duplicates(fingerprints, ...)` and `simhash_clusters(...)`,
//!   every pair within one query (Manku's all-pairs mode);
//! - `corpus.rs`: `simhash_duplicates(batch, corpus, ...)`, batch against corpus, and the
//!   `simhash.batch_threads` GUC;
//! - `rows.rs`: reading the queries' `(id, fp [, body])` rows.
//!
//! Only glue: the rows go into Rust-owned vectors and `simhash_core::fingerprints::pairs` does the work.
//! Every allocation of the search is a Rust `Vec`, so an error or a cancellation (a Rust
//! panic unwinding to pgrx's guard) frees it; no palloc'd state outlives the call except
//! the result rows.

use pgrx::prelude::*;

mod all_pairs;
mod corpus;
mod rows;

pub(crate) use all_pairs::stream;
pub(crate) use corpus::register_gucs;
pub(crate) use rows::read_rows;

/// `max_distance` as the core's `k`, or ERROR 22023 outside `0..=64`.
pub(crate) fn max_distance(func: &str, k: i32) -> u32 {
    if !(0..=64).contains(&k) {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: max_distance must be between 0 and 64, got {k}")
        );
    }
    k as u32
}

pgrx::extension_sql_file!(
    "../../../sql/fingerprints/pairs.sql",
    name = "batch",
    requires = [simhash_duplicates_d3, simhash_duplicates_corpus_d3]
);
