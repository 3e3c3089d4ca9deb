//! A batch against a corpus: every (batch row, corpus row) pair within Hamming distance
//! `k`, with the batch in memory and the corpus streamed past it once (Manku, Jain &
//! Das Sarma, WWW 2007, section 4, batch query mode with the small side in the tables).
//!
//! 1. The batch rows are grouped by identical fingerprint (as in [`crate::batch`]), so a
//!    corpus fingerprint is compared with each distinct batch fingerprint once and the
//!    group's ids are paired without further work.
//! 2. The 64 bits are split into `m` blocks; a pair within `k` agrees on at least
//!    `a = m - k` of them. For each of the `C(m, a)` choices of `a` blocks a table holds
//!    the distinct batch fingerprints permuted so that those blocks are the top bits,
//!    sorted, with a bucket index on the top bits of the key (`2^p` offsets, `p` about
//!    `log2(batch)`), so looking a corpus fingerprint up is one permute, one bucket and a
//!    scan of the (few) entries with the same key.
//! 3. A candidate is compared exactly, and kept only by its canonical table: the one keyed
//!    on the `a` lowest-indexed blocks on which the pair agrees (the rule of the one-table
//!    form), so each (distinct batch fingerprint, corpus row) pair is found once.
//!
//! The corpus is looked up a chunk of rows at a time ([`BatchTables::chunk_rows`]): for
//! each table bigger than the cache the chunk is permuted and radix-sorted on the bucket
//! bits, so the lookups sweep the table in order (the merge of sorted lists of Manku's
//! batch mode, in effect), and where the CPU has AVX-512 each bucket's entries are
//! filtered 16 at a time on 32 of their bits before any is compared whole. The chunks are
//! looked up in worker threads while the caller reads the next ones, if it asks for
//! them ([`crate::lookup_threads`]).
//!
//! `m` comes from a cost model per corpus row: a table costs a permute, a sort and a
//! lookup, plus one comparison per candidate (`batch / 2^key_bits` on random data).
//! Comparing with every distinct batch fingerprint is a plan too (tiny batches, large
//! `k`); `k = 0` is one table keyed on all 64 bits. The number of tables is capped at
//! [`MAX_TABLES`], which bounds the memory: see [`bytes_per_batch_row`]. Every plan is
//! exact for every `k`.
//!
//! The corpus is never held whole: [`CorpusPairs::feed`] takes one chunk (a few are in
//! flight with worker threads) and [`CorpusPairs::next_pending`] hands out their pairs
//! one at a time.

use crate::batch::{binomial, next_combination, radix_sort_top_by, Grouped, Progress, Table};
use crate::corpus_pairs::CorpusPairs;
use crate::hamming;

/// At most this many tables (memory is 16 B per distinct batch fingerprint per table).
pub const MAX_TABLES: f64 = 32.0;

/// How the batch is searched for each corpus fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorpusPlan {
    /// Nothing can match (empty batch).
    Empty,
    /// `C(m, a)` tables keyed on `a = m - k` of `m` blocks (`k = 0`: `m = a = 1`).
    Blocks { m: u32, a: u32 },
    /// Compare with every distinct batch fingerprint.
    BruteForce,
}

/// Estimated cost, in comparisons per corpus row, against `n` distinct batch fingerprints.
pub fn corpus_plan_cost(plan: CorpusPlan, n: usize) -> f64 {
    // A table costs a permute, two radix passes and a lookup per corpus row, 20 to 30 ns
    // with the chunked lookups; a candidate, compared 8 at a time with AVX-512, 0.3 to 0.5
    // (4 tables: 96, 113, 172 ns per corpus row at 1, 2, 4M batch rows; 10 tables 212, 235,
    // 337: the timing test `crossover` below). So a table counts as 64 comparisons, and 4
    // tables of 16-bit keys win up to about 6M batch rows; fewer tables also take less memory.
    const PER_TABLE: f64 = 64.0;
    let n = n as f64;
    match plan {
        CorpusPlan::Empty => 0.0,
        CorpusPlan::BruteForce => n,
        CorpusPlan::Blocks { m, a } => {
            let key_bits = (64 * a / m) as i32; // the smallest key any table gets
            binomial(m, a) * (PER_TABLE + n / 2f64.powi(key_bits))
        }
    }
}

/// The cheapest exact plan for `n` distinct batch fingerprints and maximum distance `k`.
pub fn corpus_plan(n: usize, k: u32) -> CorpusPlan {
    assert!(k <= 64, "max distance {k} > 64");
    if n == 0 {
        return CorpusPlan::Empty;
    }
    if k == 0 {
        return CorpusPlan::Blocks { m: 1, a: 1 };
    }
    let mut best = (corpus_plan_cost(CorpusPlan::BruteForce, n), CorpusPlan::BruteForce);
    for m in (k + 1)..=64 {
        let a = m - k;
        if binomial(m, a) > MAX_TABLES {
            continue;
        }
        let p = CorpusPlan::Blocks { m, a };
        let c = corpus_plan_cost(p, n);
        if c < best.0 {
            best = (c, p);
        }
    }
    best.1
}

/// Working memory per batch row for a plan: the rows `(fp, id)` 16 B, the distinct
/// fingerprints 8 B and group offsets 4 B, the corpus chunks (a quarter of the batch each:
/// 16 B per batch row looked up in the caller's thread, about 18 B more per worker
/// thread), and with tables the group index 4 B and per table 8 B (the permuted
/// fingerprint), 4 B (its filter bits) and about 4 B of bucket index, counted as if every
/// row were distinct. A chunk has at least 65,536 rows (4 MB) and a table at least 256 KB
/// of offsets, whatever the batch. Measured peaks (the backend's VmHWM less its size
/// before) for a 1M batch at k = 3: 149 MB without threads, 179 MB with 2, 215 MB with 4.
pub fn bytes_per_batch_row(plan: CorpusPlan) -> usize {
    match plan {
        CorpusPlan::Blocks { m, a } => 48 + 16 * binomial(m, a) as usize,
        _ => 44,
    }
}

