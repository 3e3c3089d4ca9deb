//! The fingerprint of a text, `simhash(text)` (docs/fingerprint.md):
//! [`normalize_for`] (NFKC, lowercase, definition 2's fold of traditional characters) → features ([`Rules`]: segment, filter, count,
//! weigh) → [`fingerprint`] (the fold of the weighted feature hashes).
//!
//! The modules depend one way, from the text up: `traditional` (and its generated
//! table) and `chars` (character classes); `fold` (the feature hash and the fold);
//! `options`; `rules`; `normalize` (which folds as the rules say); `lexicon` (jieba, IDF
//! table, stop words); `segment`; `weight`; and this pipeline on top. Segments: `occurrences`
//! (one pass of `segment` kept with sentences and bytes), `winnow` (definition 3's shingles)
//! and `runs` (definitions 1 and 2's runs of sentences, and the entry points of both).

use std::borrow::Cow;
use std::cell::RefCell;

mod chars;
mod fold;
mod lexicon;
mod occurrences;
mod options;
mod rules;
mod runs;
mod segment;
mod weight;
mod winnow;

pub use fold::{fingerprint, hash_feature, Fold};
pub use lexicon::{Entry, Lexicon};
pub use options::{
    Definition, Options, OptionsError, RawOptions, Tokenizer, TokenizerName, Weighting, DEFAULT_MIN_FEATURES,
    DEFAULT_NGRAM_N, MAX_MIN_FEATURES, MAX_NGRAM_N,
};
pub use rules::normalize_for;
pub use rules::{Numbers, Rules, SegmentUnit, Tf};
pub use runs::{segment_texts_with, segments, segments_with, SegmentText};
pub use segment::PIECE_BYTES;

use segment::segment;
use weight::{Counts, Weigher, WithTexts};

/// One distinct feature of a document, in order of first occurrence.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature<'a> {
    pub text: Cow<'a, str>,
    pub hash: u64,
    pub count: u32,
    pub weight: f64,
}

/// Fingerprint of a document under `options`: normalize, extract weighted features, fold.
/// `None` (SQL NULL) when the text has fewer than `options.min_features` features.
pub fn simhash_text(lexicon: &Lexicon, doc: &str, options: &Options) -> Option<u64> {
    simhash_rules(lexicon, doc, &Rules::from(options))
}

/// [`simhash_text`], calling `tick` between the pieces in which a long text (over
/// [`PIECE_BYTES`]) is normalized and segmented, with the same result: the SQL layer
/// checks for query cancellation there.
pub fn simhash_text_with(lexicon: &Lexicon, doc: &str, options: &Options, tick: &mut dyn FnMut()) -> Option<u64> {
    let rules = Rules::from(options);
    let normalized = normalize_for(doc, &rules, PIECE_BYTES, tick);
    fingerprint_normalized_with(lexicon, &normalized, &rules, tick)
}

/// [`simhash_text`] under explicit [`Rules`] (`make quality` measures candidates this way).
pub fn simhash_rules(lexicon: &Lexicon, doc: &str, rules: &Rules) -> Option<u64> {
    fingerprint_normalized(lexicon, &normalize_for(doc, rules, usize::MAX, &mut || ()), rules)
}

/// Features of a text already normalized under `rules` ([`normalize_for`]), under `rules`.
///
/// - jieba: jieba-rs `cut` (HMM as `rules.hmm`); Chinese words, Latin words and numbers
///   come out as tokens of their own (adjacent non-Han letter/digit tokens are glued back
///   into one word). Tokens without a letter or digit and stop words (NLTK's Chinese and
///   English lists) are dropped; numbers and single Han characters as `rules` say.
/// - ngram(n): every window of n consecutive letters/digits (all other characters
///   removed first); a text with fewer than n of them is one feature. No stop words.
pub fn extract<'a>(lexicon: &Lexicon, normalized: &'a str, rules: &Rules) -> Vec<Feature<'a>> {
    let mut acc = WithTexts { counts: Counts::default(), texts: Vec::new() };
    segment(lexicon, normalized, rules, &mut acc, PIECE_BYTES, &mut || ());
    let weigher = Weigher::new(lexicon, rules);
    acc.counts
        .feats
        .iter()
        .zip(acc.texts)
        .filter_map(|(&(hash, count, class), text)| {
            Some(Feature { text, hash, count, weight: weigher.weight(hash, count, class)? })
        })
        .collect()
}

