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
use super::occurrences::{Occurrences, Run};
use super::rules::{Rules, SegmentUnit};
use super::weight::Weigher;

/// Weighted occurrences shingled together: their feature hashes and their spans.
type Group = (Vec<u64>, Vec<(u32, u32)>);

/// The winnowed shingles of `o` (module docs), distinct, in order of first selection.
pub(super) fn winnow(lexicon: &Lexicon, o: &Occurrences, rules: &Rules, tick: &mut dyn FnMut()) -> Vec<Run> {
    let SegmentUnit::Winnow { k, w, per, sentences } = rules.segments else {
        unreachable!("runs.rs hands winnow only winnowing rules")
    };
    let (k, w, per) = (usize::from(k), usize::from(w), usize::from(per));
    let weigher = Weigher::new(lexicon, rules);
    let feats = &o.counts.feats;
    let weighted: Vec<bool> = feats.iter().map(|&(hash, _, class)| weigher.weight(hash, 1, class).is_some()).collect();
    if (weighted.iter().filter(|&&b| b).count() as u32) < rules.min_features.max(1) {
        return Vec::new();
    }
    // The weighted occurrences, in groups: each sentence (with `sentences`), a sentence of
    // fewer than `k` joined to the next (the last to the one before), or the whole text.
    let mut groups: Vec<Group> = vec![(Vec::new(), Vec::new())];
    let mut from = 0usize;
    for (s, &end) in o.ends.iter().enumerate() {
        let end = end as usize;
        for (&f, &span) in o.occ[from..end].iter().zip(&o.spans[from..end]) {
            if weighted[f as usize] {
                let g = groups.last_mut().expect("one group");
                g.0.push(feats[f as usize].0);
                g.1.push(span);
            }
        }
        from = end;
        let last = groups.last().expect("one group");
        if sentences && last.0.len() >= k && s + 1 < o.ends.len() {
            groups.push((Vec::new(), Vec::new()));
        }
    }
    if groups.len() > 1 && groups.last().is_some_and(|g| g.0.len() < k) {
        let (h, sp) = groups.pop().expect("two groups");
        let g = groups.last_mut().expect("one group");
        g.0.extend(h);
        g.1.extend(sp);
    }
    let mut bytes = [0u8; 8 * 255];
    let mut n = 0usize;
    // Per group: its shingle length (k, or all of a group shorter than k), its shingles, and
    // its occurrences' spans.
    let shingled: Vec<_> = groups
        .iter()
        .filter(|(hashes, _)| !hashes.is_empty())
        .map(|(hashes, spans)| {
            let k = k.clamp(1, hashes.len());
            let shingles = hashes
                .windows(k)
                .map(|ws| {
                    n += 1;
                    if n.is_multiple_of(1 << 16) {
                        tick();
                    }
                    for (j, h) in ws.iter().enumerate() {
                        bytes[8 * j..8 * j + 8].copy_from_slice(&h.to_le_bytes());
                    }
                    hash_feature(&bytes[..8 * k])
                })
                .collect::<Vec<u64>>();
            (k, shingles, spans.as_slice())
        })
        .collect();
    let w = if per == 0 { w } else { n.div_ceil(per).min(w) };
    let mut out: Vec<Run> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (k, shingles, spans) in &shingled {
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
                last = Some(best);
                if seen.insert(shingles[best]) {
                    // The bytes from the shingle's first feature to its last.
                    let bytes = spans[best].0 as usize..spans[best + k - 1].1 as usize;
                    out.push(Run { fp: shingles[best], bytes });
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::ops::Range;

    use crate::fingerprints::value::rules::normalize_for;
    use crate::fingerprints::value::rules::Class;
    use crate::fingerprints::value::segment::{segment, Sink};
    use crate::fingerprints::value::{extract, hash_feature, segment_texts_with, segments, Lexicon, Options, Rules};
    use crate::text::normalize;

    /// The definition, the slow way: the weighted occurrences from `extract`'s features
    /// re-found in token order by tokenizing again, grouped by sentence (with `sentences`: a
    /// group closes after a sentence once it has `k`, the last joins the one before it if
    /// shorter), every group's shingles hashed, every window's rightmost minimum.
    fn brute(doc: &str, rules: &Rules, k: usize, w: usize, per: usize, sentences: bool) -> Vec<u64> {
        let lex = Lexicon::global();
        let norm = normalize_for(doc, rules, usize::MAX, &mut || ());
        let weighted: std::collections::HashSet<u64> = extract(lex, &norm, rules).iter().map(|f| f.hash).collect();
        if (weighted.len() as u32) < rules.min_features.max(1) {
            return vec![];
        }
        let sents = occurrences(&norm, rules, &weighted);
        let mut groups: Vec<Vec<u64>> = Vec::new();
        let mut cur = Vec::new();
        for (i, sent) in sents.iter().enumerate() {
            cur.extend(sent);
            if sentences && cur.len() >= k && i + 1 < sents.len() {
                groups.push(std::mem::take(&mut cur));
            }
        }
        groups.push(cur);
        if groups.len() > 1 && groups.last().unwrap().len() < k {
            let tail = groups.pop().unwrap();
            groups.last_mut().unwrap().extend(tail);
        }
        let shingled: Vec<Vec<u64>> = groups
            .iter()
            .filter(|g| !g.is_empty())
            .map(|g| {
                let k = k.clamp(1, g.len());
                g.windows(k)
                    .map(|ws| hash_feature(&ws.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>()))
                    .collect()
            })
            .collect();
        let n: usize = shingled.iter().map(Vec::len).sum();
        let w = if per == 0 { w } else { n.div_ceil(per).min(w) };
        let mut out = Vec::new();
        for shingles in &shingled {
            let w = w.clamp(1, shingles.len());
            let mut last = None;
            for start in 0..=shingles.len() - w {
                let win = &shingles[start..start + w];
                let min = *win.iter().min().unwrap();
                let best = start + win.iter().rposition(|&h| h == min).unwrap();
                if last != Some(best) {
                    last = Some(best);
                    if !out.contains(&shingles[best]) {
                        out.push(shingles[best]);
                    }
                }
            }
        }
        out
    }

    /// Every feature occurrence's hash, in token order, by sentence.
    struct Seq(Vec<Vec<u64>>);

    impl<'a> Sink<'a> for Seq {
        fn reserve(&mut self, _: usize) {
            self.0 = vec![Vec::new()];
        }
        fn grow(&mut self, _: usize) {}
        fn add(&mut self, hash: u64, _: Class, _: Range<usize>, _: impl FnOnce() -> Cow<'a, str>) {
            self.0.last_mut().unwrap().push(hash);
        }
        fn sentence_end(&mut self, _: usize) {
            self.0.push(Vec::new());
        }
    }

    /// The weighted feature hashes of `norm` in token order, by sentence.
    fn occurrences(norm: &str, rules: &Rules, weighted: &std::collections::HashSet<u64>) -> Vec<Vec<u64>> {
        let mut seq = Seq(Vec::new());
        segment(Lexicon::global(), norm, rules, &mut seq, usize::MAX, &mut || ());
        seq.0.into_iter().map(|s| s.into_iter().filter(|h| weighted.contains(h)).collect()).collect()
    }

    const TEXTS: [&str; 4] = [
        "中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。\
         在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！",
        "The committee met on Monday. It approved the budget for the new library. Members thanked the \
         volunteers who organised the book fair, and the library will open in spring.",
        "パッケージをインストールするには、aptコマンドを使います。設定ファイルは/etcにあります。\
         システムの管理者はパッケージの更新を定期的に確認してください。",
        "短文。",
    ];

    #[test]
    fn segments_are_the_winnowed_shingles() {
        let lex = Lexicon::global();
        let rules = Rules::from(&Options::default());
        let super::super::SegmentUnit::Winnow { k, w, per, sentences } = rules.segments else {
            panic!("definition 3 winnows")
        };
        for doc in TEXTS {
            let got = segments(lex, doc, &Options::default());
            assert_eq!(got, brute(doc, &rules, k.into(), w.into(), per.into(), sentences), "{doc}");
        }
        assert!(segments(lex, TEXTS[0], &Options::default()).len() >= 4);
        assert!(segments(lex, TEXTS[3], &Options::default()).is_empty());
    }

    #[test]
    fn segment_texts_are_the_shingles_words() {
        let lex = Lexicon::global();
        let rules = Rules::from(&Options::default());
        let got = segment_texts_with(lex, TEXTS[1], &rules, &mut || ());
        assert_eq!(got.iter().map(|s| s.fp).collect::<Vec<_>>(), segments(lex, TEXTS[1], &Options::default()));
        for s in &got {
            // Each covers the words of its shingle: its own simhash_segments is itself.
            assert!(s.text.split_whitespace().count() >= 3, "{s:?}");
            assert!(normalize(TEXTS[1]).contains(&s.text), "{s:?}");
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(300))]
        /// Any text, any window: the selection equals the brute force.
        #[test]
        fn winnowing_equals_brute_force(
            doc in "[a-z中国经济发展改革开放的了人民日报新华社讲话江泽民パッケージをのは。，,.!? \n]{0,120}",
            k in 1u8..5, w in 1u8..10, per in 0u16..20, min in 0u32..8, sentences: bool,
        ) {
            let rules = Rules {
                segments: super::super::SegmentUnit::Winnow { k, w, per, sentences },
                min_features: min,
                ..Rules::from(&Options::default())
            };
            let got = crate::fingerprints::value::segments_with(Lexicon::global(), &doc, &rules, &mut || ());
            proptest::prop_assert_eq!(got, brute(&doc, &rules, k.into(), w.into(), per.into(), sentences));
        }
    }
}