/// Bits of the bucket index on `n` sorted values: about one value per bucket, at most
/// 2^24 buckets (64 MB of offsets).
fn bucket_bits(n: usize) -> u32 {
    (usize::BITS - n.max(1).leading_zeros()).min(24)
}

/// The bucket index of `sorted` on its top `bits` bits: bucket `b` is
/// `sorted[starts[b]..starts[b + 1]]`.
fn bucket_starts(sorted: &[u64], bits: u32) -> Vec<u32> {
    let mut starts = vec![0u32; (1usize << bits) + 1];
    for &p in sorted {
        starts[Indexed::bucket(p, bits) + 1] += 1;
    }
    for b in 1..starts.len() {
        starts[b] += starts[b - 1];
    }
    starts
}

/// [`Table::permute`] as one rotate-and-mask step per distinct rotation its bits take
/// (at most 3 for the 4 tables of k = 3), derived from it bit by bit. Permuting a chunk
/// for the 4 tables of a 1M batch took 28 ns per corpus row with `permute` (a shift, a
/// mask and a branch per block), 12 with this.
struct FastPermute {
    steps: Vec<(u32, u64)>,
}

impl FastPermute {
    fn new(t: &Table) -> FastPermute {
        let mut steps: Vec<(u32, u64)> = Vec::new();
        for i in 0..64 {
            let to = t.permute(1 << i).trailing_zeros();
            let rot = (to + 64 - i) % 64;
            match steps.iter_mut().find(|s| s.0 == rot) {
                Some(s) => s.1 |= 1 << to,
                None => steps.push((rot, 1 << to)),
            }
        }
        FastPermute { steps }
    }

    #[inline]
    fn apply(&self, fp: u64) -> u64 {
        self.steps.iter().fold(0, |p, &(rot, mask)| p | (fp.rotate_left(rot) & mask))
    }
}

/// Bits of a packed row's index in its chunk ([`BatchTables::probe_packed`]): chunks have
/// at most 2^20 rows.
const ROW_BITS: u32 = 20;
const ROW_MASK: u64 = (1 << ROW_BITS) - 1;

/// A chunk is sorted for a table only if the table (entries and offsets) is bigger than
/// this; a smaller one stays in L2 while it is looked up in any order. 10k batch against
/// 10M corpus: 0.81-0.82 s, against 1.00-1.04 s sorting for every table.
const SORT_ABOVE: usize = 1 << 20;

/// One table: the distinct batch fingerprints permuted, sorted, and bucketed on the top
/// `bucket_bits` bits (`bucket_bits <= key_bits`): bucket `b` is `fps[starts[b]..starts[b+1]]`.
pub(crate) struct Indexed {
    table: Table,
    /// `table.permute` as a few rotate-and-mask steps.
    fast: FastPermute,
    fps: Vec<u64>,
    /// `sub(fps[i])`: 32 of the bits after the key, the AVX-512 scan's first filter.
    sub: Vec<u32>,
    bucket_bits: u32,
    starts: Vec<u32>,
    /// Top bits a chunk of corpus rows is sorted on before it is looked up here.
    sort_bits: u32,
}

impl Indexed {
    /// `tmp` is the radix sort's buffer, reused from table to table: fresh pages cost a
    /// page fault each (a 1M batch's 4 tables: 8,000 fewer of 58,000 in the whole pass).
    fn new(table: Table, distinct: &[u64], tmp: &mut Vec<u64>, cb: &mut dyn FnMut(Progress)) -> Indexed {
        let fast = FastPermute::new(&table);
        let mut fps: Vec<u64> = Vec::with_capacity(distinct.len());
        for chunk in distinct.chunks(1 << 16) {
            fps.extend(chunk.iter().map(|&fp| fast.apply(fp)));
            cb(Progress::Tick);
        }
        // Lookups need the entries in key order only (a bucket is scanned whole, a key's run
        // found by its key): keys up to 33 bits are radix-sorted on the key, with a tick
        // per pass (a 1M batch grouped and its 4 tables built: 154-184 ms with
        // sort_unstable, 125-155 with this); longer keys (k = 0, or small batches) are sorted whole.
        if table.key_bits <= 33 {
            radix_sort_top_by(&mut fps, tmp, table.key_bits, 11, |&x| x, cb);
        } else {
            fps.sort_unstable();
            cb(Progress::Tick);
        }
        // At least 16 bits (256 KB of offsets), so that a key of 16 bits or fewer (4 tables
        // at k = 3) is always a whole bucket, without a search for the key inside it: 10k
        // batch against 10M corpus 1.15 -> 0.84 s.
        let bucket_bits = bucket_bits(fps.len()).max(16).min(table.key_bits);
        let starts = bucket_starts(&fps, bucket_bits);
        cb(Progress::Tick);
        let bytes = fps.len() * 8 + starts.len() * 4;
        let sort_bits = if bytes > SORT_ABOVE { bucket_bits } else { 0 };
        let sub = fps.iter().map(|&p| Self::sub_of(table.key_bits, p)).collect();
        Indexed { fast, table, fps, sub, bucket_bits, starts, sort_bits }
    }

    /// Whether a sorted chunk of `rows` rows is looked up here packed 8 bytes a row
    /// ([`BatchTables::probe_packed`]): a bucket that is the whole key, of at most 24 bits
    /// (so at least 20 bits of filter), the chunk sorted on it, and its rows numbered in
    /// [`ROW_BITS`].
    fn packs(&self, rows: usize) -> bool {
        let kb = self.table.key_bits;
        kb <= 24 && self.bucket_bits == kb && self.sort_bits == kb && rows <= 1 << ROW_BITS
    }

