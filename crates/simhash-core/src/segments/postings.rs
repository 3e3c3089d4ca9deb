//! The postings of bulk segment pairs: which rows have which segment, both ways, built
//! once from the rows' segment lists by one radix sort of the `(segment, row)` postings.
//!
//! Memory after the build: 8 B per posting (the row's segment number, the segment's row
//! number), 12 B per row (id, offset) and 4 B per distinct segment (offset). During the
//! build the postings are `(segment, row)` pairs, 16 B, plus as much again of sort scratch.

use crate::pairs::Progress;

/// Units of work (postings moved, rows visited) between two [`Progress::Tick`]s.
pub(super) const TICK_WORK: usize = 1 << 16;

/// Rows and their distinct segments, both ways, as two compressed lists. Rows are numbered
/// in increasing order of id (stable for equal ids), segments in increasing order of value.
pub(super) struct Postings {
    /// Row `r`'s id.
    pub(super) ids: Vec<i64>,
    /// Row `r`'s segments are `row_seg[row_off[r]..row_off[r + 1]]`, ascending.
    row_off: Vec<u32>,
    row_seg: Vec<u32>,
    /// Segment `s`'s rows are `seg_row[seg_off[s]..seg_off[s + 1]]`, ascending.
    seg_off: Vec<u32>,
    seg_row: Vec<u32>,
}

impl Postings {
    /// Builds the postings of `rows` `(id, segments)`; repeats inside a row count once.
    /// Panics past 2³² − 1 rows or postings.
    pub(super) fn new(rows: impl IntoIterator<Item = (i64, Vec<u64>)>, cb: &mut dyn FnMut(Progress)) -> Postings {
        let mut rows: Vec<(i64, Vec<u64>)> = rows.into_iter().collect();
        rows.sort_by_key(|r| r.0); // stable: rows with one id stay in input order
        let mut ids = Vec::with_capacity(rows.len());
        let mut row_off = Vec::with_capacity(rows.len() + 1);
        let mut post: Vec<(u64, u32)> = Vec::new();
        row_off.push(0u32);
        for (r, (id, mut segs)) in rows.into_iter().enumerate() {
            segs.sort_unstable();
            segs.dedup();
            let r = u32::try_from(r).expect("fewer than 2^32 rows");
            post.extend(segs.iter().map(|&s| (s, r)));
            ids.push(id);
            row_off.push(u32::try_from(post.len()).expect("fewer than 2^32 postings"));
            if (r as usize).is_multiple_of(TICK_WORK) {
                cb(Progress::Tick);
            }
        }
        cb(Progress::Phase(format!("{} rows, {} segments in all, sorting", ids.len(), post.len())));
        // Stable on the segment only: each segment's rows stay in increasing order.
        radix_sort(&mut post, cb);
        // Segment numbers, each posting's row list, and back per row (a counting sort on the
        // row: segments come in increasing order, so each row's list is sorted).
        let mut seg_off = vec![0u32];
        let mut seg_row = Vec::with_capacity(post.len());
        let mut row_seg = vec![0u32; post.len()];
        let mut fill: Vec<u32> = row_off[..row_off.len() - 1].to_vec();
        for (i, &(s, r)) in post.iter().enumerate() {
            if i > 0 && post[i - 1].0 != s {
                seg_off.push(i as u32);
            }
            let g = seg_off.len() as u32 - 1;
            seg_row.push(r);
            row_seg[fill[r as usize] as usize] = g;
            fill[r as usize] += 1;
            if i.is_multiple_of(TICK_WORK) {
                cb(Progress::Tick);
            }
        }
        if !post.is_empty() {
            seg_off.push(post.len() as u32);
        }
        Postings { ids, row_off, row_seg, seg_off, seg_row }
    }

    pub(super) fn rows(&self) -> usize {
        self.ids.len()
    }

    pub(super) fn segments(&self) -> usize {
        self.seg_off.len().saturating_sub(1)
    }

    /// Row `r`'s distinct segments, as segment numbers, ascending.
    pub(super) fn row(&self, r: u32) -> &[u32] {
        &self.row_seg[self.row_off[r as usize] as usize..self.row_off[r as usize + 1] as usize]
    }

    /// The rows that have segment `s`, ascending.
    pub(super) fn seg(&self, s: u32) -> &[u32] {
        &self.seg_row[self.seg_off[s as usize] as usize..self.seg_off[s as usize + 1] as usize]
    }
}

/// Stable LSD radix sort of `v` on the segment, 11 bits a pass (six passes; a pass whose
/// digit is the same everywhere is skipped), with a tick every [`TICK_WORK`] postings moved.
fn radix_sort(v: &mut Vec<(u64, u32)>, cb: &mut dyn FnMut(Progress)) {
    const DIGIT: u32 = 11;
    if v.len() < 4096 {
        v.sort_by_key(|p| p.0);
        return;
    }
    let mut scratch = vec![(0u64, 0u32); v.len()];
    let mut counts = vec![0usize; 1 << DIGIT];
    let mask = (1u64 << DIGIT) - 1;
    for lo in (0..64).step_by(DIGIT as usize) {
        let digit = |p: &(u64, u32)| ((p.0 >> lo) & mask) as usize;
        counts.iter_mut().for_each(|c| *c = 0);
        for p in v.iter() {
            counts[digit(p)] += 1;
        }
        if counts.contains(&v.len()) {
            continue;
        }
        let mut sum = 0;
        for c in counts.iter_mut() {
            (*c, sum) = (sum, sum + *c);
        }
        for (i, p) in v.iter().enumerate() {
            let d = digit(p);
            scratch[counts[d]] = *p;
            counts[d] += 1;
            if i.is_multiple_of(TICK_WORK) {
                cb(Progress::Tick);
            }
        }
        std::mem::swap(v, &mut scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairs::test_support::{nop, Rng};

    #[test]
    fn both_ways() {
        let p = Postings::new(vec![(7, vec![30, 10, 10]), (2, vec![10, 20]), (5, vec![])], &mut nop);
        assert_eq!(p.ids, vec![2, 5, 7]);
        assert_eq!((p.rows(), p.segments()), (3, 3));
        assert_eq!((p.row(0), p.row(1), p.row(2)), (&[0, 1][..], &[][..], &[0, 2][..]));
        assert_eq!((p.seg(0), p.seg(1), p.seg(2)), (&[0, 2][..], &[0][..], &[2][..]));
    }

    #[test]
    fn radix_is_stable_and_sorted() {
        let mut r = Rng(99);
        let mut v: Vec<(u64, u32)> =
            (0..20_000u32).map(|i| ((r.next() % 3000).wrapping_mul(0x9e37_79b9_7f4a_7c15), i)).collect();
        let mut want = v.clone();
        want.sort_by_key(|p| p.0);
        radix_sort(&mut v, &mut nop);
        assert_eq!(v, want);
    }
}