/// The fingerprint of an already normalized text: [`extract`] folded, without
/// materializing the features. Same features, same weights, same order, so the same
/// bits as `fingerprint(extract(..))`, with no feature text, no `Vec<Feature>` and the
/// fold fed directly; `None` when the text has fewer than `rules.min_features` features.
/// The counts are the thread's, reused from one text to the next rather than a fresh
/// zeroed table and feature list per text (throughput.rs PROFILE_SIMHASH measures it).
fn fingerprint_normalized(lexicon: &Lexicon, normalized: &str, rules: &Rules) -> Option<u64> {
    fingerprint_normalized_with(lexicon, normalized, rules, &mut || ())
}

/// [`fingerprint_normalized`], calling `tick` between the pieces of a long text
/// (see [`PIECE_BYTES`]): the SQL layer checks for query cancellation there.
fn fingerprint_normalized_with(
    lexicon: &Lexicon,
    normalized: &str,
    rules: &Rules,
    tick: &mut dyn FnMut(),
) -> Option<u64> {
    thread_local! {
        static COUNTS: RefCell<Counts> = RefCell::default();
    }
    COUNTS.with_borrow_mut(|counts| {
        segment(lexicon, normalized, rules, counts, PIECE_BYTES, tick);
        let weigher = Weigher::new(lexicon, rules);
        let mut n = 0u32;
        let features = counts.feats.iter().filter_map(|&(hash, count, class)| {
            let w = weigher.weight(hash, count, class)?;
            n += 1;
            Some((hash, w))
        });
        let fp = if rules.exact_sums {
            fold::exact_fingerprint(features)
        } else {
            let mut fold = Fold::default();
            fold.add_all(features);
            fold.finish()
        };
        counts.release_if_huge();
        (n >= rules.min_features).then_some(fp)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize;

    #[test]
    fn exact_sums_make_sentence_order_irrelevant() {
        // Swapping two sentences keeps every feature and weight and changes only their order,
        // which definition 2's f64 sums see and definition 3's exact integer sums do not.
        let lex = Lexicon::global();
        let a = "The committee met on Monday. It approved the budget for the new library. \
                 Members thanked the volunteers who organised the book fair.";
        let b = "It approved the budget for the new library. The committee met on Monday. \
                 Members thanked the volunteers who organised the book fair.";
        assert_eq!(simhash_text(lex, a, &Options::default()), simhash_text(lex, b, &Options::default()));
        assert!(simhash_text(lex, a, &Options::default()).is_some());
    }

    const SENTENCES: [&str; 8] = [
        "The committee met on Monday. ",
        "It approved the budget for the new library. ",
        "Members thanked the volunteers who organised the book fair. ",
        "新年钟声即将敲响，人类社会就要进入新的一年。",
        "国民经济保持了快速增长的良好势头。",
        "パッケージの更新を定期的に確認してください。",
        "The library will open in spring, the mayor said. ",
        "Volunteers, members and the committee agreed. ",
    ];

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(500))]
        /// Definition 3: any order of the same sentences, and any order of the same words
        /// (features), gives the same simhash().
        #[test]
        fn permuting_sentences_or_features_never_changes_simhash(
            picks in proptest::collection::vec(0usize..8, 1..8),
            order in proptest::collection::vec(proptest::num::usize::ANY, 8),
        ) {
            let lex = Lexicon::global();
            let text: String = picks.iter().map(|&i| SENTENCES[i]).collect();
            let mut shuffled = picks.clone();
            for (i, &r) in order.iter().enumerate().take(shuffled.len()) {
                let j = r % shuffled.len();
                shuffled.swap(i, j);
            }
            let permuted: String = shuffled.iter().map(|&i| SENTENCES[i]).collect();
            let o = Options::default();
            proptest::prop_assert_eq!(simhash_text(lex, &text, &o), simhash_text(lex, &permuted, &o));
            // The features of the text, each written once per occurrence, as words in any order.
            let rules = Rules::from(&o);
            let norm = normalize_for(&text, &rules, usize::MAX, &mut || ());
            let feats = extract(lex, &norm, &rules);
            let mut words: Vec<String> =
                feats.iter().flat_map(|f| std::iter::repeat_n(f.text.to_string(), f.count as usize)).collect();
            let n = words.len().max(1);
            words.rotate_left(order[0] % n);
            words.reverse();
            let joined = words.join(" ");
            let rewritten = simhash_text(lex, &joined, &o);
            // Latin words keep their hashes and counts written apart; Han words may be cut
            // otherwise by jieba out of context, so only compare when the features agree.
            let joined_norm = normalize_for(&joined, &rules, usize::MAX, &mut || ());
            let again = extract(lex, &joined_norm, &rules);
            let mut a: Vec<(u64, u32)> = feats.iter().map(|f| (f.hash, f.count)).collect();
            let mut b: Vec<(u64, u32)> = again.iter().map(|f| (f.hash, f.count)).collect();
            a.sort_unstable();
            b.sort_unstable();
            if a == b {
                proptest::prop_assert_eq!(simhash_text(lex, &text, &o), rewritten);
            }
        }
    }

    #[test]
    fn short_texts_have_no_fingerprint_under_definition_1() {
        let lex = Lexicon::global();
        let doc = "中国 经济 发展 改革 开放 合作";
        let six = simhash_text(lex, doc, &Options::v1());
        assert!(six.is_some());
        assert_eq!(simhash_text(lex, "中国 经济 发展 改革 开放 2026 2027 年", &Options::v1()), None);
        // min_features 0: every text, 0 for no features, as definition 0 gives.
        let all = Options { min_features: 0, ..Options::v1() };
        assert_eq!(simhash_text(lex, "，。！", &all), Some(0));
        assert_eq!(simhash_text(lex, "，。！", &Options::v0()), Some(0));
        assert_eq!(simhash_text(lex, "，。！", &Options::v1()), None);
        // The fingerprint is the fold of the features extract reports.
        let norm = normalize(doc);
        let feats = extract(lex, &norm, &(&Options::v1()).into());
        assert_eq!(six, Some(fingerprint(feats.iter().map(|f| (f.hash, f.weight)))));
        // Definition 2 keeps the same short-text policy.
        assert_eq!(simhash_text(lex, doc, &Options::default()), six);
        assert_eq!(simhash_text(lex, "中国 经济 发展 改革 开放 2026 2027 年", &Options::default()), None);
    }

    /// A text without letters or digits, under ngram, right after another text on the
    /// same thread: no features, not the previous text's (the reused Counts were not
    /// emptied; found by tests/fuzz.rs).
    #[test]
    fn ngram_text_without_letters_after_another_text() {
        let lex = Lexicon::global();
        for o in [
            Options::v0(),
            Options { min_features: 0, ..Options::v1() },
            Options { min_features: 0, ..Options::default() },
        ] {
            let o = Options { tokenizer: Tokenizer::Ngram(3), ..o };
            for empty in ["", "，。！？ …", "\u{200b}"] {
                assert_ne!(simhash_text(lex, "中共中央总书记、国家主席江泽民发表1998年新年讲话", &o), Some(0));
                assert_eq!(simhash_text(lex, empty, &o), Some(0), "{empty:?} under {o:?}");
            }
        }
    }
}

