//! The PostgreSQL-free half of the fingerprint dedup triggers (`simhash_dedup_trigger`,
//! `simhash_dedup_fp_trigger`; the SQL layer's `src/fingerprints/trigger.rs`), on top of the
//! shared machinery of `crate::trigger` (arguments, key hash, query target).
//!
//! - `args`: the triggers' arguments, checked.
//! - `lock`: the advisory-lock keys that make concurrent inserts of near-duplicates contend
//!   (`k + 1` pigeonhole blocks); the table-wide key of many-row inserts is
//!   `crate::trigger::table_lock_key`.
//! - `check`: the text of the check query, the nearest existing row within the bound.
//! - `precheck`: the cost model that picks the block set of the index pre-check, which lets
//!   most inserts skip the check query, or none.

mod args;
mod check;
mod lock;
mod precheck;

pub use args::{parse_args, parse_fp_args, parse_max_distance, DedupArgs, DEDUP_FP_SIGNATURE, DEDUP_SIGNATURE};
pub use check::{check_query, CheckQuery};
pub use lock::{lock_blocks, lock_keys};
pub use precheck::{choose_precheck, precheck_cost, ENTRY_COST, FALLBACK_COST};
