//! The texts of a bulk similarity run (`super`): ids, kept characters, set sizes and the
//! sketches the run's [`SketchPlan`] asks for.

use super::super::keys::{rank, KeyParams, K};
use super::super::measure::{agreement, common};
use super::super::shingles::{for_each_item_normalized, Item, Version, Window};
use crate::decision::decide;

/// The per-pair miss probability a bulk run allows itself at the threshold.
pub const BULK_MISS: f64 = 1e-9;
/// The most keys a text's sketch may have; below the θ that needs more, every pair is compared.
pub const MAX_SKETCH: usize = 256;
/// The fewest keys of a sketch: enough that the shared-key bound passes over most pairs of
/// unrelated texts that share a common shingle.
const MIN_SKETCH: usize = 64;
/// Units of work (candidates looked at, pairs compared) between two [`Progress::Tick`]s.
/// The sketch sizes of a run at θ (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SketchPlan {
    /// Keys per sketch.
    pub sketch: usize,
    /// The first keys of each sketch whose groups find the candidates.
    pub group: usize,
    /// Shared keys among the `sketch` smallest of a pair's union that a candidate needs.
    pub shared: usize,
}

/// The plan of a run at `theta`; None when a sketch would need more than [`MAX_SKETCH`] keys
/// (compare every pair).
pub fn sketch_plan(theta: f64) -> Option<SketchPlan> {
    let group = if theta >= 1.0 { K as f64 } else { (BULK_MISS.ln() / (1.0 - theta).ln()).ceil() };
    if !group.is_finite() || group > MAX_SKETCH as f64 {
        return None;
    }
    let group = (group as usize).max(K);
    let sketch = group.max(MIN_SKETCH);
    // The most shared keys with P(Binomial(sketch, θ) < shared) ≤ BULK_MISS (the hypergeometric
    // count is the more concentrated), at least 1.
    let (mut shared, mut tail, mut term) = (1, 0.0f64, (1.0 - theta.min(1.0)).powi(sketch as i32));
    for i in 0..sketch {
        tail += term;
        if tail > BULK_MISS {
            break;
        }
        shared = i + 1;
        term *= (sketch - i) as f64 / (i + 1) as f64 * theta / (1.0 - theta);
    }
    Some(SketchPlan { sketch, group, shared: shared.max(1) })
}

/// A shingle hash in the sketches' order, as one number: frequent shingles last (the top
/// bit), then by hash (its other 63 bits).
fn ranked(h: u64, v: Version) -> u64 {
    let (frequent, _) = rank(h, &KeyParams::of(v));
    (u64::from(frequent) << 63) | (h >> 1)
}

/// The texts of a bulk run: ids, kept characters, set sizes and sketches.
pub struct TextRows {
    pub(super) version: Version,
    pub(super) ids: Vec<i64>,
    kept: String,
    /// `kept[ends[i - 1]..ends[i]]` is text i's.
    ends: Vec<usize>,
    /// Distinct shingles per text.
    pub(super) sizes: Vec<u32>,
    /// Text i's sketch is `sketch[starts[i]..starts[i + 1]]`, ascending.
    sketch: Vec<u64>,
    starts: Vec<usize>,
    /// Text i's figures (measure 2) are `figures[figure_starts[i]..figure_starts[i + 1]]`,
    /// ascending: the kept characters do not keep them (a figure's `.` is not kept).
    figures: Vec<u64>,
    figure_starts: Vec<usize>,
    pub(super) plan: Option<SketchPlan>,
    /// With the dedup decision: every text's normalized text, and where each ends.
    decide: Option<(crate::decision::Rule, String, Vec<usize>)>,
}

impl TextRows {
    /// No text yet, for a run at `theta` under version `v`.
    pub fn new(theta: f64, v: Version) -> TextRows {
        TextRows {
            version: v,
            ids: Vec::new(),
            kept: String::new(),
            ends: Vec::new(),
            sizes: Vec::new(),
            sketch: Vec::new(),
            starts: vec![0],
            figures: Vec::new(),
            figure_starts: vec![0],
            plan: sketch_plan(theta),
            decide: None,
        }
    }

