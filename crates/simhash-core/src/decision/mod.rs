//! The dedup decision: whether a reader would call two texts the same passage
//! (docs/decision.md). Every dedup path (the triggers, bulk pairs and clusters, by similarity,
//! fingerprints or segments) finds its candidates fast, by index keys, blocks or bands, and asks
//! this one question of each; searches (`hamming`, `simhash_similarity`, the index predicates)
//! return what they are asked for and never ask it.
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

/// The decision on two texts and every difference it weighed, in the first text's order;
/// `tick` now and then.
pub fn explain(a: &str, b: &str, tick: &mut dyn FnMut()) -> (Verdict, Vec<Difference>) {
    let (ta, tb) = (tokens::Tokens::of(a, tick), tokens::Tokens::of(b, tick));
    let c = Comparison::of(&ta, &tb, tick);
    let v = Params::default().verdict(&c);
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

/// The decision on two texts under the default parameters; `tick` now and then (a check for
/// cancellation).
pub fn decide(a: &str, b: &str, tick: &mut dyn FnMut()) -> Verdict {
    let (ta, tb) = (tokens::Tokens::of(a, tick), tokens::Tokens::of(b, tick));
    Params::default().verdict(&Comparison::of(&ta, &tb, tick))
}

#[cfg(test)]
mod tests;
