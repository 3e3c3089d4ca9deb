//! `measure ≥ threshold` of two texts, one held as sets and the other streamed ([`AtLeast`]),
//! stopping as soon as the answer is known: what a lookup's recheck and the predicates of
//! `simhash_similarity(a, b) >= t` compute (measure.rs has the measures).
//!
//! Memory is 8 bytes per distinct shingle and figure of the held text (the smaller, as the
//! caller knows them), plus, for the similarity and for the share of the streamed text found
//! in the held one, 16 bytes per shingle (and figure) of the streamed text not held, of which
//! it holds at most `|held| / threshold` (more would decide "no"); for the similarity, the
//! streamed text's figures are counted up to the held text's number only (past it, the
//! agreement is over the held text's). The decision is exactly `measure(a, b) >= threshold`
//! in f64: the early answers compare the same quotients, bounded by monotonicity (both
//! factors of a containment of the held text only grow as the other streams past).

use super::measure::{agreement, jaccard, share, HashSet64, Measure, Sets};
use super::shingles::{for_each_item, Item, Version, Window};

/// `measure(query, row) >= threshold`, with one text held as sets and the other streamed
/// (module docs). `held` is the sets of the text that is held, `held_is_query` says which it
/// is, `streamed` is the other text.
pub struct AtLeast<'a> {
    /// The version `held` was made under, and `streamed` is read under.
    pub version: Version,
    pub measure: Measure,
    pub threshold: f64,
    pub held: &'a Sets,
    pub held_is_query: bool,
}

/// The share of the held sets' and the streamed text's items a measure is over.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Over {
    /// `common / |held|`.
    Held,
    /// `common / |streamed|`.
    Streamed,
    /// `common / |held ∪ streamed|`.
    Union,
}

/// What is known of one kind of item (shingles or figures) of the streamed text.
struct Seen<'a> {
    held: &'a [u64],
    hit: Vec<u64>,
    common: usize,
    /// Distinct streamed items not held (Held: not kept; Union, figures: up to a cap).
    extra: HashSet64,
}

impl<'a> Seen<'a> {
    fn new(held: &'a [u64]) -> Seen<'a> {
        Seen { held, hit: vec![0u64; held.len().div_ceil(64)], common: 0, extra: HashSet64::default() }
    }

    /// Takes a streamed item: whether it was held and new.
    #[inline]
    fn take(&mut self, h: u64, keep_extra: bool) -> bool {
        match self.held.binary_search(&h) {
            Ok(i) => {
                let (w, b) = (i / 64, 1u64 << (i % 64));
                let new = self.hit[w] & b == 0;
                if new {
                    self.hit[w] |= b;
                    self.common += 1;
                }
                new
            }
            Err(_) => {
                if keep_extra {
                    self.extra.insert(h);
                }
                false
            }
        }
    }

    /// Distinct streamed items so far.
    fn streamed(&self) -> usize {
        self.common + self.extra.len()
    }
}

impl AtLeast<'_> {
    fn over(&self) -> Over {
        match (self.measure, self.held_is_query) {
            (Measure::Similarity, _) => Over::Union,
            (Measure::QueryInRow, true) | (Measure::RowInQuery, false) => Over::Held,
            (Measure::QueryInRow, false) | (Measure::RowInQuery, true) => Over::Streamed,
        }
    }

    /// The measure for what is seen: the same f64 operations as `similarity` and
    /// `containment` (measure.rs).
    fn value(&self, over: Over, s: &Seen<'_>, f: &Seen<'_>) -> f64 {
        let (hs, hf) = (self.held.shingles.len(), self.held.figures.len());
        match over {
            Over::Held => share(s.common, hs) * agreement(f.common, hf),
            Over::Streamed => share(s.common, s.streamed()) * agreement(f.common, f.streamed()),
            Over::Union => jaccard(s.common, hs, s.streamed()) * agreement(f.common, hf.min(f.streamed())),
        }
    }

    /// Whether `streamed` may reach the threshold by its length: false decides "no" unread.
    /// The size filter (Bayardo, Ma and Srikant 2007): a text has at most one shingle per
    /// normalized character, so one much shorter than the held set cannot reach t. (A dedup
    /// check rechecked about 45 such rows a lookup, at 50 µs each: docs/performance.md.) The
    /// figures' agreement is at most 1.
    pub fn may_reach(&self, streamed: &str) -> bool {
        let hs = self.held.shingles.len();
        let t = self.threshold;
        let over = self.over();
        if t <= 0.0 || over == Over::Streamed {
            return true;
        }
        let n = most_shingles(streamed);
        let best = match over {
            Over::Held => share(n.min(hs), hs),
            _ if n >= hs => 1.0,
            _ => jaccard(n, hs, n),
        };
        best >= t
    }

