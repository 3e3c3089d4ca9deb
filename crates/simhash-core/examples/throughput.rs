//! Throughput (MB per CPU-second) of the pure-Rust pipeline on one core, next to its own baseline:
//! jieba-rs `cut` alone (the tokenizer limit) on the same text in the same run.
//!
//!     cargo run --release -p simhash-core --example throughput -- target/corpus/peoples_daily_199801.txt
//!
//! Prints `name  MB/s` lines; `make bench` compares the in-database figure with `cut`,
//! definition 1 with definition 0, and definition 2 (the default, which folds traditional
//! characters) with definition 1, from the same run.
//! `BREAKDOWN=1` adds the cost of each stage; `PROFILE_SIMHASH=N` runs only
//! `simhash_text`, N times, for `perf record`.

use std::time::Instant;

use simhash_core::{Lexicon, Options};

mod common;

/// Seconds this thread has spent on a CPU ([`common::thread_cpu_ns`]).
fn cpu_seconds() -> f64 {
    common::thread_cpu_ns() / 1e9
}

/// Best on-CPU time of `reps` runs of `f`.
fn best_of<F: FnMut() -> u64>(reps: usize, mut f: F) -> (f64, u64) {
    let mut best = f64::INFINITY;
    let mut check = 0;
    for _ in 0..reps {
        let t = cpu_seconds();
        check = f();
        best = best.min(cpu_seconds() - t);
    }
    (best, check)
}

fn main() {
    let path = std::env::args().nth(1).expect("usage: throughput CORPUS.txt");
    let text = std::fs::read_to_string(&path).expect("read corpus");
    let docs: Vec<&str> = text.lines().collect();
    let mb = text.len() as f64 / 1e6;

    // The first non-ASCII text builds normalize's per-character table.
    let t = cpu_seconds();
    simhash_core::text::normalize("\u{FF21}");
    println!("normalize_init_cpu_ms {:.1}", (cpu_seconds() - t) * 1e3);
    let t = Instant::now();
    let lex = Lexicon::global();
    println!("lexicon_load_ms {:.1}", t.elapsed().as_secs_f64() * 1e3);

    if let Ok(reps) = std::env::var("PROFILE_SIMHASH") {
        // Only simhash_text, for `perf record`: `cut` alone would blur the profile.
        let options = Options::default();
        let reps: usize = reps.parse().expect("PROFILE_SIMHASH=repetitions");
        let (t, x) = best_of(reps, || xor_all(&docs, &options));
        println!("simhash_rust_best_ms {:.1} (xor {x:x})", t * 1e3);
        return;
    }
    // Interleaved, so that a slow spell of the shared machine (another process on the
    // other core, a frequency change) weighs on both sides of the ratio alike.
    // `full` is the default, definition 2; `v1` what it was in 1.x, the same text unfolded.
    let (v2, v1, v0) = (Options::default(), Options::v1(), Options::v0());
    let (mut cut, mut full, mut one, mut old) = (f64::INFINITY, f64::INFINITY, f64::INFINITY, f64::INFINITY);
    let (mut n, mut x, mut x1, mut x0) = (0, 0, 0, 0);
    for _ in 0..3 {
        let (t, c) = best_of(1, || docs.iter().map(|d| lex.jieba.cut(d, false).len() as u64).sum());
        (cut, n) = (cut.min(t), c);
        let (t, c) = best_of(1, || xor_all(&docs, &v2));
        (full, x) = (full.min(t), c);
        let (t, c) = best_of(1, || xor_all(&docs, &v1));
        (one, x1) = (one.min(t), c);
        let (t, c) = best_of(1, || xor_all(&docs, &v0));
        (old, x0) = (old.min(t), c);
    }
    println!("jieba_cut_MBps {:.2} ({n} tokens)", mb / cut);
    println!("simhash_rust_MBps {:.2} (xor {x:x})", mb / full);
    println!("simhash_v1_rust_MBps {:.2} (xor {x1:x})", mb / one);
    println!("simhash_v0_rust_MBps {:.2} (xor {x0:x})", mb / old);
    println!("simhash_rust_over_cut {:.2}", cut / full);
    println!("simhash_v1_over_v0 {:.3}", old / one);
    println!("simhash_v2_over_v1 {:.3}", one / full);
    if std::env::var("BREAKDOWN").is_ok() {
        breakdown(&docs, mb);
    }
}