    /// The 32 bits after a key of `key_bits` (the low 32 after a longer key): a pair within
    /// `k` is within `k` on them, and a pair of random fingerprints rarely is (3 of 2^32 at
    /// k = 3), so the scan compares them 16 at a time and the whole fingerprints only where
    /// they pass.
    #[inline(always)]
    fn sub_of(key_bits: u32, p: u64) -> u32 {
        ((p << key_bits.min(32)) >> 32) as u32
    }

    #[inline]
    fn bucket(p: u64, bits: u32) -> usize {
        if bits == 0 {
            0
        } else {
            (p >> (64 - bits)) as usize
        }
    }

    #[inline]
    fn key(&self, p: u64) -> u64 {
        let bits = self.table.key_bits;
        if bits >= 64 {
            p
        } else {
            p >> (64 - bits)
        }
    }
}

/// Buffers of [`BatchTables::groups_near_chunk`], kept from one chunk to the next so a
/// chunk does not allocate (and fault in) fresh pages: 32 B per chunk row.
#[derive(Default)]
pub struct ChunkScratch {
    perm: Vec<(u64, u32)>,
    tmp: Vec<(u64, u32)>,
    /// [`BatchTables::probe_packed`]'s rows and sort buffer.
    packed: Vec<u64>,
    packed_tmp: Vec<u64>,
    /// `(row, batch fingerprint, distance)` of the matches.
    hits: Vec<(u32, u64, u32)>,
}

/// How a run of candidates is compared with a corpus fingerprint: the fastest the CPU
/// can do, detected once per batch. With AVX-512 (16 filters per popcount, 8-byte packed
/// chunk rows) the lookups in the 4 tables of a 1M batch take 55 ns per corpus row, with
/// scalar POPCNT 85, with neither 132 (the default x86-64 target has no POPCNT:
/// `count_ones` is a dozen operations; `timing::plans_at_1m`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Scan {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Popcnt,
    Plain,
}

impl Scan {
    /// Every scan this CPU can run, the fastest first.
    fn available() -> Vec<Scan> {
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            {
                v.push(Scan::Avx512);
            }
            if std::arch::is_x86_feature_detected!("popcnt") {
                v.push(Scan::Popcnt);
            }
        }
        v.push(Scan::Plain);
        v
    }

    fn detect() -> Scan {
        Scan::available()[0]
    }
}

/// Calls `hit(x)` for every `x` of `run` within `k` bits of `p`, in order.
#[inline(always)]
fn scan_plain(run: &[u64], p: u64, k: u32, hit: &mut dyn FnMut(u64)) {
    for &x in run {
        if (x ^ p).count_ones() <= k {
            hit(x);
        }
    }
}

/// Calls `pass(i)` for every `i` with `sub[i] >> drop` within `k` bits of `ps`, 16 at a
/// time: one XOR, one popcount per lane (VPOPCNTD) and one compare. The filter of
/// [`scan_avx512`] and [`BatchTables::probe_packed`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
#[inline]
fn filter_avx512(sub: &[u32], ps: u32, drop: u32, k: u32, pass: &mut impl FnMut(usize)) {
    use std::arch::x86_64::*;
    let pv = _mm512_set1_epi32(ps as i32);
    let kv = _mm512_set1_epi32(k as i32);
    let dv = _mm512_set1_epi32(drop as i32);
    for (i, c) in sub.chunks(16).enumerate() {
        let lanes = if c.len() == 16 { 0xFFFF } else { (1u16 << c.len()) - 1 };
        // SAFETY: the mask enables exactly the lanes `0..c.len()`, all inside `c`; masked-off
        // lanes are not read (a masked load does not fault on them), and unaligned loads are
        // allowed.
        let x = unsafe { _mm512_maskz_loadu_epi32(lanes, c.as_ptr().cast::<i32>()) };
        let x = _mm512_srlv_epi32(x, dv);
        let mut near = _mm512_mask_cmple_epu32_mask(lanes, _mm512_popcnt_epi32(_mm512_xor_si512(x, pv)), kv);
        while near != 0 {
            pass(i * 16 + near.trailing_zeros() as usize);
            near &= near - 1;
        }
    }
}

/// [`scan_plain`] with a filter: [`filter_avx512`] on `sub` (32 bits of each entry, see
/// [`Indexed::sub_of`]) gives the entries within `k` there, and only those are compared
/// whole. 1M batch against 4M corpus rows: 73-75 ns per corpus row comparing the whole
/// entries 8 at a time, 66-68 with this.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
#[inline]
fn scan_avx512(run: &[u64], sub: &[u32], p: u64, ps: u32, k: u32, hit: &mut dyn FnMut(u64)) {
    debug_assert_eq!(run.len(), sub.len());
    filter_avx512(sub, ps, 0, k, &mut |i| {
        let x = run[i];
        if (x ^ p).count_ones() <= k {
            hit(x);
        }
    });
}

/// The batch side: its rows grouped by fingerprint and the plan's tables. Memory:
/// [`bytes_per_batch_row`]; it never grows with the corpus.
pub struct BatchTables {
    g: Grouped,
    k: u32,
    plan: CorpusPlan,
    tables: Vec<Indexed>,
    scan: Scan,
    /// Bucket index of `g.distinct` on its top `group_bits` bits, to find a match's group
    /// in a bucket of about one fingerprint: a binary search of all of them was a dozen
    /// cache misses per match, a third of the candidate comparisons' time (perf, 1M batch
    /// against 10M corpus, 300,000 pairs). 4 B per distinct fingerprint.
    group_bits: u32,
    group_starts: Vec<u32>,
}

