//! Measure 1 of exact similarity (4.x's: every digit read as `0`), kept reachable under its
//! `_m1` names since 5.0.0 (docs/similarity.md, "Measures"): the entry points of its SQL
//! objects (sql/compat/m1.sql) and 4.x's C symbols, which the frozen install scripts name.
//! Each is the current measure's code called with `Version::M1`.

use pgrx::prelude::*;
use simhash_core::similarity::explain::explain;
use simhash_core::similarity::{Measure, Version};

use crate::error::tick;
use crate::similarity::{explain as explain_sql, gin, measure, pairs, query, shard, trigger};
use crate::trigger::Decision;

v1_function!(pg_finfo_simhash_similarity_m1, simhash_similarity_m1 => measure::value_datum, Version::M1, Measure::Similarity);
v1_function!(pg_finfo_simhash_containment_m1, simhash_containment_m1 => measure::value_datum, Version::M1, Measure::QueryInRow);
v1_function!(pg_finfo_simhash_similarity_at_least_m1, simhash_similarity_at_least_m1 => measure::at_least_datum, Version::M1, Measure::Similarity, false, "simhash_similarity_m1");
v1_function!(pg_finfo_simhash_similarity_above_m1, simhash_similarity_above_m1 => measure::at_least_datum, Version::M1, Measure::Similarity, true, "simhash_similarity_m1");
v1_function!(pg_finfo_simhash_containment_at_least_m1, simhash_containment_at_least_m1 => measure::at_least_datum, Version::M1, Measure::QueryInRow, false, "simhash_containment_m1");
v1_function!(pg_finfo_simhash_containment_above_m1, simhash_containment_above_m1 => measure::at_least_datum, Version::M1, Measure::QueryInRow, true, "simhash_containment_m1");

v1_function!(
    /// extractValue of `simhash_ops_m1` (4.x's symbol).
    pg_finfo_simhash_gin_extract_value, simhash_gin_extract_value => gin::extract_value, Version::M1
);
v1_function!(
    /// extractQuery of `simhash_ops_m1` (4.x's symbol).
    pg_finfo_simhash_gin_extract_query, simhash_gin_extract_query => gin::extract_query, Version::M1
);
v1_function!(
    /// `simhash_keys_m1(doc)` (4.x's `simhash_keys` symbol): what a `simhash_ops_m1` index holds.
    pg_finfo_simhash_keys, simhash_keys => gin::keys, Version::M1
);
v1_function!(
    /// `simhash_similarity_dedup_trigger_m1()`: measure 1's trigger (4.x's
    /// `simhash_similarity_dedup_trigger`).
    pg_finfo_simhash_similarity_dedup_trigger_m1, simhash_similarity_dedup_trigger_m1 => trigger::dedup_trigger, Version::M1, Decision::Measure
);
v1_function!(
    /// `simhash_similarity_dedup_query_m1(tbl, VARIADIC trigger_args)`: measure 1's (4.x's symbol).
    pg_finfo_simhash_similarity_dedup_query_m1, simhash_similarity_dedup_query_m1 => trigger::query, Version::M1, Decision::Measure, "simhash_similarity_dedup_query_m1"
);
v1_function!(
    /// `row text @% q simhash_query_m1 → bool` (STRICT), measure 1 (4.x's symbol).
    pg_finfo_simhash_query_match, simhash_query_match => query::query_match, Version::M1
);

/// The rows of `simhash_explain_m1(a, b)`, measure 1 (4.0.0's symbol): each shingle as UTF-8
/// (the SQL wrapper converts it to the server encoding).
// pgrx reads the column names from the signature itself: no type alias can stand for them.
#[allow(clippy::type_complexity)]
#[pg_extern(name = "simhash_explain_shingles_utf8_m1", immutable, strict, parallel_safe)]
fn simhash_explain_shingles_utf8(
    a: &[u8],
    b: &[u8],
) -> TableIterator<
    'static,
    (
        name!(shingle, Vec<u8>),
        name!(in_a, bool),
        name!(in_b, bool),
        name!(similarity, f64),
        name!(a_in_b, f64),
        name!(b_in_a, f64),
    ),
> {
    let (rows, s, ab, ba) = explain(explain_sql::utf8(a), explain_sql::utf8(b), Version::M1, &mut tick);
    TableIterator::new(rows.into_iter().map(move |r| (r.text.into_bytes(), r.in_a, r.in_b, s, ab, ba)))
}

/// `simhash_similarity_pairs_m1`'s rows (measure 1; 4.0.0's symbol). Value per call, called
/// through the SQL function (sql/compat/m1.sql) in a select list, so LIMIT stops it early.
#[pg_extern(name = "simhash_similarity_pairs_stream_m1", volatile, parallel_unsafe)]
fn simhash_similarity_pairs(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    pairs::pairs(query, min_similarity, Version::M1, None, "simhash_similarity_pairs_m1")
}

/// `simhash_similarity_clusters_m1` (measure 1; 4.0.0's symbol).
#[pg_extern(name = "simhash_similarity_clusters_m1", volatile, parallel_unsafe)]
fn simhash_similarity_clusters(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    pairs::clusters(query, min_similarity, Version::M1, "simhash_similarity_clusters_m1")
}

/// The shards a copy of `body` goes to under measure 1 (4.0.0's symbol): the owners of its
/// `simhash_ops_m1` index keys, or every shard for a text of fewer than 48 shingles.
#[pg_extern(name = "simhash_similarity_owners_m1", immutable, strict, parallel_safe)]
fn simhash_similarity_owners(body: &str, shards: i32) -> Vec<i32> {
    shard::owners(body, shards, Version::M1, "simhash_similarity_owners_m1")
}

/// `simhash_similarity_owned_pairs_m1`'s rows (measure 1; 4.0.0's symbol).
#[pg_extern(name = "simhash_similarity_owned_pairs_stream_m1", volatile, parallel_unsafe)]
fn simhash_similarity_owned_pairs(
    query: &str,
    min_similarity: f64,
    shard: i32,
    shards: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    shard::owned_pairs(query, min_similarity, shard, shards, Version::M1, "simhash_similarity_owned_pairs_m1")
}

pgrx::extension_sql_file!(
    "../../sql/compat/m1.sql",
    name = "similarity_m1",
    requires = ["similarity_gin", "similarity_pairs", "similarity_explain"]
);

pgrx::extension_sql_file!(
    "../../sql/compat/similarity_shard.sql",
    name = "similarity_shard_m1",
    requires = ["similarity_shard", simhash_similarity_owners, simhash_similarity_owned_pairs]
);
