//! A batch table's index: the distinct batch fingerprints permuted (by a few
//! rotate-and-mask steps), sorted, bucketed on the top bits of their key, with the 32
//! bits after the key kept apart for the scans' first filter.

use super::super::tables::{radix_sort_top_by, Table};
use super::super::Progress;

/// Bits of the bucket index on `n` sorted values: about one value per bucket, at most
/// 2^24 buckets (64 MB of offsets).
pub(super) fn bucket_bits(n: usize) -> u32 {
    (usize::BITS - n.max(1).leading_zeros()).min(24)
}

/// The bucket index of `sorted` on its top `bits` bits: bucket `b` is
/// `sorted[starts[b]..starts[b + 1]]`.
pub(super) fn bucket_starts(sorted: &[u64], bits: u32) -> Vec<u32> {
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
/// (at most 3 for the 4 tables of k = 3), derived from it bit by bit: less than half the
/// time of `permute` (a shift, a mask and a branch per block) per corpus row.
pub(super) struct FastPermute {
    steps: Vec<(u32, u64)>,
}

impl FastPermute {
    pub(super) fn new(t: &Table) -> FastPermute {
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
    pub(super) fn apply(&self, fp: u64) -> u64 {
        self.steps.iter().fold(0, |p, &(rot, mask)| p | (fp.rotate_left(rot) & mask))
    }
}

/// Bits of a packed row's index in its chunk ([`BatchTables::probe_packed`]): chunks have
/// at most 2^20 rows.
pub(super) const ROW_BITS: u32 = 20;
pub(super) const ROW_MASK: u64 = (1 << ROW_BITS) - 1;

/// A chunk is sorted for a table only if the table (entries and offsets) is bigger than
/// this; a smaller one stays in L2 while it is looked up in any order, and sorting the
/// chunk for it only costs time (a fifth more for a 10k batch against a 10M corpus).
const SORT_ABOVE: usize = 1 << 20;

/// One table: the distinct batch fingerprints permuted, sorted, and bucketed on the top
/// `bucket_bits` bits (`bucket_bits <= key_bits`): bucket `b` is `fps[starts[b]..starts[b+1]]`.
pub(super) struct Indexed {
    pub(super) table: Table,
    /// `table.permute` as a few rotate-and-mask steps.
    pub(super) fast: FastPermute,
    pub(super) fps: Vec<u64>,
    /// `sub(fps[i])`: 32 of the bits after the key, the AVX-512 scan's first filter.
    pub(super) sub: Vec<u32>,
    pub(super) bucket_bits: u32,
    pub(super) starts: Vec<u32>,
    /// Top bits a chunk of corpus rows is sorted on before it is looked up here.
    pub(super) sort_bits: u32,
}

impl Indexed {
    /// `tmp` is the radix sort's buffer, reused from table to table: fresh pages cost a
    /// page fault each (a 1M batch's 4 tables: 8,000 fewer of 58,000 in the whole pass).
    pub(super) fn new(table: Table, distinct: &[u64], tmp: &mut Vec<u64>, cb: &mut dyn FnMut(Progress)) -> Indexed {
        let fast = FastPermute::new(&table);
        let mut fps: Vec<u64> = Vec::with_capacity(distinct.len());
        for chunk in distinct.chunks(1 << 16) {
            fps.extend(chunk.iter().map(|&fp| fast.apply(fp)));
            cb(Progress::Tick);
        }
        // Lookups need the entries in key order only (a bucket is scanned whole, a key's run
        // found by its key): keys up to 33 bits are radix-sorted on the key, with a tick
        // per pass (faster than sort_unstable for a 1M batch's 4 tables); longer keys
        // (k = 0, or small batches) are sorted whole.
        if table.key_bits <= 33 {
            radix_sort_top_by(&mut fps, tmp, table.key_bits, 11, |&x| x, cb);
        } else {
            fps.sort_unstable();
            cb(Progress::Tick);
        }
        // At least 16 bits (256 KB of offsets), so that a key of 16 bits or fewer (4 tables
        // at k = 3) is always a whole bucket, without a search for the key inside it (a
        // quarter less time for a 10k batch against a 10M corpus).
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
    pub(super) fn packs(&self, rows: usize) -> bool {
        let kb = self.table.key_bits;
        kb <= 24 && self.bucket_bits == kb && self.sort_bits == kb && rows <= 1 << ROW_BITS
    }

    /// The 32 bits after a key of `key_bits` (the low 32 after a longer key): a pair within
    /// `k` is within `k` on them, and a pair of random fingerprints rarely is (3 of 2^32 at
    /// k = 3), so the scan compares them 16 at a time and the whole fingerprints only where
    /// they pass.
    #[inline(always)]
    pub(super) fn sub_of(key_bits: u32, p: u64) -> u32 {
        ((p << key_bits.min(32)) >> 32) as u32
    }

    #[inline]
    pub(super) fn bucket(p: u64, bits: u32) -> usize {
        if bits == 0 {
            0
        } else {
            (p >> (64 - bits)) as usize
        }
    }

    #[inline]
    pub(super) fn key(&self, p: u64) -> u64 {
        let bits = self.table.key_bits;
        if bits >= 64 {
            p
        } else {
            p >> (64 - bits)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::test_support::Rng;
    use crate::fingerprints::pairs::tables::next_combination;

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
}
