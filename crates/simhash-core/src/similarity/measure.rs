//! Step 2: the measures, exact on the two texts' shingle sets (shingles.rs).
//!
//! - similarity: the Jaccard index `|A∩B| / |A∪B|` (Broder 1997's resemblance);
//! - containment of A in B: `|A∩B| / |A|`, the share of A's shingles found in B.
//!
//! Both are 0 when a text has no shingle (no letter or digit), as pg_trgm's `similarity`
//! is 0 for two empty strings: an empty text is nobody's near-duplicate. Shingles are
//! compared by their 64-bit hashes: two texts of a million shingles each make a false
//! match of two distinct shingles with probability about 10⁻⁷.
//!
//! A decision `measure ≥ threshold` ([`Decide`]) reads the smaller text into a sorted set
//! and streams the larger, stopping as soon as the answer is known: its memory is 8 bytes
//! per distinct shingle of the smaller text, plus, for the similarity and for the share of
//! the larger text found in the smaller, 16 bytes per shingle of the larger text not in the
//! smaller, of which it holds at most `|smaller| / threshold` (more would decide "no").
//! The decision is exactly `measure(a, b) >= threshold` in f64: the early answers compare
//! the same quotients, bounded by monotonicity.

use std::collections::HashSet;
use std::hash::{BuildHasherDefault, Hasher};

use super::shingles::{for_each_shingle, Version};

/// The distinct shingle hashes of `doc` under version `v`, ascending; `tick` as
/// [`for_each_shingle`] calls it.
pub fn shingle_set(doc: &str, v: Version, tick: &mut dyn FnMut()) -> Vec<u64> {
    let mut set = Vec::new();
    for_each_shingle(doc, v, tick, |h| set.push(h));
    set.sort_unstable();
    set.dedup();
    set
}

/// `|A∩B|` of two ascending sets of distinct hashes.
pub fn common(a: &[u64], b: &[u64]) -> usize {
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

/// The similarity of two ascending shingle sets.
pub fn similarity(a: &[u64], b: &[u64]) -> f64 {
    jaccard(common(a, b), a.len(), b.len())
}

/// The containment of `a` in `b`: the share of `a`'s shingles found in `b`.
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    share(common(a, b), a.len())
}

/// What a decision asks of two texts `query` and `row` (the order of [`Decide::at_least`]).
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
    /// The measure of two sets given as (query, row).
    pub fn of(self, query: &[u64], row: &[u64]) -> f64 {
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

/// `measure(query, row) >= threshold`, with one text held as a set and the other streamed
/// (module docs). `held` is the set of the text that is held (the shorter one, as the
/// caller knows them), `held_is_query` says which it is, `streamed` is the other text.
pub struct Decide<'a> {
    /// The version `held` was made under, and `streamed` is read under.
    pub version: Version,
    pub measure: Measure,
    pub threshold: f64,
    pub held: &'a [u64],
    pub held_is_query: bool,
}

/// The share of the held set's and the streamed text's shingles a measure is over.
#[derive(Clone, Copy)]
enum Over {
    /// `common / |held|`.
    Held,
    /// `common / |streamed|`.
    Streamed,
    /// `common / |held ∪ streamed|`.
    Union,
}

impl Decide<'_> {
    fn over(&self) -> Over {
        match (self.measure, self.held_is_query) {
            (Measure::Similarity, _) => Over::Union,
            (Measure::QueryInRow, true) | (Measure::RowInQuery, false) => Over::Held,
            (Measure::QueryInRow, false) | (Measure::RowInQuery, true) => Over::Streamed,
        }
    }

    /// The decision on the text `streamed`.
    pub fn at_least(&self, streamed: &str, tick: &mut dyn FnMut()) -> bool {
        let held = self.held;
        let over = self.over();
        let t = self.threshold;
        // The size filter (Bayardo, Ma and Srikant 2007): a text has at most one shingle per
        // normalized character, so one much shorter than the held set cannot reach t, and is
        // decided unread. (A dedup check rechecked about 45 such rows a lookup, at 50 µs each:
        // docs/performance.md.)
        if !matches!(over, Over::Streamed) {
            let n = most_shingles(streamed);
            let best = match over {
                Over::Held => share(n.min(held.len()), held.len()),
                _ if n >= held.len() => 1.0,
                _ => jaccard(n, held.len(), n),
            };
            if best < t {
                return false;
            }
        }
        // The quotient of the measure for `common` shared and `extra` streamed shingles
        // not held: the same f64 division `similarity` and `containment` make.
        let quotient = |common: usize, extra: usize| match over {
            Over::Held => share(common, held.len()),
            Over::Streamed => share(common, common + extra),
            Over::Union => jaccard(common, held.len(), common + extra),
        };
        let mut hit = vec![0u64; held.len().div_ceil(64)];
        let mut common = 0usize;
        let mut extra = HashSet64::default();
        let mut decided = None;
        for_each_shingle(streamed, self.version, tick, |h| {
            if decided.is_some() {
                return;
            }
            match held.binary_search(&h) {
                Ok(i) => {
                    let (w, b) = (i / 64, 1u64 << (i % 64));
                    if hit[w] & b == 0 {
                        hit[w] |= b;
                        common += 1;
                        // Only the share of the held set grows with `common` alone.
                        if matches!(over, Over::Held) && quotient(common, 0) >= t {
                            decided = Some(true);
                        }
                    }
                }
                Err(_) => {
                    if matches!(over, Over::Held) {
                        return;
                    }
                    extra.insert(h);
                    // Even with every held shingle in common, the measure is below t.
                    let best = match over {
                        Over::Streamed => quotient(held.len(), extra.len()),
                        _ => jaccard(held.len(), held.len(), held.len() + extra.len()),
                    };
                    if best < t {
                        decided = Some(false);
                    }
                }
            }
        });
        decided.unwrap_or_else(|| quotient(common, extra.len()) >= t)
    }
}

