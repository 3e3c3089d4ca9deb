//! The PostgreSQL-free core of the `simhash` extension.
//!
//! Everything here is plain Rust and is tested with `cargo test -p simhash-core`;
//! the pgrx crate at the repository root only turns these functions into SQL.
//!
//! The pipeline of `simhash(text)` (README, "Fingerprint definition") is [`fingerprint`](mod@fingerprint):
//! normalize → features (segment, filter, weight) → fold.

pub mod batch;
pub mod batch_corpus;
pub mod blocks;
pub mod corpus_pairs;
pub mod dedup;
pub mod fingerprint;
pub mod hamming;
pub mod lookup_threads;
pub mod nearest;
pub mod shard;

pub use fingerprint::{
    extract, fingerprint, hash_feature, simhash_rules, simhash_text, simhash_text_with, Definition, Feature, Lexicon,
    Options, OptionsError, RawOptions, Rules, Tokenizer, Weighting,
};
pub use hamming::hamming;
