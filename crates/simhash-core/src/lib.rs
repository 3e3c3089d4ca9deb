//! The PostgreSQL-free core of the `simhash` extension.
//!
//! Everything here is plain Rust and is tested with `cargo test -p simhash-core`;
//! the pgrx crate at the repository root only turns these functions into SQL.
//!
//! One folder per measure, each holding its own phases, text → keys → candidates → one
//! decision (docs/development.md, "Layout"):
//! - [`fingerprints`]: text → 64 bits (docs/fingerprint.md), Hamming search, blocks and
//!   kNN, all pairs and batch-against-corpus pairs, the dedup trigger's keys and check
//!   query, and shard routing;
//! - [`segments`]: resemblance and containment of texts by their segment fingerprints, pairs,
//!   and the segments dedup trigger;
//! - [`similarity`]: the exact measures on character shingles, the keys of `simhash_ops`
//!   and the band keys of `simhash_band_ops`, lookups, bulk pairs (the MinHash banding
//!   engine), shard routing, and the similarity dedup trigger.
//!
//! What the measures share lives in homes named for what they do:
//! - [`text`]: a text's normal form (NFKC, lowercase, traditional characters folded) and the
//!   pieces a long text is read in, which every measure and the decision read;
//! - [`decision`]: whether two texts are the same passage, by where they differ: one entry
//!   point ([`decision::decide`]) with a version, which the dedup triggers and the bulk pairs
//!   and clusters of similarity and fingerprints ask;
//! - [`trigger`]: the dedup triggers' argument grammar, lock-key hash and check-query target;
//! - [`threshold`]: the one validation of a similarity, containment or resemblance threshold;
//! - [`bulk`]: progress and the one cadence of cancellation checks ([`bulk::Ticker`]), the id
//!   check, union-find and components, star clusters, and the spill file of a bulk run's texts;
//! - [`shard`]: the checks of the sharded functions' shard arguments.

pub mod bulk;
pub mod decision;
pub mod fingerprints;
pub mod segments;
pub mod shard;
pub mod similarity;
pub mod text;
pub mod threshold;
pub mod trigger;

// The property tests on arbitrary input (tests/fuzz.rs) run in the library's test binary,
// through the public paths they name: as an integration test they made cargo build the
// library a second time, without cfg(test) (25 of the core step's 111 s from cold).
#[cfg(test)]
extern crate self as simhash_core;
#[cfg(test)]
#[path = "../tests/fuzz.rs"]
mod fuzz;

pub use bulk::{Components, Progress};
pub use fingerprints::pairs::{Advance, CorpusPairs, Duplicates, LookupThreads, Prepared};
pub use fingerprints::search::hamming;
pub use fingerprints::{
    extract, fingerprint, hash_feature, segment_texts_with, segments, segments_with, simhash_rules, simhash_text,
    simhash_text_with, Definition, Feature, Lexicon, Options, OptionsError, RawOptions, Rules, SegmentText, Tokenizer,
    Weighting,
};
pub use segments::{containment, explain, resemblance, Explained, Near, Overlap, Partner};