/// XOR of the fingerprints of `docs` (0 for a text without one): keeps the work observable.
fn xor_all(docs: &[&str], options: &Options) -> u64 {
    let lex = Lexicon::global();
    docs.iter().fold(0u64, |a, d| a ^ simhash_core::simhash_text(lex, d, options).unwrap_or(0))
}

#[allow(dead_code)]
pub fn breakdown(docs: &[&str], mb: f64) {
    let lex = Lexicon::global();
    // Ten passes per timing: one pass is a few CPU-clock ticks (~4 ms).
    let (norm, _) = best_of(3, || {
        (0..10).map(|_| docs.iter().map(|d| simhash_core::text::normalize(d).len() as u64).sum::<u64>()).sum()
    });
    println!("normalize_MBps {:.2}", 10.0 * mb / norm);
    let (folded, _) = best_of(3, || {
        (0..10).map(|_| docs.iter().map(|d| simhash_core::text::normalize_folded(d).len() as u64).sum::<u64>()).sum()
    });
    println!("normalize_folded_MBps {:.2}", 10.0 * mb / folded);
    let normed: Vec<String> = docs.iter().map(|d| simhash_core::text::normalize(d).into_owned()).collect();
    let (cutn, _) = best_of(3, || normed.iter().map(|d| lex.jieba.cut(d, false).len() as u64).sum());
    println!("cut_normalized_MBps {:.2}", mb / cutn);
    let o = Options::default();
    let (a, _) = best_of(3, || {
        normed
            .iter()
            .map(|d| {
                lex.jieba.cut(d, false).iter().fold(0u64, |a, t| a ^ simhash_core::hash_feature(t.word.as_bytes()))
            })
            .sum()
    });
    println!("cut_hash_tokens_MBps {:.2}", mb / a);
    let (a, _) = best_of(3, || {
        normed
            .iter()
            .map(|d| {
                lex.jieba
                    .cut(d, false)
                    .iter()
                    .fold(0u64, |a, t| a + lex.lookup(simhash_core::hash_feature(t.word.as_bytes())).is_some() as u64)
            })
            .sum()
    });
    println!("cut_hash_lookup_every_token_MBps {:.2}", mb / a);
    let (ex, _) = best_of(3, || normed.iter().map(|d| simhash_core::extract(lex, d, &(&o).into()).len() as u64).sum());
    println!("extract_normalized_MBps {:.2}", mb / ex);
    let feats: Vec<Vec<(u64, f64)>> = normed
        .iter()
        .map(|d| simhash_core::extract(lex, d, &(&o).into()).iter().map(|f| (f.hash, f.weight)).collect())
        .collect();
    let n: usize = feats.iter().map(Vec::len).sum();
    // Twenty passes per timing, as one pass is about one CPU-clock tick.
    let (fold, _) = best_of(5, || {
        (0..20).fold(0, |a, _| {
            feats.iter().fold(a, |a, f| a ^ std::hint::black_box(simhash_core::fingerprint(f.iter().copied())))
        })
    });
    println!("fold_ns_per_feature {:.2} ({n} features)", fold * 1e9 / 20.0 / n as f64);
    let (look, _) = best_of(5, || {
        (0..20).fold(0, |a, _| {
            feats.iter().flatten().fold(a, |a, &(h, _)| a + std::hint::black_box(lex.lookup(h)).is_some() as u64)
        })
    });
    println!("lookup_ns_per_feature {:.2}", look * 1e9 / 20.0 / n as f64);
}
