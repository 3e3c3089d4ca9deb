//! Every pair of a set of texts at similarity θ or more, with its similarity, in bulk
//! (`simhash_similarity_pairs`, `simhash_similarity_clusters`), and the connected
//! components of those pairs.
//!
//! **Candidates.** Each text gets a bottom-k sketch ([`sketch_size`] keys, frequent shingles
//! last, as the index's): two texts at similarity J share a sketch key with probability at
//! least `1 − (1 − J)^k`, and `k` is chosen so that this is `1 − 10⁻⁹` at J = θ (30 keys at
//! 0.5). The `(key, text)` entries are sorted once; the texts of one key's group are paired,
//! and a pair is taken up only in the group of its first shared key (by the sketches' order),
//! so that it comes out once without a set of the pairs seen. Below θ = 0.078 a sketch would
//! need more than [`MAX_SKETCH`] keys: every pair is compared instead.
//!
//! **Exact.** A candidate is measured on the two texts' full shingle sets (a length bound
//! first: `J ≤ min/max` of the set sizes), recomputed from their kept characters, which is
//! all that is held of a text: memory is the kept characters (at most the text's UTF-8
//! bytes; punctuation and spaces are not kept) and `20·k + 24` bytes a text, never the pairs.

use super::keys::{rank, KeyParams, K};
use super::measure::{common, jaccard};
use super::shingles::{for_each_char, Window};
use crate::pairs::{Progress, UnionFind};

/// The per-pair miss probability a bulk run allows itself at the threshold.
pub const BULK_MISS: f64 = 1e-9;
/// The most keys a text's sketch may have; below the θ that needs more, every pair is compared.
pub const MAX_SKETCH: usize = 256;
/// Units of work (candidates looked at, pairs compared) between two [`Progress::Tick`]s.
const TICK_WORK: u32 = 1 << 14;

/// Sketch keys per text for a run at `theta`: `⌈ln(10⁻⁹) / ln(1 − θ)⌉`, at least [`K`];
/// None when that is more than [`MAX_SKETCH`] (compare every pair).
pub fn sketch_size(theta: f64) -> Option<usize> {
    if theta >= 1.0 {
        return Some(K);
    }
    let k = (BULK_MISS.ln() / (1.0 - theta).ln()).ceil();
    (k.is_finite() && k <= MAX_SKETCH as f64).then(|| (k as usize).max(K))
}

/// The texts of a bulk run: ids, kept characters, set sizes and sketches.
pub struct TextRows {
    ids: Vec<i64>,
    kept: String,
    /// `kept[ends[i - 1]..ends[i]]` is text i's.
    ends: Vec<usize>,
    /// Distinct shingles per text.
    sizes: Vec<u32>,
    /// Text i's sketch is `sketch[starts[i]..starts[i + 1]]`, in the sketch order.
    sketch: Vec<(bool, u64)>,
    starts: Vec<usize>,
    k: Option<usize>,
}

impl TextRows {
    /// No text yet, for a run at `theta`.
    pub fn new(theta: f64) -> TextRows {
        TextRows {
            ids: Vec::new(),
            kept: String::new(),
            ends: Vec::new(),
            sizes: Vec::new(),
            sketch: Vec::new(),
            starts: vec![0],
            k: sketch_size(theta),
        }
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
        for_each_char(doc, tick, |c| {
            kept.push(c);
            if let Some(h) = window.push(c) {
                hashes.push(h);
            }
        });
        hashes.extend(window.finish());
        hashes.sort_unstable();
        hashes.dedup();
        self.ids.push(id);
        self.ends.push(self.kept.len());
        self.sizes.push(hashes.len() as u32);
        if let Some(k) = self.k {
            let mut ranked: Vec<(bool, u64)> = hashes.iter().map(|&h| rank(h, &KeyParams::default())).collect();
            ranked.sort_unstable();
            ranked.truncate(k);
            self.sketch.extend(ranked);
        }
        self.starts.push(self.sketch.len());
    }

    fn kept_of(&self, i: usize) -> &str {
        let from = if i == 0 { 0 } else { self.ends[i - 1] };
        &self.kept[from..self.ends[i]]
    }

