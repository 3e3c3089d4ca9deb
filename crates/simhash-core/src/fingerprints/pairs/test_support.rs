//! The oracles the fingerprint pair searches are tested against, one copy each: brute
//! force for all pairs and for a batch against a corpus, and random rows with planted near
//! copies (the shared ones, random numbers and components, are `crate::bulk::test_support`).

use crate::bulk::test_support::Rng;
use crate::fingerprints::search::hamming;

impl Rng {
    /// One time in three (when `from` has rows) a near copy of a random row of `from`, up
    /// to `flips` random bits flipped (a bit may flip back); otherwise a new fingerprint.
    fn planted(&mut self, from: &[(i64, u64)], flips: u32) -> u64 {
        if from.is_empty() || !self.next().is_multiple_of(3) {
            return self.next();
        }
        let mut fp = from[(self.next() % from.len() as u64) as usize].1;
        for _ in 0..self.next() % (flips as u64 + 1) {
            fp ^= 1 << (self.next() % 64);
        }
        fp
    }
}

/// Rows `(id, fingerprint)`.
type Rows = Vec<(i64, u64)>;

/// Every pair of `rows` within `k`, as all pairs reports them, by comparing every pair.
pub(crate) fn brute_all(rows: &[(i64, u64)], k: u32) -> Vec<(i64, i64, u32)> {
    let mut v = Vec::new();
    for (x, &(a, fa)) in rows.iter().enumerate() {
        for &(b, fb) in &rows[x + 1..] {
            let d = hamming(fa, fb);
            if d <= k && a != b {
                v.push((a.min(b), a.max(b), d));
            }
        }
    }
    v.sort_unstable();
    v
}

/// Random base fingerprints with planted near copies (few bits flipped) and exact copies.
pub(crate) fn planted_all(seed: u64, n: usize, flips: u32) -> Rows {
    let mut r = Rng(seed | 1);
    let mut rows: Rows = Vec::new();
    for id in 0..n as i64 {
        let fp = r.planted(&rows, flips);
        rows.push((id, fp));
    }
    rows
}

/// Every `(batch_id, corpus_id, distance)` within `k`, by comparing every pair, sorted.
pub(crate) fn brute_corpus(batch: &[(i64, u64)], corpus: &[(i64, u64)], k: u32) -> Vec<(i64, i64, u32)> {
    let mut v = Vec::new();
    for &(a, fa) in batch {
        for &(c, fc) in corpus {
            let d = hamming(fa, fc);
            if d <= k {
                v.push((a, c, d));
            }
        }
    }
    v.sort_unstable();
    v
}

/// A random batch and corpus: a third of the corpus rows are near copies (up to
/// `flips` bits flipped) of batch rows, some exact copies, and some batch fingerprints
/// repeat inside the batch.
pub(crate) fn planted_corpus(seed: u64, nb: usize, nc: usize, flips: u32) -> (Rows, Rows) {
    let mut r = Rng(seed | 1);
    let mut batch: Rows = Vec::new();
    for id in 0..nb as i64 {
        let fp = if id > 0 && r.next().is_multiple_of(5) { batch[(r.next() % id as u64) as usize].1 } else { r.next() };
        batch.push((id, fp));
    }
    let mut corpus = Vec::new();
    for id in 0..nc as i64 {
        corpus.push((1000 + id, r.planted(&batch, flips)));
    }
    (batch, corpus)
}