/// At least the number of distinct shingles of `doc`, read from its characters alone: one
/// per character that NFKC, lowercasing and folding keep one character (ASCII, CJK ideographs,
/// kana, full-width forms), and 18 for any other, the most characters NFKC makes of one
/// (U+FDFA); a text of fewer characters than a shingle's width is one shingle.
fn most_shingles(doc: &str) -> usize {
    let n: usize = doc
        .chars()
        .map(|c| match c as u32 {
            0..=0x7f | 0x3041..=0x3096 | 0x30a1..=0x30fa | 0x3400..=0x4dbf | 0x4e00..=0x9fff | 0xff01..=0xff5e => 1,
            _ => 18,
        })
        .sum();
    n.max(usize::from(!doc.is_empty()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// Texts of letters, CJK, kana, full-width forms, punctuation and characters NFKC
    /// expands (ﬃ, ㈱, ﷺ), repeated so that pairs share shingles.
    fn text() -> impl Strategy<Value = String> {
        let parts = prop::sample::select(vec![
            "abc",
            "the ",
            "de",
            "中国",
            "经济",
            "发展",
            "ガイド",
            "ｶﾞｲﾄﾞ",
            "ＡＢＣ",
            "ﬃ",
            "㈱",
            "ﷺ",
            "，",
            "。",
            "1998",
            "İ",
        ]);
        prop::collection::vec(parts, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        /// A decision is the exact measure compared with the threshold, either text held,
        /// under either version.
        #[test]
        fn decide_is_exact(a in text(), b in text(), t in prop::sample::select(vec![0.0, 0.1, 0.3, 0.5, 0.6, 0.8, 1.0])) {
            for version in [Version::M1, Version::M2] {
                let (sa, sb) = (shingle_set(&a, version, &mut || ()), shingle_set(&b, version, &mut || ()));
                for measure in [Measure::Similarity, Measure::QueryInRow, Measure::RowInQuery] {
                    let exact = measure.of(&sa, &sb);
                    // The query is a; rows are b.
                    let d = |held: &[u64], held_is_query: bool, streamed: &str| {
                        Decide { version, measure, threshold: t, held, held_is_query }.at_least(streamed, &mut || ())
                    };
                    prop_assert_eq!(d(&sa, true, &b), exact >= t, "{:?} {:?} {} {} {}", version, measure, &a, &b, t);
                    prop_assert_eq!(d(&sb, false, &a), exact >= t, "{:?} {:?} {} {} {}", version, measure, &a, &b, t);
                }
            }
        }

        #[test]
        fn most_shingles_bounds(a in text()) {
            prop_assert!(set(&a).len() <= most_shingles(&a));
        }
    }

    const V: Version = Version::M2;

    fn set(doc: &str) -> Vec<u64> {
        shingle_set(doc, V, &mut || ())
    }

    #[test]
    fn empty_and_identical() {
        assert_eq!(similarity(&set(""), &set("")), 0.0);
        assert_eq!(similarity(&set("，。"), &set("abc")), 0.0);
        let a = set("中共中央总书记、国家主席江泽民发表新年讲话");
        assert_eq!(similarity(&a, &a), 1.0);
        assert_eq!(containment(&a, &a), 1.0);
        assert_eq!(containment(&[], &a), 0.0);
    }
}
