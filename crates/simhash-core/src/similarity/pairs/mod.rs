//! Every pair of a set of texts at similarity θ or more, with its similarity, in bulk
//! (`simhash_similarity_pairs`, `simhash_similarity_clusters`), and the connected
//! components of those pairs.
//!
//! **Sketches.** Each text gets a bottom-k sketch of [`SketchPlan::sketch`] keys (at least 64),
//! frequent shingles last, as the index's keys are ranked. The `k` smallest keys of two texts'
//! union are a uniform sample of it, and those of them both texts have are in both sketches:
//! their number is hypergeometric with mean `k·J`. A run at θ asks a pair for [`SketchPlan::shared`]
//! of them, the most that a pair at similarity θ has with probability `1 − 10⁻⁹` (9 of 64 at
//! 0.5); the first [`SketchPlan::group`] keys of each sketch (30 at 0.5, `⌈ln 10⁻⁹ / ln(1 − θ)⌉`)
//! find the pairs that share any. Below θ = 0.078 that would take more than [`MAX_SKETCH`]
//! keys: every pair is compared instead.
//!
//! **Candidates,** in two phases:
//! 1. Texts of at most `k` shingles, whose sketch is their whole set, by exact prefix filtering
//!    over the sketches (Bayardo, Ma and Srikant 2007, as `exact.rs`): keys ordered rarest first
//!    among them, a text probes and indexes its first `|x| − ⌈θ|x|⌉ + 1`, and a candidate's
//!    similarity is read off the two sketches.
//! 2. Pairs with a longer text: the `(key, text)` entries of the group keys are sorted once,
//!    longer texts first in each key's group; a longer text is paired with the texts after it
//!    in the group, and a pair is taken up only in the group of its first shared key, so that
//!    it comes out once without a set of the pairs seen. A pair whose sketches' union sample
//!    holds fewer shared keys than the plan asks for is passed over: in a group of thousands
//!    (a shingle common in the table but not on the frequent list), most pairs cost a merge of
//!    two sketches and nothing more. On the Python library reference's 24,549 paragraphs this
//!    took the run from 3 minutes 14 s (every pair of a group measured) to 16 s, against 22 s
//!    for exact prefix filtering over the whole sets (`exact.rs`), with the same 9,785 pairs.
//!
//! **Exact.** A candidate is measured on the two texts' full shingle sets (a length bound
//! first: `J ≤ min/max` of the set sizes), recomputed from their kept characters, which is all
//! that is held of a text besides its sketch: memory is the kept characters (at most the
//! text's UTF-8 bytes; punctuation and spaces are not kept) and `8·k + 16·group + 32` bytes a
//! text (about 1 kB at 0.5; a text of at most `k` shingles holds its keys a second time, rarest
//! first, and posts its prefix: up to `12·k` more), never the pairs.

mod rows;
#[cfg(test)]
mod tests;

pub use rows::{sketch_plan, SketchPlan, TextRows, BULK_MISS, MAX_SKETCH};

use super::keys::K;
use super::measure::{common, jaccard};
use super::shard::Owned;
use crate::bulk::{Progress, Ticker, UnionFind, MEASURED};

/// A pair of texts, `id1 < id2`, and its similarity.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SimilarityPair {
    pub id1: i64,
    pub id2: i64,
    pub similarity: f64,
}

/// Every pair of texts at similarity θ or more, one at a time ([`SimilarityPairs::next_pair`]).
pub struct SimilarityPairs {
    rows: TextRows,
    theta: f64,
    /// Phase 1: the whole-set texts in order of size, each's keys rarest first, the postings of
    /// the prefixes met so far, the next one's place, and the pairs of the current one.
    short: Vec<u32>,
    rarest: Vec<Vec<u64>>,
    postings: std::collections::HashMap<u64, Vec<u32>>,
    next_short: usize,
    chunk: Vec<SimilarityPair>,
    /// Phase 2: `(key, whole set, text)`, sorted: the groups of texts sharing a group key.
    entries: Vec<(u64, bool, u32)>,
    /// The current group is `entries[group..group_end]`; `a`, `b` index into it (or, comparing
    /// every pair, are the texts themselves).
    group: usize,
    group_end: usize,
    a: usize,
    b: usize,
    /// The set of the current `a`, while it stays the same.
    set_a: Option<(usize, Vec<u64>)>,
    work: Ticker,
    /// One shard's part of a run over shards (`super::shard`): only the pairs it reports.
    owned: Option<Owned>,
}

