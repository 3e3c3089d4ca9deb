//! Tests of the normal form (`super`): golden values, every path against NFKC and
//! lowercasing by definition, and pieces against the whole.

use super::*;
use proptest::prelude::*;

fn reference(s: &str) -> String {
    s.nfkc().collect::<String>().to_lowercase()
}

#[test]
fn golden() {
    assert_eq!(normalize("ＡＢＣ，１９９８年"), "abc,1998年");
    assert_eq!(normalize("Hello World"), "hello world");
    assert_eq!(normalize("ΟΔΟΣ"), "οδο\u{3C2}"); // final sigma
    assert_eq!(normalize("ﬁ"), "fi");
    assert!(matches!(normalize("already lower"), Cow::Borrowed(_)));
}

#[test]
fn combining_marks_next_to_ideographs() {
    for s in ["e\u{301}中", "中e\u{301}", "中\u{301}文", "Σ中", "aΣ中bΣ", "ｶﾞ中ｶﾞ"] {
        assert_eq!(normalize(s), reference(s), "{s:?}");
    }
}

#[test]
fn segments_that_are_not_one_character() {
    for s in [
        // Combining marks after full-width letters and digits, and out of order.
        "Ａ\u{301}",
        "中Ａ\u{301}\u{327}文",
        "１\u{308}",
        "，\u{301}",
        "e\u{301}\u{327}",
        "\u{327}\u{301}中",
        // Hangul: L+V+T jamo compose, an LV syllable takes a following T jamo.
        "\u{1100}\u{1161}\u{11A8}",
        "가\u{11A8}",
        "中가\u{11A8}中",
        "\u{11A8}가",
        // Sigma, also from a compatibility character (MATHEMATICAL BOLD CAPITAL SIGMA).
        "ΑΣ",
        "ΣΑ",
        "ＡΣ中",
        "Α\u{1D6BA}",
        "中\u{1D6BA}",
        "Σ\u{308}",
        "ς",
        "中ΑΣ，",
        // One character into several, lowercasing into two.
        "…",
        "ﷺ",
        "㈱中",
        "\u{130}中",
        "ǅ",
        "\u{212B}",
        "Ⅻ",
        "ｶﾞ",
        "\u{FF9E}中",
    ] {
        assert_eq!(normalize(s), reference(s), "{s:?}");
    }
}

#[test]
fn byte_shortcuts_match_the_table() {
    // Lead bytes E4..=E9 are copied through without a table lookup.
    for c in ('\u{4000}'..='\u{9FFF}').chain('\0'..='\u{7F}') {
        let expected = if c.is_ascii_uppercase() { c.to_ascii_lowercase() } else { c };
        assert_eq!(class(c), expected as u16, "{c:?}");
    }
}

/// Every BMP character, alone and between neighbours that compose, reorder or
/// change case with what is next to them.
#[test]
fn every_bmp_character_in_context() {
    let mut s = String::new();
    for c in (0..0x10000).filter_map(char::from_u32) {
        for (before, after) in
            [("", ""), ("e", "\u{301}\u{327}"), ("\u{1100}", "\u{1161}"), ("가", "\u{11A8}Σ"), ("Σ", "中")]
        {
            s.clear();
            s.push_str(before);
            s.push(c);
            s.push_str(after);
            assert_eq!(normalize(&s), reference(&s), "{s:?}");
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]
    #[test]
    fn equals_whole_string_nfkc_lowercase(
        s in "[\\PC\u{301}\u{308}\u{327}\u{3099}\u{309A}\u{4E00}-\u{4E10}ΣσςΑΩＡ-Ｚａ-ｚ０-９，。ｶ-ﾝﾞﾟ\u{1100}-\u{1112}\u{1161}-\u{1175}\u{11A8}-\u{11C2}가각까\u{1D6BA}\u{130}ﬁ…㈱]{0,40}"
    ) {
        prop_assert_eq!(normalize(&s).into_owned(), reference(&s));
    }

    #[test]
    fn idempotent(s in "\\PC{0,40}") {
        // Exactly only without combining marks: see `normalize` (tests/fuzz.rs has the rest).
        let once = normalize(&s).into_owned();
        if once.chars().all(|c| canonical_combining_class(c) == 0) {
            prop_assert_eq!(normalize(&once).into_owned(), once);
        }
    }
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
    /// Pieces do not change the normalized text, final sigmas and combining marks included.
    #[test]
    fn pieces_normalize_alike(
        doc in "[aAΣσςΑ.'·:\u{0301}\u{0308}\u{1100}\u{1161}\u{11A8}가ＡＢ１，。．中文 \t\r\nﬁ①ß]{0,40}",
        piece in 1usize..12,
    ) {
        let mut ticks = 0;
        let got = normalize_pieces(&doc, piece, &mut || ticks += 1);
        proptest::prop_assert_eq!(got, normalize(&doc));
    }
}
