//! The postings of bulk segment pairs: which rows have which shared segment, both ways,
//! built once from the rows' segment lists by one sort of the `(segment, row)` postings.
//!
//! Memory after the build: 8 B per posting of a shared segment (the row's segment number,
//! the segment's row number), 20 B per row ([`Row`], offset) and 4 B per shared segment
//! (offset). During the
//! build the input ([`SegmentRows`], 8 B per segment, 16 B per row) is turned into
//! `(segment, row)` postings, 16 B, then freed; the sort takes as much again of scratch.

use crate::bulk::{Progress, Ticker, POSTING};

/// Rows and their *shared* segments (those two or more rows have), both ways, as two
/// compressed lists: a segment of one row never adds to an overlap, so it is only counted.
/// Rows are numbered in increasing order of id (stable for equal ids), shared segments in
/// increasing order of value.
pub(super) struct Postings {
    pub(super) rows: Vec<Row>,
    /// Row `r`'s shared segments are `row_seg[row_off[r]..row_off[r + 1]]`, ascending.
    row_off: Vec<u32>,
    row_seg: Vec<u32>,
    /// Shared segment `s`'s rows are `seg_row[seg_off[s]..seg_off[s + 1]]`, ascending.
    seg_off: Vec<u32>,
    seg_row: Vec<u32>,
    /// Only when built with `keep_all` (segments matched within k bits): row `r`'s distinct
    /// segments, its own ones too, are `all_seg[all_off[r]..all_off[r + 1]]`, ascending.
    all_off: Vec<u32>,
    all_seg: Vec<u64>,
}

/// A row's id and number of distinct segments, and the pair search's count of segments it
/// shares with the row being searched (0 between searches): side by side, so that meeting a
/// candidate row costs one cache line.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Row {
    pub(super) id: i64,
    pub(super) len: u32,
    pub(super) count: u32,
}

/// The input rows `(id, segments)`, flat: 8 B per id and per segment and 4 B per row, with
/// no allocation per row, as the SQL layer reads them.
#[derive(Debug, Default, Clone)]
pub struct SegmentRows {
    ids: Vec<i64>,
    /// Row `r`'s segments are `segs[off[r]..off[r + 1]]` (`off` starts with 0).
    off: Vec<usize>,
    segs: Vec<u64>,
}

impl SegmentRows {
    pub fn new() -> SegmentRows {
        SegmentRows { ids: Vec::new(), off: vec![0], segs: Vec::new() }
    }

    /// Appends a row; its segments in any order, with repeats.
    pub fn push(&mut self, id: i64, segments: impl IntoIterator<Item = u64>) {
        if self.off.is_empty() {
            self.off.push(0);
        }
        self.ids.push(id);
        self.segs.extend(segments);
        self.off.push(self.segs.len());
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }
}

impl<S: IntoIterator<Item = u64>> FromIterator<(i64, S)> for SegmentRows {
    fn from_iter<I: IntoIterator<Item = (i64, S)>>(rows: I) -> SegmentRows {
        let mut out = SegmentRows::new();
        rows.into_iter().for_each(|(id, segs)| out.push(id, segs));
        out
    }
}

impl Postings {
    /// Builds the postings of `rows`; repeats inside a row count once. With `keep_all`, also
    /// every row's distinct segments ([`Postings::all`]: 8 B more per segment, 4 B per row).
    /// Panics past 2³² − 1 rows or postings.
    pub(super) fn new(rows: SegmentRows, keep_all: bool, cb: &mut dyn FnMut(Progress)) -> Postings {
        let mut ticker = Ticker::default();
        // Rows in increasing order of id, stable: rows with one id stay in input order.
        let mut order: Vec<u32> = (0..u32::try_from(rows.len()).expect("fewer than 2^32 rows")).collect();
        if !rows.ids.is_sorted() {
            order.sort_by_key(|&r| rows.ids[r as usize]);
        }
        let mut out: Vec<Row> = Vec::with_capacity(rows.len());
        let mut post: Vec<(u64, u32)> = Vec::with_capacity(rows.segs.len());
        let mut segs = Vec::new();
        let (mut all_off, mut all_seg) = (Vec::new(), Vec::new());
        if keep_all {
            all_off.push(0u32);
        }
        for (r, &i) in order.iter().enumerate() {
            let i = i as usize;
            segs.clear();
            segs.extend_from_slice(&rows.segs[rows.off[i]..rows.off[i + 1]]);
            segs.sort_unstable();
            segs.dedup();
            post.extend(segs.iter().map(|&s| (s, r as u32)));
            if keep_all {
                all_seg.extend_from_slice(&segs);
                all_off.push(all_seg.len() as u32);
            }
            out.push(Row { id: rows.ids[i], len: segs.len() as u32, count: 0 });
            ticker.add(POSTING, cb);
        }
        drop((rows, order));
        let rows = out;
        u32::try_from(post.len()).expect("fewer than 2^32 postings");
        cb(Progress::Phase(format!("{} rows, {} segments in all, sorting", rows.len(), post.len())));
        sort(&mut post, cb);
        // The shared segments' row lists, in one pass; the rows' lists by a counting sort on
        // the row (segments come in increasing order, so each row's list is sorted).
        let (mut seg_off, mut seg_row) = (vec![0u32], Vec::new());
        let mut row_off = vec![0u32; rows.len() + 1];
        let mut i = 0;
        while i < post.len() {
            let j = i + post[i..].iter().take_while(|p| p.0 == post[i].0).count();
            if j - i >= 2 {
                seg_row.extend(post[i..j].iter().map(|p| p.1));
                seg_off.push(seg_row.len() as u32);
                post[i..j].iter().for_each(|p| row_off[p.1 as usize + 1] += 1);
            }
            ticker.add((j - i) as u64 * POSTING, cb);
            i = j;
        }
        drop(post);
        for r in 0..rows.len() {
            row_off[r + 1] += row_off[r];
        }
        let mut row_seg = vec![0u32; seg_row.len()];
        let mut fill: Vec<u32> = row_off[..rows.len()].to_vec();
        for g in 0..seg_off.len() - 1 {
            for &r in &seg_row[seg_off[g] as usize..seg_off[g + 1] as usize] {
                row_seg[fill[r as usize] as usize] = g as u32;
                fill[r as usize] += 1;
            }
            ticker.add(POSTING, cb);
        }
        Postings { rows, row_off, row_seg, seg_off, seg_row, all_off, all_seg }
    }