    fn sketch_of(&self, i: usize) -> &[(bool, u64)] {
        &self.sketch[self.starts[i]..self.starts[i + 1]]
    }

    /// Text i's shingle set, from its kept characters.
    fn set(&self, i: usize) -> Vec<u64> {
        let mut window = Window::default();
        let mut set: Vec<u64> = self.kept_of(i).chars().filter_map(|c| window.push(c)).collect();
        set.extend(window.finish());
        set.sort_unstable();
        set.dedup();
        set
    }
}

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
    /// `(key, text)`, sorted: the groups of texts sharing a sketch key.
    entries: Vec<(u64, u32)>,
    /// The current group is `entries[group..group_end]`; `a`, `b` index into it (or, comparing
    /// every pair, are the texts themselves).
    group: usize,
    group_end: usize,
    a: usize,
    b: usize,
    /// The set of the current `a`, while it stays the same.
    set_a: Option<(usize, Vec<u64>)>,
    work: u32,
}

impl SimilarityPairs {
    /// Sorts the sketch entries (reported as a [`Progress::Phase`]).
    pub fn new(rows: TextRows, theta: f64, cb: &mut dyn FnMut(Progress)) -> SimilarityPairs {
        let mut entries = Vec::with_capacity(rows.sketch.len());
        if rows.k.is_some() {
            for i in 0..rows.len() {
                entries.extend(rows.sketch_of(i).iter().map(|&(_, h)| (h, i as u32)));
            }
            entries.sort_unstable();
        }
        cb(Progress::Phase(match rows.k {
            Some(k) => format!("{} texts, {} sketch keys of at most {k} a text", rows.len(), entries.len()),
            None => format!("{} texts, every pair compared (similarity below 0.078)", rows.len()),
        }));
        SimilarityPairs { rows, theta, entries, group: 0, group_end: 0, a: 0, b: 0, set_a: None, work: 0 }
    }

    /// The next pair, or None when all are out.
    pub fn next_pair(&mut self, cb: &mut dyn FnMut(Progress)) -> Option<SimilarityPair> {
        loop {
            let (x, y) = self.next_candidate()?;
            self.work += 1;
            if self.work == TICK_WORK {
                self.work = 0;
                cb(Progress::Tick);
            }
            if let Some(similarity) = self.measure(x, y) {
                let (i1, i2) = (self.rows.ids[x], self.rows.ids[y]);
                return Some(SimilarityPair { id1: i1.min(i2), id2: i1.max(i2), similarity });
            }
        }
    }

    /// The next candidate `(x, y)` of texts: in the current group, taken up in the group of
    /// its first shared sketch key; or, comparing every pair, the next pair.
    fn next_candidate(&mut self) -> Option<(usize, usize)> {
        if self.rows.k.is_none() {
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
                if self.rows.ids[self.a] != self.rows.ids[self.b] {
                    return Some((self.a, self.b));
                }
            }
        }
        loop {
            self.b += 1;
            if self.b >= self.group_end {
                self.a += 1;
                self.b = self.a + 1;
            }
            if self.b >= self.group_end {
                // The next group of two texts or more.
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
            let (key, x) = self.entries[self.a];
            let y = self.entries[self.b].1 as usize;
            let x = x as usize;
            if self.rows.ids[x] != self.rows.ids[y] && self.first_shared(x, y) == Some(key) {
                return Some((x, y));
            }
        }
    }

