//! The PostgreSQL-free core of the `simhash` extension.
//!
//! Everything here is plain Rust and is tested with `cargo test -p simhash-core`;
//! the pgrx crate at the repository root only turns these functions into SQL.
//!
//! The pipeline of `simhash(text)` (README, "Fingerprint definition"):
//! [`normalize`] → [`features`] (segment, filter, weight) → [`fingerprint`].

pub mod blocks;
pub mod dedup;
pub mod features;
pub mod fingerprint;
pub mod hamming;
pub mod lexicon;
pub mod nearest;
pub mod normalize;
pub mod options;
pub mod pairs;
pub mod shard;

pub use features::{extract, Feature, Rules};
pub use fingerprint::{fingerprint, hash_feature};
pub use hamming::hamming;
pub use lexicon::Lexicon;
pub use options::{Definition, Options, OptionsError, Tokenizer, Weighting};
pub use pairs::{Advance, CorpusPairs, Duplicates, LookupThreads, Prepared, Progress};
pub use shard::Components;

/// Fingerprint of a document under `options`: normalize, extract weighted features, fold.
/// `None` (SQL NULL) when the text has fewer than `options.min_features` features.
pub fn simhash_text(lexicon: &Lexicon, doc: &str, options: &Options) -> Option<u64> {
    simhash_rules(lexicon, doc, &Rules::from(options))
}

/// [`simhash_text`], calling `tick` between the pieces in which a long text (over
/// [`features::PIECE_BYTES`]) is normalized and segmented, with the same result: the
/// SQL layer checks for query cancellation there.
pub fn simhash_text_with(lexicon: &Lexicon, doc: &str, options: &Options, tick: &mut dyn FnMut()) -> Option<u64> {
    let normalized = normalize::normalize_pieces(doc, features::PIECE_BYTES, tick);
    features::fingerprint_normalized_with(lexicon, &normalized, &Rules::from(options), tick)
}

/// [`simhash_text`] under explicit [`Rules`] (`make quality` measures candidates this way).
pub fn simhash_rules(lexicon: &Lexicon, doc: &str, rules: &Rules) -> Option<u64> {
    features::fingerprint_normalized(lexicon, &normalize::normalize(doc), rules)
}
