//! All pairs (Manku, Jain & Das Sarma, WWW 2007, batch mode over one set of rows): every
//! pair within Hamming distance `k`, and the connected components of that "near-duplicate
//! graph".
//!
//! 1. Identical fingerprints are grouped first (sort by `(fp, id)`). Pairs inside a
//!    group are emitted directly at distance 0 and clusters union a group without
//!    pairwise work, so thousands of copies of one document never go quadratic in
//!    the search below, which only sees *distinct* fingerprints.
//! 2. The 64 bits are split into `m` blocks (sizes differ by at most one bit). Two
//!    fingerprints within distance `k` differ in at most `k` blocks, so they agree on
//!    at least `a = m - k` of them (pigeonhole). For each of the `C(m, a)` choices of
//!    `a` blocks a "table" permutes the fingerprints so that those blocks form the top
//!    bits, radix-sorts on those key bits and compares only inside runs of equal keys.
//! 3. A pair can agree on several `a`-subsets and would then be met in several tables.
//!    It is emitted only by the canonical table: the one keyed on the `a` *lowest-indexed*
//!    blocks on which the pair agrees (the lexicographically first subset), so every
//!    pair comes out exactly once without a hash set.
//!
//! `m` comes from a cost model ([`plan()`]): a table costs a pass of permute + radix sort
//! per fingerprint plus one XOR-popcount per candidate pair, about `n² / 2^(b+1)`
//! candidates for `b` key bits on random data. Brute force (`n²/2` comparisons) is a
//! candidate plan too; it wins for tiny inputs and for large `k` (no `m ≤ 64` leaves
//! enough key bits to prune, and at `k = 64` every pair qualifies anyway). Every plan is
//! exact for every `k` in `0..=64`.
//!
//! [`Duplicates`] streams the pairs: it finds the next one when asked, so no pair list is
//! ever built (100,000 copies of one fingerprint are 5·10⁹ pairs) and the first pairs
//! come out at once. [`clusters`] feeds the pairs straight into a union-find.
//!
//! Long loops call the caller's [`Progress`] callback: [`Progress::Phase`] once per phase
//! and [`Progress::Tick`] at least every ~2^20 units of work, so the SQL layer can check
//! for query cancellation and report progress. Memory: see [`BYTES_PER_ROW`].

mod search;
#[cfg(test)]
mod tests;

use self::search::{distinct_pairs, Search};
use super::plan::{plan, plan_message};
use super::tables::Grouped;
use super::{Progress, Ticker};
use crate::bulk::UnionFind;

/// Working memory of the pair search per input row, whatever the number of pairs: the
/// rows `(fp, id)` 16 B, the distinct fingerprints 8 B, group offsets 4 B, the table
/// being scanned 8 B and its radix-sort scratch 8 B. [`clusters`] adds 4 B (union-find
/// parent) while searching; after the search it frees the table and holds 12 B per
/// distinct fingerprint (smallest id, size) and its result, 16 B per clustered row.
pub const BYTES_PER_ROW: usize = 44;

/// Every unordered pair of rows whose fingerprints are within Hamming distance `k`, as
/// `(id1, id2, distance)` with `id1 < id2`, streamed: [`Duplicates::next_pair`] finds
/// the next pair when asked for it, so memory is the rows (see [`BYTES_PER_ROW`]) and
/// never grows with the number of pairs, and the first pairs come out at once even when
/// the input has billions of them.
///
/// Order (deterministic for the same rows and `k`):
/// 1. the pairs at distance 0, group of identical fingerprints by group in increasing
///    order of the fingerprint as an unsigned number, each group's pairs in increasing
///    `(id1, id2)` order;
/// 2. then the pairs at distance 1 to `k`, in the order the search meets them (table by
///    table), not sorted: for each pair of distinct fingerprints, the cross product of
///    their rows, in increasing order of the first fingerprint's ids, then the second's.
///
/// Rows are `(id, fp)`; two rows with the same id never pair (ids are meant to be unique).
pub struct Duplicates {
    g: Grouped,
    search: Search,
    stage: Stage,
    /// Which pairs of fingerprints to report (all when None): see [`Duplicates::keeping`].
    keep: Option<Box<dyn Fn(u64, u64) -> bool>>,
    /// Pairs returned so far.
    emitted: u64,
    /// Units of work since the last [`Progress::Tick`] (pairs returned or skipped).
    work: Ticker,
}

/// Where [`Duplicates`] is: the next pair is rows `x` and `y` of the stage's groups.
enum Stage {
    /// Inside group `g`, `x < y`.
    Identical {
        g: usize,
        x: usize,
        y: usize,
    },
    /// Group `a` (row `x`) with group `b` (row `y`), at distance `d`.
    Cross {
        a: usize,
        b: usize,
        d: u32,
        x: usize,
        y: usize,
    },
    /// Between two groups: ask the search for the next pair of distinct fingerprints.
    Search,
    Done,
}

impl Duplicates {
    /// Groups the rows and chooses the search plan (reported as a [`Progress::Phase`]).
    /// Panics if `k > 64`.
    pub fn new(rows: impl IntoIterator<Item = (i64, u64)>, k: u32, cb: &mut dyn FnMut(Progress)) -> Duplicates {
        let g = Grouped::new(rows, cb);
        let plan = plan(g.distinct.len(), k);
        cb(Progress::Phase(plan_message(plan, g.distinct.len(), k)));
        Duplicates {
            g,
            search: Search::new(k, plan),
            stage: Stage::Identical { g: 0, x: 0, y: 1 },
            keep: None,
            emitted: 0,
            work: Ticker::default(),
        }
    }