    /// The first key (in the sketch order) that texts x and y share.
    fn first_shared(&self, x: usize, y: usize) -> Option<u64> {
        let (sx, sy) = (self.rows.sketch_of(x), self.rows.sketch_of(y));
        let (mut i, mut j) = (0, 0);
        while i < sx.len() && j < sy.len() {
            match sx[i].cmp(&sy[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return Some(sx[i].1),
            }
        }
        None
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
        let s = jaccard(common(a, &b), a.len(), b.len());
        (s >= self.theta).then_some(s)
    }
}

/// The connected components of the pairs of [`SimilarityPairs`]: `(id, cluster_id)` for every
/// text in a pair, `cluster_id` the smallest id of its component, sorted by `(cluster_id, id)`.
pub fn similarity_clusters(rows: TextRows, theta: f64, cb: &mut dyn FnMut(Progress)) -> Vec<(i64, i64)> {
    // A node per id met in a pair.
    let mut index: std::collections::HashMap<i64, u32> = std::collections::HashMap::new();
    let mut ids: Vec<i64> = Vec::new();
    let mut uf = UnionFind::new(0);
    let mut pairs = SimilarityPairs::new(rows, theta, cb);
    while let Some(p) = pairs.next_pair(cb) {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::exact::exact_pairs;
    use crate::similarity::measure::shingle_set;
    use proptest::prelude::*;

    fn run(texts: &[String], theta: f64) -> Vec<(i64, i64, f64)> {
        let mut rows = TextRows::new(theta);
        for (i, t) in texts.iter().enumerate() {
            rows.push(i as i64, t, &mut || ());
        }
        let mut p = SimilarityPairs::new(rows, theta, &mut |_| ());
        let mut out = Vec::new();
        while let Some(x) = p.next_pair(&mut |_| ()) {
            out.push((x.id1, x.id2, x.similarity));
        }
        out.sort_by_key(|a| (a.0, a.1));
        out
    }

    fn brute(texts: &[String], theta: f64) -> Vec<(i64, i64, f64)> {
        let sets: Vec<Vec<u64>> = texts.iter().map(|t| shingle_set(t, &mut || ())).collect();
        let mut out = Vec::new();
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                let s = jaccard(common(&sets[i], &sets[j]), sets[i].len(), sets[j].len());
                if s >= theta {
                    out.push((i as i64, j as i64, s));
                }
            }
        }
        out
    }

    /// Texts made of a few words from a small vocabulary: many overlaps, some near-duplicates.
    fn texts() -> impl Strategy<Value = Vec<String>> {
        let words =
            prop::sample::select(vec!["中国", "经济", "发展", "alpha", "beta", "新闻", "gamma", "报道", "delta", "。"]);
        prop::collection::vec(prop::collection::vec(words, 0..12).prop_map(|w| w.concat()), 2..40)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]
        /// The bulk pairs are the brute force's, with the same similarity, at any threshold
        /// (every pair compared below 0.078, sketches above).
        #[test]
        fn bulk_pairs_are_brute_force(t in texts(), theta in prop::sample::select(vec![0.0, 0.05, 0.3, 0.5, 0.7, 0.9, 1.0])) {
            prop_assert_eq!(run(&t, theta), brute(&t, theta));
        }
    }

    #[test]
    fn corpus_like_texts_match_prefix_filtering() {
        // Variants of a few sentences: the pairs equal exact_pairs' (prefix filtering).
        let base = [
            "新华社北京一月一日电，今天是新年第一天，首都各界群众举行了丰富多彩的庆祝活动。",
            "The quick brown fox jumps over the lazy dog near the river bank today.",
            "国家主席江泽民发表新年讲话，向全国各族人民致以新年的祝贺。",
        ];
        let mut texts = Vec::new();
        for b in base {
            for cut in 0..8 {
                let chars: Vec<char> = b.chars().collect();
                texts.push(chars[cut..chars.len() - cut].iter().collect::<String>());
            }
        }
        let sets: Vec<Vec<u64>> = texts.iter().map(|t| shingle_set(t, &mut || ())).collect();
        let want: Vec<(i64, i64, f64)> =
            exact_pairs(&sets, 0.5, 2.0).into_iter().map(|p| (p.i as i64, p.j as i64, p.similarity)).collect();
        assert!(want.len() > 20);
        assert_eq!(run(&texts, 0.5), want);
    }

    #[test]
    fn sketch_sizes() {
        assert_eq!(sketch_size(0.5), Some(30));
        assert_eq!(sketch_size(0.9), Some(K));
        assert_eq!(sketch_size(1.0), Some(K));
        assert_eq!(sketch_size(0.05), None);
        assert!(sketch_size(0.08).is_some());
    }
}
