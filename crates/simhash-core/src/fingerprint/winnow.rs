//! Definition 3's segments: winnowed feature shingles (docs/fingerprint.md, "Definition 3").
//!
//! The text's features that carry a weight (stop words, numbers and single Han characters
//! are none), in order of occurrence, make shingles of `k` consecutive features, each hashed
//! (xxh3 of the `k` feature hashes). Winnowing (Schleimer, Wilkerson and Aiken, SIGMOD 2003)
//! keeps, of every window of `w` consecutive shingles, the one with the smallest hash (the
//! rightmost on a tie), once per position: about 2/(w+1) of the shingles, and every run of
//! `w + k - 1` features that two texts share gives them a shared segment. A text of fewer
//! than `k` weighted occurrences is one shingle; one with fewer than `min_features` distinct
//! weighted features has no segment.
//!
//! Where runs of sentences (definitions 1 and 2) need 6 features each, so that a short text
//! or an English paragraph has one to three segments and one changed sentence halves it, a
//! shingle is 3 features, and a changed word touches the `k + w - 1` segments around it.

use super::fold::hash_feature;
use super::lexicon::Lexicon;
use super::rules::Rules;
use super::runs::{Occurrences, Run};
use super::weight::Weigher;

/// The winnowed shingles of `o` (module docs), distinct, in order of first selection.
pub(super) fn winnow(
    lexicon: &Lexicon,
    o: &Occurrences,
    rules: &Rules,
    k: usize,
    w: usize,
    tick: &mut dyn FnMut(),
) -> Vec<Run> {
    let weigher = Weigher::new(lexicon, rules);
    let feats = &o.counts.feats;
    let weighted: Vec<bool> =
        feats.iter().map(|&(hash, _, class)| weigher.weight(hash, 1, class).is_some()).collect();
    if (weighted.iter().filter(|&&b| b).count() as u32) < rules.min_features.max(1) {
        return Vec::new();
    }
    // The weighted occurrences: their feature hashes and spans.
    let (hashes, spans): (Vec<u64>, Vec<(u32, u32)>) = o
        .occ
        .iter()
        .zip(&o.spans)
        .filter(|(&f, _)| weighted[f as usize])
        .map(|(&f, &span)| (feats[f as usize].0, span))
        .unzip();
    let k = k.clamp(1, hashes.len());
    let mut bytes = [0u8; 8 * 255];
    let shingles: Vec<u64> = hashes
        .windows(k)
        .enumerate()
        .map(|(i, ws)| {
            if i % (1 << 16) == (1 << 16) - 1 {
                tick();
            }
            for (j, h) in ws.iter().enumerate() {
                bytes[8 * j..8 * j + 8].copy_from_slice(&h.to_le_bytes());
            }
            hash_feature(&bytes[..8 * k])
        })
        .collect();
    let covered = |i: usize| spans[i].0 as usize..spans[i + k - 1].1 as usize;
    let mut out: Vec<Run> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    let mut select = |i: usize| {
        if seen.insert(shingles[i]) {
            out.push(Run { fp: shingles[i], bytes: covered(i) });
        }
    };
    let w = w.clamp(1, shingles.len());
    let mut last: Option<usize> = None;
    for start in 0..=shingles.len() - w {
        // The rightmost minimum of the window.
        let mut best = start;
        for i in start + 1..start + w {
            if shingles[i] <= shingles[best] {
                best = i;
            }
        }
        if last != Some(best) {
            select(best);
            last = Some(best);
        }
    }
    out
}
