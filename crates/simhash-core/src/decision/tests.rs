//! The decision on pairs a reader has judged: slots and figures apart, reposts together.

use proptest::prelude::*;

use super::tokens::Tokens;
use super::{decide, Reason, Rule};
use crate::text::normalize_folded;

fn same(a: &str, b: &str) -> bool {
    decide(Rule::D2, a, b, None, &mut || ()).duplicate
}

#[test]
fn slots_are_other_content() {
    for (a, b) in [
        ("Leather case for Apple iPhone 13, black", "Leather case for Apple iPhone 13, brown"),
        (
            "Men's running shoes, lightweight, breathable mesh, size 42",
            "Women's running shoes, lightweight, breathable mesh, size 42",
        ),
        ("小米手环7 NFC版 黑色", "小米手环7 NFC版 白色"),
        (
            "ERROR: connection to 10.0.0.5 refused by host db-primary",
            "ERROR: connection to 10.0.0.5 refused by host db-replica",
        ),
        ("乔石会见爱沙尼亚议长", "李岚清会见爱沙尼亚议长"),
        ("Columbia Men's Powder Lite jacket, Beige, size XS", "Columbia Men's Powder Lite jacket, Beige, size L"),
        (
            "HUAWEI华为 WATCH GT 4 智能运动手表 男款 银色 45mm表盘 蓝牙通话 长续航",
            "HUAWEI华为 WATCH GT 4 智能运动手表 女款 银色 45mm表盘 蓝牙通话 长续航",
        ),
    ] {
        let v = decide(Rule::D2, a, b, None, &mut || ());
        assert!(!v.duplicate, "{a} | {b}: {v:?}");
        assert_eq!(v.reason, Reason::Differs);
    }
}

#[test]
fn figures_are_content() {
    let invoice = |n: u32, q: u32, item: u32| {
        format!("Invoice {n}: {q} units of item {item} at 17.5 EUR, total {:.1} EUR, due 2024-01-02", 17.5 * q as f64)
    };
    assert!(!same(&invoice(1001, 8, 331), &invoice(1002, 8, 331)));
    assert!(!same(&invoice(1001, 8, 331), &invoice(1001, 9, 331)));
    assert!(same(&invoice(1001, 8, 331), &format!("Re: {}", invoice(1001, 8, 331))));
    assert!(!same(
        "Changed in version 3.6: Accepts a path-like object.",
        "Changed in version 3.8: Accepts a path-like object."
    ));
    assert!(!same(
        "2001年全国粮食总产量45262万吨，比上年增加1.2%。",
        "2002年全国粮食总产量45706万吨，比上年增加1.0%。"
    ));
    assert!(!same("第四十八条本法自１９９８年５月１日起施行。", "第四十八条本法自１９９８年３月１日起施行。"));
}

#[test]
fn reposts_are_the_same() {
    let p = "中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。\
             在这辞旧迎新的美好时刻，我向全国各族人民，表示节日的祝贺。";
    for b in [
        // Punctuation, width, case; a source line and a footer; a sentence dropped; a cut.
        "中共中央总书记,国家主席江泽民发表１９９８年新年讲话.新年钟声即将敲响,人类社会就要进入新的一年.\
         在这辞旧迎新的美好时刻,我向全国各族人民,表示节日的祝贺.",
        "本报北京1月1日讯　记者王建国报道：中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。\
         在这辞旧迎新的美好时刻，我向全国各族人民，表示节日的祝贺。（责任编辑：李明）",
        "中共中央总书记、国家主席江泽民发表1998年新年讲话。在这辞旧迎新的美好时刻，我向全国各族人民，表示节日的祝贺。",
        "中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美",
        // Sentences swapped.
        "新年钟声即将敲响，人类社会就要进入新的一年。中共中央总书记、国家主席江泽民发表1998年新年讲话。\
         在这辞旧迎新的美好时刻，我向全国各族人民，表示节日的祝贺。",
    ] {
        let v = decide(Rule::D2, p, b, None, &mut || ());
        assert!(v.duplicate, "{b}: {v:?}");
    }
    // A sentence added before, and a character changed in the next: the one word the two share
    // (献辞) is matched where the copy starts, so what comes before it is an edge insertion.
    assert!(same(
        "献辞总结了一九九七年中国外交工作取得的巨大成绩，指出，这体现了中国的全方位多元外交，建立和巩固双边之间以共同利益为基础的新型合作关系。",
        "《澳门日报》元旦献辞说，回首旧岁，展望未来，中国人民深为祖国的斐然成就而欢欣鼓舞。献辞总结了一九九七年中国外交工作取得的巨大成绩，指出，某体现了中国的全方位多元外交，建立和巩固双边之间以共同利益为基础的新型合作关系。"
    ));
    // Cut inside a figure.
    assert!(same(
        "以１３９户地县属国有工业企业为例，１９９７年１至１０月份，完成工业产值８５亿元，占全区全部工业产值的４０％。",
        "以１３９户地县属国有工业企业为例，１９９７年１至１"
    ));
    let e = "The quick brown fox jumps over the lazy dog near the riverbank, and the farmer watches from his porch.";
    assert!(same(
        e,
        "the quick brown fox jumps ovr the lazy dog near the riverbank, and the farmer watches from his porch"
    ));
    assert!(same(e, "【限时特惠】The Quick Brown Fox jumps over the lazy dog near the riverbank, and the farmer watches from his porch!"));
    assert!(same("Leather case for Apple iPhone 13, black", "LEATHER CASE FOR APPLE IPHONE １３ / BLACK"));
    assert!(same("Leather case for Apple iPhone 13, black", "Leather case for Apple iPhone 13, bl…"));
}

