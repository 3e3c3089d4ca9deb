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
use super::rules::Rules;
use super::weight::Weigher;

/// The winnowed shingles of `o` (module docs), distinct, in order of first selection.
pub(super) fn winnow(
    lexicon: &Lexicon,
    o: &Occurrences,
    rules: &Rules,
    k: usize,
    w: usize,
    per: usize,
    tick: &mut dyn FnMut(),
) -> Vec<Run> {
    let weigher = Weigher::new(lexicon, rules);
    let feats = &o.counts.feats;
    let weighted: Vec<bool> = feats.iter().map(|&(hash, _, class)| weigher.weight(hash, 1, class).is_some()).collect();
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
    let w = if per == 0 { w } else { shingles.len().div_ceil(per).min(w) };
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

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::ops::Range;

    use crate::fingerprint::normalize::{normalize, normalize_for};
    use crate::fingerprint::rules::Class;
    use crate::fingerprint::segment::{segment, Sink};
    use crate::fingerprint::{extract, hash_feature, segment_texts_with, segments, Lexicon, Options, Rules};

    /// The definition, the slow way: the weighted occurrences from `extract`'s features
    /// re-found in token order by tokenizing again, every shingle hashed, every window's
    /// rightmost minimum.
    fn brute(doc: &str, rules: &Rules, k: usize, w: usize, per: usize) -> Vec<u64> {
        let lex = Lexicon::global();
        let norm = normalize_for(doc, rules, usize::MAX, &mut || ());
        let weighted: std::collections::HashSet<u64> = extract(lex, &norm, rules).iter().map(|f| f.hash).collect();
        if (weighted.len() as u32) < rules.min_features.max(1) {
            return vec![];
        }
        let hashes = occurrences(&norm, rules, &weighted);
        let k = k.clamp(1, hashes.len());
        let shingles: Vec<u64> = hashes
            .windows(k)
            .map(|ws| hash_feature(&ws.iter().flat_map(|h| h.to_le_bytes()).collect::<Vec<u8>>()))
            .collect();
        let w = if per == 0 { w } else { shingles.len().div_ceil(per).min(w) }.clamp(1, shingles.len());
        let mut out = Vec::new();
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
        out
    }

    /// Every feature occurrence's hash, in token order.
    struct Seq(Vec<u64>);

    impl<'a> Sink<'a> for Seq {
        fn reserve(&mut self, _: usize) {
            self.0.clear();
        }
        fn grow(&mut self, _: usize) {}
        fn add(&mut self, hash: u64, _: Class, _: Range<usize>, _: impl FnOnce() -> Cow<'a, str>) {
            self.0.push(hash);
        }
    }

    /// The weighted feature hashes of `norm` in token order.
    fn occurrences(norm: &str, rules: &Rules, weighted: &std::collections::HashSet<u64>) -> Vec<u64> {
        let mut seq = Seq(Vec::new());
        segment(Lexicon::global(), norm, rules, &mut seq, usize::MAX, &mut || ());
        seq.0.into_iter().filter(|h| weighted.contains(h)).collect()
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
        let super::super::SegmentUnit::Winnow { k, w, per } = rules.segments else { panic!("definition 3 winnows") };
        for doc in TEXTS {
            let got = segments(lex, doc, &Options::default());
            assert_eq!(got, brute(doc, &rules, k.into(), w.into(), per.into()), "{doc}");
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
            k in 1u8..5, w in 1u8..10, per in 0u16..20, min in 0u32..8,
        ) {
            let rules = Rules {
                segments: super::super::SegmentUnit::Winnow { k, w, per },
                min_features: min,
                ..Rules::from(&Options::default())
            };
            let got = crate::fingerprint::segments_with(Lexicon::global(), &doc, &rules, &mut || ());
            proptest::prop_assert_eq!(got, brute(&doc, &rules, k.into(), w.into(), per.into()));
        }
    }
}
