//! Exact k-nearest-neighbour search in Hamming space by multi-index hashing (Norouzi,
//! Punjani and Fleet, "Fast Search in Hamming Space with Multi-Index Hashing", CVPR 2012),
//! over the block indexes of [`blocks`](super::blocks).
//!
//! The search probes the blocks in rounds of growing radius r = 0, 1, 2, ...: in round r,
//! block 0, then block 1, ..., each with the values at exactly r bits from the query's
//! block (a "shell"; the inner values were probed in earlier rounds). A row found by a
//! probe gets its exact distance; the `n` best, by (distance, key), are kept.
//!
//! **Stopping rule.** When block `i` has been probed up to radius `ρ_i`, a row not yet
//! found differs from the query's block `i` in at least `ρ_i + 1` bits in every block, so
//! its distance is at least `Σ_i (ρ_i + 1)` ([`unseen_lower_bound`]); if some `ρ_i` reaches
//! the block's width, every row has been found. The search stops as soon as it holds `n`
//! rows and the n-th best distance is *strictly* below that bound: an unseen row at the
//! same distance could still win the tie on its key. After whole rounds this is the
//! paper's rule, stop when the n-th distance is < m·(r+1); checking after every block
//! stops up to m−1 probes sooner.

use super::ball::{binomial, shell};
use super::blocks::{block_value, block_width};
use super::hamming::hamming;

/// Largest `n` of one search (the kept rows are a sorted vector).
pub const MAX_N: i32 = 10_000;

/// Rows a sequential scan reads for the cost of probing one block value (one btree
/// descent).
pub const KEY_COST_ROWS: f64 = 64.0;

/// Rows a sequential scan reads for the cost of fetching one candidate row from the heap
/// by an index probe (a random page access, the distance test).
pub const CANDIDATE_COST_ROWS: f64 = 8.0;

/// Smallest distance a row not found yet can have, when block `i` of `nblocks` has been
/// probed up to radius `probed[i]` (`None`: not at all). `None` when some block has been
/// probed to its full width: then no row is unseen.
pub fn unseen_lower_bound(nblocks: u32, probed: &[Option<u32>]) -> Option<u32> {
    let mut bound = 0;
    for (i, p) in probed.iter().enumerate() {
        match *p {
            Some(r) if r >= block_width(i as u32, nblocks) => return None,
            Some(r) => bound += r + 1,
            None => {}
        }
    }
    Some(bound)
}

/// Estimated cost, in rows of a sequential scan, of probing `keys` values of block
/// `block` of `nblocks` in a table of `rows` rows: each value costs a btree descent and
/// fetches, on uniform fingerprints, `rows / 2^width` candidates.
pub fn probe_cost(keys: u64, block: u32, nblocks: u32, rows: f64) -> f64 {
    let per_value = rows / (1u64 << block_width(block, nblocks)) as f64;
    keys as f64 * (KEY_COST_ROWS + CANDIDATE_COST_ROWS * per_value)
}

/// The fallback rule of `simhash_nearest`: scan the table (about `rows` rows) instead,
/// once the probes run so far plus the next one would cost more than the scan
/// (`spent_and_next`, from [`probe_cost`]). So a search never costs much more than two
/// scans, and one that would have to probe huge shells (fewer than `n` rows in the table,
/// or rows far from the query) ends after a bounded amount of work.
pub fn prefer_scan(spent_and_next: f64, rows: f64) -> bool {
    spent_and_next > rows
}

/// One row of the answer: its key (the tie-breaker, e.g. a ctid as `block << 16 | offset`),
/// fingerprint and distance to the query.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct Neighbour {
    pub distance: u32,
    pub key: u64,
    pub fp: u64,
}

/// The state of one search: which (block, radius) comes next and the best rows so far.
pub struct Nearest {
    query: u64,
    nblocks: u32,
    n: usize,
    /// Best rows, ascending by (distance, key); at most `n`.
    best: Vec<Neighbour>,
    /// Radius each block has been probed to.
    probed: Vec<Option<u32>>,
}

impl Nearest {
    /// A search for the `n >= 1` rows nearest `query` through a set of `nblocks` blocks.
    pub fn new(query: u64, nblocks: u32, n: usize) -> Nearest {
        assert!(n >= 1 && (2..=32).contains(&nblocks));
        Nearest { query, nblocks, n, best: Vec::with_capacity(n.min(1024)), probed: vec![None; nblocks as usize] }
    }

    /// Whether the answer is final: no unseen row can enter the best `n`.
    pub fn done(&self) -> bool {
        match unseen_lower_bound(self.nblocks, &self.probed) {
            None => true,
            Some(bound) => self.best.len() == self.n && self.best[self.n - 1].distance < bound,
        }
    }