#[test]
fn a_phrase_is_no_passage() {
    let long = "新华社北京１月１５日电《罗荣桓军事文选》出版座谈会今天在人民大会堂举行。\
                中共中央总书记、国家主席、中央军委主席江泽民出席座谈会并发表重要讲话。";
    let v = decide(Rule::D2, "中共中央总书记、国家主席江泽民", long, None, &mut || ());
    assert_eq!(v.reason, Reason::OnlyAPhrase, "{v:?}");
    // A whole sentence of the longer text is an excerpt.
    assert!(same("《罗荣桓军事文选》出版座谈会今天在人民大会堂举行。", long));
    assert_eq!(decide(Rule::D2, "，。", "abc", None, &mut || ()).reason, Reason::Empty);
}

/// Texts of words, CJK characters, figures and punctuation, often sharing runs.
fn text() -> impl Strategy<Value = String> {
    let parts = prop::sample::select(vec![
        "the ",
        "quick ",
        "fox",
        "中国",
        "经济",
        "发展",
        "。",
        "，",
        ", ",
        ". ",
        "1998",
        "3.6",
        "ガイド",
        "ＡＢＣ",
        "…",
        "\n",
        "black ",
        "brown ",
    ]);
    prop::collection::vec(parts, 0..30).prop_map(|v| v.concat())
}

proptest! {
    #[test]
    fn one_decision_either_way(a in text(), b in text()) {
        prop_assert_eq!(decide(Rule::D2, &a, &b, None, &mut || ()), decide(Rule::D2, &b, &a, None, &mut || ()));
    }

    #[test]
    fn a_text_is_its_own_duplicate(a in text()) {
        let v = decide(Rule::D2, &a, &a, None, &mut || ());
        prop_assert_eq!(v.duplicate, v.reason != Reason::Empty);
    }

    #[test]
    fn normalized_texts_make_the_same_tokens(a in text()) {
        let (t, n) = (Tokens::of(&a, &mut || ()), Tokens::of(&normalize_folded(&a), &mut || ()));
        prop_assert_eq!(t.hashes(), n.hashes());
        prop_assert_eq!(t.cut, n.cut);
    }
}

#[test]
fn long_texts_are_decided() {
    // 60,000 CJK characters, a sentence dropped and a few characters changed: the anchors'
    // path, not a quadratic table.
    let sentence = |i: u32| format!("第{i}句话说的是一件与众不同的事情，编号{i}。");
    let a: String = (0..3000).map(sentence).collect();
    let b: String =
        (0..3000).filter(|&i| i != 1500).map(sentence).collect::<String>().replacen("与众不同", "与众不通", 3);
    assert!(same(&a, &b));
}