    /// The decision on a streamed text whose sets are in hand: the measure, whole.
    pub fn at_least_sets(&self, streamed: &Sets) -> bool {
        let (query, row) = if self.held_is_query { (self.held, streamed) } else { (streamed, self.held) };
        self.measure.of(query, row) >= self.threshold
    }

    /// The decision on the text `streamed`.
    pub fn at_least(&self, streamed: &str, tick: &mut dyn FnMut()) -> bool {
        let held = self.held;
        let (hs, hf) = (held.shingles.len(), held.figures.len());
        let over = self.over();
        let t = self.threshold;
        // Every measure is at least 0.
        if t <= 0.0 {
            return true;
        }
        if !self.may_reach(streamed) {
            return false;
        }
        let (mut s, mut f) = (Seen::new(&held.shingles), Seen::new(&held.figures));
        let mut window = Window::default();
        let mut decided = None;
        // After a new item: an early answer, if there is one.
        let judge = |s: &Seen<'_>, f: &Seen<'_>| -> Option<bool> {
            match over {
                // Both factors only grow.
                Over::Held => (self.value(over, s, f) >= t).then_some(true),
                // Even with every held item in common, the measure is below t.
                Over::Streamed => {
                    let best = share(hs, hs + s.extra.len()) * agreement(hf, hf + f.extra.len());
                    (best < t).then_some(false)
                }
                Over::Union => (jaccard(hs, hs, hs + s.extra.len()) < t).then_some(false),
            }
        };
        let keep = over != Over::Held;
        let mut figures_full = false;
        let mut take = |item: Item, s: &mut Seen<'_>, f: &mut Seen<'_>| -> Option<bool> {
            match item {
                Item::Char(c) => {
                    let h = window.push(c)?;
                    let new = s.take(h, keep);
                    (new || keep).then(|| judge(s, f)).flatten()
                }
                Item::Figure(h) => {
                    // The similarity needs the streamed figures' number only up to the held
                    // text's: past it the agreement is over the held text's.
                    let keep = keep && !(over == Over::Union && figures_full);
                    let new = f.take(h, keep);
                    figures_full = f.streamed() >= hf;
                    (new || over == Over::Streamed).then(|| judge(s, f)).flatten()
                }
            }
        };
        for_each_item(streamed, self.version, tick, |item| {
            if decided.is_none() {
                decided = take(item, &mut s, &mut f);
            }
        });
        if decided.is_none() {
            if let Some(h) = window.finish() {
                s.take(h, keep);
                decided = judge(&s, &f);
            }
        }
        decided.unwrap_or_else(|| self.value(over, &s, &f) >= t)
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

    /// Texts of letters, CJK, kana, full-width forms, punctuation, figures and characters NFKC
    /// expands (ﬃ, ㈱, ﷺ), repeated so that pairs share shingles and figures.
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
            "3.6",
            "１２",
            ",5",
            "İ",
            " 7",
        ]);
        prop::collection::vec(parts, 0..40).prop_map(|v| v.concat())
    }

    proptest! {
        /// A decision is the exact measure compared with the threshold, either text held,
        /// under either version, streamed or from the other text's sets (the SQL layer's
        /// short rows, measured whole).
        #[test]
        fn decide_is_exact(a in text(), b in text(), t in prop::sample::select(vec![0.0, 0.1, 0.3, 0.5, 0.6, 0.8, 1.0])) {
            for version in [Version::M1, Version::M2] {
                let (sa, sb) = (Sets::of(&a, version, &mut || ()), Sets::of(&b, version, &mut || ()));
                for measure in [Measure::Similarity, Measure::QueryInRow, Measure::RowInQuery] {
                    let exact = measure.of(&sa, &sb);
                    // The query is a; rows are b.
                    let d = |held: &Sets, held_is_query: bool, streamed: &str| {
                        AtLeast { version, measure, threshold: t, held, held_is_query }.at_least(streamed, &mut || ())
                    };
                    prop_assert_eq!(d(&sa, true, &b), exact >= t, "{:?} {:?} {} {} {}", version, measure, &a, &b, t);
                    prop_assert_eq!(d(&sb, false, &a), exact >= t, "{:?} {:?} {} {} {}", version, measure, &a, &b, t);
                    let whole = |held: &Sets, held_is_query: bool, streamed: &str, sets: &Sets| {
                        let d = AtLeast { version, measure, threshold: t, held, held_is_query };
                        d.may_reach(streamed) && d.at_least_sets(sets)
                    };
                    prop_assert_eq!(whole(&sa, true, &b, &sb), exact >= t, "whole {:?} {:?} {} {} {}", version, measure, &a, &b, t);
                    prop_assert_eq!(whole(&sb, false, &a, &sa), exact >= t, "whole {:?} {:?} {} {} {}", version, measure, &a, &b, t);
                }
            }
        }

        #[test]
        fn most_shingles_bounds(a in text()) {
            prop_assert!(Sets::of(&a, Version::M2, &mut || ()).shingles.len() <= most_shingles(&a));
        }
    }
}
