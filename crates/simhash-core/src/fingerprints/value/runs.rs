//! Segment fingerprints, `simhash_segments(doc)` (docs/fingerprint.md, "Segments"): the entry
//! points, which hand definition 3's rules to `winnow`, and definitions 1 and 2's runs.
//!
//! Under definitions 1 and 2 the text is cut into sentences ([`is_sentence_end`](super::segment)). A *segment* is a
//! minimal run of consecutive sentences that has a fingerprint of its own: at least
//! `min_features` distinct features (6 under definitions 1 and 2, and at least 1), such that
//! neither the run without its first sentence nor the run without its last has as many. Its
//! fingerprint is `simhash()` of the run's text: the run's features, counted within the run,
//! weighed and folded as for a whole text. A text's segments are the distinct fingerprints
//! of its runs, in the order of the runs; a text with fewer features than one run needs has
//! none.
//!
//! Why runs rather than whole texts: a repost that drops, adds or cuts a sentence keeps
//! every run away from the edit, so most of its segments are unchanged. Issue 19's trial
//! measured this rule's recall at 0.98 (paragraphs) and 0.99 (articles) where one
//! whole-text fingerprint within 3 bits finds 0.59 and 0.77.
//!
//! The runs come from one pass of the tokenizer over the whole text, as `simhash()` makes
//! it: every occurrence is recorded with its sentence, then a window slides over the
//! sentences. Each occurrence enters and leaves the window once, and is folded once per run
//! that holds it.

use std::cell::RefCell;
use std::collections::HashSet;

use super::fold::Fold;
use super::lexicon::Lexicon;
use super::occurrences::{Occurrences, Run};
use super::rules::normalize_for;
use super::rules::{Rules, SegmentUnit};
use super::segment::{segment, Sink, PIECE_BYTES};
use super::weight::Weigher;
use super::winnow::winnow;
use super::Options;

/// Per distinct feature: whether it is a stop word (no weight), its count in the window,
/// and the run in which it was last folded.
#[derive(Clone, Copy)]
struct Slot {
    stop: bool,
    in_window: u32,
    folded_in: u32,
}

/// The segment fingerprints of `doc` under `options` (module docs).
pub fn segments(lexicon: &Lexicon, doc: &str, options: &Options) -> Vec<u64> {
    segments_with(lexicon, doc, &Rules::from(options), &mut || ())
}

/// [`segments`] under explicit [`Rules`], calling `tick` between the pieces of a long text
/// and every 64k occurrences of the window: the SQL layer checks for cancellation there.
pub fn segments_with(lexicon: &Lexicon, doc: &str, rules: &Rules, tick: &mut dyn FnMut()) -> Vec<u64> {
    with_runs(lexicon, doc, rules, tick, |_, runs| runs.into_iter().map(|r| r.fp).collect())
}

/// A segment and the text it covers: the sentences of the first run with its fingerprint,
/// as the fingerprint reads them (normalized: NFKC, lower case, and under definition 2
/// traditional characters folded), end marks included. `simhash()` of `text` is `fp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SegmentText {
    pub fp: u64,
    pub text: String,
}

/// [`segments_with`], each segment with the text it covers: the same fingerprints in the
/// same order (`simhash_explain` shows them).
pub fn segment_texts_with(lexicon: &Lexicon, doc: &str, rules: &Rules, tick: &mut dyn FnMut()) -> Vec<SegmentText> {
    with_runs(lexicon, doc, rules, tick, |normalized, runs| {
        runs.into_iter().map(|r| SegmentText { fp: r.fp, text: normalized[r.bytes].to_owned() }).collect()
    })
}

