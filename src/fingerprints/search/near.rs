//! `simhash_near(fp, query, max_distance)`, the `fp ~= query` operator and the
//! `simhash.max_distance` GUC it reads. Both functions carry the planner support function
//! of `support.rs` (attached in `sql/fingerprints/search.sql`), which turns them into btree block probes.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;

/// `simhash.max_distance`: the Hamming distance bound of `fp ~= query`.
pub(crate) static MAX_DISTANCE: GucSetting<i32> = GucSetting::<i32>::new(3);

/// Registers the GUC (called from `_PG_init`).
pub(crate) fn register_gucs() {
    GucRegistry::define_int_guc(
        c"simhash.max_distance",
        c"Hamming distance bound of the ~= operator.",
        c"fp ~= query is true when fp and query differ in at most this many bits.",
        &MAX_DISTANCE,
        0,
        64,
        GucContext::Userset,
        GucFlags::default(),
    );
}

/// True when `fp` and `query` differ in at most `max_distance` bits (0..=64).
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_near(fp: i64, query: i64, max_distance: i32) -> bool {
    simhash_core::fingerprints::search::check_max_distance(max_distance).unwrap_or_else(|e| super::blocks::raise(e));
    simhash_core::hamming(fp as u64, query as u64) <= max_distance as u32
}

/// The current `simhash.max_distance`. STABLE: the rewrite of `~=` calls it at execution
/// time, so a cached plan honours a later `SET simhash.max_distance`.
#[pg_extern(stable, parallel_safe)]
fn simhash_max_distance() -> i32 {
    MAX_DISTANCE.get()
}

/// The function of `fp ~= query`: `simhash_near(fp, query, simhash.max_distance)`.
#[pg_extern(stable, strict, parallel_safe)]
fn simhash_near_guc(fp: i64, query: i64) -> bool {
    simhash_core::hamming(fp as u64, query as u64) <= MAX_DISTANCE.get() as u32
}

pgrx::extension_sql_file!(
    "../../../sql/fingerprints/search.sql",
    name = "search",
    requires = [simhash_near, simhash_near_guc, simhash_max_distance, "blocks"]
);