/// A batch grouped and its plan chosen, its tables not built yet: [`Prepared::build`]
/// builds them in the caller's thread, [`CorpusPairs::start`] in its worker threads.
pub struct Prepared {
    g: Grouped,
    k: u32,
    plan: CorpusPlan,
    tables: Vec<Table>,
}

impl Prepared {
    /// Groups the batch rows `(id, fp)` and chooses the plan (reported as a
    /// [`Progress::Phase`]). Panics if `k > 64`.
    pub fn new(batch: impl IntoIterator<Item = (i64, u64)>, k: u32, cb: &mut dyn FnMut(Progress)) -> Prepared {
        let g = Grouped::new(batch, cb);
        let plan = corpus_plan(g.distinct.len(), k);
        Self::with_plan(g, k, plan, cb)
    }

    fn with_plan(g: Grouped, k: u32, plan: CorpusPlan, cb: &mut dyn FnMut(Progress)) -> Prepared {
        let mut tables = Vec::new();
        if let CorpusPlan::Blocks { m, a } = plan {
            let mut key: Vec<usize> = (0..a as usize).collect();
            loop {
                tables.push(Table::new(m, &key));
                if !next_combination(&mut key, m as usize) {
                    break;
                }
            }
        }
        let p = Prepared { g, k, plan, tables };
        cb(Progress::Phase(p.describe()));
        p
    }

    /// The plan, as the [`Progress::Phase`] that reports it.
    pub fn describe(&self) -> String {
        let (n, k) = (self.g.distinct.len(), self.k);
        match self.plan {
            CorpusPlan::Empty => format!("empty batch, k={k}: no pairs"),
            CorpusPlan::BruteForce => {
                format!("{n} distinct batch fingerprints, k={k}: comparing each corpus row with all of them")
            }
            CorpusPlan::Blocks { m, a } => format!(
                "{n} distinct batch fingerprints, k={k}: {m} blocks, {} tables keyed on {a} blocks",
                binomial(m, a) as u64
            ),
        }
    }

    /// Number of batch rows.
    pub fn is_empty(&self) -> bool {
        self.g.rows.is_empty()
    }

    /// [`BatchTables::chunk_rows`] of the tables to come.
    pub fn chunk_rows(&self) -> usize {
        chunk_rows(self.g.distinct.len())
    }

    /// Tables to build.
    pub(crate) fn table_count(&self) -> usize {
        self.tables.len()
    }

    /// Table `i`; `tmp` is scratch space, reused from table to table.
    pub(crate) fn build_table(&self, i: usize, tmp: &mut Vec<u64>, cb: &mut dyn FnMut(Progress)) -> Indexed {
        Indexed::new(self.tables[i].clone(), &self.g.distinct, tmp, cb)
    }

    /// Builds the tables here.
    pub fn build(self, cb: &mut dyn FnMut(Progress)) -> BatchTables {
        let mut tmp = Vec::new();
        let built = (0..self.tables.len()).map(|i| self.build_table(i, &mut tmp, cb)).collect();
        self.finish(built)
    }

    /// The batch with its tables, `built[i]` the one of `self.tables[i]`.
    pub(crate) fn finish(self, built: Vec<Indexed>) -> BatchTables {
        let Prepared { g, k, plan, .. } = self;
        let group_bits = if built.is_empty() { 0 } else { bucket_bits(g.distinct.len()) };
        let group_starts = bucket_starts(&g.distinct, group_bits);
        BatchTables { g, k, plan, tables: built, scan: Scan::detect(), group_bits, group_starts }
    }
}

/// Corpus rows to look up at once against `distinct` distinct batch fingerprints: a
/// quarter of them, at least 2^16, at most 2^20. A chunk sweeps every table once, so small
/// chunks read the tables over and over: against a 1M batch (4 tables, ignored timing test
/// below) chunks of 16,384 rows took 129 ns per corpus row, of 250,000 (this) 110, of 2^20
/// 123 (their sort spills out of the cache). The cap bounds the work between two interrupt
/// checks (about 30 ms for a chunk at a 1M batch). Memory: 16 B per chunk row for each
/// chunk in flight (up to 2 per worker thread, 1 without), 32 B per chunk row of scratch
/// per thread that looks up.
pub(crate) fn chunk_rows(distinct: usize) -> usize {
    (distinct / 4).clamp(1 << 16, 1 << 20)
}

impl BatchTables {
    /// Groups the batch rows `(id, fp)`, chooses the plan (reported as a
    /// [`Progress::Phase`]) and builds its tables. Panics if `k > 64`.
    pub fn new(batch: impl IntoIterator<Item = (i64, u64)>, k: u32, cb: &mut dyn FnMut(Progress)) -> BatchTables {
        Prepared::new(batch, k, cb).build(cb)
    }

    #[cfg(test)]
    fn with_plan(g: Grouped, k: u32, plan: CorpusPlan, cb: &mut dyn FnMut(Progress)) -> BatchTables {
        Prepared::with_plan(g, k, plan, cb).build(cb)
    }

    pub fn plan(&self) -> CorpusPlan {
        self.plan
    }

    /// Number of batch rows.
    pub fn len(&self) -> usize {
        self.g.rows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.g.rows.is_empty()
    }

