//! The batch side with its tables built, and the lookups of corpus fingerprints in them,
//! one at a time or a chunk at a time.

use super::super::plan::CorpusPlan;
use super::super::tables::{radix_sort_top_by, Grouped};
use super::index::{bucket_bits, bucket_starts, Indexed};
#[cfg(target_arch = "x86_64")]
use super::index::{ROW_BITS, ROW_MASK};
#[cfg(target_arch = "x86_64")]
use super::scan::{filter_avx512, scan_avx512};
use super::scan::{scan_plain, Scan};
use crate::fingerprints::search::hamming;

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

/// The batch side: its rows grouped by fingerprint and the plan's tables. Memory:
/// [`super::bytes_per_batch_row`]; it never grows with the corpus.
pub struct BatchTables {
    g: Grouped,
    k: u32,
    plan: CorpusPlan,
    pub(super) tables: Vec<Indexed>,
    pub(super) scan: Scan,
    /// Bucket index of `g.distinct` on its top `group_bits` bits, to find a match's group
    /// in a bucket of about one fingerprint: a binary search of all of them was a dozen
    /// cache misses per match, a third of the candidate comparisons' time (perf, 1M batch
    /// against 10M corpus, 300,000 pairs). 4 B per distinct fingerprint.
    group_bits: u32,
    group_starts: Vec<u32>,
}

impl BatchTables {
    /// The batch `g` with its plan's tables `built`.
    pub(super) fn assemble(g: Grouped, k: u32, plan: CorpusPlan, built: Vec<Indexed>) -> BatchTables {
        let group_bits = if built.is_empty() { 0 } else { bucket_bits(g.distinct.len()) };
        let group_starts = bucket_starts(&g.distinct, group_bits);
        BatchTables { g, k, plan, tables: built, scan: Scan::detect(), group_bits, group_starts }
    }

    /// The tables compare candidates with `scan` (by default the fastest this CPU runs:
    /// the first of [`Scan::available`]), for benchmarks that compare the scans. Panics
    /// if this CPU cannot run it.
    pub fn with_scan(mut self, scan: Scan) -> BatchTables {
        assert!(Scan::available().contains(&scan), "{scan:?}: not available on this CPU");
        self.scan = scan;
        self
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

    /// [`BatchTables::probe_rows`] with [`scan_avx512`] inlined: a call per lookup cost a
    /// quarter more time.
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
    /// only for a candidate that passes the filter.
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
            // offsets and entries in order. Tried and not kept: sorting on just enough bits
            // (9, one pass) for a slice of the table to fit in L1, a prefetch 16 rows
            // ahead, 8-byte keys (the top bits with the row below them, permuted again after
            // the sort; slower), counting every pass in one sweep. Passes of 11 bits at
            // most (2 for 16): 2,048 counters and places written stay in L1.
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
    pub(super) fn group_head(&self, g: u32) -> (i64, u32) {
        let ids = self.g.ids(g as usize);
        (ids[0].1, ids.len() as u32)
    }

    /// The `i`-th batch id of group `g`.
    pub(super) fn group_id(&self, g: u32, i: usize) -> i64 {
        self.g.ids(g as usize)[i].1
    }

    /// The batch ids of group `g`, in increasing order.
    pub fn group_ids(&self, g: u32) -> impl Iterator<Item = i64> + '_ {
        self.g.ids(g as usize).iter().map(|&(_, id)| id)
    }
}

/// Corpus rows to look up at once against `distinct` distinct batch fingerprints: a
/// quarter of them, at least 2^16, at most 2^20. A chunk sweeps every table once, so small
/// chunks read the tables over and over, and a chunk of 2^20 rows is slower again (its
/// sort spills out of the cache; the example `bench_corpus_plans` compares the sizes).
/// The cap bounds the work between two interrupt checks (tens of milliseconds for a
/// chunk at a 1M batch). Memory: 16 B per chunk row for each
/// chunk in flight (up to 2 per worker thread, 1 without), 32 B per chunk row of scratch
/// per thread that looks up.
pub(super) fn chunk_rows(distinct: usize) -> usize {
    (distinct / 4).clamp(1 << 16, 1 << 20)
}