    /// The next probe, `(block, radius)`: the block probed least far, the first of them.
    pub fn next_probe(&self) -> (u32, u32) {
        let (i, p) =
            self.probed.iter().enumerate().min_by_key(|(_, p)| p.map_or(0, |r| r + 1)).expect("at least two blocks");
        (i as u32, p.map_or(0, |r| r + 1))
    }

    /// The block values of probe `(block, radius)`.
    pub fn probe_keys(&self, block: u32, radius: u32) -> Vec<u32> {
        shell(block_value(self.query, block, self.nblocks), block_width(block, self.nblocks), radius)
    }

    /// Number of block values of probe `(block, radius)`: C(width, radius).
    pub fn probe_size(&self, block: u32, radius: u32) -> u64 {
        binomial(block_width(block, self.nblocks), radius)
    }

    /// Records that probe `(block, radius)` has been run and all its rows offered.
    pub fn probed(&mut self, block: u32, radius: u32) {
        self.probed[block as usize] = Some(radius);
    }

    /// Largest distance a row can have and still enter the answer (a filter for the
    /// candidates a probe fetches): the n-th best distance once `n` rows are held.
    pub fn max_useful_distance(&self) -> u32 {
        if self.best.len() == self.n {
            self.best[self.n - 1].distance
        } else {
            64
        }
    }

    /// Offers a row found by a probe. A row may be offered again (found through another
    /// block or radius): if it is among the best it is there once; if it is not, it lost
    /// to `n` better rows before and still does, as the best only improve.
    pub fn offer(&mut self, key: u64, fp: u64) {
        let row = Neighbour { distance: hamming(fp, self.query), key, fp };
        if self.best.len() == self.n && row >= self.best[self.n - 1] {
            return;
        }
        if let Err(at) = self.best.binary_search(&row) {
            self.best.insert(at, row);
            self.best.truncate(self.n);
        }
    }

    /// Replaces the answer with a complete one from a sequential scan (the fallback).
    pub fn set_scanned(&mut self, rows: Vec<Neighbour>) {
        self.best = rows;
        self.probed[0] = Some(block_width(0, self.nblocks));
    }

    /// The answer, ascending by (distance, key).
    pub fn into_results(self) -> Vec<Neighbour> {
        self.best
    }
}

