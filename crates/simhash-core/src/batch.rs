//! Batch near-duplicate detection over a whole set of fingerprints: every pair within
//! Hamming distance `k`, and the connected components of that "near-duplicate graph".
//!
//! The algorithm is Manku, Jain & Das Sarma (WWW 2007), batch mode:
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
//! `m` comes from a cost model ([`plan`]): a table costs a pass of permute + radix sort
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

use crate::hamming;

/// What the algorithm reports to its caller while it runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A phase starts; the message is human-readable and deterministic (no timings).
    Phase(String),
    /// A unit of bounded work (≤ about a millisecond) is done: a place to check for cancellation.
    Tick,
}

/// Working memory of the pair search per input row, whatever the number of pairs: the
/// rows `(fp, id)` 16 B, the distinct fingerprints 8 B, group offsets 4 B, the table
/// being scanned 8 B and its radix-sort scratch 8 B. [`clusters`] adds 4 B (union-find
/// parent) while searching; after the search it frees the table and holds 12 B per
/// distinct fingerprint (smallest id, size) and its result, 16 B per clustered row.
pub const BYTES_PER_ROW: usize = 44;

/// How the distinct fingerprints are searched.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// `k = 0` (or fewer than two distinct fingerprints): only identical ones pair.
    IdenticalOnly,
    /// Manku tables: `m` blocks, keyed on `a = m - k` of them, `C(m, a)` tables.
    Blocks { m: u32, a: u32 },
    /// Compare every pair of distinct fingerprints.
    BruteForce,
}

const TICK_WORK: u64 = 1 << 20;

/// `C(n, r)` as f64 (no overflow for n ≤ 64).
pub(crate) fn binomial(n: u32, r: u32) -> f64 {
    (0..r).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// Estimated cost, in units of one candidate comparison, of a plan over `n` distinct fingerprints.
pub fn plan_cost(plan: Plan, n: usize) -> f64 {
    let n = n as f64;
    // Permute + radix sort (1–2 passes) + run scan, per fingerprint per table: about
    // eight comparisons' worth of time in measurements.
    const PER_ROW_PER_TABLE: f64 = 8.0;
    match plan {
        Plan::IdenticalOnly => 0.0,
        Plan::BruteForce => n * (n - 1.0) / 2.0,
        Plan::Blocks { m, a } => {
            let key_bits = (64 * a / m) as i32; // the smallest key any table gets
            binomial(m, a) * (n * PER_ROW_PER_TABLE + n * n / 2f64.powi(key_bits + 1))
        }
    }
}

/// The cheapest exact plan for `n` distinct fingerprints and maximum distance `k`.
pub fn plan(n: usize, k: u32) -> Plan {
    assert!(k <= 64, "max distance {k} > 64");
    if k == 0 || n < 2 {
        return Plan::IdenticalOnly;
    }
    let mut best = (plan_cost(Plan::BruteForce, n), Plan::BruteForce);
    for m in (k + 1)..=64 {
        let a = m - k;
        if binomial(m, a) > 5000.0 {
            continue; // more tables than any input could amortize
        }
        let p = Plan::Blocks { m, a };
        let c = plan_cost(p, n);
        if c < best.0 {
            best = (c, p);
        }
    }
    best.1
}

/// Rows grouped by identical fingerprint: `rows` sorted by `(fp, id)`; group `g` is
/// `rows[starts[g]..starts[g+1]]` and has fingerprint `distinct[g]`.
pub(crate) struct Grouped {
    pub(crate) rows: Vec<(u64, i64)>,
    pub(crate) distinct: Vec<u64>,
    pub(crate) starts: Vec<u32>,
}

impl Grouped {
    pub(crate) fn new(input: impl IntoIterator<Item = (i64, u64)>, cb: &mut dyn FnMut(Progress)) -> Grouped {
        let mut rows: Vec<(u64, i64)> = input.into_iter().map(|(id, fp)| (fp, id)).collect();
        assert!(rows.len() < u32::MAX as usize, "more than 2^32 - 1 rows");
        cb(Progress::Tick);
        sort_rows(&mut rows, cb);
        let mut distinct = Vec::new();
        let mut starts = Vec::new();
        for (i, &(fp, _)) in rows.iter().enumerate() {
            if distinct.last() != Some(&fp) || i == 0 {
                distinct.push(fp);
                starts.push(i as u32);
            }
        }
        starts.push(rows.len() as u32);
        distinct.shrink_to_fit();
        starts.shrink_to_fit();
        Grouped { rows, distinct, starts }
    }

    pub(crate) fn ids(&self, g: usize) -> &[(u64, i64)] {
        &self.rows[self.starts[g] as usize..self.starts[g + 1] as usize]
    }

    fn len(&self, g: usize) -> usize {
        (self.starts[g + 1] - self.starts[g]) as usize
    }
}

/// Sorts `rows` with a [`Progress::Tick`] at least every 2^18 rows of work: runs of 2^18
/// rows sorted in place, then merged pairwise through a second buffer (16 B per row, freed
/// before the search allocates its tables). `sort_unstable` of 10M rows in one call took
/// about 0.4 s without a chance to cancel (tests/bench/stream.sh).
fn sort_rows(rows: &mut Vec<(u64, i64)>, cb: &mut dyn FnMut(Progress)) {
    const RUN: usize = 1 << 18;
    let n = rows.len();
    for run in rows.chunks_mut(RUN) {
        run.sort_unstable();
        cb(Progress::Tick);
    }
    if n <= RUN {
        return;
    }
    let mut src = std::mem::take(rows);
    let mut dst: Vec<(u64, i64)> = Vec::with_capacity(n);
    let mut width = RUN;
    while width < n {
        dst.clear();
        let mut since_tick = 0;
        for start in (0..n).step_by(2 * width) {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j) = (start, mid);
            while i < mid && j < end {
                if src[j] < src[i] {
                    dst.push(src[j]);
                    j += 1;
                } else {
                    dst.push(src[i]);
                    i += 1;
                }
                since_tick += 1;
                if since_tick == RUN {
                    since_tick = 0;
                    cb(Progress::Tick);
                }
            }
            dst.extend_from_slice(&src[i..mid]);
            dst.extend_from_slice(&src[j..end]);
        }
        std::mem::swap(&mut src, &mut dst);
        cb(Progress::Tick);
        width *= 2;
    }
    *rows = src;
}

