//! The PostgreSQL-free core of the `simhash` extension.
//!
//! Everything here is plain Rust and is tested with `cargo test -p simhash-core`;
//! the pgrx crate at the repository root only turns these functions into SQL.
//!
//! The pipeline of `simhash(text)` (README, "Fingerprint definition"):
//! [`normalize`] → [`features`] (segment, filter, weight) → [`fingerprint`].

pub mod batch;
pub mod blocks;
pub mod dedup;
pub mod features;
pub mod fingerprint;
pub mod hamming;
pub mod lexicon;
pub mod normalize;
pub mod options;

pub use features::{extract, Feature};
pub use fingerprint::{fingerprint, hash_feature};
pub use hamming::hamming;
pub use lexicon::Lexicon;
pub use options::{Options, OptionsError, Tokenizer, Weighting};

/// Fingerprint of a document under `options`: normalize, extract weighted features, fold.
pub fn simhash_text(lexicon: &Lexicon, doc: &str, options: &Options) -> u64 {
    features::fingerprint_normalized(lexicon, &normalize::normalize(doc), options)
}
