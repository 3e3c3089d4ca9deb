//! Exact text similarity (docs/similarity.md): text → shingles → sets → measure, and the
//! keys an index finds candidates by. One module per step:
//! - [`shingles`]: normalization and the shingle stream;
//! - [`measure`]: similarity and containment, exact on two texts' sets;
//! - [`decide`]: a measure against a threshold, one text held and the other streamed;
//! - [`frame_keys`]: a template's keys, learned from its rows, and the lookup that skips them;
//! - [`frequent`]: the shingles that are no index keys;
//! - [`keys`]: bottom-k and winnowed keys, and how many a lookup requires;
//! - [`lookup`]: what an index lookup asks for, and what it guarantees;
//! - [`band_lookup`]: the same for the band index, whose keys are the bulk engine's bands;
//! - [`pairs`]: every pair at a threshold in bulk, and their clusters;
//! - [`bulk`]: the same in linear time and bounded memory per row, by MinHash banding;
//! - [`shard`]: where a text's copies go across shards, and which shard reports a pair;
//! - [`trigger`]: the arguments, lock keys and check query of the similarity dedup trigger;
//! - [`explain`]: every shingle of two texts, and which has it;
//! - [`exact`]: every pair at a threshold, by prefix filtering (the brute force of tests).

pub mod at_least;
pub mod band_lookup;
pub mod bulk;
pub mod exact;
pub mod explain;
pub mod frame_keys;
pub mod frequent;
pub mod keys;
pub mod lookup;
pub mod measure;
pub mod pairs;
pub mod shard;
pub mod shingles;
pub mod trigger;

pub use at_least::AtLeast;
pub use keys::{index_keys, required, sample, similarity_keys, text_keys, KeyParams, Sample};
pub use lookup::{lookup, lookup_either_way, Lookup};
pub use measure::{containment, shingle_set, similarity, Measure, Sets};
pub use pairs::{similarity_clusters, SimilarityPair, SimilarityPairs, TextRows};
pub use shingles::Version;