    /// Appends to `out` every group of identical batch fingerprints within `k` of `fp`,
    /// as `(group, distance)`, each group once; returns the units of work done
    /// (tables looked up plus candidates compared).
    pub fn groups_near(&self, fp: u64, out: &mut Vec<(u32, u32)>) -> u64 {
        let k = self.k;
        match self.plan {
            CorpusPlan::Empty => 0,
            CorpusPlan::BruteForce => {
                for (i, &b) in self.g.distinct.iter().enumerate() {
                    let d = hamming(fp, b);
                    if d <= k {
                        out.push((i as u32, d));
                    }
                }
                self.g.distinct.len() as u64
            }
            CorpusPlan::Blocks { .. } => {
                let mut work = 0;
                for t in &self.tables {
                    let mut hits = Vec::new();
                    work += self.probe(t, &[(t.table.permute(fp), 0)], &mut hits);
                    out.extend(hits.iter().map(|&(_, b, d)| (self.group_of(b), d)));
                }
                work
            }
        }
    }

    /// Where the entries of table `t` with the key of the permuted corpus fingerprint `p`
    /// are, as `lo..hi` in `t.fps` (and `t.sub`).
    #[inline(always)]
    fn run_of(t: &Indexed, p: u64) -> (usize, usize) {
        let b = Indexed::bucket(p, t.bucket_bits);
        let (mut lo, mut hi) = (t.starts[b] as usize, t.starts[b + 1] as usize);
        if t.bucket_bits != t.table.key_bits {
            // Sorted: the entries with the key are a contiguous run in the bucket. (When the
            // bucket is the whole key, a batch of 2^key_bits rows or more, all of it is.)
            let key = t.key(p);
            let run = &t.fps[lo..hi];
            let from = run.partition_point(|&x| t.key(x) < key);
            hi = lo + from + run[from..].partition_point(|&x| t.key(x) == key);
            lo += from;
        }
        (lo, hi)
    }

    /// Looks the permuted corpus fingerprints `(p, row)` of `rows` up in table `t` with
    /// `scan`: pushes `(row, batch fingerprint, distance)` to `hits` for each distinct batch
    /// fingerprint within `k` whose canonical table is `t`. Returns the work done (per row
    /// 1 + candidates compared). Inlined into one copy per scan, each compiled with the
    /// scan's CPU features, so the scan inlines too.
    #[inline(always)]
    fn probe_rows(
        &self,
        t: &Indexed,
        rows: &[(u64, u32)],
        hits: &mut Vec<(u32, u64, u32)>,
        scan: impl Fn(&[u64], &[u32], u64, u32, u32, &mut dyn FnMut(u64)),
    ) -> u64 {
        let mut work = 0;
        for &(p, r) in rows {
            let (lo, hi) = Self::run_of(t, p);
            work += 1 + (hi - lo) as u64;
            if lo == hi {
                continue; // most lookups into a small batch's tables: no scan
            }
            scan(&t.fps[lo..hi], &t.sub[lo..hi], p, Indexed::sub_of(t.table.key_bits, p), self.k, &mut |x: u64| {
                let xor = x ^ p;
                if t.table.is_canonical(xor) {
                    hits.push((r, t.table.unpermute(x), xor.count_ones()));
                }
            });
        }
        work
    }

    /// [`BatchTables::probe_rows`] with the scan this CPU runs best.
    fn probe(&self, t: &Indexed, rows: &[(u64, u32)], hits: &mut Vec<(u32, u64, u32)>) -> u64 {
        match self.scan {
            // SAFETY: `scan` is Avx512 only if the CPU has AVX-512F and VPOPCNTDQ (detected
            // in `BatchTables::with_plan`), the features `probe_avx512` is compiled for.
            #[cfg(target_arch = "x86_64")]
            Scan::Avx512 => unsafe { self.probe_avx512(t, rows, hits) },
            // SAFETY: as above, Popcnt only if the CPU has POPCNT.
            #[cfg(target_arch = "x86_64")]
            Scan::Popcnt => unsafe { self.probe_popcnt(t, rows, hits) },
            Scan::Plain => self.probe_rows(t, rows, hits, |run, _, p, _, k, hit| scan_plain(run, p, k, hit)),
        }
    }

