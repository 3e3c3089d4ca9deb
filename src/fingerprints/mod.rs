//! Fingerprints (sql/fingerprints/):
//! - `simhash.rs`: `simhash(doc [, options])`, `simhash(features, weights)` and
//!   `simhash_features(doc [, options])`;
//! - `definition0.rs`: `simhash_v0(doc [, options])` and the `_v0` triggers (0.x's definition);
//! - `definition1.rs`: `simhash_v1(doc [, options])` and the `_v1` triggers (1.x's definition);
//! - `definition2.rs`: `simhash_v2(doc [, options])`, the other `_v2` functions and triggers
//!   (2.x's definition, fingerprints and segments);
//! - `options.rs`: the `options jsonb` argument (and the triggers' options, as JSON text);

mod definition0;
mod definition1;
mod definition2;
pub(crate) mod options;
pub(crate) mod pairs;
pub(crate) mod precheck;
pub(crate) mod search;
pub(crate) mod shard;
mod simhash;
mod trigger;

pub(crate) use simhash::simhash_of_text_datum;
