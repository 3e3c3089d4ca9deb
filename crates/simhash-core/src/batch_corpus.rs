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
//! bits, so the lookups sweep the table in order, and each bucket's entries are compared
//! 8 at a time where the CPU has AVX-512 (the merge of sorted lists of Manku's batch
//! mode, in effect).
//!
//! `m` comes from a cost model per corpus row: a table costs a permute, a sort and a
//! lookup, plus one comparison per candidate (`batch / 2^key_bits` on random data).
//! Comparing with every distinct batch fingerprint is a plan too (tiny batches, large
//! `k`); `k = 0` is one table keyed on all 64 bits. The number of tables is capped at
//! [`MAX_TABLES`], which bounds the memory: see [`bytes_per_batch_row`]. Every plan is
//! exact for every `k`.
//!
//! The corpus is never held whole: [`CorpusPairs::feed`] takes one chunk and
//! [`CorpusPairs::next_pending`] hands out its pairs one at a time.

use crate::batch::{binomial, next_combination, radix_sort_top_by, Grouped, Progress, Table};
use crate::hamming;

/// At most this many tables (memory is 12 B per distinct batch fingerprint per table).
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
/// fingerprints 8 B and group offsets 4 B, the corpus chunk (64 B per chunk row, a
/// quarter of the batch: 16 B), and with tables the group index 4 B and per table 8 B
/// (the permuted fingerprint) plus about 4 B of bucket index, counted as if every row
/// were distinct. A chunk has at least 65,536 rows (4 MB) and a table at least 256 KB of
/// offsets, whatever the batch.
pub fn bytes_per_batch_row(plan: CorpusPlan) -> usize {
    match plan {
        CorpusPlan::Blocks { m, a } => 48 + 12 * binomial(m, a) as usize,
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

/// A chunk is sorted for a table only if the table (entries and offsets) is bigger than
/// this; a smaller one stays in L2 while it is looked up in any order. 10k batch against
/// 10M corpus: 0.81-0.82 s, against 1.00-1.04 s sorting for every table.
const SORT_ABOVE: usize = 1 << 20;

/// One table: the distinct batch fingerprints permuted, sorted, and bucketed on the top
/// `bucket_bits` bits (`bucket_bits <= key_bits`): bucket `b` is `fps[starts[b]..starts[b+1]]`.
struct Indexed {
    table: Table,
    /// `table.permute` as a few rotate-and-mask steps.
    fast: FastPermute,
    fps: Vec<u64>,
    bucket_bits: u32,
    starts: Vec<u32>,
    /// Top bits a chunk of corpus rows is sorted on before it is looked up here.
    sort_bits: u32,
}

impl Indexed {
    fn new(table: Table, distinct: &[u64], cb: &mut dyn FnMut(Progress)) -> Indexed {
        let mut fps: Vec<u64> = Vec::with_capacity(distinct.len());
        for chunk in distinct.chunks(1 << 16) {
            fps.extend(chunk.iter().map(|&fp| table.permute(fp)));
            cb(Progress::Tick);
        }
        // One sort_unstable per table: a few million u64 take tens of milliseconds, the
        // longest a cancellation waits here.
        fps.sort_unstable();
        cb(Progress::Tick);
        // At least 16 bits (256 KB of offsets), so that a key of 16 bits or fewer (4 tables
        // at k = 3) is always a whole bucket, without a search for the key inside it: 10k
        // batch against 10M corpus 1.15 -> 0.84 s.
        let bucket_bits = bucket_bits(fps.len()).max(16).min(table.key_bits);
        let starts = bucket_starts(&fps, bucket_bits);
        cb(Progress::Tick);
        let bytes = fps.len() * 8 + starts.len() * 4;
        let sort_bits = if bytes > SORT_ABOVE { bucket_bits } else { 0 };
        Indexed { fast: FastPermute::new(&table), table, fps, bucket_bits, starts, sort_bits }
    }

    #[inline]
    fn bucket(p: u64, bits: u32) -> usize {
        if bits == 0 { 0 } else { (p >> (64 - bits)) as usize }
    }

    #[inline]
    fn key(&self, p: u64) -> u64 {
        let bits = self.table.key_bits;
        if bits >= 64 { p } else { p >> (64 - bits) }
    }
}

/// Buffers of [`BatchTables::groups_near_chunk`], kept from one chunk to the next so a
/// chunk does not allocate (and fault in) fresh pages: 32 B per chunk row.
#[derive(Default)]
pub struct ChunkScratch {
    perm: Vec<(u64, u32)>,
    tmp: Vec<(u64, u32)>,
    /// `(row, batch fingerprint, distance)` of the matches.
    hits: Vec<(u32, u64, u32)>,
}

/// How a run of candidates is compared with a corpus fingerprint: the fastest the CPU
/// can do, detected once per batch. With AVX-512 (8 candidates per popcount) the lookups
/// in the 4 tables of a 1M batch take 110 ns per corpus row, with scalar POPCNT 131, with
/// neither 165 (the default x86-64 target has no POPCNT: `count_ones` is a dozen operations).
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
            if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vpopcntdq") {
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
fn scan_plain(run: &[u64], p: u64, k: u32, hit: &mut impl FnMut(u64)) {
    for &x in run {
        if (x ^ p).count_ones() <= k {
            hit(x);
        }
    }
}

/// [`scan_plain`] compiled with the POPCNT instruction.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn scan_popcnt(run: &[u64], p: u64, k: u32, hit: &mut impl FnMut(u64)) {
    scan_plain(run, p, k, hit)
}

/// [`scan_plain`] 8 candidates at a time: one XOR, one popcount per lane (VPOPCNTQ) and
/// one compare give the lanes within `k`.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq")]
fn scan_avx512(run: &[u64], p: u64, k: u32, hit: &mut impl FnMut(u64)) {
    use std::arch::x86_64::*;
    let pv = _mm512_set1_epi64(p as i64);
    let kv = _mm512_set1_epi64(i64::from(k));
    for c in run.chunks(8) {
        let lanes = if c.len() == 8 { 0xFF } else { (1u8 << c.len()) - 1 };
        // SAFETY: the mask enables exactly the lanes `0..c.len()`, all inside `c`; masked-off
        // lanes are not read (a masked load does not fault on them), and unaligned loads are
        // allowed.
        let x = unsafe { _mm512_maskz_loadu_epi64(lanes, c.as_ptr().cast::<i64>()) };
        let mut near = _mm512_mask_cmple_epu64_mask(lanes, _mm512_popcnt_epi64(_mm512_xor_si512(x, pv)), kv);
        while near != 0 {
            hit(c[near.trailing_zeros() as usize]);
            near &= near - 1;
        }
    }
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

impl BatchTables {
    /// Groups the batch rows `(id, fp)`, chooses the plan (reported as a
    /// [`Progress::Phase`]) and builds its tables. Panics if `k > 64`.
    pub fn new(batch: impl IntoIterator<Item = (i64, u64)>, k: u32, cb: &mut dyn FnMut(Progress)) -> BatchTables {
        let g = Grouped::new(batch, cb);
        let plan = corpus_plan(g.distinct.len(), k);
        Self::with_plan(g, k, plan, cb)
    }

    fn with_plan(g: Grouped, k: u32, plan: CorpusPlan, cb: &mut dyn FnMut(Progress)) -> BatchTables {
        let n = g.distinct.len();
        cb(Progress::Phase(match plan {
            CorpusPlan::Empty => format!("empty batch, k={k}: no pairs"),
            CorpusPlan::BruteForce => format!("{n} distinct batch fingerprints, k={k}: comparing each corpus row with all of them"),
            CorpusPlan::Blocks { m, a } => format!(
                "{n} distinct batch fingerprints, k={k}: {m} blocks, {} tables keyed on {a} blocks",
                binomial(m, a) as u64
            ),
        }));
        let mut tables = Vec::new();
        if let CorpusPlan::Blocks { m, a } = plan {
            let mut key: Vec<usize> = (0..a as usize).collect();
            loop {
                tables.push(Indexed::new(Table::new(m, &key), &g.distinct, cb));
                if !next_combination(&mut key, m as usize) {
                    break;
                }
            }
        }
        let group_bits = if tables.is_empty() { 0 } else { bucket_bits(g.distinct.len()) };
        let group_starts = bucket_starts(&g.distinct, group_bits);
        BatchTables { g, k, plan, tables, scan: Scan::detect(), group_bits, group_starts }
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
                    work += self.probe(t, t.table.permute(fp), &mut |b, d| out.push((self.group_of(b), d)));
                }
                work
            }
        }
    }

    /// Looks the permuted corpus fingerprint `p` up in table `t`: calls `found(batch
    /// fingerprint, distance)` for each distinct batch fingerprint within `k` whose
    /// canonical table is `t`. Returns the work done (1 + candidates compared).
    #[inline]
    fn probe(&self, t: &Indexed, p: u64, found: &mut impl FnMut(u64, u32)) -> u64 {
        let b = Indexed::bucket(p, t.bucket_bits);
        let mut run = &t.fps[t.starts[b] as usize..t.starts[b + 1] as usize];
        if t.bucket_bits != t.table.key_bits {
            // Sorted: the entries with the key are a contiguous run in the bucket. (When the
            // bucket is the whole key, a batch of 2^key_bits rows or more, all of it is.)
            let key = t.key(p);
            run = &run[run.partition_point(|&x| t.key(x) < key)..];
            run = &run[..run.partition_point(|&x| t.key(x) == key)];
        }
        if run.is_empty() {
            return 1; // most lookups into a small batch's tables: no call to the scan
        }
        let mut hit = |x: u64| {
            let xor = x ^ p;
            if t.table.is_canonical(xor) {
                found(t.table.unpermute(x), xor.count_ones());
            }
        };
        match self.scan {
            // SAFETY: `scan` is Avx512 only if the CPU has AVX-512F and VPOPCNTDQ (detected
            // in `BatchTables::with_plan`), the features `scan_avx512` is compiled for.
            #[cfg(target_arch = "x86_64")]
            Scan::Avx512 => unsafe { scan_avx512(run, p, self.k, &mut hit) },
            // SAFETY: as above, Popcnt only if the CPU has POPCNT.
            #[cfg(target_arch = "x86_64")]
            Scan::Popcnt => unsafe { scan_popcnt(run, p, self.k, &mut hit) },
            Scan::Plain => scan_plain(run, p, self.k, &mut hit),
        }
        1 + run.len() as u64
    }

    /// The group of a distinct batch fingerprint.
    #[inline]
    fn group_of(&self, fp: u64) -> u32 {
        let b = Indexed::bucket(fp, self.group_bits);
        let (lo, hi) = (self.group_starts[b] as usize, self.group_starts[b + 1] as usize);
        let i = self.g.distinct[lo..hi].binary_search(&fp).expect("a table holds the distinct fingerprints");
        (lo + i) as u32
    }

    /// Corpus rows to look up at once: a quarter of the batch's distinct fingerprints, at
    /// least 2^16, at most 2^20. A chunk sweeps every table once, so small chunks read the
    /// tables over and over: against a 1M batch (4 tables, ignored timing test below)
    /// chunks of 16,384 rows took 129 ns per corpus row, of 250,000 (this) 110, of 2^20
    /// 123 (their sort spills out of the cache). The cap bounds the work between two
    /// interrupt checks (about 30 ms for a chunk at a 1M batch). Memory: 64 B per chunk
    /// row (the caller's rows, their copy in [`CorpusPairs`], [`ChunkScratch`]).
    pub fn chunk_rows(&self) -> usize {
        (self.g.distinct.len() / 4).clamp(1 << 16, 1 << 20)
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
        let ChunkScratch { perm, tmp, hits } = scratch;
        hits.clear();
        for t in &self.tables {
            perm.clear();
            perm.extend(fps.iter().enumerate().map(|(r, &fp)| (t.fast.apply(fp), r as u32)));
            // Sorted on the bucket bits (tables over SORT_ABOVE), the lookups read the table's
            // offsets and entries in order. 1M batch against 10M corpus: 1.83-1.97 s end to
            // end, against 1.92-2.14 sorted on just enough bits (9, one pass) for a slice of
            // the table to fit in L1, with a prefetch 16 rows ahead (which gives nothing
            // here: 1.79-1.97). Passes of 11 bits at most (2 for 16): 2,048 counters and
            // places written stay in L1. Sorting 8-byte keys (the top bits with the row
            // below them, permuted again after the sort) instead of 16-byte pairs was
            // slower: 123 ns per corpus row against 76-81 (4 tables of a 1M batch).
            radix_sort_top_by(perm, tmp, t.sort_bits, 11, |e| e.0, &mut |_| {});
            for &(p, r) in perm.iter() {
                work += self.probe(t, p, &mut |b, d| hits.push((r, b, d)));
            }
        }
        // The groups of the matches, found apart from the scan: each is a cache miss or two
        // into the distinct fingerprints, and here they overlap, where inside the scan loop
        // each stalled it (perf: a quarter of the scan's samples before, none now).
        out.extend(hits.iter().map(|&(r, b, d)| (r, self.group_of(b), d)));
        out[start..].sort_by_key(|m| m.0); // stable: table order within a row
        work
    }

    /// The batch ids of group `g`, in increasing order.
    pub fn group_ids(&self, g: u32) -> impl Iterator<Item = i64> + '_ {
        self.g.ids(g as usize).iter().map(|&(_, id)| id)
    }
}

