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
pub mod fitted;
pub mod frame;
pub mod reading;
pub mod tokens;
pub mod verdict;

pub use diff::Comparison;
pub use fitted::Strictness;
pub use frame::Frame;
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
    /// 7.0.0's: a model fitted on labelled pairs over the same alignment, texts read past list
    /// markers and Chinese numerals, and a table's template seen in its frame-mates
    /// ([`fitted`], [`reading`], [`frame`]).
    D3,
}

impl Version {
    /// The decision of the unsuffixed functions.
    pub const LATEST: Version = Version::D3;

    /// Decision 2's parameters (a research tool starts from them to measure others:
    /// examples/quality_decision.rs); decision 3 reads its rules beside its model.
    pub fn params(self) -> Params {
        Params::default()
    }
}

/// How a dedup path decides: the version, and how strict (decision 3's operating point;
/// decision 2 has one).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Rule {
    pub version: Version,
    pub strictness: Strictness,
}

impl Rule {
    /// The unsuffixed functions' rule by default.
    pub const LATEST: Rule = Rule { version: Version::D3, strictness: Strictness::Balanced };
    /// 6.0.0's.
    pub const D2: Rule = Rule { version: Version::D2, strictness: Strictness::Balanced };
}

/// For research tools (examples/quality_decision.rs): the comparison of two texts, handed to
/// `f`, which may price it with other parameters than a version's.
pub fn compare<R>(a: &str, b: &str, f: impl FnOnce(&Comparison<'_>) -> R) -> R {
    let (ta, tb) = (tokens::Tokens::of(a, &mut || ()), tokens::Tokens::of(b, &mut || ()));
    f(&Comparison::of(&ta, &tb, &mut || ()))
}

/// A text made ready for the decision (its tokens as its version reads them), to be compared
/// with many others without being read again: a trigger's new row, a bulk run's row of many
/// pairs, a frame-mate.
pub struct Prepared {
    tokens: tokens::Tokens,
    version: Version,
}

impl Prepared {
    /// `text` as a user gave it; `tick` now and then (a check for cancellation).
    pub fn of(v: Version, text: &str, tick: &mut dyn FnMut()) -> Prepared {
        let tokens = match v {
            Version::D2 => tokens::Tokens::of(text, tick),
            Version::D3 => tokens::Tokens::of_read(text, tick),
        };
        Prepared { tokens, version: v }
    }

    /// `text` already in the normal form (`crate::text::normalize`), as bulk runs keep it.
    pub fn of_normalized(v: Version, text: &str, tick: &mut dyn FnMut()) -> Prepared {
        let tokens = match v {
            Version::D2 => tokens::Tokens::of_normalized(text, tick),
            Version::D3 => tokens::Tokens::of_normalized_read(text, tick),
        };
        Prepared { tokens, version: v }
    }

    /// The frame of this text among `mates` (decision 3: [`frame`]); `tick` now and then.
    pub fn frame(&self, mates: &[&Prepared], tick: &mut dyn FnMut()) -> Frame {
        let mates: Vec<&tokens::Tokens> = mates.iter().map(|m| &m.tokens).collect();
        Frame::of(&self.tokens, &mates, tick)
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

/// The tokens of `side` under version `v`: its own if prepared for `v`, else made here.
fn tokens_of<'s>(
    v: Version,
    side: &'s Side<'_>,
    owned: &'s mut Option<tokens::Tokens>,
    tick: &mut dyn FnMut(),
) -> &'s tokens::Tokens {
    match side {
        Side::Prepared(p) => {
            assert_eq!(p.version, v, "a text prepared for one decision version compared under another");
            &p.tokens
        }
        Side::Text(t) => owned.insert(match v {
            Version::D2 => tokens::Tokens::of(t, tick),
            Version::D3 => tokens::Tokens::of_read(t, tick),
        }),
    }
}

/// The comparison of two sides under rule `r`, handed to `f`.
fn compared<'a, 'b, R>(
    v: Version,
    a: Side<'a>,
    b: Side<'b>,
    tick: &mut dyn FnMut(),
    f: impl FnOnce(&Comparison<'_>, &mut dyn FnMut()) -> R,
) -> R {
    let (mut oa, mut ob) = (None, None);
    let ta = tokens_of(v, &a, &mut oa, tick);
    let tb = tokens_of(v, &b, &mut ob, tick);
    let c = Comparison::of(ta, tb, tick);
    f(&c, tick)
}

/// The one entry point of every dedup path: whether rule `r` calls `a` and `b` the same
/// passage, and why (the verdict); `frame`: the frame of `a` among its table's frame-mates
/// (decision 3; the dedup paths that read candidates give it); `tick` now and then (a check
/// for cancellation). The same whichever side comes first, `a`'s frame aside.
pub fn decide<'a, 'b>(
    r: Rule,
    a: impl Into<Side<'a>>,
    b: impl Into<Side<'b>>,
    frame: Option<&Frame>,
    tick: &mut dyn FnMut(),
) -> Verdict {
    compared(r.version, a.into(), b.into(), tick, |c, _| match r.version {
        Version::D2 => Params::default().verdict(c),
        Version::D3 => fitted::verdict(c, frame, r.strictness),
    })
}

/// [`decide`] of `a` (its frame `frame`, read by `read` when it is not there yet) and `b`,
/// reading the frame only when the decision without one calls them the same passage: a frame
/// only adds to what differences cost (decision 3's feature "slot", a weight ≥ 0; decision 2
/// reads none), so the verdict is the same, and the frame (an alignment with each frame-mate) is read
/// only for the pairs that could be kept. The two texts are aligned once.
pub fn decide_framed(
    r: Rule,
    a: &Prepared,
    b: &Prepared,
    frame: &mut Option<Frame>,
    read: impl FnOnce(&mut dyn FnMut()) -> Frame,
    tick: &mut dyn FnMut(),
) -> bool {
    compared(r.version, Side::Prepared(a), Side::Prepared(b), tick, |c, tick| match r.version {
        Version::D2 => Params::default().verdict(c).duplicate,
        Version::D3 => {
            if !fitted::verdict(c, None, r.strictness).duplicate {
                return false;
            }
            let frame = frame.get_or_insert_with(|| read(tick));
            fitted::verdict(c, Some(frame), r.strictness).duplicate
        }
    })
}

/// The decision `r` on two texts and every difference it weighed, in the first text's
/// order; `tick` now and then.
pub fn explain(r: Rule, a: &str, b: &str, tick: &mut dyn FnMut()) -> (Verdict, Vec<Difference>) {
    compared(r.version, Side::Text(a), Side::Text(b), tick, |c, _| {
        let v = match r.version {
            Version::D2 => Params::default().verdict(c),
            Version::D3 => fitted::verdict(c, None, r.strictness),
        };
        let rows = c
            .diffs
            .iter()
            .zip(&v.costs)
            .map(|(d, &cost)| {
                let (x, y) = (c.side_text(d, true), c.side_text(d, false));
                let (a, b, what) =
                    if c.swapped { (y, x, verdict::flipped(verdict::what(d))) } else { (x, y, verdict::what(d)) };
                Difference { a, b, what, cost: verdict::round(cost) }
            })
            .collect();
        (v, rows)
    })
}

#[cfg(test)]
mod tests;
