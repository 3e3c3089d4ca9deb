//! The PostgreSQL-free core of the `simhash` extension.
//!
//! Everything here is plain Rust and is tested with `cargo test -p simhash-core`;
//! the pgrx crate at the repository root only turns these functions into SQL.
//!
//! Data flows one way, one concept per module (docs/development.md, "Layout"):
//! - [`fingerprint`](mod@fingerprint): text → normalize → features (segment, filter, weight) → fold → 64 bits
//!   (docs/fingerprint.md);
//! - [`search`]: Hamming distance, pigeonhole blocks and probes (recall), exact nearest neighbours;
//! - [`pairs`]: every pair within k, of one set (all pairs, clusters) or of a batch against a corpus;
//! - [`segments`]: resemblance and containment of texts by their segment fingerprints;
//! - [`similarity`]: the exact measures on character shingles, the keys of `simhash_ops` and
//!   the band keys of `simhash_band_ops`, lookups, and the bulk engine (MinHash banding);
//! - [`decision`]: whether two texts are the same passage, by where they differ, which every
//!   dedup path asks; [`spill`]: the temporary file of a bulk run's texts;
//! - [`trigger`]: the dedup triggers' arguments, lock keys and pre-check;
//! - [`shard`]: routing block keys to shards, on top of `search` and `pairs`.

pub mod decision;
pub mod fingerprint;
pub mod pairs;
pub mod search;
pub mod segments;
pub mod shard;
pub mod similarity;
pub mod spill;
pub mod trigger;

pub use fingerprint::{
    extract, fingerprint, hash_feature, segment_texts_with, segments, segments_with, simhash_rules, simhash_text,
    simhash_text_with, Definition, Feature, Lexicon, Options, OptionsError, RawOptions, Rules, SegmentText, Tokenizer,
    Weighting,
};
pub use pairs::{Advance, CorpusPairs, Duplicates, LookupThreads, Prepared, Progress};
pub use search::hamming;
pub use segments::{containment, explain, resemblance, Explained, Near, Overlap, Partner};
pub use shard::Components;
