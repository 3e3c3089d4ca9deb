//! The candidates of one band and their measures (`super`), on a worker thread.
//!
//! Band `j`'s entries are `(key, row)` packed in a u64 for every representative row (one per
//! set of identical shingle sets), sorted on the key by a stable radix sort (3 passes of 11
//! bits; rows stay ascending within a key). Each pair of rows of a run of equal keys is a
//! collision; it becomes a candidate if
//! 1. its two-bit codes agree in at least [`Plan::codes_needed`] places (`plan.rs`), when
//!    both rows have at least [`CODED_MIN`] shingles,
//! 2. no band before `j` has equal keys for both (it was met there: each pair is taken up in
//!    its first band, without a set of the pairs seen), and
//! 3. the length bound holds: `J ≤ min/max` of the set sizes, in the measure's own division.
//!
//! A candidate of two local rows is measured exactly: both shingle sets re-made from their
//! kept characters (the spill file), the first row's kept while its candidates follow one
//! another. A candidate with a foreign row (`exchange.rs`) is handed back unmeasured.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::plan::{Plan, CODED_MIN};
use super::pool::Ctx;
use super::radix::sort_high;
use super::sketch::{sets_of_record, text_of_record};
use super::templates::{Templates, HEAVY};
use super::{Msg, Rows};
use crate::bulk::Progress;
use crate::decision::{decide, Frame, Prepared, Rule};
use crate::similarity::measure::{jaccard, similarity, Sets};

/// Pairs per message back to the caller.
const BATCH: usize = 4096;
/// Collisions between two checks of the stop flag (and flushes of the counters).
const CHECK: u32 = 1 << 12;

/// Whether two rows' codes agree in at least `needed` of their two-bit places.
#[inline]
fn codes_agree(a: &[u64], b: &[u64], needed: u32) -> bool {
    let differ: u32 = a
        .iter()
        .zip(b)
        .map(|(x, y)| {
            let d = x ^ y;
            ((d | (d >> 1)) & 0x5555_5555_5555_5555).count_ones()
        })
        .sum();
    (32 * a.len() as u32).saturating_sub(differ) >= needed
}

/// Band `j`'s entries `(key, row)` for `reps`, sorted on the key (rows ascending within one).
pub(super) fn entries(rows: &Rows, reps: &[u32], j: usize, ctx: &Ctx<Msg>) -> Vec<u64> {
    let b = rows.plan.b;
    let mut entries: Vec<u64> = Vec::with_capacity(reps.len());
    for block in reps.chunks(1 << 16) {
        entries.extend(block.iter().map(|&x| (u64::from(rows.keys[x as usize * b + j]) << 32) | u64::from(x)));
        ctx.check();
    }
    sort_high(&mut entries, &mut Vec::new(), &mut || ctx.check());
    entries
}

/// Finds, measures and sends band `j`'s candidates (module docs), then [`Msg::BandDone`]; the
/// pairs of two members of one template are the join's when `templates` joins them
/// (`templates.rs`).
pub(super) fn band(rows: &Rows, reps: &Arc<Vec<u32>>, templates: &Templates, j: usize, ctx: &Ctx<Msg>) {
    let entries = entries(rows, reps, j, ctx);
    let mut m = Measurer::new(rows, templates, ctx);
    let (mut collisions, mut candidates, mut work) = (0u64, 0u64, 0u32);
    let mut collide = |x: u32, y: u32, m: &mut Measurer<'_>| {
        collisions += 1;
        work += 1;
        if work == CHECK {
            work = 0;
            ctx.check();
            rows.counters.collisions.fetch_add(collisions, Ordering::Relaxed);
            collisions = 0;
        }
        if rows.candidate(x as usize, y as usize, j) {
            candidates += 1;
            m.take(x, y);
        }
    };
    let mut s = 0;
    while s < entries.len() {
        let key = entries[s] >> 32;
        let e = s + entries[s..].iter().take_while(|&&v| v >> 32 == key).count();
        let run = &entries[s..e];
        if run.len() >= HEAVY && run.iter().any(|&e| templates.joins(e as u32)) {
            // A template's run: its rows are one template's (heavy.rs), whose members' pairs
            // are the join's. Each other row (released: `templates.rs`, 4) is paired with
            // every row of the run.
            for (a, &ex) in run.iter().enumerate() {
                let x = ex as u32;
                if templates.joins(x) {
                    continue;
                }
                for (c, &ey) in run.iter().enumerate() {
                    let y = ey as u32;
                    if c != a && (templates.joins(y) || c > a) {
                        collide(x.min(y), x.max(y), &mut m);
                    }
                }
            }
        } else {
            for (a, &ex) in run.iter().enumerate() {
                let x = ex as u32;
                for &ey in &run[a + 1..] {
                    if !templates.joined(x, ey as u32) {
                        collide(x, ey as u32, &mut m);
                    }
                }
            }
        }
        s = e;
    }
    rows.counters.collisions.fetch_add(collisions, Ordering::Relaxed);
    rows.counters.candidates.fetch_add(candidates, Ordering::Relaxed);
    m.flush();
    rows.counters.bands_done.fetch_add(1, Ordering::Relaxed);
    ctx.send(Msg::BandDone);
}