#[test]
fn explained_differences() {
    let (v, rows) = super::explain(Rule::D2, "小米手环7 NFC版 黑色", "小米手环7 NFC版 白色", &mut || ());
    assert!(!v.duplicate);
    assert_eq!(v.describe(), "kept apart: the differences cost 4, at most 0.75 allowed");
    assert_eq!(rows.len(), 1);
    assert_eq!((rows[0].a.as_str(), rows[0].b.as_str(), rows[0].what, rows[0].cost), ("黑", "白", "substituted", 4.0));
    // Sides as given, whichever order the decision compared them in.
    let (_, rows) = super::explain(Rule::D2, "新年讲话全文。北京电。", "新年讲话全文。", &mut || ());
    assert_eq!((rows[0].a.as_str(), rows[0].b.as_str(), rows[0].what), ("北 京 电", "", "sentence dropped"));
    let (_, rows) = super::explain(Rule::D2, "新年讲话全文。", "新年讲话全文。北京电。", &mut || ());
    assert_eq!((rows[0].a.as_str(), rows[0].b.as_str(), rows[0].what), ("", "北 京 电", "sentence added"));
}

#[test]
fn swapped_sentences_are_shared() {
    // Two sentences swapped move a passage each way: decision 3's floor (half of the shorter
    // text shared) counts a moved passage as shared; counted as unmatched, it kept such pairs
    // apart with nothing to pay.
    // (make quality's English set, "swap sentences")
    let a = "One of my relatives once presented me with a pen-knife. I was showing it to my friends, reflecting its \
             pretty blades against the rays of the sun, when one of them chimed in that the blades gleamed all right, \
             but seemed rather dull for cutting with.";
    let b = "I was showing it to my friends, reflecting its pretty blades against the rays of the sun, when one of \
             them chimed in that the blades gleamed all right, but seemed rather dull for cutting with. One of my \
             relatives once presented me with a pen-knife. ";
    for strictness in ["loose", "balanced", "strict"] {
        let rule = Rule { strictness: super::Strictness::parse(strictness).unwrap(), ..Rule::LATEST };
        let v = decide(rule, a, b, None, &mut || ());
        assert!(v.duplicate, "{strictness}: {:?}", v.reason);
        assert_eq!(v.cost, 0.0);
    }
    // A passage that moved is shared; one that is not in the other text is not.
    let c = "One of my relatives once presented me with a pen-knife. Nobody in the village had ever seen a lamp \
             burning so late into the night.";
    assert_eq!(decide(Rule::LATEST, a, c, None, &mut || ()).reason, Reason::LittleShared);
}

/// The frame read only when the decision without it keeps a pair gives the verdict the frame
/// gives: over a template's rows, reposts and slot edits, under every rule.
#[test]
fn a_frame_read_only_for_kept_pairs_decides_as_the_frame() {
    use super::{decide_framed, Prepared, Strictness, Version};
    let row = |name: &str, word: &str| {
        format!("For an explanation of the {word} used in this section, see attributes(7). Interface Attribute Value {name}() Thread safety MT-Safe")
    };
    let names = ["clock_getcpuclockid", "expf", "strtok_r", "getenv", "pthread_mutex_lock", "qsort"];
    let mut texts: Vec<String> = names.iter().map(|n| row(n, "terms")).collect();
    for n in names {
        texts.extend([format!("{}.", row(n, "terms")), row(&format!("{n}x"), "terms"), row(n, "words")]);
        texts.push(format!("{} See the notes at the end of this page.", row(n, "terms")));
    }
    texts.extend([
        "本公司地址位于北京市，华为有限公司主营电子产品".into(),
        "本公司地址位于上海市，华为有限公司主营电子产品".into(),
    ]);
    let (mut kept, mut apart) = (0, 0);
    for rule in [
        Rule::D2,
        Rule { version: Version::D3, strictness: Strictness::Loose },
        Rule::LATEST,
        Rule { version: Version::D3, strictness: Strictness::Strict },
    ] {
        let p: Vec<Prepared> = texts.iter().map(|t| Prepared::of(rule.version, t, &mut || ())).collect();
        for (i, a) in p.iter().enumerate() {
            let mates: Vec<&Prepared> = p.iter().enumerate().filter(|&(j, _)| j != i).map(|(_, m)| m).collect();
            let frame = a.frame(&mates, &mut || ());
            for b in &p {
                let want = decide(rule, a, b, Some(&frame), &mut || ()).duplicate;
                let got = decide_framed(rule, a, b, &mut None, |_| frame.clone(), &mut || ());
                assert_eq!(got, want, "{rule:?}");
                (kept, apart) = if want { (kept + 1, apart) } else { (kept, apart + 1) };
            }
        }
    }
    assert!(kept > 100 && apart > 100, "{kept} kept, {apart} apart");
}