/// Runs a search against an in-memory table: the reference the SQL layer follows, with
/// `lookup(block, keys)` standing for an index probe (the `(key, fp)` rows whose block
/// `block` is in `keys`) and `scan()` for a sequential scan returning the exact answer.
/// Before each probe, the search decides by [`prefer_scan`] whether to scan instead.
pub fn search_with(
    query: u64,
    nblocks: u32,
    n: usize,
    rows: f64,
    mut lookup: impl FnMut(u32, &[u32]) -> Vec<(u64, u64)>,
    scan: impl FnOnce() -> Vec<Neighbour>,
) -> Vec<Neighbour> {
    let mut s = Nearest::new(query, nblocks, n);
    let mut spent = 0.0;
    while !s.done() {
        let (block, radius) = s.next_probe();
        let cost = probe_cost(s.probe_size(block, radius), block, nblocks, rows);
        if prefer_scan(spent + cost, rows) {
            s.set_scanned(scan());
            break;
        }
        spent += cost;
        let keys = s.probe_keys(block, radius);
        for (key, fp) in lookup(block, &keys) {
            s.offer(key, fp);
        }
        s.probed(block, radius);
    }
    s.into_results()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::HashMap;

    fn brute(rows: &[(u64, u64)], query: u64, n: usize) -> Vec<Neighbour> {
        let mut all: Vec<Neighbour> =
            rows.iter().map(|&(key, fp)| Neighbour { distance: hamming(fp, query), key, fp }).collect();
        all.sort();
        all.truncate(n);
        all
    }

    /// The search through an index on each block, falling back to a scan as the SQL
    /// layer does when told the table has `rows` rows; and the number of probes run.
    fn mih_rows(rows: &[(u64, u64)], query: u64, nblocks: u32, n: usize, est: f64) -> (Vec<Neighbour>, usize) {
        let mut index: Vec<HashMap<u32, Vec<(u64, u64)>>> = vec![HashMap::new(); nblocks as usize];
        for &(key, fp) in rows {
            for (b, map) in index.iter_mut().enumerate() {
                map.entry(block_value(fp, b as u32, nblocks)).or_default().push((key, fp));
            }
        }
        let mut probes = 0;
        let found = search_with(
            query,
            nblocks,
            n,
            est,
            |block, keys| {
                probes += 1;
                keys.iter().flat_map(|k| index[block as usize].get(k).cloned().unwrap_or_default()).collect()
            },
            || brute(rows, query, n),
        );
        (found, probes)
    }

    fn mih(rows: &[(u64, u64)], query: u64, nblocks: u32, n: usize) -> (Vec<Neighbour>, usize) {
        mih_rows(rows, query, nblocks, n, 1e6)
    }

    #[test]
    fn lower_bound() {
        assert_eq!(unseen_lower_bound(4, &[None; 4]), Some(0));
        assert_eq!(unseen_lower_bound(4, &[Some(0), None, None, None]), Some(1));
        assert_eq!(unseen_lower_bound(4, &[Some(0); 4]), Some(4));
        assert_eq!(unseen_lower_bound(4, &[Some(2), Some(2), Some(1), Some(1)]), Some(10));
        assert_eq!(unseen_lower_bound(4, &[Some(16), None, None, None]), None);
        assert_eq!(unseen_lower_bound(3, &[Some(20), Some(20), Some(20)]), Some(63));
        assert_eq!(unseen_lower_bound(3, &[Some(21), Some(20), Some(20)]), None);
    }

    #[test]
    fn the_bound_is_tight() {
        // A row with every block exactly r+1 bits from the query's (r = probed radius) is
        // unseen and at distance Σ(r+1): the rule could not stop any earlier.
        let query = 0u64;
        let fp = 0x0003_0003_0003_0003u64; // 2 bits in each 16-bit block: distance 8
        let rows = vec![(1, fp)];
        let (found, probes) = mih(&rows, query, 4, 1);
        assert_eq!(found, brute(&rows, query, 1));
        // Found at radius 2 in block 0 (probe 9); stop needs 8 < bound, reached once
        // block 0 is probed to radius 2 (bound 3+2+2+2 = 9).
        assert_eq!(probes, 9);
    }

    #[test]
    fn ties_go_to_the_smaller_key() {
        // Two rows at distance 1; the one with the larger key is found first (block 0 equal
        // to the query's), the bound is then 1, not above 1: the search must go on.
        let rows = vec![(9, 0x1_0000u64), (3, 0x1u64)];
        let (found, _) = mih(&rows, 0, 4, 1);
        assert_eq!(found, brute(&rows, 0, 1));
        assert_eq!(found[0].key, 3);
    }

    #[test]
    fn fewer_rows_than_n() {
        let rows = vec![(1, 5u64), (2, u64::MAX)];
        for nblocks in [2, 3, 4] {
            assert_eq!(mih(&rows, 0, nblocks, 10).0, brute(&rows, 0, 10));
        }
        assert!(mih(&[], 0, 4, 3).0.is_empty());
        // Without the fallback, the search exhausts a block (16 bits: every value).
        assert_eq!(mih_rows(&rows, 0, 4, 10, f64::INFINITY).0, brute(&rows, 0, 10));
    }

    #[test]
    fn scan_rule() {
        // 10M rows, 4 blocks: a radius-3 shell (560 values, ~150 candidates each) probes.
        let c = probe_cost(560, 0, 4, 1e7);
        assert!((c - 560.0 * (64.0 + 8.0 * 1e7 / 65536.0)).abs() < 1e-6);
        assert!(!prefer_scan(c, 1e7));
        // 1,000 rows: probing 16 values costs more than reading the table.
        assert!(prefer_scan(probe_cost(16, 0, 4, 1e3), 1e3));
    }

    fn flip(fp: u64, bits: &[u8]) -> u64 {
        bits.iter().fold(fp, |f, &b| f ^ (1u64 << (b % 64)))
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]

        #[test]
        fn equals_brute_force_uniform(
            fps in prop::collection::vec(any::<u64>(), 0..60),
            query in any::<u64>(),
            nblocks in 2u32..=4,
            n in 1usize..12,
        ) {
            let rows: Vec<(u64, u64)> = fps.into_iter().enumerate().map(|(i, fp)| (i as u64 * 7 % 61, fp)).collect();
            // Keys are unique: 7 is invertible mod 61 and there are < 61 rows.
            prop_assert_eq!(mih(&rows, query, nblocks, n).0, brute(&rows, query, n));
            // Probing only (4 blocks of 16 bits: every shell is small).
            prop_assert_eq!(mih_rows(&rows, query, 4, n, f64::INFINITY).0, brute(&rows, query, n));
        }

        #[test]
        fn equals_brute_force_clustered(
            center in any::<u64>(),
            flips in prop::collection::vec(prop::collection::vec(any::<u8>(), 0..6), 1..80),
            qflips in prop::collection::vec(any::<u8>(), 0..8),
            nblocks in 2u32..=4,
            n in 1usize..30,
        ) {
            // Planted near-duplicates of one centre: many equal fingerprints and distances.
            let rows: Vec<(u64, u64)> =
                flips.iter().enumerate().map(|(i, f)| ((i as u64).reverse_bits(), flip(center, f))).collect();
            let query = flip(center, &qflips);
            prop_assert_eq!(mih(&rows, query, nblocks, n).0, brute(&rows, query, n));
        }
    }
}