impl SimilarityPairs {
    /// Orders the whole-set texts' keys and sorts the group entries (reported as a
    /// [`Progress::Phase`]).
    pub fn new(rows: TextRows, theta: f64, cb: &mut dyn FnMut(Progress)) -> SimilarityPairs {
        SimilarityPairs::build(rows, theta, None, cb)
    }

    /// The pairs shard `owned.shard` reports in a run over `owned.shards` shards, each over
    /// the copies it holds (`super::shard`): those whose first shared key among the first
    /// [`K`] of both sketches it owns. Groups are of the first `K` keys (the keys copies are
    /// routed by), and of those only the owned ones: a shard pairs only what it reports.
    pub fn owned(mut rows: TextRows, theta: f64, owned: Owned, cb: &mut dyn FnMut(Progress)) -> SimilarityPairs {
        rows.plan = rows.plan.map(|p| SketchPlan { group: p.group.min(K), ..p });
        SimilarityPairs::build(rows, theta, Some(owned), cb)
    }

    fn build(rows: TextRows, theta: f64, owned: Option<Owned>, cb: &mut dyn FnMut(Progress)) -> SimilarityPairs {
        let mut entries = Vec::new();
        let (mut short, mut rarest) = (Vec::new(), Vec::new());
        // A text none of whose first K keys the shard owns is in none of its pairs.
        let takes_part = |i: usize| owned.is_none_or(|o| rows.sketch_of(i).iter().take(K).any(|&r| o.owns_ranked(r)));
        if let Some(p) = rows.plan {
            // Phase 1: the whole-set texts' keys, rarest first among them.
            let mut df: std::collections::HashMap<u64, u32> = std::collections::HashMap::new();
            for i in (0..rows.len()).filter(|&i| rows.whole(i, &p) && takes_part(i)) {
                for &key in rows.sketch_of(i) {
                    *df.entry(key).or_default() += 1;
                }
                short.push(i as u32);
            }
            short.sort_by_key(|&i| (rows.sizes[i as usize], i));
            rarest = short
                .iter()
                .map(|&i| {
                    let mut keys = rows.sketch_of(i as usize).to_vec();
                    keys.sort_unstable_by_key(|key| (df[key], *key));
                    keys
                })
                .collect();
            // Phase 2: the group keys of every text.
            for i in 0..rows.len() {
                let keys = rows.sketch_of(i);
                let group = keys[..keys.len().min(p.group)].iter();
                let owns = |h: &&u64| owned.is_none_or(|o| o.owns_ranked(**h));
                entries.extend(group.filter(owns).map(|&h| (h, rows.whole(i, &p), i as u32)));
            }
            entries.sort_unstable();
        }
        cb(Progress::Phase(match rows.plan {
            Some(p) => format!(
                "{} texts ({} of at most {} shingles, paired whole); sketches of {} keys, {} shared needed, groups of the first {}",
                rows.len(),
                short.len(),
                p.sketch,
                p.sketch,
                p.shared,
                p.group
            ),
            None => format!("{} texts, every pair compared (similarity below 0.078)", rows.len()),
        }));
        SimilarityPairs {
            rows,
            theta,
            short,
            rarest,
            postings: std::collections::HashMap::new(),
            next_short: 0,
            chunk: Vec::new(),
            entries,
            group: 0,
            group_end: 0,
            a: 0,
            b: 0,
            set_a: None,
            work: Ticker::default(),
            owned,
        }
    }

