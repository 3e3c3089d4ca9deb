//! Where a run's templates are (`templates.rs`, 1): the rows of the runs of [`HEAVY`] or more
//! equal keys in a band, joined (union-find) where runs share a row. Three passes over the rows'
//! band keys, each row's read whole (they are contiguous), on the workers:
//!
//! 1. **Often**: the keys that [`HEAVY_SAMPLED`] of every [`SAMPLE_EVERY`]th row hold, by band.
//!    A run of 64 rows is missed with probability 0.05 (then banded as any run), one of 128
//!    with 10⁻⁴.
//! 2. **Counted**: how many rows hold each of those keys; the ones [`HEAVY`] hold are heavy.
//! 3. **Joined**: a row holding heavy keys joins them; each row's template is its first heavy
//!    key's.
//!
//! Sorting every band's keys to find the same runs took 8% of a run over 1M Markov paragraphs,
//! which have no template (0.79 s of 10.5): each band read every row's key 224 bytes apart.

use std::ops::Range;
use std::sync::Arc;

use super::pool::{Job, Pool};
use super::radix::sort_high;
use super::{Msg, Rows};
use crate::bulk::union_find::UnionFind;
use crate::bulk::Progress;

/// The rows of a run that makes a template: fewer cost the bands at most 2,016 pairs a run; as
/// many as a dedup trigger learns its frame from ([`crate::similarity::frame_keys::LEARN_FROM`]).
pub const HEAVY: usize = crate::similarity::frame_keys::LEARN_FROM;
/// Keys are first counted in every `SAMPLE_EVERY`th row, and those `HEAVY_SAMPLED` of them hold
/// counted in every row.
const SAMPLE_EVERY: usize = 8;
const HEAVY_SAMPLED: usize = HEAVY / 16;
/// Rows a job of passes 2 and 3 reads.
const CHUNK: usize = 1 << 16;

/// What a job of a pass sends back.
pub(super) enum Part {
    /// Pass 1: for bands `from..`, the often keys of each, ascending.
    Often(usize, Vec<Vec<u32>>),
    /// Pass 2: how many rows of a chunk hold each key of a [`Keys`], in its order.
    Counted(Vec<u32>),
    /// Pass 3, of the chunk that starts at a row: `(row, its first heavy key's index)` for each
    /// of its rows holding one, and the pairs of heavy keys one of its rows holds, distinct.
    Joined(usize, Vec<(u32, u32)>, Vec<(u32, u32)>),
}

/// Some keys of each band, ascending, numbered band by band.
#[derive(Default)]
struct Keys {
    keys: Vec<u32>,
    /// Band `j`'s are `keys[starts[j]..starts[j + 1]]`.
    starts: Vec<usize>,
    /// Band `j`'s bits `filter[j·64..(j + 1)·64]`: the low 12 bits of each of its keys, so that
    /// most keys of a row are passed over without a search.
    filter: Vec<u64>,
}

impl Keys {
    fn of(by_band: Vec<Vec<u32>>) -> Keys {
        let mut k = Keys { keys: Vec::new(), starts: vec![0], filter: vec![0; 64 * by_band.len()] };
        for (j, band) in by_band.into_iter().enumerate() {
            for &key in &band {
                k.filter[j * 64 + (key as usize >> 6 & 63)] |= 1 << (key & 63);
            }
            k.keys.extend(band);
            k.starts.push(k.keys.len());
        }
        k
    }

    /// Calls `f(index)` for each key of a row (its keys `row`, one a band) that is one of these.
    #[inline]
    fn each_held(&self, row: &[u32], mut f: impl FnMut(usize)) {
        for (j, &key) in row.iter().enumerate() {
            if self.filter[j * 64 + (key as usize >> 6 & 63)] & (1 << (key & 63)) == 0 {
                continue;
            }
            let (a, b) = (self.starts[j], self.starts[j + 1]);
            if let Ok(i) = self.keys[a..b].binary_search(&key) {
                f(a + i);
            }
        }
    }
}

/// Pass 1 over bands `bands`: the keys [`HEAVY_SAMPLED`] sampled rows hold.
fn often(rows: &Rows, reps: &[u32], bands: Range<usize>, check: &mut dyn FnMut()) -> Vec<Vec<u32>> {
    let b = rows.plan.b;
    let mut by_band: Vec<Vec<u32>> = bands.clone().map(|_| Vec::new()).collect();
    for (n, &x) in reps.iter().step_by(SAMPLE_EVERY).enumerate() {
        let row = &rows.keys[x as usize * b..][bands.clone()];
        by_band.iter_mut().zip(row).for_each(|(v, &k)| v.push(k));
        if n & 0xFFFF == 0 {
            check();
        }
    }
    for v in &mut by_band {
        v.sort_unstable();
        *v = v.chunk_by(|a, b| a == b).filter(|r| r.len() >= HEAVY_SAMPLED).map(|r| r[0]).collect();
        check();
    }
    by_band
}