    /// [`BatchTables::probe_rows`] with [`scan_avx512`] inlined: 1M batch against 4M
    /// corpus rows, 93-95 ns per corpus row with the scan a call per lookup, 73-75 with this.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    fn probe_avx512(&self, t: &Indexed, rows: &[(u64, u32)], hits: &mut Vec<(u32, u64, u32)>) -> u64 {
        self.probe_rows(t, rows, hits, |run, sub, p, ps, k, hit| scan_avx512(run, sub, p, ps, k, hit))
    }

    /// [`BatchTables::probe_rows`] for a sorted chunk packed 8 bytes a row: the permuted
    /// fingerprint's top 44 bits (a key of at most 24 bits, then the first `44 - key` bits
    /// after it, which filter the candidates as [`scan_avx512`]'s 32 do) with the row in the
    /// low 20 bits ([`Indexed::packs`]). Sorting 8-byte rows instead of 16-byte pairs
    /// halves the sort's traffic; a row's whole fingerprint is permuted again from `fps`
    /// only for a candidate that passes the filter. 1M batch against 4M corpus rows: 66-68
    /// ns per corpus row with the pairs, 59-62 with this.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
    fn probe_packed(&self, t: &Indexed, packed: &[u64], fps: &[u64], hits: &mut Vec<(u32, u64, u32)>) -> u64 {
        let (kb, k) = (t.table.key_bits, self.k);
        // The filter's bits: the table's 32 after the key, shifted down to the `w` packed.
        let w = 64 - kb - ROW_BITS;
        let mut work = 0;
        for &e in packed {
            let b = (e >> (64 - kb)) as usize;
            let (lo, hi) = (t.starts[b] as usize, t.starts[b + 1] as usize);
            work += 1 + (hi - lo) as u64;
            let row = (e & ROW_MASK) as usize;
            let es = ((e << kb) >> (kb + ROW_BITS)) as u32;
            filter_avx512(&t.sub[lo..hi], es, 32 - w, k, &mut |i| {
                let p = t.fast.apply(fps[row]);
                let x = t.fps[lo + i];
                let xor = x ^ p;
                if xor.count_ones() <= k && t.table.is_canonical(xor) {
                    hits.push((row as u32, t.table.unpermute(x), xor.count_ones()));
                }
            });
        }
        work
    }

    /// [`BatchTables::probe_rows`] compiled with POPCNT.
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "popcnt")]
    fn probe_popcnt(&self, t: &Indexed, rows: &[(u64, u32)], hits: &mut Vec<(u32, u64, u32)>) -> u64 {
        self.probe_rows(t, rows, hits, |run, _, p, _, k, hit| scan_plain(run, p, k, hit))
    }

    /// The group of a distinct batch fingerprint.
    #[inline]
    fn group_of(&self, fp: u64) -> u32 {
        let b = Indexed::bucket(fp, self.group_bits);
        let (lo, hi) = (self.group_starts[b] as usize, self.group_starts[b + 1] as usize);
        let i = self.g.distinct[lo..hi].binary_search(&fp).expect("a table holds the distinct fingerprints");
        (lo + i) as u32
    }

    /// Corpus rows to look up at once: a quarter of the distinct fingerprints, 2^16 to 2^20
    /// (the free function `chunk_rows` says why).
    pub fn chunk_rows(&self) -> usize {
        chunk_rows(self.g.distinct.len())
    }

    /// [`BatchTables::groups_near`] for a chunk of corpus fingerprints at once: appends
    /// `(row, group, distance)` for every match, `row` an index into `fps`, sorted by row.
    /// Same matches, much faster on a batch bigger than the cache: table by table the
    /// chunk is permuted and radix-sorted on the top bits of its key, then looked up in
    /// that order, so the lookups sweep the table's buckets and entries forwards (Manku's
    /// batch mode merges two sorted lists the same way) instead of jumping to a random
    /// page of a table of megabytes for every row, a cache and a TLB miss each. `scratch`
    /// is reused from chunk to chunk. Returns the units of work done.
    pub fn groups_near_chunk(&self, fps: &[u64], scratch: &mut ChunkScratch, out: &mut Vec<(u32, u32, u32)>) -> u64 {
        let start = out.len();
        let mut work = 0;
        if !matches!(self.plan, CorpusPlan::Blocks { .. }) {
            let mut one = Vec::new();
            for (r, &fp) in fps.iter().enumerate() {
                one.clear();
                work += self.groups_near(fp, &mut one);
                out.extend(one.iter().map(|&(g, d)| (r as u32, g, d)));
            }
            return work;
        }
        assert!(fps.len() <= u32::MAX as usize, "a chunk of more than 2^32 - 1 rows");
        let ChunkScratch { perm, tmp, packed, packed_tmp, hits } = scratch;
        hits.clear();
        for t in &self.tables {
            #[cfg(target_arch = "x86_64")]
            if self.scan == Scan::Avx512 && t.packs(fps.len()) {
                packed.clear();
                packed.extend(fps.iter().enumerate().map(|(r, &fp)| t.fast.apply(fp) & !ROW_MASK | r as u64));
                radix_sort_top_by(packed, packed_tmp, t.sort_bits, 11, |&e| e, &mut |_| {});
                // SAFETY: `scan` is Avx512 only if the CPU has AVX-512F and VPOPCNTDQ.
                work += unsafe { self.probe_packed(t, packed, fps, hits) };
                continue;
            }
            perm.clear();
            perm.extend(fps.iter().enumerate().map(|(r, &fp)| (t.fast.apply(fp), r as u32)));
            // Sorted on the bucket bits (tables over SORT_ABOVE), the lookups read the table's
            // offsets and entries in order. 1M batch against 10M corpus: 1.83-1.97 s end to
            // end, against 1.92-2.14 sorted on just enough bits (9, one pass) for a slice of
            // the table to fit in L1, with a prefetch 16 rows ahead (which gives nothing
            // here: 1.79-1.97). Passes of 11 bits at most (2 for 16): 2,048 counters and
            // places written stay in L1. Sorting 8-byte keys (the top bits with the row
            // below them, permuted again after the sort) instead of 16-byte pairs was
            // slower: 123 ns per corpus row against 76-81 (4 tables of a 1M batch). Counting
            // every pass in one sweep and scattering the first pass straight from the
            // fingerprints (3 sweeps, not 5) gave nothing: 72-76 against 73-75.
            radix_sort_top_by(perm, tmp, t.sort_bits, 11, |e| e.0, &mut |_| {});
            work += self.probe(t, perm, hits);
        }
        // The groups of the matches, found apart from the scan: each is a cache miss or two
        // into the distinct fingerprints, and here they overlap, where inside the scan loop
        // each stalled it (perf: a quarter of the scan's samples before, none now).
        out.extend(hits.iter().map(|&(r, b, d)| (r, self.group_of(b), d)));
        out[start..].sort_by_key(|m| m.0); // stable: table order within a row
        work
    }

    /// The first batch id of group `g` and its number of rows.
    pub(crate) fn group_head(&self, g: u32) -> (i64, u32) {
        let ids = self.g.ids(g as usize);
        (ids[0].1, ids.len() as u32)
    }

    /// The `i`-th batch id of group `g`.
    pub(crate) fn group_id(&self, g: u32, i: usize) -> i64 {
        self.g.ids(g as usize)[i].1
    }

    /// The batch ids of group `g`, in increasing order.
    pub fn group_ids(&self, g: u32) -> impl Iterator<Item = i64> + '_ {
        self.g.ids(g as usize).iter().map(|&(_, id)| id)
    }
}

