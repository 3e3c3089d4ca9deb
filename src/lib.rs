//! The SQL layer of the `simhash` extension: only glue between PostgreSQL and
//! `simhash-core`, which holds the algorithms and is tested without a server.
//!
//! One folder per measure, each holding its own SQL objects, phases and triggers, its SQL
//! in the `sql/` folder of the same name (docs/development.md, "Layout"):
//! - `fingerprints/`: `simhash(...)`, `simhash_features(...)`, the definitions' `_vN`
//!   functions, the `options jsonb` argument and `text` datums ⇄ UTF-8; `search/`: `hamming`
//!   and `<~>`, the block functions, `simhash_near` and `~=` with their planner support
//!   function, and `simhash_nearest`; `pairs/`: `simhash_duplicates(...)` and
//!   `simhash_clusters(...)`; `trigger.rs` and `precheck.rs`: `simhash_update_trigger`,
//!   `simhash_dedup_trigger` and `simhash_dedup_fp_trigger` with their block-index pre-check;
//!   `shard.rs`: key routing over shards and `simhash_components`;
//! - `segments/`: `simhash_segments(...)`, `simhash_resemblance`, `simhash_containment`, segment
//!   search on a table, segment pairs, and the segments triggers (`column_trigger.rs`,
//!   `trigger.rs`, with the GIN pre-check `precheck.rs`);
//! - `similarity/`: `simhash_similarity`, `simhash_containment`, `simhash_query` and `@%`, the
//!   GIN operator classes `simhash_ops` (`gin.rs`) and `simhash_band_ops` (`band_gin.rs`) with
//!   their planner support, bulk pairs and clusters, shard functions, and the similarity dedup
//!   trigger (`trigger.rs`).
//!
//! What the measures share, in homes named for what they do:
//! - `trigger/`: the dedup triggers' machinery, which names no measure: firing checks,
//!   per-backend cache, the config every trigger has and the `Measure` trait through which a
//!   measure adds its own, primary key and link column, advisory locks, the check as the
//!   table owner, and the actions;
//! - `bulk/`: what the bulk functions share: reading a query's rows (`rows.rs`), the one
//!   progress callback, the id check, worker threads started with signals blocked;
//! - `shard.rs`: the shard arguments' checks and the sharding skeleton `sql/shard/shard.sql`;
//! - `decision.rs`: `simhash_same_passage`, the dedup decision's SQL face;
//! - `text.rs`: `text` datums ⇄ UTF-8; `threshold.rs`: the ERROR of a bad threshold;
//!   `lexicon.rs`: the dictionary, loaded on first use with cancellation answered;
//! - `error.rs`: ERRORs with a DETAIL and a HINT, and `tick`, the cancellation check of the
//!   core's loops; `nodes.rs`: planner node helpers;
//! - `pg_compat.rs`: what differs between the PostgreSQL majors (15 to 18), behind `cfg`.
//!
//! Apart, what keeps old SQL objects working (`compat/`): decision 1 (5.x's `_d1` functions),
//! measure 1 (4.x's `_m1`), and fingerprint definitions 0 to 2 (`_v0` to `_v2`), each entry
//! point current code called with an old version, on its shipped C symbol.

use pgrx::prelude::*;

::pgrx::pg_module_magic!(name, version);

/// `PG_FUNCTION_INFO_V1(name)`: tells the fmgr that `name` uses the version-1 calling convention.
macro_rules! function_info_v1 {
    ($finfo:ident) => {
        #[unsafe(no_mangle)]
        #[doc(hidden)]
        pub extern "C" fn $finfo() -> &'static pg_sys::Pg_finfo_record {
            const V1: pg_sys::Pg_finfo_record = pg_sys::Pg_finfo_record { api_version: 1 };
            &V1
        }
    };
}

/// A V1 C function `$name` (with its `PG_FUNCTION_INFO_V1` record `$finfo`) that returns
/// `$body(fcinfo, $args...)`: every entry point that differs from another only in the
/// arguments it passes its body (a fingerprint definition, a measure, what decides). The 0.x
/// C symbols keep definition 0, so that a database still at 0.3.0 computes 0.3.0's
/// fingerprints with the 1.0 library; 1.0's SQL points at `_v1`s.
macro_rules! v1_function {
    ($(#[$doc:meta])* $finfo:ident, $name:ident => $body:path, $($arg:expr),+) => {
        function_info_v1!($finfo);
        $(#[$doc])*
        #[unsafe(no_mangle)]
        #[pg_guard]
        pub unsafe extern "C-unwind" fn $name(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
            // SAFETY: the fmgr (or GIN) calls this with a valid fcinfo, and every CREATE
            // FUNCTION naming this symbol (sql/*/*.sql, the frozen install scripts) declares
            // the arguments that `$body` reads.
            unsafe { $body(fcinfo, $($arg),+) }
        }
    };
}

mod bulk;
mod compat;
mod decision;
mod error;
mod fingerprints;
mod lexicon;
mod nodes;
mod pg_compat;
mod segments;
mod shard;
mod similarity;
mod text;
mod threshold;
mod trigger;

/// Called when the library is loaded. Under `shared_preload_libraries = 'simhash'`
/// that is in the postmaster, so the jieba dictionary and the IDF table (about
/// 150 ms and 40 MB to build) are built once and every forked backend shares them
/// copy-on-write. Otherwise each backend builds them on its first call.
#[pg_guard]
pub extern "C-unwind" fn _PG_init() {
    fingerprints::search::register_gucs();
    fingerprints::pairs::register_gucs();
    similarity::register_gucs();
    bulk::register_gucs();
    segments::register_gucs();
    // After every GUC is defined: reserving the prefix drops the placeholders of the ones
    // not yet defined, so a `SET simhash.x` made before the library loaded would be lost.
    // SAFETY: called from _PG_init, in the backend's main thread, with a static C string.
    unsafe { pg_sys::MarkGUCPrefixReserved(c"simhash".as_ptr()) };
    // SAFETY: a plain read of a backend-global flag that PostgreSQL sets before
    // loading preload libraries; nothing else writes it concurrently.
    if unsafe { pg_sys::process_shared_preload_libraries_in_progress } {
        simhash_core::Lexicon::global();
    }
}

/// Required by `cargo pgrx test`; this project tests through pg_regress instead.
#[cfg(test)]
pub mod pg_test {
    pub fn setup(_options: Vec<&str>) {}
    pub fn postgresql_conf_options() -> Vec<&'static str> {
        vec![]
    }
}
