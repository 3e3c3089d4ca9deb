//! Exact text similarity (sql/similarity/; docs/similarity.md), the SQL face of
//! `simhash_core::similarity`:
//! - `measure.rs`: `simhash_similarity`, `simhash_containment`, their threshold predicates
//!   and the comparisons of `simhash_score`;
//! - `query.rs`: the `simhash_query` a GIN lookup takes, and its `@%` operator (the recheck);
//! - `gin.rs`: the GIN operator class `simhash_ops` (extractValue, extractQuery, consistent,
//!   triConsistent) and `simhash_keys`;
//! - `band_gin.rs`: the GIN operator class `simhash_band_ops`, on MinHash band keys, and
//!   `simhash_band_keys`;
//! - `explain.rs`: `simhash_explain(a, b)`, the shingles of two texts;
//! - `pairs.rs`: `simhash_similarity_pairs` and `simhash_similarity_clusters`, in bulk;
//! - `shard.rs`: where texts' copies go across postgres_fdw shards, and each shard's pairs;
//! - `support.rs`: the planner support function that turns a comparison into a predicate
//!   and a predicate into a GIN index condition.

mod band_gin;
pub(crate) mod explain;
pub(crate) mod frame_keys;
pub(crate) mod gin;
pub(crate) mod measure;
pub(crate) mod pairs;
pub(crate) mod query;
pub(crate) mod shard;
mod support;
pub(crate) mod trigger;

pub(crate) use pairs::register_gucs;
pub(crate) use support::{band_opfamily, match_operator, sql_suffix};

use std::borrow::Cow;

use pgrx::prelude::*;

pub(crate) use crate::error::tick;
use crate::text::text_datum_to_utf8;
use simhash_core::threshold::Bound;

/// Text argument `i` of a call, as UTF-8.
///
/// # Safety
/// `fcinfo` must be a valid call info whose argument `i` is a non-NULL text datum.
pub(crate) unsafe fn text_arg<'a>(fcinfo: pg_sys::FunctionCallInfo, i: usize) -> Cow<'a, str> {
    // SAFETY: forwarded from the caller.
    unsafe { text_datum_to_utf8(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, i)) }
}

/// `threshold` if it is in [0, 1], else ERROR 22023 naming `func`.
pub(crate) fn check_threshold(threshold: f64, func: &str) -> f64 {
    const HINT: &str =
        "Similarity and containment are shares: 0 matches every text, 1 only texts with the same shingles.";
    crate::threshold::checked(func, "threshold", threshold, Bound::Share, Some(HINT))
}

pgrx::extension_sql_file!("../../sql/similarity/similarity.sql", name = "similarity");
pgrx::extension_sql_file!("../../sql/similarity/gin.sql", name = "similarity_gin", requires = ["similarity"]);