/// Whether a collision of two rows is a candidate (module docs, 1 to 3): their codes, their
/// keys of the bands before this one (none equal), their set sizes.
#[inline]
pub(super) fn filters_pass(codes: [&[u64]; 2], before: [&[u32]; 2], sizes: [u32; 2], plan: &Plan, theta: f64) -> bool {
    let (nx, ny) = (sizes[0] as usize, sizes[1] as usize);
    if !sizes_allow(nx, ny, theta) {
        return false;
    }
    if nx.min(ny) >= CODED_MIN && !codes_agree(codes[0], codes[1], plan.codes_needed) {
        return false;
    }
    !before[0].iter().zip(before[1]).any(|(p, q)| p == q)
}

/// Whether sets of `a` and `b` shingles can be at similarity θ: `min/max ≥ θ`, in the measure's
/// own division.
#[inline]
fn sizes_allow(a: usize, b: usize, theta: f64) -> bool {
    jaccard(a.min(b), a.min(b), a.max(b)) >= theta
}

impl Rows {
    /// Whether rows `x` and `y` can be at θ by their set sizes (module docs, 3).
    #[inline]
    pub(super) fn sizes_allow(&self, x: u32, y: u32) -> bool {
        sizes_allow(self.sizes[x as usize] as usize, self.sizes[y as usize] as usize, self.theta)
    }

    /// Whether a collision of rows `x < y` in band `j` is a candidate (module docs).
    #[inline]
    fn candidate(&self, x: usize, y: usize, j: usize) -> bool {
        if x >= self.n_local && y >= self.n_local {
            return false;
        }
        let (w, b) = (super::plan::CODES / 32, self.plan.b);
        filters_pass(
            [&self.codes[x * w..x * w + w], &self.codes[y * w..y * w + w]],
            [&self.keys[x * b..x * b + j], &self.keys[y * b..y * b + j]],
            [self.sizes[x], self.sizes[y]],
            &self.plan,
            self.theta,
        )
    }
}

/// The caller's scratch for its decisions ([`Rows::same_passage`]): the two records, and the
/// frame of the last row of a template it decided.
#[derive(Default)]
pub(super) struct Scratch {
    bufs: (Vec<u8>, Vec<u8>),
    frame: Option<(u32, Frame)>,
}

/// Measures one band's candidates (or one template's: `templates.rs`) and batches what it finds.
pub(super) struct Measurer<'a> {
    pub rows: &'a Rows,
    pub ctx: &'a Ctx<Msg>,
    templates: &'a Templates,
    /// The row whose sets `set_x` (and tokens `tokens_x`, once a pair of it is decided, and
    /// frame `frame_x`, once one with a member of its template is) are.
    x: u32,
    set_x: Sets,
    tokens_x: Option<Prepared>,
    frame_x: Option<Frame>,
    buf: Vec<u8>,
    /// Pairs at θ, and whether the decision calls them the same passage (their groups' other
    /// members are decided on the backend either way).
    pairs: Vec<(u32, u32, f64, bool)>,
    foreign: Vec<(u32, u32)>,
}

