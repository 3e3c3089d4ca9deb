//! Batch against corpus: every (batch row, corpus row) pair within Hamming distance
//! `k`, with the batch in memory and the corpus streamed past it once (Manku, Jain &
//! Das Sarma, WWW 2007, section 4, batch query mode with the small side in the tables).
//!
//! 1. The batch rows are grouped by identical fingerprint (as in all pairs), so a
//!    corpus fingerprint is compared with each distinct batch fingerprint once and the
//!    group's ids are paired without further work.
//! 2. The 64 bits are split into `m` blocks; a pair within `k` agrees on at least
//!    `a = m - k` of them. For each of the `C(m, a)` choices of `a` blocks a table holds
//!    the distinct batch fingerprints permuted so that those blocks are the top bits,
//!    sorted, with a bucket index on the top bits of the key (`2^p` offsets, `p` about
//!    `log2(batch)`), so looking a corpus fingerprint up is one permute, one bucket and a
//!    scan of the (few) entries with the same key.
//! 3. A candidate is compared exactly, and kept only by its canonical table: the one keyed
//!    on the `a` lowest-indexed blocks on which the pair agrees (the rule of the one-table
//!    form), so each (distinct batch fingerprint, corpus row) pair is found once.
//!
//! The corpus is looked up a chunk of rows at a time ([`BatchTables::chunk_rows`]): for
//! each table bigger than the cache the chunk is permuted and radix-sorted on the bucket
//! bits, so the lookups sweep the table in order (the merge of sorted lists of Manku's
//! batch mode, in effect), and where the CPU has AVX-512 each bucket's entries are
//! filtered 16 at a time on 32 of their bits before any is compared whole. The chunks are
//! looked up in worker threads while the caller reads the next ones, if it asks for
//! them ([`LookupThreads`]).
//!
//! `m` comes from a cost model per corpus row: a table costs a permute, a sort and a
//! lookup, plus one comparison per candidate (`batch / 2^key_bits` on random data).
//! Comparing with every distinct batch fingerprint is a plan too (tiny batches, large
//! `k`); `k = 0` is one table keyed on all 64 bits. The number of tables is capped at
//! [`super::MAX_TABLES`], which bounds the memory: see [`bytes_per_batch_row`]. Every plan is
//! exact for every `k`.
//!
//! The corpus is never held whole: [`CorpusPairs::feed`] takes one chunk (a few are in
//! flight with worker threads) and [`CorpusPairs::next_pending`] hands out their pairs
//! one at a time.
//!
//! The parts, each depending only on those before it: `index` (a table's sorted,
//! bucketed entries) and `scan` (the comparisons) ← `prepared` and `tables` (the batch
//! side) ← `threads` (where the lookups run) ← `stream` ([`CorpusPairs`]).

mod index;
mod prepared;
mod scan;
mod stream;
mod tables;
#[cfg(test)]
mod tests;
mod threads;

pub use prepared::{bytes_per_batch_row, Prepared};
pub use scan::Scan;
pub use stream::{batch_vs_corpus, Advance, CorpusPairs};
pub use tables::{BatchTables, ChunkScratch};
pub use threads::LookupThreads;