/// The candidates of templates among `reps`: the rows of each (local and foreign, ascending).
pub(super) fn find(
    pool: &mut Pool<Msg>,
    rows: &std::sync::Arc<Rows>,
    reps: &std::sync::Arc<Vec<u32>>,
    cb: &mut dyn FnMut(Progress),
) -> Vec<Vec<u32>> {
    let b = rows.plan.b;
    let halves = [0..b / 2, b / 2..b];
    let jobs = halves.iter().cloned().map(|bands| -> Job<Msg> {
        let (r, reps) = (Arc::clone(rows), Arc::clone(reps));
        Box::new(move |ctx| {
            ctx.send(Msg::Heavy(Part::Often(bands.start, often(&r, &reps, bands, &mut || ctx.check()))))
        })
    });
    let mut by_band: Vec<Vec<u32>> = vec![Vec::new(); b];
    pool.run_each(jobs.collect(), cb, |m| match m {
        Msg::Heavy(Part::Often(from, v)) => v.into_iter().enumerate().for_each(|(i, k)| by_band[from + i] = k),
        _ => unreachable!("only often keys are out"),
    });
    if by_band.iter().all(Vec::is_empty) {
        return Vec::new();
    }
    // Pass 2: the rows that hold each often key.
    let often = Arc::new(Keys::of(by_band));
    let chunks = || (0..reps.len()).step_by(CHUNK).map(|a| a..(a + CHUNK).min(reps.len()));
    let counting = chunks().map(|range| -> Job<Msg> {
        let (r, reps, keys) = (Arc::clone(rows), Arc::clone(reps), Arc::clone(&often));
        Box::new(move |ctx| {
            let mut counts = vec![0u32; keys.keys.len()];
            for &x in &reps[range] {
                keys.each_held(&r.keys[x as usize * b..(x as usize + 1) * b], |i| counts[i] += 1);
            }
            ctx.send(Msg::Heavy(Part::Counted(counts)));
        })
    });
    let mut counts = vec![0u32; often.keys.len()];
    pool.run_each(counting.collect(), cb, |m| match m {
        Msg::Heavy(Part::Counted(c)) => counts.iter_mut().zip(c).for_each(|(a, c)| *a += c),
        _ => unreachable!("only counts are out"),
    });
    let heavy_by_band: Vec<Vec<u32>> = (0..b)
        .map(|j| {
            (often.starts[j]..often.starts[j + 1])
                .filter(|&i| counts[i] as usize >= HEAVY)
                .map(|i| often.keys[i])
                .collect()
        })
        .collect();
    let heavy = Arc::new(Keys::of(heavy_by_band));
    if heavy.keys.is_empty() {
        return Vec::new();
    }
    // Pass 3: the heavy keys one row holds are one template.
    let joining = chunks().map(|range: Range<usize>| -> Job<Msg> {
        let (r, reps, keys) = (Arc::clone(rows), Arc::clone(reps), Arc::clone(&heavy));
        Box::new(move |ctx| {
            let (mut first, mut edges, mut held) = (Vec::new(), Vec::new(), Vec::new());
            for &x in &reps[range.clone()] {
                held.clear();
                keys.each_held(&r.keys[x as usize * b..(x as usize + 1) * b], |i| held.push(i as u32));
                if let Some(&k) = held.first() {
                    first.push((x, k));
                    edges.extend(held[1..].iter().map(|&o| (k, o)));
                }
            }
            edges.sort_unstable();
            edges.dedup();
            ctx.send(Msg::Heavy(Part::Joined(range.start, first, edges)));
        })
    });
    let mut uf = UnionFind::new(heavy.keys.len());
    let mut firsts = Vec::new();
    pool.run_each(joining.collect(), cb, |m| match m {
        Msg::Heavy(Part::Joined(at, f, edges)) => {
            edges.into_iter().for_each(|(a, b)| uf.union(a, b));
            firsts.push((at, f));
        }
        _ => unreachable!("only joined rows are out"),
    });
    // (template, row) for every row of a heavy run, the chunks in the rows' order, then a stable
    // sort (with ticks) on the template: rows ascending within each.
    firsts.sort_unstable_by_key(|f| f.0);
    let mut by_root: Vec<u64> =
        firsts.into_iter().flat_map(|f| f.1).map(|(x, k)| (u64::from(uf.find(k)) << 32) | u64::from(x)).collect();
    sort_high(&mut by_root, &mut Vec::new(), &mut || cb(Progress::Tick));
    by_root.chunk_by(|a, b| a >> 32 == b >> 32).map(|c| c.iter().map(|&v| v as u32).collect()).collect()
}
