//! Pairs of rows `(id, fingerprint)` within Hamming distance `k`, by Manku, Jain & Das
//! Sarma's tables (WWW 2007), in two modes:
//!
//! - **all pairs**: every pair of one set of rows, streamed ([`Duplicates`]), collected
//!   ([`duplicates`]) or joined into connected components ([`clusters`]);
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
mod tables;
#[cfg(test)]
pub(crate) mod test_support;
mod texts;

pub(crate) use crate::bulk::Progress;
pub use all::{clusters, duplicates, Duplicates, BYTES_PER_ROW};
pub use corpus::{
    batch_vs_corpus, bytes_per_batch_row, Advance, BatchTables, ChunkScratch, CorpusPairs, LookupThreads, Prepared,
    Scan,
};
pub use plan::{corpus_plan, corpus_plan_cost, plan, plan_cost, CorpusPlan, Plan, MAX_TABLES};
pub use texts::Texts;

// Work between two [`Progress::Tick`]s of all pairs: a comparison or a pair is one unit.
use crate::bulk::{Ticker, TICK_WORK};