/// Definition 2's fold of traditional characters (`crate::text::simplified`), seen in
/// fingerprints.
#[cfg(test)]
mod traditional_tests {
    use super::{simhash_text, Definition, Lexicon, Options};

    #[test]
    fn golden_fingerprints() {
        let lex = Lexicon::global();
        let v1 = Options::new(Definition::V1, Options::default().tokenizer, Options::default().weighting);
        let (trad, simp) = ("中共中央總書記、國家主席江澤民發表新年講話", "中共中央总书记、国家主席江泽民发表新年讲话");
        let (t2, s2) = (simhash_text(lex, trad, &Options::v2()), simhash_text(lex, simp, &Options::v2()));
        assert!(t2.is_some());
        assert_eq!(t2, s2);
        assert_eq!(s2, simhash_text(lex, simp, &v1));
        assert_ne!(simhash_text(lex, trad, &v1), simhash_text(lex, simp, &v1));
    }

    /// People's Daily (when `make corpus` has fetched it) is simplified text: definition 2
    /// gives every paragraph its definition-1 fingerprint.
    #[test]
    fn simplified_corpus_keeps_its_fingerprints() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus/peoples_daily_199801.txt");
        let Ok(text) = std::fs::read_to_string(path) else { return };
        let lex = Lexicon::global();
        let v1 = Options::new(Definition::V1, Options::default().tokenizer, Options::default().weighting);
        let mut n = 0;
        for line in text.lines() {
            assert_eq!(simhash_text(lex, line, &Options::v2()), simhash_text(lex, line, &v1), "{line}");
            n += 1;
        }
        assert!(n > 10_000, "{n}");
    }
}