/// One Manku table: which blocks form the key and where every block lands once permuted.
#[derive(Clone)]
pub(crate) struct Table {
    /// `(offset, len)` of each original block, block 0 = lowest bits.
    blocks: Vec<(u32, u32)>,
    /// Block indices in permuted order, most significant first: the key blocks then the rest.
    order: Vec<usize>,
    pub(crate) key_bits: u32,
    /// `(shift, mask)` in permuted space of the non-key blocks with an index below the
    /// largest key block: a pair agreeing on any of them belongs to an earlier table.
    earlier: Vec<(u32, u64)>,
}

fn mask(len: u32) -> u64 {
    if len == 64 {
        u64::MAX
    } else {
        (1u64 << len) - 1
    }
}

impl Table {
    pub(crate) fn new(m: u32, key: &[usize]) -> Table {
        let (base, extra) = (64 / m, 64 % m);
        let mut blocks = Vec::with_capacity(m as usize);
        let mut off = 0;
        for i in 0..m {
            let len = base + u32::from(i < extra);
            blocks.push((off, len));
            off += len;
        }
        let mut order: Vec<usize> = key.to_vec();
        order.extend((0..m as usize).filter(|b| !key.contains(b)));
        let key_bits = key.iter().map(|&b| blocks[b].1).sum();
        // Shift of each block in permuted space: the first in `order` is the topmost.
        let mut shift = vec![0u32; m as usize];
        let mut top = 64;
        for &b in &order {
            top -= blocks[b].1;
            shift[b] = top;
        }
        let last_key = *key.last().expect("a key has at least one block");
        let earlier = (0..last_key).filter(|b| !key.contains(b)).map(|b| (shift[b], mask(blocks[b].1))).collect();
        Table { blocks, order, key_bits, earlier }
    }