/// Streams the pairs of a [`BatchTables`] with corpus rows fed a chunk at a time:
/// [`CorpusPairs::feed`] a chunk of corpus rows, then take [`CorpusPairs::next_pending`]
/// until it returns `None`. The pairs come corpus row by corpus row in the chunk's order;
/// for one corpus row, group of identical batch fingerprints by group in the order the
/// tables meet them, each group's batch ids increasing. Memory: the chunk's ids and its
/// matches (one entry per matching group, not per pair).
pub struct CorpusPairs {
    pub tables: BatchTables,
    ids: Vec<i64>,
    fps: Vec<u64>,
    /// `(row in chunk, group, distance)`, sorted by row.
    matches: Vec<(u32, u32, u32)>,
    scratch: ChunkScratch,
    /// Next pair: match `mi`, row `row` of its group.
    mi: usize,
    row: usize,
    /// Pairs returned, corpus rows fed.
    pub emitted: u64,
    pub fed: u64,
}

impl CorpusPairs {
    pub fn new(tables: BatchTables) -> CorpusPairs {
        CorpusPairs { tables, ids: Vec::new(), fps: Vec::new(), matches: Vec::new(), scratch: ChunkScratch::default(), mi: 0, row: 0, emitted: 0, fed: 0 }
    }

    /// Looks up a chunk of corpus rows `(id, fp)`; their pairs replace any not yet taken.
    /// Returns the work done.
    pub fn feed(&mut self, chunk: &[(i64, u64)]) -> u64 {
        self.ids.clear();
        self.fps.clear();
        self.ids.extend(chunk.iter().map(|r| r.0));
        self.fps.extend(chunk.iter().map(|r| r.1));
        self.matches.clear();
        self.mi = 0;
        self.row = 0;
        self.fed += chunk.len() as u64;
        self.tables.groups_near_chunk(&self.fps, &mut self.scratch, &mut self.matches)
    }