impl<'a> Measurer<'a> {
    pub(super) fn new(rows: &'a Rows, templates: &'a Templates, ctx: &'a Ctx<Msg>) -> Measurer<'a> {
        Measurer {
            rows,
            ctx,
            templates,
            x: u32::MAX,
            set_x: Sets::default(),
            tokens_x: None,
            frame_x: None,
            buf: Vec::new(),
            pairs: Vec::new(),
            foreign: Vec::new(),
        }
    }

    fn take(&mut self, x: u32, y: u32) {
        if y as usize >= self.rows.n_local {
            self.foreign.push((x, y));
            if self.foreign.len() >= BATCH {
                self.flush();
            }
        } else {
            self.measure(x, y);
        }
    }

    /// A template's candidate of local rows `x < y` (`templates.rs`), under the length bound:
    /// whether the decision keeps it, None below θ.
    pub(super) fn take_joined(&mut self, x: u32, y: u32) -> Option<bool> {
        if !self.rows.sizes_allow(x, y) {
            return None;
        }
        self.measure(x, y)
    }

    /// Measures local rows `x` and `y` and keeps them at θ: whether the decision does.
    fn measure(&mut self, x: u32, y: u32) -> Option<bool> {
        let rows = self.rows;
        if self.x != x {
            self.set_x = rows.set(x as usize, &mut self.buf, self.ctx);
            (self.tokens_x, self.frame_x) = (None, None);
            self.x = x;
        }
        let set_y = rows.set(y as usize, &mut self.buf, self.ctx);
        let s = similarity(&self.set_x, &set_y);
        let mut same = None;
        if s >= rows.theta {
            let kept = self.same_passage(x, y);
            self.pairs.push((x, y, s, kept));
            same = Some(kept);
        }
        if self.pairs.len() >= BATCH {
            self.flush();
        }
        same
    }

    /// The dedup decision on a pair at θ, when the run asks it: here, on the worker threads,
    /// where the pair is measured (on the backend, 200,000 texts' pairs took 1.16 times 5.x's
    /// run; here the threads share it).
    fn same_passage(&mut self, x: u32, y: u32) -> bool {
        let rows = self.rows;
        let Some(rule) = rows.decide else {
            return true;
        };
        let ctx = self.ctx;
        let mut tick = || ctx.check();
        if self.tokens_x.is_none() {
            self.tokens_x = Some(rows.tokens(x as usize, rule, &mut self.buf, &mut tick));
        }
        let b = rows.tokens(y as usize, rule, &mut self.buf, &mut tick);
        let a = self.tokens_x.as_ref().expect("just made");
        let same = match self.templates.shared(x, y) {
            Some(t) => t.decide(rule, x, a, &b, &mut self.frame_x, &mut tick),
            None => decide(rule, a, &b, None, &mut tick).duplicate,
        };
        if !same {
            rows.counters.apart.fetch_add(1, Ordering::Relaxed);
        }
        same
    }

    pub(super) fn flush(&mut self) {
        if !self.pairs.is_empty() {
            self.ctx.send(Msg::Pairs(std::mem::take(&mut self.pairs)));
        }
        if !self.foreign.is_empty() {
            self.ctx.send(Msg::Foreign(std::mem::take(&mut self.foreign)));
        }
    }
}

impl Rows {
    /// A local row's sets, from its record in the spill file.
    pub(super) fn set(&self, x: usize, buf: &mut Vec<u8>, ctx: &Ctx<Msg>) -> Sets {
        let loc = crate::bulk::spill::Loc { offset: self.offsets[x], len: self.lens[x] };
        match self.spill.read(loc, buf) {
            Ok(record) => sets_of_record(record, self.version, &mut || ctx.check())
                .unwrap_or_else(|| panic!("the bulk pairs' spill file: row {x}'s record is not one")),
            Err(e) => panic!("reading the bulk pairs' spill file: {e}"),
        }
    }
}

impl Rows {
    /// Whether the dedup decision calls local rows `x` and `y` the same passage, from their records' normalized texts (framed as [`Measurer`] frames them).
    pub(super) fn same_passage(
        &self,
        x: usize,
        y: usize,
        templates: &Templates,
        s: &mut Scratch,
        cb: &mut dyn FnMut(Progress),
    ) -> bool {
        let mut tick = || cb(Progress::Tick);
        let rule = self.decide.expect("asked only when the run decides");
        let (a, b) = (self.tokens(x, rule, &mut s.bufs.0, &mut tick), self.tokens(y, rule, &mut s.bufs.1, &mut tick));
        match templates.shared(x as u32, y as u32) {
            Some(t) => {
                // A group's pairs come one member at a time: its frame is read once.
                if s.frame.as_ref().is_some_and(|f| f.0 != x as u32) {
                    s.frame = None;
                }
                let mut frame = s.frame.take().map(|f| f.1);
                let same = t.decide(rule, x as u32, &a, &b, &mut frame, &mut tick);
                s.frame = frame.map(|f| (x as u32, f));
                same
            }
            None => decide(rule, &a, &b, None, &mut tick).duplicate,
        }
    }

    /// A local row's tokens for the decision, from its record's normalized text.
    pub(super) fn tokens(&self, x: usize, rule: Rule, buf: &mut Vec<u8>, tick: &mut dyn FnMut()) -> Prepared {
        let loc = crate::bulk::spill::Loc { offset: self.offsets[x], len: self.lens[x] };
        let record = self.spill.read(loc, buf).unwrap_or_else(|e| panic!("reading the bulk pairs' spill file: {e}"));
        let text =
            text_of_record(record).unwrap_or_else(|| panic!("the bulk pairs' spill file: row {x}'s record is not one"));
        Prepared::of_normalized(rule.version, text, tick)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_count_agreeing_places() {
        let a = [0b11_10_01_00u64, 0];
        let b = [0b11_01_01_00u64, 0];
        // 64 places, one differs.
        assert!(codes_agree(&a, &b, 63));
        assert!(!codes_agree(&a, &b, 64));
    }
}
