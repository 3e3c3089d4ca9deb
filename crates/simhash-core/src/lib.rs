//! The PostgreSQL-free core of the `simhash` extension.
//!
//! Everything here is plain Rust and is tested with `cargo test -p simhash-core`;
//! the pgrx crate at the repository root only turns these functions into SQL.
//!
//! The pipeline of `simhash(text)` (README, "Fingerprint definition"):
//! [`normalize`] → [`features`] (segment, filter, weight) → [`fingerprint`].

pub mod batch;
pub mod batch_corpus;
pub mod corpus_pairs;
pub mod features;
pub mod fingerprint;
pub mod lexicon;
pub mod lookup_threads;
pub mod normalize;
pub mod options;
pub mod search;
pub mod shard;
pub mod trigger;

/// Transitional: the pairs files (shard.rs) still name `crate::blocks`; the merge points
/// them at `crate::search` and drops this alias.
pub(crate) use search as blocks;

pub use features::{extract, Feature, Rules};
pub use fingerprint::{fingerprint, hash_feature};
pub use lexicon::Lexicon;
pub use options::{Definition, Options, OptionsError, Tokenizer, Weighting};
pub use search::hamming;

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
