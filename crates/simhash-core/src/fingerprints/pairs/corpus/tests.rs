//! Batch against corpus, end to end and part by part, against brute force.

use std::time::Duration;

use proptest::prelude::*;

use super::scan::Scan;
use super::stream::collect;
use super::threads::{Chunk, LookupThreads};
use super::*;
use crate::bulk::test_support::nop;
use crate::fingerprints::pairs::test_support::{brute_corpus, planted_corpus};
use crate::fingerprints::pairs::{corpus_plan, CorpusPlan};

#[test]
fn exact_for_every_k() {
    let (b, c) = planted_corpus(11, 300, 700, 9);
    for k in 0..=64 {
        assert_eq!(batch_vs_corpus(b.clone(), c.clone(), k, &mut nop), brute_corpus(&b, &c, k), "k={k}");
    }
}

#[test]
fn every_block_plan_is_exact() {
    let (b, c) = planted_corpus(5, 400, 600, 10);
    for k in 0..=8u32 {
        let want = brute_corpus(&b, &c, k);
        let mut plans = vec![CorpusPlan::BruteForce];
        plans.extend((k + 1..=(k + 4)).map(|m| CorpusPlan::Blocks { m, a: m - k }));
        if k == 0 {
            plans.push(CorpusPlan::Blocks { m: 1, a: 1 });
        }
        for plan in plans {
            let t = BatchTables::with_plan(b.clone(), k, plan, &mut nop);
            assert_eq!(collect(CorpusPairs::new(t), c.clone()), want, "k={k} {plan:?}");
        }
    }
}

#[test]
fn large_batch_uses_tables() {
    let (b, c) = planted_corpus(9, 20_000, 5_000, 4);
    let t = BatchTables::new(b.clone(), 3, &mut nop);
    assert!(matches!(t.plan(), CorpusPlan::Blocks { .. }), "{:?}", t.plan());
    let got = collect(CorpusPairs::new(t), c.clone());
    assert_eq!(got, brute_corpus(&b, &c, 3));
    assert!(got.len() > 1000);
}

#[test]
fn every_scan_and_chunk_size_is_exact() {
    // 70,000 distinct batch fingerprints in 4 tables: buckets of the whole 16-bit key;
    // and 3,000 in 10 tables of 25-bit keys, buckets narrower than the key. Each with
    // and without chunks sorted for the tables, with every scan, chunks of 1 to all.
    for (nb, nc, plan) in
        [(70_000, 4_000, CorpusPlan::Blocks { m: 4, a: 1 }), (3_000, 5_000, CorpusPlan::Blocks { m: 5, a: 2 })]
    {
        let (b, c) = planted_corpus(17, nb, nc, 4);
        let want = brute_corpus(&b, &c, 3);
        for (scan, sorted) in Scan::available().into_iter().flat_map(|s| [(s, false), (s, true)]) {
            let mut t = BatchTables::with_plan(b.clone(), 3, plan, &mut nop);
            t.scan = scan;
            for x in &mut t.tables {
                x.sort_bits = if sorted { x.bucket_bits } else { 0 };
            }
            for (size, threads) in [(1, 0), (1000, 0), (c.len(), 0), (1, 2), (1000, 3)] {
                let mut p = CorpusPairs::with_threads(t, threads);
                let mut got = p.feed_all(&c, size);
                got.sort_unstable();
                assert_eq!(got, want, "{nb} {scan:?} sorted={sorted} chunks of {size}, {threads} threads");
                t = p.into_tables();
            }
        }
    }
}

#[test]
fn identical_fingerprints_and_same_ids_on_both_sides() {
    // 50 copies in the batch, 20 in the corpus, ids shared across the sides.
    let b: Vec<(i64, u64)> = (0..50).map(|id| (id, 0xDEAD)).chain([(60, 0xDEAC)]).collect();
    let c: Vec<(i64, u64)> = (0..20).map(|id| (id, 0xDEAD)).chain([(70, u64::MAX)]).collect();
    let got = batch_vs_corpus(b.clone(), c.clone(), 1, &mut nop);
    assert_eq!(got.len(), 51 * 20);
    assert!(got.contains(&(7, 7, 0)) && got.contains(&(60, 3, 1)));
    assert_eq!(got, brute_corpus(&b, &c, 1));
}

#[test]
fn empty_sides() {
    let (b, c) = planted_corpus(3, 50, 50, 3);
    assert!(batch_vs_corpus(Vec::new(), c, 3, &mut nop).is_empty());
    assert!(batch_vs_corpus(b, Vec::new(), 3, &mut nop).is_empty());
    assert_eq!(corpus_plan(0, 3), CorpusPlan::Empty);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn matches_brute_force(seed: u64, nb in 0usize..150, nc in 0usize..150, flips in 0u32..12, k in 0u32..=8) {
        let (b, c) = planted_corpus(seed, nb, nc, flips);
        prop_assert_eq!(batch_vs_corpus(b.clone(), c.clone(), k, &mut nop), brute_corpus(&b, &c, k));
    }

    #[test]
    fn forced_block_plans_match(seed: u64, k in 0u32..12, extra in 1u32..5) {
        let (b, c) = planted_corpus(seed, 120, 200, k + 2);
        let m = (k + extra).min(64);
        let t = BatchTables::with_plan(b.clone(), k, CorpusPlan::Blocks { m, a: m - k }, &mut nop);
        prop_assert_eq!(collect(CorpusPairs::new(t), c.clone()), brute_corpus(&b, &c, k));
    }
}