    /// Reports only the pairs whose fingerprints `(a, b)` satisfy `keep(a, b)`, which
    /// must be symmetric. It is asked once per pair of distinct fingerprints and once per
    /// group of identical ones (`keep(fp, fp)`), so a rejected group costs nothing more:
    /// a shard keeps the pairs it owns (`shard::pair_owner`) this way.
    pub fn keeping(mut self, keep: impl Fn(u64, u64) -> bool + 'static) -> Duplicates {
        self.keep = Some(Box::new(keep));
        self
    }

    fn keeps(&self, a: usize, b: usize) -> bool {
        self.keep.as_ref().is_none_or(|keep| keep(self.g.distinct[a], self.g.distinct[b]))
    }

    #[inline]
    fn tick(&mut self, cb: &mut dyn FnMut(Progress)) {
        self.work.add(1, cb);
    }

    /// The next pair, `None` after the last (then a [`Progress::Phase`] gives the count).
    /// Calls `cb(Progress::Tick)` at least every ~2^20 units of work within one call.
    pub fn next_pair(&mut self, cb: &mut dyn FnMut(Progress)) -> Option<(i64, i64, u32)> {
        loop {
            match self.stage {
                Stage::Identical { g, x, y } => {
                    if g >= self.g.distinct.len() {
                        self.stage = Stage::Search;
                        continue;
                    }
                    let len = self.g.len(g);
                    if x == 0 && y == 1 && !self.keeps(g, g) {
                        self.stage = Stage::Identical { g: g + 1, x: 0, y: 1 };
                        self.tick(cb);
                        continue;
                    }
                    if y >= len {
                        // Next row of the group, or the next group.
                        self.stage = if x + 2 < len {
                            Stage::Identical { g, x: x + 1, y: x + 2 }
                        } else {
                            Stage::Identical { g: g + 1, x: 0, y: 1 }
                        };
                        self.tick(cb);
                        continue;
                    }
                    self.stage = Stage::Identical { g, x, y: y + 1 };
                    self.tick(cb);
                    let ids = self.g.ids(g);
                    let (a, b) = (ids[x].1, ids[y].1);
                    if a != b {
                        return self.emit(a, b, 0);
                    }
                }
                Stage::Cross { a, b, d, x, y } => {
                    let (la, lb) = (self.g.len(a), self.g.len(b));
                    if x >= la {
                        self.stage = Stage::Search;
                        continue;
                    }
                    self.stage = if y + 1 < lb {
                        Stage::Cross { a, b, d, x, y: y + 1 }
                    } else {
                        Stage::Cross { a, b, d, x: x + 1, y: 0 }
                    };
                    self.tick(cb);
                    let (p, q) = (self.g.ids(a)[x].1, self.g.ids(b)[y].1);
                    if p != q {
                        return self.emit(p, q, d);
                    }
                }
                Stage::Search => match self.search.next(&self.g.distinct, cb) {
                    Some((a, b, d)) if self.keeps(a, b) => self.stage = Stage::Cross { a, b, d, x: 0, y: 0 },
                    Some(_) => self.tick(cb),
                    None => {
                        self.stage = Stage::Done;
                        cb(Progress::Phase(format!("{} pairs", self.emitted)));
                    }
                },
                Stage::Done => return None,
            }
        }
    }

    #[inline]
    fn emit(&mut self, a: i64, b: i64, d: u32) -> Option<(i64, i64, u32)> {
        self.emitted += 1;
        Some((a.min(b), a.max(b), d))
    }
}

/// Every pair of [`Duplicates`], collected and sorted by `(id1, id2, distance)`: for
/// tests and small inputs (it holds every pair, 16 B each). Panics if `k > 64`.
pub fn duplicates(
    rows: impl IntoIterator<Item = (i64, u64)>,
    k: u32,
    cb: &mut dyn FnMut(Progress),
) -> Vec<(i64, i64, u32)> {
    let mut d = Duplicates::new(rows, k, cb);
    let mut out = Vec::new();
    while let Some(p) = d.next_pair(cb) {
        out.push(p);
    }
    out.sort_unstable();
    out
}

/// Connected components of the graph "within distance `k`": `(id, cluster_id)` for every
/// row that has at least one near-duplicate, `cluster_id` the smallest id of its
/// component, sorted by `(cluster_id, id)`. Panics if `k > 64`.
pub fn clusters(rows: impl IntoIterator<Item = (i64, u64)>, k: u32, cb: &mut dyn FnMut(Progress)) -> Vec<(i64, i64)> {
    let g = Grouped::new(rows, cb);
    let n = g.distinct.len();
    let plan = plan(n, k);
    cb(Progress::Phase(plan_message(plan, n, k)));
    // Union-find over groups of identical fingerprints.
    let mut groups = UnionFind::new(n);
    distinct_pairs(&g.distinct, k, plan, cb, &mut |i, j, _| groups.union(i as u32, j as u32));
    let mut out = groups.components(|gi| g.ids(gi).iter().map(|&(_, id)| id), &mut || cb(Progress::Tick));
    cb(Progress::Phase(format!("{} rows in clusters, sorting", out.len())));
    out.sort_unstable();
    out.into_iter().map(|(c, id)| (id, c)).collect()
}