    /// Asks the CPU to load row `r`'s segments of [`Postings::all`] into its cache.
    #[inline]
    pub(super) fn prefetch_all(&self, r: u32) {
        let p = self.all_seg[self.all_off[r as usize] as usize..].as_ptr();
        #[cfg(target_arch = "x86_64")]
        // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is only a hint: it reads
        // nothing into the program and never faults (the address is within all_seg, or its end).
        unsafe {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            _mm_prefetch(p.cast::<i8>(), _MM_HINT_T0);
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = p;
    }

    /// Row `r`'s distinct segments, ascending; only when built with `keep_all`.
    pub(super) fn all(&self, r: u32) -> &[u64] {
        &self.all_seg[self.all_off[r as usize] as usize..self.all_off[r as usize + 1] as usize]
    }

    pub(super) fn len(&self) -> usize {
        self.rows.len()
    }

    /// How many segments two or more rows have.
    pub(super) fn segments(&self) -> usize {
        self.seg_off.len() - 1
    }

    /// Row `r`'s shared segments, as segment numbers, ascending.
    pub(super) fn row(&self, r: u32) -> &[u32] {
        &self.row_seg[self.row_off[r as usize] as usize..self.row_off[r as usize + 1] as usize]
    }

    /// The rows that have shared segment `s` (two or more), ascending.
    pub(super) fn seg(&self, s: u32) -> &[u32] {
        &self.seg_row[self.seg_off[s as usize] as usize..self.seg_off[s as usize + 1] as usize]
    }
}

/// Sorts `v` by `(segment, row)`: one radix pass on the segment's top bits (about 16
/// postings a bucket; segments are hashes), then each bucket by comparison, with a tick
/// every [`crate::bulk::TICK_WORK`] / [`POSTING`] postings.
fn sort(v: &mut Vec<(u64, u32)>, cb: &mut dyn FnMut(Progress)) {
    let mut ticker = Ticker::default();
    if v.len() < 4096 {
        v.sort_unstable();
        return;
    }
    let bits = (v.len() / 16).ilog2().min(24);
    let bucket = |p: &(u64, u32)| (p.0 >> (64 - bits)) as usize;
    let mut start = vec![0usize; (1 << bits) + 1];
    for p in v.iter() {
        start[bucket(p) + 1] += 1;
    }
    for b in 0..1 << bits {
        start[b + 1] += start[b];
    }
    let mut out = vec![(0u64, 0u32); v.len()];
    let mut fill = start.clone();
    for p in v.iter() {
        let b = bucket(p);
        out[fill[b]] = *p;
        fill[b] += 1;
        ticker.add(POSTING, cb);
    }
    for b in 0..1 << bits {
        out[start[b]..start[b + 1]].sort_unstable();
        ticker.add((start[b + 1] - start[b]) as u64 * POSTING, cb);
    }
    *v = out;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::test_support::{nop, Rng};

    #[test]
    fn both_ways() {
        let rows =
            SegmentRows::from_iter([(7, vec![30, 10, 10, 20]), (2, vec![10, 20]), (5, vec![]), (1, vec![30, 40])]);
        let p = Postings::new(rows.clone(), false, &mut nop);
        let (ids, lens): (Vec<i64>, Vec<u32>) = p.rows.iter().map(|r| (r.id, r.len)).unzip();
        assert_eq!((ids, lens), (vec![1, 2, 5, 7], vec![2, 2, 0, 3]));
        assert_eq!((p.len(), p.segments()), (4, 3));
        // Shared: 10 (rows 1, 3), 20 (rows 1, 3), 30 (rows 0, 3); 40 is row 0's alone.
        assert_eq!((p.row(0), p.row(1), p.row(2), p.row(3)), (&[2][..], &[0, 1][..], &[][..], &[0, 1, 2][..]));
        assert_eq!((p.seg(0), p.seg(1), p.seg(2)), (&[1, 3][..], &[1, 3][..], &[0, 3][..]));
        // keep_all: every row's own segments too, in the rows' order by id.
        let p = Postings::new(rows, true, &mut nop);
        assert_eq!(
            (p.all(0), p.all(1), p.all(2), p.all(3)),
            (&[30, 40][..], &[10, 20][..], &[][..], &[10, 20, 30][..])
        );
    }

    #[test]
    fn sorted() {
        let mut r = Rng(99);
        for n in [100, 20_000, 70_000] {
            let mut v: Vec<(u64, u32)> =
                (0..n as u32).map(|i| ((r.next() % 3000).wrapping_mul(0x9e37_79b9_7f4a_7c15), i)).collect();
            let mut want = v.clone();
            want.sort_unstable();
            sort(&mut v, &mut nop);
            assert_eq!(v, want);
        }
    }
}
