//! Fingerprints: a text's 64-bit SimHash and everything that compares texts by the Hamming
//! distance of theirs (docs/fingerprint.md, docs/fingerprints.md). One folder per phase:
//! - `value`: text → normalize → features (segment, filter, weight) → fold → 64 bits, and a
//!   text's segment fingerprints; its API is re-exported here;
//! - [`search`]: Hamming distance, pigeonhole blocks and probes (recall), exact nearest
//!   neighbours;
//! - [`pairs`]: every pair within k, of one set (all pairs, clusters) or of a batch against
//!   a corpus;
//! - [`trigger`]: the dedup triggers' lock keys, check query and index pre-check;
//! - [`shard`]: routing block keys to shards, on top of `search`.

mod value;

pub mod pairs;
pub mod search;
pub mod shard;
pub mod trigger;

pub use value::*;
