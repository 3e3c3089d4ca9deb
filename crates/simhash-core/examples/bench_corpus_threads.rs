//! Batch against corpus at k = 3, end to end (batch grouped, tables built, corpus fed and
//! every pair taken) by the caller and by 1 to 3 lookup threads, next to the lookups
//! alone in the caller's thread and a plain sequential pass over the corpus, all in the
//! same run. Wall time (the sequential pass: CPU time); on a machine with fewer free
//! cores than threads the threads only share them.
//!
//!     cargo run --release -p simhash-core --example bench_corpus_threads -- [batch_rows] [corpus_rows]
//!
//! Defaults: a 1M batch, a 4M corpus (about a minute).

mod common;

use std::time::Duration;

use common::{arg, batch, corpus, figure, look_up, sequential_pass, Watch};
use simhash_core::fingerprints::pairs::{Advance, BatchTables, CorpusPairs, LookupThreads, Prepared};

fn main() {
    let (nb, nc) = (arg(1, 1_000_000), arg(2, 4_000_000));
    let (batch, corpus) = (batch(nb), corpus(nc));
    let fps: Vec<u64> = corpus.iter().map(|r| r.1).collect();
    let base = sequential_pass(&fps);
    println!("batch {nb}, corpus {nc}, k = 3; sequential pass {base:.2} ns/row");
    let t = BatchTables::new(batch.iter().copied(), 3, &mut |_| {});
    let alone = look_up(&t, &fps, t.chunk_rows(), Watch::wall);
    println!("lookups alone, chunks of {}: {}", t.chunk_rows(), figure(alone, base));
    drop(t);
    for threads in [0, 1, 2, 3] {
        let watch = Watch::wall();
        let prepared = Prepared::new(batch.iter().copied(), 3, &mut |_| {});
        let mut p = CorpusPairs::start(prepared, LookupThreads::start(threads), &mut |_| {});
        let mut pairs = Vec::new();
        for c in corpus.chunks(p.chunk_rows()) {
            while !p.wants_chunk() {
                if p.advance(Duration::from_secs(60)) == Advance::Ready {
                    pairs.extend(std::iter::from_fn(|| p.next_pending()));
                }
            }
            p.feed(c);
        }
        p.drain_into(&mut pairs);
        let ns = watch.ns_per_row(corpus.len());
        println!(
            "{threads} threads, end to end: {}, {:.2}x the lookups alone, {} pairs",
            figure(ns, base),
            ns / alone,
            pairs.len()
        );
    }
}
