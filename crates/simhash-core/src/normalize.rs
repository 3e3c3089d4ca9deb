//! Step 1 of the pipeline: Unicode NFKC, then lowercase.
//!
//! NFKC folds full-width forms (`１９９８` → `1998`, `ＡＢＣ` → `abc` after lowercasing,
//! `，` → `,`), which Chinese text is full of, so that the same words hash alike.

use std::borrow::Cow;
use unicode_normalization::UnicodeNormalization;

/// CJK Unified Ideographs, U+4E00..=U+9FFF. Every one of them is NFKC-inert
/// (NFKC_QC=Yes, canonical combining class 0, never composes with a neighbour)
/// and has no case, so NFKC and lowercasing may treat the text on either side of
/// one independently and copy the ideograph through. Chinese text is mostly
/// these, which is what makes normalization cheap next to segmentation.
#[inline]
fn is_inert_ideograph(c: char) -> bool {
    ('\u{4E00}'..='\u{9FFF}').contains(&c)
}

/// NFKC, then Unicode default lowercase (`str::to_lowercase`). Equal, by
/// construction and by the property test below, to
/// `doc.nfkc().collect::<String>().to_lowercase()`.
pub fn normalize(doc: &str) -> Cow<'_, str> {
    if doc.is_ascii() {
        // ASCII is its own NFKC form.
        return if doc.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(doc.to_ascii_lowercase())
        } else {
            Cow::Borrowed(doc)
        };
    }
    let mut out = String::with_capacity(doc.len());
    let mut run = String::new();
    let mut rest = doc;
    while !rest.is_empty() {
        // Split off the next stretch of non-ideographs and the ideographs after it.
        let cut = rest.find(is_inert_ideograph).unwrap_or(rest.len());
        let (other, tail) = rest.split_at(cut);
        if !other.is_empty() {
            run.clear();
            run.extend(other.nfkc());
            out.push_str(&run.to_lowercase());
        }
        let end = tail.find(|c| !is_inert_ideograph(c)).unwrap_or(tail.len());
        out.push_str(&tail[..end]);
        rest = &tail[end..];
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
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

    proptest! {
        #[test]
        fn equals_whole_string_nfkc_lowercase(s in "[\\PC\u{301}\u{308}\u{3099}\u{4E00}-\u{4E10}ΣＡ-Ｚ０-９ｶ-ﾝﾞ]{0,40}") {
            prop_assert_eq!(normalize(&s).into_owned(), reference(&s));
        }

        #[test]
        fn idempotent(s in "\\PC{0,40}") {
            let once = normalize(&s).into_owned();
            prop_assert_eq!(normalize(&once).into_owned(), once);
        }
    }
}
