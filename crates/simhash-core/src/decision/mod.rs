//! The dedup decision: whether a reader would call two texts the same passage
//! (docs/decision.md). The dedup triggers of every measure, and the bulk pairs and clusters
//! of similarity and of fingerprints with texts, find their candidates fast, by index keys,
//! blocks or bands, and ask this one question of each, through one entry point, [`decide`],
//! with a [`Version`]. Searches (`hamming`, `simhash_similarity`, the index predicates) return
//! what they are asked for and never ask it; nor do the paths without texts to read (segment
//! pairs and clusters, bulk pairs across shards, fingerprint pairs over `(id, fp)`:
//! docs/decision.md, "Limits").
//!
//! A measure of shared shingles cannot see *where* two texts differ. A repost inserts and
//! drops (a sentence, a source line, a cut end) or has a few scattered typos; a text written on
//! the same frame substitutes a slot ("black" → "brown", 第二十六条 → 第二十八条, one invoice's
//! figures for another's). So the decision aligns the two texts and prices what differs:
//! - [`tokens`]: text → tokens (CJK characters, Latin words, figures), with where sentences
//!   and clauses end;
//! - [`align`]: tokens → hunks, the stretches between matched tokens (patience diff over
//!   sentences, then over tokens);
//! - [`diff`]: what each hunk holds and where it sits (an edge, whole sentences, a typo, a
//!   move, changed figures);
//! - [`verdict`]: what the hunks cost, against a budget of the shorter text.
//!
//! Time is about linear in the two texts for near-duplicates, memory about 40 bytes per token
//! of the two (the tokens and their characters); both texts are held, as a recheck holds them.

pub mod align;
pub mod diff;
pub mod tokens;
pub mod verdict;

pub use diff::Comparison;
pub use verdict::{Params, Reason, Verdict};

/// One difference of two texts, as `simhash_explain` lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct Difference {
    /// Its tokens in the first text and in the second (a space between tokens).
    pub a: String,
    pub b: String,
    /// What it is: [`verdict::what`].
    pub what: &'static str,
    /// What it costs, in weight units (a CJK character 2, a Latin letter or digit 1).
    pub cost: f64,
}

/// A version of the dedup decision: part of the contract of every dedup path that asks it,
/// as a fingerprint definition is of `simhash()` (docs/development.md, "Version suffixes").
/// The `_d1` functions ask none (5.x: the measure alone decides).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Version {
    /// 6.0.0's: hunks priced by hand-set rules against 5% of the shorter text ([`Params`]).
    D2,
}

impl Version {
    /// The decision of the unsuffixed functions.
    pub const LATEST: Version = Version::D2;

    /// The version's parameters (a research tool starts from them to measure others:
    /// examples/quality_decision.rs).
    pub fn params(self) -> Params {
        match self {
            Version::D2 => Params::default(),
        }
    }
}

/// For research tools (examples/quality_decision.rs): the comparison of two texts, handed to
/// `f`, which may price it with other parameters than a version's.
pub fn compare<R>(a: &str, b: &str, f: impl FnOnce(&Comparison<'_>) -> R) -> R {
    let (ta, tb) = (tokens::Tokens::of(a, &mut || ()), tokens::Tokens::of(b, &mut || ()));
    f(&Comparison::of(&ta, &tb, &mut || ()))
}

/// A text made ready for the decision (its tokens), to be compared with many others
/// without being read again: a trigger's new row, a bulk run's row of many pairs.
pub struct Prepared(tokens::Tokens);

impl Prepared {
    /// `text` as a user gave it; `tick` now and then (a check for cancellation).
    pub fn of(_v: Version, text: &str, tick: &mut dyn FnMut()) -> Prepared {
        Prepared(tokens::Tokens::of(text, tick))
    }

    /// `text` already in the normal form (`crate::text::normalize`), as bulk runs keep it.
    pub fn of_normalized(_v: Version, text: &str, tick: &mut dyn FnMut()) -> Prepared {
        Prepared(tokens::Tokens::of_normalized(text, tick))
    }
}

/// One side of a decision: a text as a user gave it, or one made ready.
pub enum Side<'a> {
    Text(&'a str),
    Prepared(&'a Prepared),
}

impl<'a> From<&'a str> for Side<'a> {
    fn from(text: &'a str) -> Side<'a> {
        Side::Text(text)
    }
}

impl<'a> From<&'a String> for Side<'a> {
    fn from(text: &'a String) -> Side<'a> {
        Side::Text(text)
    }
}

impl<'a> From<&'a Prepared> for Side<'a> {
    fn from(p: &'a Prepared) -> Side<'a> {
        Side::Prepared(p)
    }
}

/// The one entry point of every dedup path: whether decision `v` calls `a` and `b` the same
/// passage, and why (the verdict); `tick` now and then (a check for cancellation). The
/// same whichever side comes first.
pub fn decide<'a, 'b>(v: Version, a: impl Into<Side<'a>>, b: impl Into<Side<'b>>, tick: &mut dyn FnMut()) -> Verdict {
    let (a, b) = (a.into(), b.into());
    let owned = |side: &Side<'_>, tick: &mut dyn FnMut()| match side {
        Side::Text(t) => Some(tokens::Tokens::of(t, tick)),
        Side::Prepared(_) => None,
    };
    let (oa, ob) = (owned(&a, tick), owned(&b, tick));
    let ta = match &a {
        Side::Prepared(p) => &p.0,
        Side::Text(_) => oa.as_ref().expect("made above"),
    };
    let tb = match &b {
        Side::Prepared(p) => &p.0,
        Side::Text(_) => ob.as_ref().expect("made above"),
    };
    v.params().verdict(&Comparison::of(ta, tb, tick))
}

/// The decision `v` on two texts and every difference it weighed, in the first text's
/// order; `tick` now and then.
pub fn explain(v: Version, a: &str, b: &str, tick: &mut dyn FnMut()) -> (Verdict, Vec<Difference>) {
    let (ta, tb) = (tokens::Tokens::of(a, tick), tokens::Tokens::of(b, tick));
    let c = Comparison::of(&ta, &tb, tick);
    let v = v.params().verdict(&c);
    let rows = c
        .diffs
        .iter()
        .zip(&v.costs)
        .map(|(d, &cost)| {
            let (x, y) = (c.side_text(d, true), c.side_text(d, false));
            let (a, b, what) =
                if c.swapped { (y, x, verdict::flipped(verdict::what(d))) } else { (x, y, verdict::what(d)) };
            Difference { a, b, what, cost: cost as f64 / 4.0 }
        })
        .collect();
    (v, rows)
}

#[cfg(test)]
mod tests;
