//! The shared machinery of both pair searches: rows grouped by identical fingerprint,
//! Manku tables (a permutation of the 64 bits that puts a choice of blocks on top, and the
//! canonical-table rule), the radix sort on a table's top bits, and the enumeration of
//! the tables' keys.

use super::Progress;

/// Rows grouped by identical fingerprint: `rows` sorted by `(fp, id)`; group `g` is
/// `rows[starts[g]..starts[g+1]]` and has fingerprint `distinct[g]`.
pub(super) struct Grouped {
    pub(super) rows: Vec<(u64, i64)>,
    pub(super) distinct: Vec<u64>,
    pub(super) starts: Vec<u32>,
}

impl Grouped {
    pub(super) fn new(input: impl IntoIterator<Item = (i64, u64)>, cb: &mut dyn FnMut(Progress)) -> Grouped {
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

    pub(super) fn ids(&self, g: usize) -> &[(u64, i64)] {
        &self.rows[self.starts[g] as usize..self.starts[g + 1] as usize]
    }

    pub(super) fn len(&self, g: usize) -> usize {
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
pub(super) struct Table {
    /// `(offset, len)` of each original block, block 0 = lowest bits.
    blocks: Vec<(u32, u32)>,
    /// Block indices in permuted order, most significant first: the key blocks then the rest.
    order: Vec<usize>,
    pub(super) key_bits: u32,
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
    pub(super) fn new(m: u32, key: &[usize]) -> Table {
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
    pub(super) fn permute(&self, fp: u64) -> u64 {
        let mut p = 0u64;
        for &b in &self.order {
            let (off, len) = self.blocks[b];
            p = p.checked_shl(len).unwrap_or(0) | ((fp >> off) & mask(len));
        }
        p
    }

    pub(super) fn unpermute(&self, mut p: u64) -> u64 {
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
    pub(super) fn is_canonical(&self, xor: u64) -> bool {
        self.earlier.iter().all(|&(s, m)| (xor >> s) & m != 0)
    }
}

/// LSD radix sort of `v` on its top `bits` bits (order inside equal keys is unspecified).
pub(super) fn radix_sort_top(v: &mut Vec<u64>, scratch: &mut Vec<u64>, bits: u32, cb: &mut dyn FnMut(Progress)) {
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
pub(super) fn radix_sort_top_by<T: Copy>(
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

/// Advances `c` (strictly increasing indices below `n`) to the next combination in
/// lexicographic order; false after the last one.
pub(super) fn next_combination(c: &mut [usize], n: usize) -> bool {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::test_support::Rng;

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
}