    #[inline]
    pub(crate) fn permute(&self, fp: u64) -> u64 {
        let mut p = 0u64;
        for &b in &self.order {
            let (off, len) = self.blocks[b];
            p = p.checked_shl(len).unwrap_or(0) | ((fp >> off) & mask(len));
        }
        p
    }

    pub(crate) fn unpermute(&self, mut p: u64) -> u64 {
        let mut fp = 0u64;
        for &b in self.order.iter().rev() {
            let (off, len) = self.blocks[b];
            fp |= (p & mask(len)) << off;
            p = if len == 64 { 0 } else { p >> len };
        }
        fp
    }

    /// Is this the first table (in lexicographic key order) on whose key blocks
    /// two permuted fingerprints with equal keys agree?
    #[inline]
    pub(crate) fn is_canonical(&self, xor: u64) -> bool {
        self.earlier.iter().all(|&(s, m)| (xor >> s) & m != 0)
    }
}

/// LSD radix sort of `v` on its top `bits` bits (order inside equal keys is unspecified).
fn radix_sort_top(v: &mut Vec<u64>, scratch: &mut Vec<u64>, bits: u32, cb: &mut dyn FnMut(Progress)) {
    if v.len() < 4096 {
        let shift = 64 - bits;
        v.sort_unstable_by_key(|&x| if bits == 0 { 0 } else { x >> shift });
        return;
    }
    radix_sort_top_by(v, scratch, bits, 13, |&x| x, cb);
}

/// LSD radix sort of `v` on the top `bits` bits of `key(e)`, in passes of at most
/// `max_digit` bits, a [`Progress::Tick`] after each; the order inside equal top bits is
/// unspecified. `scratch` is reused.
pub(crate) fn radix_sort_top_by<T: Copy>(
    v: &mut Vec<T>,
    scratch: &mut Vec<T>,
    bits: u32,
    max_digit: u32,
    key: impl Fn(&T) -> u64,
    cb: &mut dyn FnMut(Progress),
) {
    let Some(&first) = v.first() else { return };
    let passes = bits.div_ceil(max_digit);
    if passes == 0 {
        return;
    }
    let digit = bits.div_ceil(passes);
    scratch.clear();
    scratch.resize(v.len(), first);
    let mut counts = vec![0usize; 1 << digit];
    for p in 0..passes {
        // Least significant digit of the key first.
        let lo = 64 - bits + p * digit;
        let width = digit.min(64 - lo);
        let dmask = mask(width) as usize;
        counts.iter_mut().for_each(|c| *c = 0);
        for e in v.iter() {
            counts[(key(e) >> lo) as usize & dmask] += 1;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            let t = *c;
            *c = sum;
            sum += t;
        }
        for e in v.iter() {
            let d = (key(e) >> lo) as usize & dmask;
            scratch[counts[d]] = *e;
            counts[d] += 1;
        }
        std::mem::swap(v, scratch);
        cb(Progress::Tick);
    }
}

/// The search for pairs of distinct fingerprints within distance `k`, resumable: each
/// [`Search::next`] returns the next pair `(i, j, distance)`, `i < j` indices into
/// `distinct` (sorted, no duplicates), and keeps where it stopped. The state is one
/// table (8 B per distinct fingerprint) and its radix-sort scratch (8 B), never a pair
/// list, so the caller can stream pairs out as they are found.
struct Search {
    k: u32,
    state: SearchState,
    /// Comparisons since the last [`Progress::Tick`].
    work: u64,
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
    fn new(k: u32, plan: Plan) -> Search {
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
        Search { k, state, work: 0 }
    }

    #[inline]
    fn tick(&mut self, units: u64, cb: &mut dyn FnMut(Progress)) {
        self.work += units;
        if self.work >= TICK_WORK {
            self.work = 0;
            cb(Progress::Tick);
        }
    }

