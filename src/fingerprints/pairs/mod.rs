//! Bulk near-duplicate detection over the `(id bigint, fp bigint)` rows of queries
//! (sql/fingerprints/pairs.sql):
//! - `all_pairs.rs`: `simhash_duplicates(fingerprints, ...)` and `simhash_clusters(...)`,
//!   every pair within one query (Manku's all-pairs mode);
//! - `corpus.rs`: `simhash_duplicates(batch, corpus, ...)`, batch against corpus, and the
//!   `simhash.batch_threads` GUC;
//! - `rows.rs`: reading the queries' rows.
//!
//! Only glue: the rows go into Rust-owned vectors and `simhash_core::fingerprints::pairs` does the work.
//! Every allocation of the search is a Rust `Vec`, so an error or a cancellation (a Rust
//! panic unwinding to pgrx's guard) frees it; no palloc'd state outlives the call except
//! the result rows.

use pgrx::prelude::*;
use simhash_core::Progress;

mod all_pairs;
mod corpus;
mod rows;

pub(crate) use all_pairs::stream;
pub(crate) use corpus::{register_gucs, with_signals_blocked};
pub(crate) use rows::{for_each_value, read_rows};

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

/// ERROR 21000 if two of the `what` query's rows share an id (`simhash_core::fingerprints::pairs::
/// first_repeated`), before any pair is out; `ids` is left sorted.
pub(crate) fn unique_ids(func: &str, what: &str, ids: &mut [i64]) {
    if let Some(id) = simhash_core::bulk::first_repeated(ids) {
        repeated_id(func, what, id);
    }
}

/// ERROR 21000: `id` is in two rows of the `what` query.
pub(crate) fn repeated_id(func: &str, what: &str, id: i64) -> ! {
    crate::error::raise(
        PgSqlErrorCode::ERRCODE_CARDINALITY_VIOLATION,
        format!("{func}: id {id} is in more than one row of the {what} query"),
        Some("The pairs name rows by id, so every row needs its own.".into()),
        Some("Select a unique key as the id, e.g. the primary key."),
    )
}

/// The core's progress callback: phases become NOTICEs, ticks check for cancellation.
pub(crate) fn progress(func: &'static str) -> impl FnMut(Progress) {
    move |p| match p {
        Progress::Phase(msg) => notice!("{func}: {msg}"),
        Progress::Tick => {
            check_for_interrupts!();
        }
    }
}

pgrx::extension_sql_file!(
    "../../../sql/fingerprints/pairs.sql",
    name = "batch",
    requires = [simhash_duplicates, simhash_duplicates_corpus]
);
