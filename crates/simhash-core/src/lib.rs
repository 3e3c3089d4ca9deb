//! The PostgreSQL-free core of the `simhash` extension.
//!
//! Everything here is plain Rust and is tested with `cargo test -p simhash-core`;
//! the pgrx crate at the repository root only turns these functions into SQL.
//!
//! The pipeline of `simhash(text)` (README, "Fingerprint definition") is [`fingerprint`](mod@fingerprint):
//! normalize → features (segment, filter, weight) → fold.

pub mod batch;
pub mod batch_corpus;
pub mod corpus_pairs;
pub mod fingerprint;
pub mod lookup_threads;
pub mod search;
pub mod shard;
pub mod trigger;

/// Transitional: the pairs files (shard.rs) still name `crate::blocks`; the merge points
/// them at `crate::search` and drops this alias.
pub(crate) use search as blocks;

pub use fingerprint::{
    extract, fingerprint, hash_feature, simhash_rules, simhash_text, simhash_text_with, Definition, Feature, Lexicon,
    Options, OptionsError, RawOptions, Rules, Tokenizer, Weighting,
};
pub use search::hamming;
