//! Step 2: the measures, exact on two texts' sets (shingles.rs): their shingles and, under
//! measure 2, their figures.
//!
//! - similarity: the Jaccard index `|A∩B| / |A∪B|` of the shingles (Broder 1997's
//!   resemblance), times the figures' agreement `(|F∩G| + 1) / (min(|F|, |G|) + 1)`;
//! - containment of A in B: `|A∩B| / |A|`, the share of A's shingles found in B, times
//!   `(|F∩G| + 1) / (|F| + 1)`, the agreement of A's figures with B's.
//!
//! The agreement is 1 when the text with fewer figures has all its figures in the other (an
//! excerpt, a repost with a dateline added) and when either has none (measure 1 reads none,
//! so it is the plain Jaccard index); two rows that differ only in their figures get their
//! shingles' similarity divided by one more than the figures they do not share: invoices,
//! quotes of other days, "Changed in version 3.6" beside "3.8" (0.76 of shingles, 0.38). The
//! `+ 1` keeps a repost whose one figure a typo broke at half its shingles' similarity
//! rather than 0 (docs/quality.md, "Measure 2", the labelled figures of the choice).
//!
//! Both are 0 when a text has no shingle (no letter or digit), as pg_trgm's `similarity`
//! is 0 for two empty strings: an empty text is nobody's near-duplicate. Shingles and figures
//! are compared by their 64-bit hashes: two texts of a million shingles each make a false
//! match of two distinct shingles with probability about 10⁻⁷. The agreement is at most 1, so
//! the shingles' Jaccard index bounds the similarity: what finds candidates by shingles
//! (index keys, bulk sketches, prefix filters) finds every pair the measure keeps.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::shingles::{for_each_item, for_each_shingle, Item, Version, Window};

/// A text's sets: distinct shingle hashes and distinct figure hashes, each ascending.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sets {
    pub shingles: Vec<u64>,
    /// Empty under measure 1.
    pub figures: Vec<u64>,
}

impl Sets {
    /// The sets of `doc` under version `v`; `tick` as [`for_each_shingle`] calls it.
    pub fn of(doc: &str, v: Version, tick: &mut dyn FnMut()) -> Sets {
        let mut window = Window::default();
        let (mut shingles, mut figures) = (Vec::new(), Vec::new());
        for_each_item(doc, v, tick, |item| match item {
            Item::Char(c) => shingles.extend(window.push(c)),
            Item::Figure(f) => figures.push(f),
        });
        shingles.extend(window.finish());
        for s in [&mut shingles, &mut figures] {
            s.sort_unstable();
            s.dedup();
        }
        Sets { shingles, figures }
    }

    /// Bytes held.
    pub fn bytes(&self) -> usize {
        8 * (self.shingles.len() + self.figures.len())
    }
}

/// The distinct shingle hashes of `doc` under version `v`, ascending; `tick` as
/// [`for_each_shingle`] calls it.
pub fn shingle_set(doc: &str, v: Version, tick: &mut dyn FnMut()) -> Vec<u64> {
    let mut set = Vec::new();
    for_each_shingle(doc, v, tick, |h| set.push(h));
    set.sort_unstable();
    set.dedup();
    set
}

/// `|A∩B|` of two ascending sets of distinct hashes (or of their low halves: bulk's templates).
pub fn common<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

/// The Jaccard index of two shingle sets of sizes `a` and `b` sharing `common`; 0 when
/// either is empty.
#[inline]
pub fn jaccard(common: usize, a: usize, b: usize) -> f64 {
    if a == 0 || b == 0 {
        0.0
    } else {
        common as f64 / (a + b - common) as f64
    }
}

/// The share `common / a` of a set of size `a`; 0 when it is empty.
#[inline]
pub fn share(common: usize, a: usize) -> f64 {
    if a == 0 {
        0.0
    } else {
        common as f64 / a as f64
    }
}

/// The figures' agreement (module docs): `(common + 1) / (n + 1)`, `n` the figures of the
/// text with fewer (similarity) or of the contained text (containment); 1 when `n` is 0.
#[inline]
pub fn agreement(common: usize, n: usize) -> f64 {
    (common + 1) as f64 / (n + 1) as f64
}

