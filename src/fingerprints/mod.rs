//! Fingerprints (sql/fingerprints/): a text's 64 bits and everything by Hamming distance.
//! - `simhash.rs`: `simhash(doc [, options])`, `simhash(features, weights)` and
//!   `simhash_features(doc [, options])`;
//! - `options.rs`: the `options jsonb` argument (and the triggers' options, as JSON text);
//! - `search/`: `hamming` and `<~>`, the block functions, `simhash_near` and `~=` with their
//!   planner support, and `simhash_nearest`;
//! - `pairs/`: `simhash_duplicates(...)` and `simhash_clusters(...)`;
//! - `trigger.rs` and `precheck.rs`: the update and dedup triggers, and the block-index
//!   pre-check they hand the trigger machinery (`crate::trigger`);
//! - `shard.rs`: key routing over shards and `simhash_components`.
//!
//! Definitions 0 to 2 (the `_v0` to `_v2` functions and 0.x to 2.x's C symbols) are in
//! `crate::compat`.

pub(crate) mod options;
pub(crate) mod pairs;
pub(crate) mod precheck;
pub(crate) mod search;
pub(crate) mod shard;
pub(crate) mod simhash;
pub(crate) mod trigger;

pub(crate) use simhash::simhash_of_text_datum;
