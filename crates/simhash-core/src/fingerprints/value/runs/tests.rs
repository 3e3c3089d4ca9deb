//! Segment fingerprints of definitions 1 and 2 against their definition, computed the slow
//! way: every run of sentences fingerprinted as a text of its own with `simhash()`.

use super::*;
use crate::fingerprints::value::{simhash_rules, Definition, Tokenizer, Weighting};
use crate::text::normalize;

/// The sentences of a normalized text, each with the character that ends it: cut after
/// `。 ! ? ; \n`, and after white space that follows a `.`.
fn sentences(text: &str) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut start, mut prev) = (0, ' ');
    for (i, c) in text.char_indices() {
        let end = matches!(c, '\u{3002}' | '!' | '?' | ';' | '\n') || (prev == '.' && c.is_whitespace());
        if end {
            out.push(&text[start..i + c.len_utf8()]);
            start = i + c.len_utf8();
        }
        prev = c;
    }
    out.push(&text[start..]);
    out
}

/// The definition: the distinct `simhash()` of every minimal run with a fingerprint.
fn brute(doc: &str, rules: &Rules) -> Vec<u64> {
    let lex = Lexicon::global();
    let norm = normalize(doc);
    let s = sentences(&norm);
    let rules = Rules { min_features: rules.min_features.max(1), ..*rules };
    let fp = |i: usize, j: usize| simhash_rules(lex, &s[i..=j].concat(), &rules);
    let mut out = Vec::new();
    for i in 0..s.len() {
        for j in i..s.len() {
            if let Some(f) = fp(i, j) {
                let minimal = (i == j) || (fp(i + 1, j).is_none() && fp(i, j - 1).is_none());
                if minimal && !out.contains(&f) {
                    out.push(f);
                }
                break;
            }
        }
    }
    out
}

const PARAGRAPH: &str = "中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入\
    新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府，向全国各族人民致以新年的祝贺！\
    一九九七年，中国发生了两件大事：一是香港回归祖国；二是党的十五大胜利召开。我们的改革开放和现代化建设取得\
    了新的重大成就，国民经济保持了快速增长的良好势头。";

#[test]
fn paragraph_segments_are_its_minimal_runs() {
    let lex = Lexicon::global();
    let rules = Rules::from(&Options::v2());
    let got = segments(lex, PARAGRAPH, &Options::v2());
    assert!(got.len() >= 4, "{got:?}");
    assert_eq!(got, brute(PARAGRAPH, &rules));
    // One sentence dropped: the runs away from it are unchanged.
    let dropped = PARAGRAPH.replace("新年钟声即将敲响，人类社会就要进入新的一年。", "");
    let other = segments(lex, &dropped, &Options::v2());
    let shared = other.iter().filter(|f| got.contains(f)).count();
    assert!(shared + 2 >= other.len(), "{shared} of {}", other.len());
}

#[test]
fn short_texts_have_one_segment_or_none() {
    let lex = Lexicon::global();
    let o = Options::v2();
    assert!(segments(lex, "", &o).is_empty());
    assert!(segments(lex, "中国 经济 发展。", &o).is_empty());
    // Six features in one sentence: one segment, the text's own fingerprint.
    let six = "中国 经济 发展 改革 开放 合作";
    assert_eq!(segments(lex, six, &o), vec![crate::simhash_text(lex, six, &o).unwrap()]);
    // min_features 0 still needs one feature per segment: punctuation alone has none.
    let all = Options { min_features: 0, ..o };
    assert!(segments(lex, "，。！", &all).is_empty());
    assert_eq!(segments(lex, "经济。发展。", &all).len(), 2);
}

#[test]
fn latin_sentences_end_at_a_dot_before_white_space() {
    let lex = Lexicon::global();
    let o = Options { min_features: 2, ..Options::v2() };
    let doc = "Prices rose 4.3 percent. Markets fell sharply today. Analysts expect recovery soon.";
    let got = segments(lex, doc, &o);
    assert_eq!(got, brute(doc, &Rules::from(&o)));
    assert_eq!(got.len(), 3, "{got:?}");
}