    /// The next pair, or None when all are out.
    pub fn next_pair(&mut self, cb: &mut dyn FnMut(Progress)) -> Option<SimilarityPair> {
        loop {
            if let Some(p) = self.chunk.pop() {
                return Some(p);
            }
            if self.next_short < self.short.len() {
                self.short_pairs(cb);
                continue;
            }
            let (x, y) = self.next_candidate(cb)?;
            if let Some(similarity) = self.measure(x, y) {
                if let Some(p) = self.pair(x, y, similarity, cb) {
                    return Some(p);
                }
            }
        }
    }

    fn tick(&mut self, cb: &mut dyn FnMut(Progress)) {
        self.work.add(MEASURED, cb);
    }

    /// Texts `x` and `y` as a pair, unless the dedup decision keeps them apart (when the rows
    /// ask it: `TextRows::deciding`).
    fn pair(&self, x: usize, y: usize, similarity: f64, cb: &mut dyn FnMut(Progress)) -> Option<SimilarityPair> {
        let (i1, i2) = (self.rows.ids[x], self.rows.ids[y]);
        self.rows.same_passage(x, y, &mut || cb(Progress::Tick)).then_some(SimilarityPair {
            id1: i1.min(i2),
            id2: i1.max(i2),
            similarity,
        })
    }

    /// Phase 1, the next whole-set text: its pairs with those before it (by prefix filtering
    /// over the whole sets its sketch holds) into `chunk`, then its prefix indexed.
    fn short_pairs(&mut self, cb: &mut dyn FnMut(Progress)) {
        let n = self.next_short;
        self.next_short += 1;
        let x = self.short[n] as usize;
        let len = self.rarest[n].len();
        let prefix =
            if len == 0 { 0 } else { len + 1 - ((self.theta * len as f64 - 1e-9).ceil() as usize).clamp(1, len) };
        let mut seen = std::collections::HashSet::new();
        let mut ticker = Ticker::default();
        for key in &self.rarest[n][..prefix] {
            for &y in self.postings.get(key).map_or(&[][..], Vec::as_slice) {
                // A text of many copies meets thousands here: a tick now and then, for cancel.
                ticker.add(MEASURED, cb);
                if seen.insert(y) {
                    let y = y as usize;
                    let (sx, sy) = (self.rows.sketch_of(x), self.rows.sketch_of(y));
                    // The length bound first: y, met before x, is no longer than x.
                    if (sy.len() as f64) < self.theta * sx.len() as f64 - 1e-9 {
                        continue;
                    }
                    let s = jaccard(common(sx, sy), sx.len(), sy.len()) * self.rows.agreement(x, y);
                    let ours = self.owned.is_none_or(|o| o.owns_pair(sx, sy));
                    if s >= self.theta && self.rows.ids[x] != self.rows.ids[y] && ours {
                        self.chunk.extend(self.pair(x, y, s, cb));
                    }
                }
            }
        }
        for key in &self.rarest[n][..prefix] {
            self.postings.entry(*key).or_default().push(x as u32);
        }
        self.tick(cb);
    }

    /// Phase 2, the next candidate `(x, y)`: texts of the current group, one of them longer
    /// than its sketch, taken up in the group of their first shared group key, whose sketches
    /// share enough keys; or, comparing every pair, the next pair.
    fn next_candidate(&mut self, cb: &mut dyn FnMut(Progress)) -> Option<(usize, usize)> {
        let Some(p) = self.rows.plan else {
            let n = self.rows.len();
            loop {
                self.b += 1;
                if self.b >= n {
                    self.a += 1;
                    self.b = self.a + 1;
                }
                if self.a + 1 >= n {
                    return None;
                }
                self.tick(cb);
                if self.rows.ids[self.a] != self.rows.ids[self.b] {
                    return Some((self.a, self.b));
                }
            }
        };
        loop {
            self.b += 1;
            if self.b >= self.group_end {
                self.a += 1;
                self.b = self.a + 1;
            }
            // Whole-set texts come last in a group and paired among themselves in phase 1.
            if self.b >= self.group_end || self.entries[self.a].1 {
                self.group = self.group_end;
                if self.group >= self.entries.len() {
                    return None;
                }
                let key = self.entries[self.group].0;
                let len = self.entries[self.group..].iter().take_while(|e| e.0 == key).count();
                self.group_end = self.group + len;
                self.a = self.group;
                self.b = self.group;
                continue;
            }
            self.tick(cb);
            let (key, _, x) = self.entries[self.a];
            let y = self.entries[self.b].2 as usize;
            let x = x as usize;
            if self.rows.ids[x] != self.rows.ids[y] && self.candidate(x, y, key, &p) {
                return Some((x, y));
            }
        }
    }