#[test]
fn streams_one_corpus_row_at_a_time() {
    let b = vec![(1, 0u64), (2, 0), (3, 1)];
    let mut p = CorpusPairs::new(BatchTables::new(b, 1, &mut nop));
    p.feed(&[(10, 0), (11, u64::MAX), (12, 1)]);
    assert!(!p.wants_chunk(), "inline: one chunk at a time");
    assert_eq!(p.next_pending(), None, "not current before advance");
    assert_eq!(p.advance(Duration::ZERO), Advance::Ready);
    let mut got = Vec::new();
    while let Some(x) = p.next_pending() {
        got.push(x);
    }
    assert_eq!(p.advance(Duration::ZERO), Advance::Idle);
    // Corpus row by corpus row, in the chunk's order.
    assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>(), vec![10, 10, 10, 12, 12, 12]);
    got.sort_unstable();
    assert_eq!(got, vec![(1, 10, 0), (1, 12, 1), (2, 10, 0), (2, 12, 1), (3, 10, 1), (3, 12, 0)]);
    p.feed(&[(13, u64::MAX)]);
    assert_eq!(p.advance(Duration::ZERO), Advance::Ready);
    assert_eq!(p.next_pending(), None);
    assert_eq!((p.emitted, p.fed), (6, 4));
}

#[test]
fn threads_keep_the_order_of_chunks() {
    // Chunks of one row each, 3 workers: the pairs come out exactly as inline, chunk by
    // chunk in the order fed, whichever worker finishes first.
    let (b, c) = planted_corpus(21, 2_000, 3_000, 3);
    // The batch grouped and the tables built by the workers while the first chunks are
    // fed (start_rows), or only the tables (start).
    let run = |threads: usize, grouped_here: bool| {
        let mut p = if grouped_here {
            CorpusPairs::start(Prepared::new(b.clone(), 3, &mut nop), LookupThreads::start(threads), &mut nop)
        } else {
            CorpusPairs::start_rows(b.clone(), 3, LookupThreads::start(threads), &mut nop)
        };
        assert_eq!(p.threads(), threads);
        let got = p.feed_all(&c, 1);
        let phase = p.phase();
        assert_eq!(phase.is_some(), threads > 0 && !grouped_here, "{phase:?}: the workers' plan, reported once");
        if let Some(msg) = phase {
            assert_eq!(msg, Prepared::new(b.clone(), 3, &mut nop).describe());
        }
        (got, p.work)
    };
    let inline = run(0, true);
    assert!(inline.0.len() > 500, "{}", inline.0.len());
    assert_eq!(run(0, false), inline);
    assert_eq!(run(3, true), inline);
    assert_eq!(run(2, false), inline);
    let mut sorted = inline.0.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, brute_corpus(&b, &c, 3));
}

#[test]
fn workers_with_no_tables_to_build() {
    // Brute force (a tiny batch) and an empty batch: no table for the workers to build.
    for (nb, k) in [(3, 3), (0, 3), (40, 9)] {
        let (b, c) = planted_corpus(29, nb, 500, 4);
        let prepared = Prepared::new(b.clone(), k, &mut nop);
        let mut p = CorpusPairs::start(prepared, LookupThreads::start(2), &mut nop);
        assert!(p.tables().is_some(), "ready at once");
        let mut q = CorpusPairs::start_rows(b.clone(), k, LookupThreads::start(2), &mut nop);
        let mut got_q = q.feed_all(&c, 64);
        got_q.sort_unstable();
        assert_eq!(got_q, brute_corpus(&b, &c, k), "{nb} batch rows, k={k}, grouped by a worker");
        let mut got = p.feed_all(&c, 64);
        got.sort_unstable();
        assert_eq!(got, brute_corpus(&b, &c, k), "{nb} batch rows, k={k}");
    }
}

#[test]
fn a_panicking_worker_is_an_error_not_a_hang() {
    let (b, c) = planted_corpus(23, 100, 100, 3);
    let mut p = CorpusPairs::with_threads(BatchTables::new(b, 3, &mut nop), 2);
    p.feed(&c);
    p.waiting.push_back(Chunk { panic_for_test: true, ..Chunk::default() });
    p.pump();
    let got = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let mut out = Vec::new();
        p.drain_into(&mut out);
    }));
    let msg = got.expect_err("the worker's panic reaches the caller");
    let msg = msg.downcast_ref::<String>().cloned().unwrap_or_default();
    assert!(msg.contains("a lookup thread panicked: poisoned for the test"), "{msg}");
}