#[test]
fn long_texts_cancel_and_give_the_same_runs() {
    let lex = Lexicon::global();
    let rules = Rules::from(&Options::v2());
    let text = PARAGRAPH.repeat(400);
    assert!(text.len() > 2 * PIECE_BYTES);
    let mut ticks = 0;
    let got = segments_with(lex, &text, &rules, &mut || ticks += 1);
    assert!(ticks >= 2, "{ticks}");
    // Repeated paragraphs repeat their runs: the distinct ones are the paragraph's, plus
    // the runs across the joins.
    let one = segments(lex, PARAGRAPH, &Options::v2());
    assert!(one.iter().all(|f| got.contains(f)));
    assert!(got.len() <= 2 * one.len() + 2, "{} vs {}", got.len(), one.len());
}

/// Golden values: a change here is a change of the fingerprint contract.
#[test]
fn golden_segments() {
    let lex = Lexicon::global();
    let got: Vec<i64> = segments(lex, PARAGRAPH, &Options::v2()).into_iter().map(|f| f as i64).collect();
    assert_eq!(got, GOLDEN);
}

const GOLDEN: [i64; 5] =
    [-1109557693982881486, 8561718201145832918, 7985165177717954177, -6548599926057186161, 4730980908607875252];

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(1500))]
    /// Any text: the sliding window finds exactly the definition's runs.
    #[test]
    fn window_equals_definition(
        doc in "[中国经济发展改革开放人民日报新华社讲话江泽民合作世界和平的了 a-z0-9。，!?;.\n]{0,120}",
        min in 1u32..8,
        v0: bool,
    ) {
        let lex = Lexicon::global();
        let mut o = if v0 { Options::new(Definition::V0, Tokenizer::Jieba, Weighting::Tfidf) } else { Options::v2() };
        o.min_features = min;
        let rules = Rules::from(&o);
        proptest::prop_assert_eq!(segments(lex, &doc, &o), brute(&doc, &rules));
        texts_explain_their_segments(&doc, &rules);
    }
}

/// [`segment_texts_with`] gives [`segments_with`]'s fingerprints, in order, each with a text
/// whose own fingerprint it is; the texts are consecutive sentences of the normalized text.
fn texts_explain_their_segments(doc: &str, rules: &Rules) {
    let lex = Lexicon::global();
    let texts = segment_texts_with(lex, doc, rules, &mut || ());
    let fps: Vec<u64> = texts.iter().map(|t| t.fp).collect();
    assert_eq!(fps, segments_with(lex, doc, rules, &mut || ()));
    let norm = normalize_for(doc, rules, usize::MAX, &mut || ());
    let one = Rules { min_features: rules.min_features.max(1), ..*rules };
    for t in &texts {
        assert!(norm.contains(&t.text), "{:?} not in {norm:?}", t.text);
        assert_eq!(simhash_rules(lex, &t.text, &one), Some(t.fp), "{:?}", t.text);
    }
}

#[test]
fn segment_texts_are_their_sentences() {
    let lex = Lexicon::global();
    let rules = Rules::from(&Options::v2());
    texts_explain_their_segments(PARAGRAPH, &rules);
    // Traditional characters are folded, full-width forms made ASCII; an end mark with no
    // words after it joins the sentence before.
    let doc = "中共中央總書記、國家主席江澤民發表１９９８年新年講話。。新年钟声即将敲响，人类社会就要进入新的一年。";
    let got = segment_texts_with(lex, doc, &rules, &mut || ());
    let texts: Vec<&str> = got.iter().map(|t| t.text.as_str()).collect();
    assert_eq!(
        texts,
        ["中共中央总书记、国家主席江泽民发表1998年新年讲话。。", "新年钟声即将敲响,人类社会就要进入新的一年。"]
    );
    texts_explain_their_segments(doc, &rules);
}