    /// The same rows, which keep their normalized texts when `decide`, so that a pair is
    /// handed out only when the dedup decision calls it the same passage (`crate::decision`).
    pub fn deciding(mut self, decide: Option<crate::decision::Rule>) -> TextRows {
        self.decide = decide.map(|r| (r, String::new(), Vec::new()));
        self
    }

    /// Whether rows `x` and `y` are the same passage by the dedup decision (true when the rows
    /// do not decide).
    pub(super) fn same_passage(&self, x: usize, y: usize, tick: &mut dyn FnMut()) -> bool {
        let Some((rule, texts, ends)) = &self.decide else { return true };
        let text = |i: usize| &texts[if i == 0 { 0 } else { ends[i - 1] }..ends[i]];
        decide(*rule, text(x), text(y), None, tick).duplicate
    }

    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// Adds a text: its kept characters, set size and sketch, from one reading.
    pub fn push(&mut self, id: i64, doc: &str, tick: &mut dyn FnMut()) {
        let mut window = Window::default();
        let mut hashes = Vec::new();
        let kept = &mut self.kept;
        let figures_from = self.figures.len();
        let figures = &mut self.figures;
        let mut normalized = self.decide.as_mut().map(|d| &mut d.1);
        for_each_item_normalized(
            doc,
            self.version,
            tick,
            |item| match item {
                Item::Char(c) => {
                    kept.push(c);
                    if let Some(h) = window.push(c) {
                        hashes.push(h);
                    }
                }
                Item::Figure(h) => figures.push(h),
            },
            |c| {
                if let Some(n) = normalized.as_mut() {
                    n.push(c);
                }
            },
        );
        if let Some((_, texts, ends)) = self.decide.as_mut() {
            ends.push(texts.len());
        }
        self.figures[figures_from..].sort_unstable();
        let distinct = {
            let mut v = self.figures.split_off(figures_from);
            v.dedup();
            v
        };
        self.figures.extend(distinct);
        self.figure_starts.push(self.figures.len());
        hashes.extend(window.finish());
        hashes.sort_unstable();
        hashes.dedup();
        self.ids.push(id);
        self.ends.push(self.kept.len());
        self.sizes.push(hashes.len() as u32);
        if let Some(p) = self.plan {
            let mut keys: Vec<u64> = hashes.iter().map(|&h| ranked(h, self.version)).collect();
            keys.sort_unstable();
            keys.dedup();
            keys.truncate(p.sketch);
            self.sketch.extend(keys);
        }
        self.starts.push(self.sketch.len());
    }

    fn kept_of(&self, i: usize) -> &str {
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.kept[from..self.ends[i]]
    }

    pub(super) fn sketch_of(&self, i: usize) -> &[u64] {
        &self.sketch[self.starts[i]..self.starts[i + 1]]
    }

    /// Whether text i's sketch is its whole set.
    pub(super) fn whole(&self, i: usize, p: &SketchPlan) -> bool {
        self.sizes[i] as usize <= p.sketch
    }

    /// The figures' agreement of texts i and j (measure.rs): 1 under measure 1.
    pub(super) fn agreement(&self, i: usize, j: usize) -> f64 {
        let f = |i: usize| &self.figures[self.figure_starts[i]..self.figure_starts[i + 1]];
        let (a, b) = (f(i), f(j));
        agreement(common(a, b), a.len().min(b.len()))
    }

    /// Text i's shingle set, from its kept characters.
    pub(super) fn set(&self, i: usize) -> Vec<u64> {
        let mut window = Window::default();
        let mut set: Vec<u64> = self.kept_of(i).chars().filter_map(|c| window.push(c)).collect();
        set.extend(window.finish());
        set.sort_unstable();
        set.dedup();
        set
    }
}