/// Normalizes and tokenizes `doc`, finds its runs, and hands them to `out` with the
/// normalized text and its sentences: the one path of [`segments_with`] and
/// [`segment_texts_with`].
fn with_runs<T>(
    lexicon: &Lexicon,
    doc: &str,
    rules: &Rules,
    tick: &mut dyn FnMut(),
    out: impl FnOnce(&str, Vec<Run>) -> T,
) -> T {
    thread_local! {
        static OCCURRENCES: RefCell<Occurrences> = RefCell::default();
    }
    let normalized = normalize_for(doc, rules, PIECE_BYTES, tick);
    OCCURRENCES.with_borrow_mut(|o| {
        segment(lexicon, &normalized, rules, o, PIECE_BYTES, tick);
        // The last sentence needs no end mark.
        o.sentence_end(normalized.len());
        let found = match rules.segments {
            SegmentUnit::Runs => runs(lexicon, o, rules, tick),
            SegmentUnit::Winnow { .. } => winnow(lexicon, o, rules, tick),
        };
        let result = out(&normalized, found);
        o.counts.release_if_huge();
        if o.occ.capacity() > 1 << 16 || o.spans.capacity() > 1 << 16 {
            *o = Occurrences::default();
        }
        result
    })
}

/// The window over the sentences of `o` (module docs): the distinct segments, in order.
fn runs(lexicon: &Lexicon, o: &Occurrences, rules: &Rules, tick: &mut dyn FnMut()) -> Vec<Run> {
    let weigher = Weigher::new(lexicon, rules);
    let feats = &o.counts.feats;
    let mut slots: Vec<Slot> = feats
        .iter()
        .map(|&(hash, _, class)| Slot { stop: weigher.weight(hash, 1, class).is_none(), in_window: 0, folded_in: 0 })
        .collect();
    let need = rules.min_features.max(1);
    let sentence = |s: usize| {
        let from = if s == 0 { 0 } else { o.ends[s - 1] as usize };
        &o.occ[from..o.ends[s] as usize]
    };
    let mut out: Vec<Run> = Vec::new();
    let mut seen: HashSet<u64> = HashSet::new();
    // The window holds sentences first..next, with `distinct` distinct non-stop features.
    let (mut next, mut distinct, mut run_id, mut work) = (0usize, 0u32, 0u32, 0usize);
    for first in 0..o.ends.len() {
        while distinct < need && next < o.ends.len() {
            for &f in sentence(next) {
                let slot = &mut slots[f as usize];
                slot.in_window += 1;
                distinct += u32::from(slot.in_window == 1 && !slot.stop);
            }
            next += 1;
        }
        if distinct < need {
            break;
        }
        // Without its first sentence, does the run still have enough? Then it is not
        // minimal: the run from the next sentence to the same end is.
        let mut without_first = distinct;
        for &f in sentence(first) {
            let slot = &mut slots[f as usize];
            slot.in_window -= 1;
            without_first -= u32::from(slot.in_window == 0 && !slot.stop);
        }
        if without_first < need {
            // Fold the run's distinct features in order of first occurrence, with their
            // counts in the run; put the first sentence back for that.
            run_id += 1;
            for &f in sentence(first) {
                slots[f as usize].in_window += 1;
            }
            let mut fold = Fold::default();
            for s in first..next {
                for &f in sentence(s) {
                    let slot = &mut slots[f as usize];
                    if slot.folded_in != run_id {
                        slot.folded_in = run_id;
                        let (hash, _, class) = feats[f as usize];
                        if let Some(w) = weigher.weight(hash, slot.in_window, class) {
                            fold.add(hash, w);
                        }
                    }
                }
                work += sentence(s).len();
            }
            let fp = fold.finish();
            if seen.insert(fp) {
                let start = if first == 0 { 0 } else { o.bytes[first - 1] };
                out.push(Run { fp, bytes: start..o.bytes[next - 1] });
            }
            for &f in sentence(first) {
                slots[f as usize].in_window -= 1;
            }
        }
        distinct = without_first;
        work += sentence(first).len();
        if work >= 1 << 16 {
            work = 0;
            tick();
        }
    }
    out
}

#[cfg(test)]
mod tests;