/// Every `(batch_id, corpus_id, distance)` within `k`, collected and sorted: for tests
/// and small inputs. Panics if `k > 64`.
pub fn batch_vs_corpus(
    batch: impl IntoIterator<Item = (i64, u64)>,
    corpus: impl IntoIterator<Item = (i64, u64)>,
    k: u32,
    cb: &mut dyn FnMut(Progress),
) -> Vec<(i64, i64, u32)> {
    collect(CorpusPairs::new(BatchTables::new(batch, k, cb)), corpus)
}

fn collect(mut pairs: CorpusPairs, corpus: impl IntoIterator<Item = (i64, u64)>) -> Vec<(i64, i64, u32)> {
    let corpus: Vec<(i64, u64)> = corpus.into_iter().collect();
    // Chunks of an odd size, so chunk and lookahead boundaries fall everywhere.
    let mut out = pairs.feed_all(&corpus, 37);
    out.sort_unstable();
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use proptest::prelude::*;

    pub(crate) fn nop(_: Progress) {}

    pub(crate) fn brute(batch: &[(i64, u64)], corpus: &[(i64, u64)], k: u32) -> Vec<(i64, i64, u32)> {
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

    pub(crate) struct Rng(pub(crate) u64);
    impl Rng {
        pub(crate) fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// A random batch and corpus: a third of the corpus rows are near copies (up to
    /// `flips` bits flipped) of batch rows, some exact copies, and some batch fingerprints
    /// repeat inside the batch.
    pub(crate) fn planted(seed: u64, nb: usize, nc: usize, flips: u32) -> (Vec<(i64, u64)>, Vec<(i64, u64)>) {
        let mut r = Rng(seed | 1);
        let mut batch: Vec<(i64, u64)> = Vec::new();
        for id in 0..nb as i64 {
            let fp = if id > 0 && r.next() % 5 == 0 { batch[(r.next() % id as u64) as usize].1 } else { r.next() };
            batch.push((id, fp));
        }
        let mut corpus = Vec::new();
        for id in 0..nc as i64 {
            let fp = if nb > 0 && r.next() % 3 == 0 {
                let mut f = batch[(r.next() % nb as u64) as usize].1;
                for _ in 0..r.next() % (flips as u64 + 1) {
                    f ^= 1 << (r.next() % 64);
                }
                f
            } else {
                r.next()
            };
            corpus.push((1000 + id, fp));
        }
        (batch, corpus)
    }

    #[test]
    fn exact_for_every_k() {
        let (b, c) = planted(11, 300, 700, 9);
        for k in 0..=64 {
            assert_eq!(batch_vs_corpus(b.clone(), c.clone(), k, &mut nop), brute(&b, &c, k), "k={k}");
        }
    }

    #[test]
    fn every_block_plan_is_exact() {
        let (b, c) = planted(5, 400, 600, 10);
        for k in 0..=8u32 {
            let want = brute(&b, &c, k);
            let mut plans = vec![CorpusPlan::BruteForce];
            plans.extend((k + 1..=(k + 4)).map(|m| CorpusPlan::Blocks { m, a: m - k }));
            if k == 0 {
                plans.push(CorpusPlan::Blocks { m: 1, a: 1 });
            }
            for plan in plans {
                let t = BatchTables::with_plan(Grouped::new(b.clone(), &mut nop), k, plan, &mut nop);
                assert_eq!(collect(CorpusPairs::new(t), c.clone()), want, "k={k} {plan:?}");
            }
        }
    }

    #[test]
    fn large_batch_uses_tables() {
        let (b, c) = planted(9, 20_000, 5_000, 4);
        let t = BatchTables::new(b.clone(), 3, &mut nop);
        assert!(matches!(t.plan(), CorpusPlan::Blocks { .. }), "{:?}", t.plan());
        let got = collect(CorpusPairs::new(t), c.clone());
        assert_eq!(got, brute(&b, &c, 3));
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
            let (b, c) = planted(17, nb, nc, 4);
            let want = brute(&b, &c, 3);
            for (scan, sorted) in Scan::available().into_iter().flat_map(|s| [(s, false), (s, true)]) {
                let mut t = BatchTables::with_plan(Grouped::new(b.clone(), &mut nop), 3, plan, &mut nop);
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
    fn fast_permute_is_permute() {
        let mut r = Rng(5);
        for m in [1u32, 2, 3, 4, 5, 7, 10, 64] {
            for a in 1..=m.min(if m > 10 { 2 } else { 4 }) {
                let mut key: Vec<usize> = (0..a as usize).collect();
                loop {
                    let t = Table::new(m, &key);
                    let f = FastPermute::new(&t);
                    for fp in [0, u64::MAX, 1, 1 << 63].into_iter().chain((0..200).map(|_| r.next())) {
                        assert_eq!(f.apply(fp), t.permute(fp), "m={m} key={key:?} fp={fp:x}");
                    }
                    if !next_combination(&mut key, m as usize) {
                        break;
                    }
                }
            }
        }
    }

    #[test]
    fn radix_sort_sorts_on_the_top_bits() {
        let mut r = Rng(77);
        for bits in [0, 1, 5, 11, 12, 20, 33] {
            let v: Vec<(u64, u32)> = (0..5000).map(|i| (r.next(), i)).collect();
            let (mut got, mut tmp) = (v.clone(), Vec::new());
            radix_sort_top_by(&mut got, &mut tmp, bits, 11, |e| e.0, &mut |_| {});
            let top = |x: u64| if bits == 0 { 0 } else { x >> (64 - bits) };
            assert!(got.windows(2).all(|w| top(w[0].0) <= top(w[1].0)), "bits={bits}");
            got.sort_unstable();
            let mut want = v;
            want.sort_unstable();
            assert_eq!(got, want, "bits={bits}: a permutation");
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
        assert_eq!(got, brute(&b, &c, 1));
    }

    #[test]
    fn empty_sides() {
        let (b, c) = planted(3, 50, 50, 3);
        assert!(batch_vs_corpus(Vec::new(), c, 3, &mut nop).is_empty());
        assert!(batch_vs_corpus(b, Vec::new(), 3, &mut nop).is_empty());
        assert_eq!(corpus_plan(0, 3), CorpusPlan::Empty);
    }

    #[test]
    fn plans_and_memory() {
        assert_eq!(corpus_plan(1_000_000, 0), CorpusPlan::Blocks { m: 1, a: 1 });
        assert_eq!(corpus_plan(3, 3), CorpusPlan::BruteForce);
        assert_eq!(corpus_plan(1_000, 64), CorpusPlan::BruteForce);
        for k in 1..=8 {
            if let CorpusPlan::Blocks { m, a } = corpus_plan(1_000_000, k) {
                assert!(binomial(m, a) <= MAX_TABLES);
            }
        }
        assert!(matches!(corpus_plan(1_000_000, 3), CorpusPlan::Blocks { .. }));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn matches_brute_force(seed: u64, nb in 0usize..150, nc in 0usize..150, flips in 0u32..12, k in 0u32..=8) {
            let (b, c) = planted(seed, nb, nc, flips);
            prop_assert_eq!(batch_vs_corpus(b.clone(), c.clone(), k, &mut nop), brute(&b, &c, k));
        }

        #[test]
        fn forced_block_plans_match(seed: u64, k in 0u32..12, extra in 1u32..5) {
            let (b, c) = planted(seed, 120, 200, k + 2);
            let m = (k + extra).min(64);
            let t = BatchTables::with_plan(Grouped::new(b.clone(), &mut nop), k, CorpusPlan::Blocks { m, a: m - k }, &mut nop);
            prop_assert_eq!(collect(CorpusPairs::new(t), c.clone()), brute(&b, &c, k));
        }
    }
}

#[cfg(test)]
pub(crate) mod timing {
    use super::*;

    /// A well-mixed 64-bit value of `i` and seed `s`: the timing tests' fingerprints.
    pub(crate) fn mix(i: u64, s: u64) -> u64 {
        (i ^ s).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29).wrapping_mul(0xBF58_476D_1CE4_E5B9)
    }

    /// `cargo test --release -p simhash-core batch_corpus::timing -- --ignored --nocapture`:
    /// lookup time per corpus row for each plan at k = 3, 1M batch rows.
    #[test]
    #[ignore]
    fn plans_at_1m() {
        let batch: Vec<(i64, u64)> = (0..1_000_000u64).map(|i| (i as i64, mix(i, 1))).collect();
        let corpus: Vec<u64> = (0..2_000_000u64).map(|i| mix(i + (1 << 40), 1)).collect();
        let per_row = |t0: std::time::Instant, rows: usize| t0.elapsed().as_nanos() as f64 / rows as f64;
        for plan in
            [CorpusPlan::Blocks { m: 4, a: 1 }, CorpusPlan::Blocks { m: 5, a: 2 }, CorpusPlan::Blocks { m: 6, a: 3 }]
        {
            let mut t = BatchTables::with_plan(Grouped::new(batch.clone(), &mut |_| {}), 3, plan, &mut |_| {});
            let mut scratch = ChunkScratch::default();
            let mut out = Vec::new();
            for scan in Scan::available() {
                t.scan = scan;
                let mut line = Vec::new();
                for size in [16384, t.chunk_rows(), 1 << 20] {
                    let t0 = std::time::Instant::now();
                    for c in corpus.chunks(size) {
                        out.clear();
                        t.groups_near_chunk(c, &mut scratch, &mut out);
                    }
                    line.push(format!("{:.0} ns/row in chunks of {size}", per_row(t0, corpus.len())));
                }
                let t0 = std::time::Instant::now();
                let mut one = Vec::new();
                for &fp in &corpus[..corpus.len() / 8] {
                    one.clear();
                    t.groups_near(fp, &mut one);
                }
                line.push(format!("{:.0} one at a time", per_row(t0, corpus.len() / 8)));
                println!("{plan:?} {scan:?}: {}", line.join(", "));
            }
        }
    }

    /// `... batch_corpus::timing::crossover -- --ignored --nocapture`: 4 tables (16-bit
    /// keys) against 10 (25-bit keys) as the batch grows, at k = 3, with the detected scan.
    #[test]
    #[ignore]
    fn crossover() {
        let corpus: Vec<u64> = (0..1_000_000u64).map(|i| mix(i + (1 << 40), 1)).collect();
        for n in [1u64 << 20, 1 << 21, 1 << 22] {
            let batch: Vec<(i64, u64)> = (0..n).map(|i| (i as i64, mix(i, 1))).collect();
            let mut line = Vec::new();
            for plan in [CorpusPlan::Blocks { m: 4, a: 1 }, CorpusPlan::Blocks { m: 5, a: 2 }] {
                let t = BatchTables::with_plan(Grouped::new(batch.clone(), &mut |_| {}), 3, plan, &mut |_| {});
                let (mut scratch, mut out) = (ChunkScratch::default(), Vec::new());
                let t0 = std::time::Instant::now();
                for c in corpus.chunks(t.chunk_rows()) {
                    out.clear();
                    t.groups_near_chunk(c, &mut scratch, &mut out);
                }
                let ns = t0.elapsed().as_nanos() as f64 / corpus.len() as f64;
                line.push(format!("{plan:?} {ns:.0} ns/row (model {:.0})", corpus_plan_cost(plan, n as usize)));
            }
            println!("batch {n}: {}", line.join(", "));
        }
    }
}
