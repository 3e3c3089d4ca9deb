//! Batch against corpus at k = 3: 4 tables (16-bit keys) against 10 (25-bit keys) as the
//! batch grows, with the scan this CPU runs best, next to the cost model's figures
//! (`corpus_plan_cost`, in comparisons per corpus row). The model says 4 tables win up to
//! about 6M batch rows; the measured ratio 10 tables / 4 tables checks it.
//!
//!     cargo run --release -p simhash-core --example bench_corpus_crossover -- [corpus_rows] [batch_rows...]
//!
//! Defaults: a 1M corpus against batches of 1, 2 and 4M rows (a few minutes, about 1 GB).

mod common;

use common::{arg, batch, corpus, figure, look_up, sequential_pass, Watch};
use simhash_core::fingerprints::pairs::{corpus_plan_cost, BatchTables, CorpusPlan};

fn main() {
    let fps: Vec<u64> = corpus(arg(1, 1_000_000)).into_iter().map(|r| r.1).collect();
    let mut sizes: Vec<usize> = (2..std::env::args().len()).map(|i| arg(i, 0)).collect();
    if sizes.is_empty() {
        sizes = vec![1 << 20, 1 << 21, 1 << 22];
    }
    let base = sequential_pass(&fps);
    println!("corpus {}, k = 3; sequential pass {base:.2} ns/row", fps.len());
    for n in sizes {
        let batch = batch(n);
        let mut measured = Vec::new();
        let mut line = Vec::new();
        for plan in [CorpusPlan::Blocks { m: 4, a: 1 }, CorpusPlan::Blocks { m: 5, a: 2 }] {
            let t = BatchTables::with_plan(batch.iter().copied(), 3, plan, &mut |_| {});
            let ns = look_up(&t, &fps, t.chunk_rows(), Watch::cpu);
            let model = corpus_plan_cost(plan, n);
            measured.push((ns, model));
            line.push(format!("{plan:?} {} (model {model:.0})", figure(ns, base)));
        }
        let ((ns4, m4), (ns10, m10)) = (measured[0], measured[1]);
        println!("batch {n}: {}; 10/4 tables {:.2} (model {:.2})", line.join(", "), ns10 / ns4, m10 / m4);
    }
}
