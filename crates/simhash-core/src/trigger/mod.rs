//! What every dedup trigger shares, whatever its measure: the arguments' common grammar and
//! errors, every trigger's signature (`args`), the table and key a check query reads (`query`), and the hash of every
//! advisory-lock key (`keys`), and the option `"decision"` (`decision`). Each measure's own trigger is in its folder:
//! `fingerprints::trigger` (`simhash_dedup_trigger`, `simhash_dedup_fp_trigger`,
//! `simhash_update_trigger`), `segments::trigger` and `similarity::trigger`; the SQL layer's
//! half is `src/trigger/` and the measures' `src/*/trigger.rs`.

mod args;
pub mod decision;
mod keys;
mod query;

pub use args::{
    is_options, parse_action, parse_segments_args, parse_threshold, parse_update_args, Action, DedupError, UpdateArgs,
    SEGMENTS_SIGNATURE, UPDATE_SIGNATURE,
};
pub(crate) use args::{option_threshold, parse_action_and_link, split_options};
pub use keys::table_lock_key;
pub(crate) use keys::{key_hash, sorted_keys};
pub(crate) use query::KeyExprs;
pub use query::QueryTarget;