    /// The next pair of distinct fingerprints within `k`, `None` when there are no more.
    fn next(&mut self, distinct: &[u64], cb: &mut dyn FnMut(Progress)) -> Option<(usize, usize, u32)> {
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
fn distinct_pairs(
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

/// Advances `c` (strictly increasing indices below `n`) to the next combination in
/// lexicographic order; false after the last one.
pub(crate) fn next_combination(c: &mut [usize], n: usize) -> bool {
    let r = c.len();
    let mut i = r;
    while i > 0 {
        i -= 1;
        if c[i] < n - r + i {
            c[i] += 1;
            for j in i + 1..r {
                c[j] = c[j - 1] + 1;
            }
            return true;
        }
    }
    false
}

fn plan_message(plan: Plan, distinct: usize, k: u32) -> String {
    match plan {
        Plan::IdenticalOnly => format!("{distinct} distinct fingerprints, k={k}: identical fingerprints only"),
        Plan::BruteForce => format!("{distinct} distinct fingerprints, k={k}: comparing all pairs"),
        Plan::Blocks { m, a } => format!(
            "{distinct} distinct fingerprints, k={k}: {m} blocks, {} tables keyed on {a} blocks",
            binomial(m, a) as u64
        ),
    }
}

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
    work: u64,
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
            work: 0,
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
        self.work += 1;
        if self.work >= TICK_WORK {
            self.work = 0;
            cb(Progress::Tick);
        }
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
    // Union-find over groups of identical fingerprints, path halving.
    let mut parent: Vec<u32> = (0..n as u32).collect();
    fn find(parent: &mut [u32], mut x: u32) -> u32 {
        while parent[x as usize] != x {
            let p = parent[parent[x as usize] as usize];
            parent[x as usize] = p;
            x = p;
        }
        x
    }
    distinct_pairs(&g.distinct, k, plan, cb, &mut |i, j, _| {
        let (ri, rj) = (find(&mut parent, i as u32), find(&mut parent, j as u32));
        if ri != rj {
            parent[ri.max(rj) as usize] = ri.min(rj);
        }
    });
    // Per root: smallest id and number of rows (0 = no entry yet).
    let mut min_id = vec![i64::MAX; n];
    let mut size = vec![0u32; n];
    for gi in 0..n {
        let r = find(&mut parent, gi as u32) as usize;
        let ids = g.ids(gi);
        min_id[r] = min_id[r].min(ids[0].1); // sorted by (fp, id): ids[0] is the group's smallest
        size[r] = size[r].saturating_add(ids.len() as u32);
    }
    let mut out = Vec::new();
    for gi in 0..n {
        let r = find(&mut parent, gi as u32) as usize;
        if size[r] >= 2 {
            out.extend(g.ids(gi).iter().map(|&(_, id)| (min_id[r], id)));
        }
        if gi % (1 << 16) == 0 {
            cb(Progress::Tick);
        }
    }
    cb(Progress::Phase(format!("{} rows in clusters, sorting", out.len())));
    out.sort_unstable();
    out.into_iter().map(|(c, id)| (id, c)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(rows: &[(i64, u64)], k: u32) -> Vec<(i64, i64, u32)> {
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

    /// Components from the brute-force pairs, by repeated relaxation.
    fn brute_clusters(rows: &[(i64, u64)], k: u32) -> Vec<(i64, i64)> {
        let edges: Vec<(i64, i64)> = brute(rows, k).iter().map(|&(a, b, _)| (a, b)).collect();
        crate::shard::brute_components(&edges).into_iter().map(|(c, id)| (id, c)).collect()
    }

    fn nop(_: Progress) {}

    /// Random base fingerprints with planted near copies (few bits flipped) and exact copies.
    fn planted(seed: u64, n: usize, flips: u32) -> Vec<(i64, u64)> {
        let mut s = seed | 1;
        let mut rnd = move || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut rows: Vec<(i64, u64)> = Vec::new();
        for id in 0..n as i64 {
            let fp = if id > 0 && rnd() % 3 == 0 {
                let mut f = rows[(rnd() % id as u64) as usize].1;
                for _ in 0..rnd() % (flips as u64 + 1) {
                    f ^= 1 << (rnd() % 64);
                }
                f
            } else {
                rnd()
            };
            rows.push((id, fp));
        }
        rows
    }

    #[test]
    fn exact_vs_brute_force_for_every_k() {
        let rows = planted(42, 300, 8);
        for k in 0..=64 {
            assert_eq!(duplicates(rows.clone(), k, &mut nop), brute(&rows, k), "k={k}");
        }
    }

    #[test]
    fn every_block_plan_is_exact() {
        // Force each Manku plan on a small input (the cost model would pick brute force).
        let rows = planted(7, 400, 10);
        let mut d: Vec<u64> = rows.iter().map(|r| r.1).collect();
        d.sort_unstable();
        d.dedup();
        for k in 1..=10u32 {
            let want: Vec<_> = {
                let mut v = Vec::new();
                distinct_pairs(&d, k, Plan::BruteForce, &mut nop, &mut |i, j, x| v.push((i, j, x)));
                v.sort_unstable();
                v
            };
            for m in k + 1..=(k + 3).min(64) {
                let mut got = Vec::new();
                distinct_pairs(&d, k, Plan::Blocks { m, a: m - k }, &mut nop, &mut |i, j, x| got.push((i, j, x)));
                got.sort_unstable();
                assert_eq!(got, want, "k={k} m={m}");
            }
        }
    }

    #[test]
    fn large_input_uses_blocks_and_radix_sort() {
        // Above 4096 distinct fingerprints tables are radix-sorted.
        let rows = planted(3, 6_000, 4);
        assert!(matches!(plan(6_000, 3), Plan::Blocks { .. }));
        let got = duplicates(rows.clone(), 3, &mut nop);
        assert_eq!(got, brute(&rows, 3));
        assert!(got.len() > 1000);
    }

    #[test]
    fn identical_groups_and_clusters() {
        // 2000 copies of one fingerprint, a chain 0 - 1 bit - 2 bits, and singletons.
        let mut rows: Vec<(i64, u64)> = (100..2100).map(|id| (id, 0xABCD)).collect();
        rows.extend([(5, 0xF000), (6, 0xF001), (7, 0xF003), (8, 0xFFFF_FFFF_0000_0000)]);
        let pairs = duplicates(rows.clone(), 1, &mut nop);
        assert_eq!(pairs.len(), 2000 * 1999 / 2 + 2);
        assert!(
            pairs.contains(&(5, 6, 1)) && pairs.contains(&(6, 7, 1)) && !pairs.iter().any(|p| p.0 == 5 && p.1 == 7)
        );
        let cl = clusters(rows.clone(), 1, &mut nop);
        assert_eq!(cl.len(), 2003);
        assert_eq!(&cl[..3], &[(5, 5), (6, 5), (7, 5)]);
        assert!(cl[3..].iter().all(|&(id, c)| c == 100 && (100..2100).contains(&id)));
        assert_eq!(cl, brute_clusters(&rows, 1));
    }

    /// The documented stream order: distance-0 pairs first, group by group in increasing
    /// unsigned fingerprint order, each group sorted; then the others, each pair once.
    #[test]
    fn stream_order_identical_groups_first() {
        let mut rows: Vec<(i64, u64)> =
            vec![(9, u64::MAX), (3, u64::MAX), (4, 7), (1, 7), (2, 7), (5, 6), (8, 1 << 40)];
        rows.extend((100..110).map(|id| (id, id as u64 * 0x1000_0001)));
        let mut d = Duplicates::new(rows.clone(), 1, &mut nop);
        let mut got = Vec::new();
        while let Some(p) = d.next_pair(&mut nop) {
            got.push(p);
        }
        assert_eq!(&got[..4], &[(1, 2, 0), (1, 4, 0), (2, 4, 0), (3, 9, 0)]);
        assert!(got[4..].iter().all(|p| p.2 > 0));
        let mut sorted = got.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, brute(&rows, 1));
    }

    /// 100,000 copies of one fingerprint are 5·10⁹ pairs: the first ten come at once,
    /// and emitting them ticks (the SQL layer checks for cancellation there).
    #[test]
    fn huge_identical_group_streams_and_ticks() {
        let rows: Vec<(i64, u64)> = (1..=100_000).map(|id| (id, 0)).collect();
        let mut d = Duplicates::new(rows, 3, &mut nop);
        let first: Vec<_> = (0..10).map_while(|_| d.next_pair(&mut nop)).collect();
        assert_eq!(first, (2..=11).map(|b| (1, b, 0)).collect::<Vec<_>>());
        let mut ticks = 0;
        for _ in 0..3_000_000 {
            d.next_pair(&mut |p| ticks += u32::from(p == Progress::Tick)).expect("more pairs");
        }
        assert!(ticks >= 2, "{ticks} ticks");
    }

    #[test]
    fn sorting_many_rows_in_runs_and_merges() {
        let mut rows: Vec<(u64, i64)> =
            (0..1_000_003i64).map(|i| ((i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) % 5000, -i)).collect();
        let mut want = rows.clone();
        want.sort_unstable();
        let mut ticks = 0;
        sort_rows(&mut rows, &mut |_| ticks += 1);
        assert_eq!(rows, want);
        assert!(ticks >= 8, "{ticks}");
    }

    /// A search that finds nothing for a long time still ticks inside one call.
    #[test]
    fn long_search_without_pairs_ticks() {
        let mut distinct: Vec<u64> = (0..3000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
        distinct.sort_unstable();
        let mut ticks = 0;
        let mut s = Search::new(1, Plan::BruteForce);
        assert_eq!(s.next(&distinct, &mut |p| ticks += u32::from(p == Progress::Tick)), None);
        assert!(ticks >= 4, "{ticks} ticks over 4.5M comparisons");
    }

    trait TapSort {
        fn tap_sort(self) -> Self;
    }
    impl TapSort for Vec<(i64, i64)> {
        fn tap_sort(mut self) -> Self {
            self.sort_unstable_by_key(|&(id, c)| (c, id));
            self
        }
    }

    #[test]
    fn progress_reports_phases_and_ticks() {
        let mut phases = Vec::new();
        let mut ticks = 0;
        duplicates(planted(1, 10_000, 3), 3, &mut |p| match p {
            Progress::Phase(s) => phases.push(s),
            Progress::Tick => ticks += 1,
        });
        assert_eq!(phases.len(), 2);
        assert!(phases[0].contains("tables keyed on"), "{phases:?}");
        assert!(ticks > 10);
    }

    #[test]
    fn same_id_never_pairs() {
        assert_eq!(duplicates(vec![(1, 5), (1, 5), (2, 5)], 0, &mut nop), vec![(1, 2, 0), (1, 2, 0)]);
        assert!(duplicates(Vec::new(), 3, &mut nop).is_empty());
    }

    #[test]
    fn permutation_round_trips() {
        for m in 1..=64 {
            let t = Table::new(m, &[m as usize - 1]);
            for fp in [0, u64::MAX, 0x0123_4567_89AB_CDEF, 1 << 63] {
                assert_eq!(t.unpermute(t.permute(fp)), fp, "m={m}");
                assert_eq!(t.permute(fp).count_ones(), fp.count_ones());
            }
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matches_brute_force(seed: u64, n in 0usize..200, flips in 0u32..12, k in 0u32..=64) {
            let rows = planted(seed, n, flips);
            prop_assert_eq!(duplicates(rows.clone(), k, &mut nop), brute(&rows, k));
            prop_assert_eq!(clusters(rows.clone(), k, &mut nop), brute_clusters(&rows, k).tap_sort());
        }

        #[test]
        fn forced_block_plans_match(seed: u64, k in 1u32..20, extra in 1u32..5) {
            let rows = planted(seed, 150, k + 2);
            let mut d: Vec<u64> = rows.iter().map(|r| r.1).collect();
            d.sort_unstable();
            d.dedup();
            let m = (k + extra).min(64);
            let mut want = Vec::new();
            distinct_pairs(&d, k, Plan::BruteForce, &mut nop, &mut |i, j, x| want.push((i, j, x)));
            let mut got = Vec::new();
            distinct_pairs(&d, k, Plan::Blocks { m, a: m - k }, &mut nop, &mut |i, j, x| got.push((i, j, x)));
            want.sort_unstable();
            got.sort_unstable();
            prop_assert_eq!(got, want);
        }
    }
}
