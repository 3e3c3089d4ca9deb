//! Batch against corpus: lookup time per corpus row for each plan at k = 3 (4, 10 and 20
//! tables), with every scan this CPU runs and three chunk sizes, and one row at a time;
//! each next to a plain sequential pass over the same corpus in the same run.
//!
//!     cargo run --release -p simhash-core --example bench_corpus_plans -- [batch_rows] [corpus_rows]
//!
//! Defaults: a 1M batch, a 2M corpus (about a minute). Prints one line per plan and scan:
//! `ns/row (ratio to the sequential pass)` for each chunk size, the chunk size
//! `BatchTables::chunk_rows` chooses in the middle.

mod common;

use common::{arg, batch, corpus, figure, look_up, sequential_pass, Watch};
use simhash_core::fingerprints::pairs::{BatchTables, CorpusPlan, Scan};

fn main() {
    let (nb, nc) = (arg(1, 1_000_000), arg(2, 2_000_000));
    let batch = batch(nb);
    let fps: Vec<u64> = corpus(nc).into_iter().map(|r| r.1).collect();
    let base = sequential_pass(&fps);
    println!("batch {nb}, corpus {nc}, k = 3; sequential pass {base:.2} ns/row");
    for plan in
        [CorpusPlan::Blocks { m: 4, a: 1 }, CorpusPlan::Blocks { m: 5, a: 2 }, CorpusPlan::Blocks { m: 6, a: 3 }]
    {
        let mut t = BatchTables::with_plan(batch.iter().copied(), 3, plan, &mut |_| {});
        for scan in Scan::available() {
            t = t.with_scan(scan);
            let mut line = Vec::new();
            for size in [16384, t.chunk_rows(), 1 << 20] {
                line.push(format!("chunks of {size} {}", figure(look_up(&t, &fps, size, Watch::cpu), base)));
            }
            // One row at a time, on an eighth of the corpus.
            let some = &fps[..fps.len() / 8];
            let (watch, mut one) = (Watch::cpu(), Vec::new());
            for &fp in some {
                one.clear();
                t.groups_near(fp, &mut one);
            }
            line.push(format!("one at a time {}", figure(watch.ns_per_row(some.len()), base)));
            println!("{plan:?} {scan:?}: {}", line.join(", "));
        }
    }
}
