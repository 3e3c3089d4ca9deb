//! The PostgreSQL-free half of the insert triggers (`simhash_dedup_trigger`,
//! `simhash_dedup_fp_trigger`, `simhash_update_trigger`; the SQL layer's `src/trigger/`).
//!
//! - `args`: the trigger arguments, checked, and the errors that name what is wrong.
//! - `lock`: the advisory-lock keys that make concurrent inserts of near-duplicates contend
//!   (`k + 1` pigeonhole blocks), and the table-wide key of many-row inserts.
//! - `check`: the text of the check query, the nearest existing row within the bound.
//! - `segments`: the arguments, lock keys and check query of `simhash_segments_dedup_trigger`
//!   (dedup by resemblance of segment fingerprints).
//! - `similarity`: the arguments, lock keys and check query of
//!   `simhash_similarity_dedup_trigger` (dedup by exact text similarity or containment).
//! - `precheck`: the cost model that picks the block set of the index pre-check, which lets
//!   most inserts skip the check query, or none.
//!
//! The submodules are private; this module re-exports their API.

mod args;
mod check;
mod lock;
mod precheck;
mod segments;
mod similarity;

pub use args::{
    is_options, parse_action, parse_args, parse_fp_args, parse_max_distance, parse_segments_args, parse_threshold,
    parse_update_args, Action, DedupArgs, DedupError, UpdateArgs, DEDUP_FP_SIGNATURE, DEDUP_SIGNATURE,
    SEGMENTS_SIGNATURE, UPDATE_SIGNATURE,
};
pub use check::{check_query, CheckQuery, QueryTarget};
pub use lock::{lock_blocks, lock_keys, table_lock_key};
pub use precheck::{choose_precheck, precheck_cost, ENTRY_COST, FALLBACK_COST};
pub use segments::{
    min_common, parse_min_resemblance, parse_segments_dedup_args, segment_lock_keys, segments_check_query,
    segments_table_lock_key, SegmentsCheckQuery, SegmentsDedupArgs, SEGMENTS_DEDUP_SIGNATURE,
};
pub use similarity::{
    lookups_share_keys, parse_similarity_dedup_args, similarity_check_query, similarity_lock_keys,
    similarity_table_lock_key, LockedKeys, SimilarityCheckQuery, SimilarityDedupArgs, SIMILARITY_DEDUP_OPTIONS,
    SIMILARITY_DEDUP_SIGNATURE,
};
