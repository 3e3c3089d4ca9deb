//! Pairs of rows `(id, fingerprint)` within Hamming distance `k`, by Manku, Jain & Das
//! Sarma's tables (WWW 2007), in two modes:
//!
//! - **all pairs**: every pair of one set of rows, streamed ([`Duplicates`]), collected
//!   ([`duplicates`]) or joined into connected components ([`clusters`]);
//! - **star clusters** of any pairs ([`Stars`]), the clusters a DELETE can trust;
//! - **batch against corpus**: every (batch row, corpus row) pair, the batch in memory
//!   in tables ([`BatchTables`], [`Prepared`]) and the corpus streamed past it a chunk at
//!   a time ([`CorpusPairs`]), looked up by the caller or by [`LookupThreads`].
//!
//! Both group identical fingerprints first, cut the 64 bits into blocks and key tables on
//! some of them (module `tables`), choose the number of blocks with a cost model ([`plan()`]),
//! and report to the caller through [`Progress`].

mod all;
mod corpus;
mod plan;
mod star;
mod tables;
#[cfg(test)]
pub(crate) mod test_support;
mod texts;
mod union_find;

pub use all::{clusters, duplicates, Duplicates, BYTES_PER_ROW};
pub use corpus::{
    batch_vs_corpus, bytes_per_batch_row, Advance, BatchTables, ChunkScratch, CorpusPairs, LookupThreads, Prepared,
    Scan,
};
pub use plan::{corpus_plan, corpus_plan_cost, plan, plan_cost, CorpusPlan, Plan, MAX_TABLES};
pub use star::Stars;
pub use texts::Texts;
pub(crate) use union_find::UnionFind;

/// An id that two of `ids` share, if any (`ids` left sorted). Every bulk function refuses a
/// query whose rows repeat an id: its pairs name rows by id, so two rows of one id would make
/// a pair twice or one row's pair another's (`21000`, docs/reference.md, "Errors").
pub fn first_repeated(ids: &mut [i64]) -> Option<i64> {
    ids.sort_unstable();
    ids.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

/// What the searches report to their caller while they run.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A phase starts; the message is human-readable and deterministic (no timings).
    Phase(String),
    /// A unit of bounded work (≤ about a millisecond) is done: a place to check for cancellation.
    Tick,
}

/// Units of work (comparisons, pairs) between two [`Progress::Tick`]s of all pairs.
const TICK_WORK: u64 = 1 << 20;

#[cfg(test)]
mod tests {
    #[test]
    fn repeated_ids() {
        assert_eq!(super::first_repeated(&mut []), None);
        assert_eq!(super::first_repeated(&mut [3, 1, 2]), None);
        assert_eq!(super::first_repeated(&mut [5, 1, 9, 1, 5]), Some(1));
        assert_eq!(super::first_repeated(&mut [i64::MAX, i64::MIN, i64::MAX]), Some(i64::MAX));
    }
}