    /// The next `(batch_id, corpus_id, distance)` of the last chunk fed.
    pub fn next_pending(&mut self) -> Option<(i64, i64, u32)> {
        while let Some(&(r, g, d)) = self.matches.get(self.mi) {
            let ids = self.tables.g.ids(g as usize);
            if let Some(&(_, id)) = ids.get(self.row) {
                self.row += 1;
                self.emitted += 1;
                return Some((id, self.ids[r as usize], d));
            }
            self.mi += 1;
            self.row = 0;
        }
        None
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
    let mut out = Vec::new();
    // Chunks of an odd size, so chunk and lookahead boundaries fall everywhere.
    for chunk in corpus.chunks(37) {
        pairs.feed(chunk);
        while let Some(p) = pairs.next_pending() {
            out.push(p);
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn nop(_: Progress) {}

    fn brute(batch: &[(i64, u64)], corpus: &[(i64, u64)], k: u32) -> Vec<(i64, i64, u32)> {
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

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    /// A random batch and corpus: a third of the corpus rows are near copies (up to
    /// `flips` bits flipped) of batch rows, some exact copies, and some batch fingerprints
    /// repeat inside the batch.
    fn planted(seed: u64, nb: usize, nc: usize, flips: u32) -> (Vec<(i64, u64)>, Vec<(i64, u64)>) {
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
        for (nb, nc, plan) in [(70_000, 4_000, CorpusPlan::Blocks { m: 4, a: 1 }), (3_000, 5_000, CorpusPlan::Blocks { m: 5, a: 2 })] {
            let (b, c) = planted(17, nb, nc, 4);
            let want = brute(&b, &c, 3);
            for (scan, sorted) in Scan::available().into_iter().flat_map(|s| [(s, false), (s, true)]) {
                let mut t = BatchTables::with_plan(Grouped::new(b.clone(), &mut nop), 3, plan, &mut nop);
                t.scan = scan;
                for x in &mut t.tables {
                    x.sort_bits = if sorted { x.bucket_bits } else { 0 };
                }
                for size in [1, 1000, c.len()] {
                    let mut p = CorpusPairs::new(t);
                    let mut got = Vec::new();
                    for chunk in c.chunks(size) {
                        p.feed(chunk);
                        while let Some(x) = p.next_pending() {
                            got.push(x);
                        }
                    }
                    got.sort_unstable();
                    assert_eq!(got, want, "{nb} {scan:?} sorted={sorted} chunks of {size}");
                    t = p.tables;
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

    #[test]
    fn streams_one_corpus_row_at_a_time() {
        let b = vec![(1, 0u64), (2, 0), (3, 1)];
        let mut p = CorpusPairs::new(BatchTables::new(b, 1, &mut nop));
        p.feed(&[(10, 0), (11, u64::MAX), (12, 1)]);
        let mut got = Vec::new();
        while let Some(x) = p.next_pending() {
            got.push(x);
        }
        // Corpus row by corpus row, in the chunk's order.
        assert_eq!(got.iter().map(|x| x.1).collect::<Vec<_>>(), vec![10, 10, 10, 12, 12, 12]);
        got.sort_unstable();
        assert_eq!(got, vec![(1, 10, 0), (1, 12, 1), (2, 10, 0), (2, 12, 1), (3, 10, 1), (3, 12, 0)]);
        p.feed(&[(13, u64::MAX)]);
        assert_eq!(p.next_pending(), None);
        assert_eq!((p.emitted, p.fed), (6, 4));
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
mod timing {
    use super::*;

    /// `cargo test --release -p simhash-core batch_corpus::timing -- --ignored --nocapture`:
    /// lookup time per corpus row for each plan at k = 3, 1M batch rows.
    #[test]
    #[ignore]
    fn plans_at_1m() {
        let mix = |i: u64, s: u64| (i ^ s).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        let batch: Vec<(i64, u64)> = (0..1_000_000u64).map(|i| (i as i64, mix(i, 1))).collect();
        let corpus: Vec<u64> = (0..2_000_000u64).map(|i| mix(i + (1 << 40), 1)).collect();
        let per_row = |t0: std::time::Instant, rows: usize| t0.elapsed().as_nanos() as f64 / rows as f64;
        for plan in [CorpusPlan::Blocks { m: 4, a: 1 }, CorpusPlan::Blocks { m: 5, a: 2 }, CorpusPlan::Blocks { m: 6, a: 3 }] {
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
        let mix = |i: u64, s: u64| (i ^ s).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29).wrapping_mul(0xBF58_476D_1CE4_E5B9);
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