/// The similarity of two texts' sets: the measure every function of it computes, in this
/// order of f64 operations.
pub fn similarity(a: &Sets, b: &Sets) -> f64 {
    let j = jaccard(common(&a.shingles, &b.shingles), a.shingles.len(), b.shingles.len());
    j * agreement(common(&a.figures, &b.figures), a.figures.len().min(b.figures.len()))
}

/// The containment of `a` in `b`.
pub fn containment(a: &Sets, b: &Sets) -> f64 {
    let s = share(common(&a.shingles, &b.shingles), a.shingles.len());
    s * agreement(common(&a.figures, &b.figures), a.figures.len())
}

/// What a decision asks of two texts `query` and `row` (the order of `AtLeast::at_least`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Measure {
    /// `similarity(query, row)`, symmetric.
    Similarity,
    /// `containment(query, row)`: the query is (mostly) in the row, as an excerpt is.
    QueryInRow,
    /// `containment(row, query)`: the row is (mostly) in the query.
    RowInQuery,
}

impl Measure {
    /// The measure of two texts' sets given as (query, row).
    pub fn of(self, query: &Sets, row: &Sets) -> f64 {
        match self {
            Measure::Similarity => similarity(query, row),
            Measure::QueryInRow => containment(query, row),
            Measure::RowInQuery => containment(row, query),
        }
    }
}

/// A hasher for keys that are hashes already.
#[derive(Default)]
pub(crate) struct Identity(u64);

impl Hasher for Identity {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = self.0.rotate_left(8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, v: u64) {
        self.0 = v;
    }
}

pub(crate) type HashSet64 = HashSet<u64, BuildHasherDefault<Identity>>;

#[cfg(test)]
mod tests {
    use super::*;

    fn sets(doc: &str, v: Version) -> Sets {
        Sets::of(doc, v, &mut || ())
    }

    #[test]
    fn empty_and_identical() {
        for v in [Version::M1, Version::M2] {
            assert_eq!(similarity(&sets("", v), &sets("", v)), 0.0);
            assert_eq!(similarity(&sets("，。", v), &sets("abc", v)), 0.0);
            let a = sets("中共中央总书记、国家主席江泽民发表1998年新年讲话", v);
            assert_eq!(similarity(&a, &a), 1.0);
            assert_eq!(containment(&a, &a), 1.0);
            assert_eq!(containment(&Sets::default(), &a), 0.0);
            assert_eq!(a.shingles, shingle_set("中共中央总书记、国家主席江泽民发表1998年新年讲话", v, &mut || ()));
        }
    }

    #[test]
    fn figures_scale_measure_2() {
        let m2 = |a: &str, b: &str| similarity(&sets(a, Version::M2), &sets(b, Version::M2));
        let m1 = |a: &str, b: &str| similarity(&sets(a, Version::M1), &sets(b, Version::M1));
        // Rows that differ only in their figures: 1 under measure 1.
        let (a, b) = ("Invoice 1041: total 250.00 EUR due 2024-03-01", "Invoice 7782: total 990.15 EUR due 2025-11-30");
        assert_eq!(m1(a, b), 1.0);
        assert!(m2(a, b) < 0.05, "{}", m2(a, b));
        let (a, b) = (
            "Changed in version 3.6: Accepts a path-like object.",
            "Changed in version 3.8: Accepts a path-like object.",
        );
        let shingles = jaccard(
            common(&sets(a, Version::M2).shingles, &sets(b, Version::M2).shingles),
            sets(a, Version::M2).shingles.len(),
            sets(b, Version::M2).shingles.len(),
        );
        // One figure each, none shared: half the shingles' similarity.
        assert_eq!(m2(a, b), shingles * 0.5);
        // A dateline added: all the figures of the text with fewer are in the other.
        let text = "本报北京１月５日讯　中共中央总书记江泽民发表１９９８年新年讲话。";
        assert_eq!(sets(text, Version::M2).figures.len(), 3);
        let plain = "中共中央总书记江泽民发表１９９８年新年讲话。";
        let (x, y) = (sets(text, Version::M2), sets(plain, Version::M2));
        assert_eq!(containment(&y, &x), 1.0);
        assert_eq!(similarity(&x, &y), jaccard(common(&x.shingles, &y.shingles), x.shingles.len(), y.shingles.len()));
        // Containment counts the contained text's figures.
        assert_eq!(containment(&x, &y), share(common(&x.shingles, &y.shingles), x.shingles.len()) * (2.0 / 4.0));
    }
}
