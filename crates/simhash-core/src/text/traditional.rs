//! Fingerprint definition 2's fold of traditional-only Chinese characters to simplified
//! ones, applied to the normalized text (after NFKC and lowercasing), so that a repost
//! converted to traditional characters has the features of its simplified original.
//!
//! The table is OpenCC's character table with the characters that simplified text also
//! writes left out (`tools/traditional_table.py`; docs/fingerprint.md, "Definition 2"):
//! simplified text is left as it is, and keeps its definition-1 fingerprint.

use super::traditional_table::TRADITIONAL;

/// The simplified form of `c` if it is a traditional-only character, else `c`.
/// A binary search in 3,212 entries: [`normalize`](super::normalize) looks most
/// characters up in its per-character table instead, built from this.
#[inline]
pub fn simplified(c: char) -> char {
    match TRADITIONAL.binary_search_by_key(&c, |&(t, _)| t) {
        Ok(i) => TRADITIONAL[i].1,
        Err(_) => c,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::{normalize, normalize_folded};
    use unicode_normalization::UnicodeNormalization;

    /// What definition 2 normalizes a text to, in one piece.
    fn folded(doc: &str) -> String {
        normalize_folded(doc).into_owned()
    }

    #[test]
    fn table_is_sorted_and_folds_once() {
        assert!(TRADITIONAL.windows(2).all(|w| w[0].0 < w[1].0));
        for &(t, s) in &TRADITIONAL {
            assert_ne!(t, s);
            // A value is no key: folding twice is folding once.
            assert_eq!(simplified(s), s, "{t} → {s}");
            // A value is its own NFKC lowercase form, so folding after normalizing needs no
            // second normalization.
            assert_eq!(normalize(&s.to_string()), s.to_string(), "{t} → {s}");
        }
        // Traditional-only characters that People's Daily's simplified text uses stay.
        for c in ['乾', '塚', '薹', '榘', '麽', '苧'] {
            assert_eq!(simplified(c), c);
        }
    }

    #[test]
    fn golden() {
        assert_eq!(folded("國家主席發表新年講話"), "国家主席发表新年讲话");
        assert_eq!(folded("ＡＢＣ，１９９８年「臺灣」"), "abc,1998年「台湾」");
        // A compatibility ideograph: NFKC gives U+8ECA 車, which folds to 车.
        assert_eq!(normalize("\u{F902}"), "車");
        assert_eq!(folded("\u{F902}"), "车");
        // Outside the BMP, as key (U+2005E → U+2003E) and as value (䓣 → U+2C72F).
        assert_eq!(simplified('\u{2005E}'), '\u{2003E}');
        assert_eq!(folded("中\u{2005E}文"), "中\u{2003E}文");
        assert_eq!(folded("中䓣文"), "中\u{2C72F}文");
        // The final-sigma path of normalize folds too.
        assert_eq!(folded("ΟΔΟΣ國"), "οδο\u{3C2}国");
        // Simplified and ASCII text are unchanged.
        assert_eq!(folded("中华人民共和国 hello"), "中华人民共和国 hello");
    }

    /// Every character, alone and after a neighbour: the fold of normalize's output,
    /// character by character, whatever path of normalize a character takes.
    #[test]
    fn every_character_folds_as_defined() {
        let by_definition =
            |s: &str| s.nfkc().collect::<String>().to_lowercase().chars().map(simplified).collect::<String>();
        let mut s = String::new();
        for c in (0..0x30000).filter_map(char::from_u32) {
            for before in ["", "e", "Σ", "國"] {
                s.clear();
                s.push_str(before);
                s.push(c);
                assert_eq!(folded(&s), by_definition(&s), "{s:?}");
            }
        }
    }
}
