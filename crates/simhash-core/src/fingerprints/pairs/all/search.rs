//! All pairs' search of the distinct fingerprints: one plan's tables (or brute force)
//! walked pair by pair, resumable, so the caller streams pairs out as they are found.

use super::super::tables::{next_combination, radix_sort_top, Table};
use super::super::{Plan, Progress, Ticker, TICK_WORK};
use crate::fingerprints::search::hamming;

/// The search for pairs of distinct fingerprints within distance `k`, resumable: each
/// [`Search::next`] returns the next pair `(i, j, distance)`, `i < j` indices into
/// `distinct` (sorted, no duplicates), and keeps where it stopped. The state is one
/// table (8 B per distinct fingerprint) and its radix-sort scratch (8 B), never a pair
/// list, so the caller can stream pairs out as they are found.
pub(super) struct Search {
    k: u32,
    state: SearchState,
    /// Comparisons since the last [`Progress::Tick`].
    work: Ticker,
}

enum SearchState {
    Done,
    /// Next comparison: `distinct[i]` with `distinct[j]`.
    Brute {
        i: usize,
        j: usize,
    },
    /// Manku tables. `table` is keyed on `key`; `buf` holds it permuted and sorted once
    /// `built`; the current run of equal keys is `buf[run_start..run_end]`, and the
    /// next comparison is `buf[x]` with `buf[y]`.
    Blocks {
        m: u32,
        key: Vec<usize>,
        table: Table,
        built: bool,
        buf: Vec<u64>,
        scratch: Vec<u64>,
        run_end: usize,
        x: usize,
        y: usize,
    },
}

impl Search {
    pub(super) fn new(k: u32, plan: Plan) -> Search {
        let state = match plan {
            Plan::IdenticalOnly => SearchState::Done,
            Plan::BruteForce => SearchState::Brute { i: 0, j: 1 },
            Plan::Blocks { m, a } => {
                let key: Vec<usize> = (0..a as usize).collect();
                let table = Table::new(m, &key);
                SearchState::Blocks {
                    m,
                    key,
                    table,
                    built: false,
                    buf: Vec::new(),
                    scratch: Vec::new(),
                    run_end: 0,
                    x: 0,
                    y: 0,
                }
            }
        };
        Search { k, state, work: Ticker::default() }
    }

    #[inline]
    fn tick(&mut self, units: u64, cb: &mut dyn FnMut(Progress)) {
        self.work.add(units, cb);
    }

    /// The next pair of distinct fingerprints within `k`, `None` when there are no more.
    pub(super) fn next(&mut self, distinct: &[u64], cb: &mut dyn FnMut(Progress)) -> Option<(usize, usize, u32)> {
        let n = distinct.len();
        let k = self.k;
        let mut work = 0u64;
        let found = match &mut self.state {
            SearchState::Done => None,
            SearchState::Brute { i, j } => loop {
                if *j >= n {
                    *i += 1;
                    *j = *i + 1;
                    if *j >= n {
                        break None;
                    }
                }
                let (a, b) = (*i, *j);
                *j += 1;
                work += 1;
                let d = hamming(distinct[a], distinct[b]);
                if d <= k {
                    break Some((a, b, d));
                }
                if work >= TICK_WORK {
                    cb(Progress::Tick);
                    work = 0;
                }
            },
            SearchState::Blocks { m, key, table, built, buf, scratch, run_end, x, y } => loop {
                if !*built {
                    buf.clear();
                    buf.reserve(n);
                    for chunk in distinct.chunks(1 << 16) {
                        buf.extend(chunk.iter().map(|&fp| table.permute(fp)));
                        cb(Progress::Tick);
                    }
                    radix_sort_top(buf, scratch, table.key_bits, cb);
                    (*built, *run_end, *x, *y) = (true, 0, 0, 0);
                }
                let shift = 64 - table.key_bits;
                let key_of = |v: u64| if table.key_bits == 64 { v } else { v >> shift };
                if *y < *run_end {
                    let (px, py) = (buf[*x], buf[*y]);
                    *y += 1;
                    if *y == *run_end {
                        *x += 1;
                        *y = *x + 1;
                    }
                    work += 1;
                    let xor = px ^ py;
                    let d = xor.count_ones();
                    if d <= k && table.is_canonical(xor) {
                        let index = |fp: u64| distinct.binary_search(&fp).expect("permutation is a bijection");
                        let (fa, fb) = (index(table.unpermute(px)), index(table.unpermute(py)));
                        break Some((fa.min(fb), fa.max(fb), d));
                    }
                } else {
                    // The next run of equal keys, or the next table.
                    let i = *run_end;
                    if i >= n {
                        if !next_combination(key, *m as usize) {
                            break None;
                        }
                        *table = Table::new(*m, key);
                        *built = false;
                        continue;
                    }
                    let kv = key_of(buf[i]);
                    let mut j = i + 1;
                    while j < n && key_of(buf[j]) == kv {
                        j += 1;
                    }
                    work += (j - i) as u64;
                    (*run_end, *x, *y) = (j, i, i + 1);
                }
                if work >= TICK_WORK {
                    cb(Progress::Tick);
                    work = 0;
                }
            },
        };
        if found.is_none() {
            self.state = SearchState::Done; // frees the table and its scratch
        }
        self.tick(work, cb);
        found
    }
}

/// Calls `emit(i, j, distance)` once for every pair `i < j` of indices into `distinct`
/// (sorted, no duplicates) within distance `k` (`k ≥ 1`), following `plan`.
pub(super) fn distinct_pairs(
    distinct: &[u64],
    k: u32,
    plan: Plan,
    cb: &mut dyn FnMut(Progress),
    emit: &mut dyn FnMut(usize, usize, u32),
) {
    let mut search = Search::new(k, plan);
    while let Some((i, j, d)) = search.next(distinct, cb) {
        emit(i, j, d);
    }
}