    /// Whether `key` is the first group key texts x and y share, and their sketches' union
    /// sample holds at least `p.shared` keys that both have.
    fn candidate(&self, x: usize, y: usize, key: u64, p: &SketchPlan) -> bool {
        let (sx, sy) = (self.rows.sketch_of(x), self.rows.sketch_of(y));
        let (mut i, mut j, mut taken, mut shared) = (0, 0, 0, 0);
        let mut first = None;
        while i < sx.len() && j < sy.len() && taken < p.sketch {
            taken += 1;
            match sx[i].cmp(&sy[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => {
                    if first.is_none() && i < p.group && j < p.group {
                        if sx[i] != key {
                            return false;
                        }
                        first = Some(key);
                    }
                    shared += 1;
                    i += 1;
                    j += 1;
                }
            }
        }
        // The union sample ran out of one sketch first: a whole-set text's sketch is its set,
        // so the rest of the other's are no shared keys.
        first == Some(key) && shared >= p.shared.min(sx.len().min(sy.len()))
    }

    /// The similarity of texts x and y if it is at least θ.
    fn measure(&mut self, x: usize, y: usize) -> Option<f64> {
        let (nx, ny) = (self.rows.sizes[x] as usize, self.rows.sizes[y] as usize);
        // The length bound, |A∩B| ≤ min: the same f64 division as the measure's.
        if nx.max(ny) > 0 && jaccard(nx.min(ny), nx.min(ny), nx.max(ny)) < self.theta {
            return None;
        }
        if self.set_a.as_ref().is_none_or(|(i, _)| *i != x) {
            self.set_a = Some((x, self.rows.set(x)));
        }
        let a = &self.set_a.as_ref().expect("set above").1;
        let b = self.rows.set(y);
        let s = jaccard(common(a, &b), a.len(), b.len()) * self.rows.agreement(x, y);
        (s >= self.theta).then_some(s)
    }
}

/// The connected components of the pairs of [`SimilarityPairs`]: `(id, cluster_id)` for every
/// text in a pair, `cluster_id` the smallest id of its component, sorted by `(cluster_id, id)`.
pub fn similarity_clusters(rows: TextRows, theta: f64, cb: &mut dyn FnMut(Progress)) -> Vec<(i64, i64)> {
    let mut pairs = SimilarityPairs::new(rows, theta, cb);
    clusters_of(&mut |cb| pairs.next_pair(cb), cb)
}

/// A source of pairs, called with the caller's progress callback.
pub(crate) type NextPair<'a> = dyn FnMut(&mut dyn FnMut(Progress)) -> Option<SimilarityPair> + 'a;

/// The connected components of the pairs `next` hands out, as [`similarity_clusters`] makes
/// them (for the bulk engines, `super::bulk::clusters` too).
pub(crate) fn clusters_of(next: &mut NextPair, cb: &mut dyn FnMut(Progress)) -> Vec<(i64, i64)> {
    // A node per id met in a pair.
    let mut index: std::collections::HashMap<i64, u32> = std::collections::HashMap::new();
    let mut ids: Vec<i64> = Vec::new();
    let mut uf = UnionFind::new(0);
    while let Some(p) = next(cb) {
        let mut node = |id: i64| {
            *index.entry(id).or_insert_with(|| {
                ids.push(id);
                uf.push()
            })
        };
        let (a, b) = (node(p.id1), node(p.id2));
        uf.union(a, b);
    }
    let mut out = uf.components(|n| std::iter::once(ids[n]), &mut || cb(Progress::Tick));
    cb(Progress::Phase(format!("{} texts in clusters, sorting", out.len())));
    out.sort_unstable();
    out.into_iter().map(|(c, id)| (id, c)).collect()
}
