//! Character classes of the normalized text: which characters make a word, and which
//! are Han ideographs. Below the lexicon and the features, which both use them.

use std::sync::OnceLock;

/// A token is a feature iff it holds at least one letter or digit
/// (`char::is_alphanumeric`): this drops whitespace and punctuation.
#[inline]
pub(super) fn has_word_char(token: &str) -> bool {
    token.chars().any(is_word_char)
}

#[inline]
fn is_word_char(c: char) -> bool {
    // Han first: a range test, where `is_alphanumeric` binary-searches Unicode tables
    // for every non-ASCII character (perf showed it on Chinese text).
    is_han(c) || is_alphanumeric(c)
}

/// `char::is_alphanumeric`, from an 8 kB bitset for the BMP (built once per process):
/// Chinese text has a punctuation token (`。` `、` `“`) for every few words, and
/// `is_alphanumeric` searched two Unicode tables for each of them, twice (perf found
/// the time in `lookup_slow`).
#[inline]
pub(super) fn is_alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    match alphanumeric_bmp().get(c as usize / 64) {
        Some(w) => w >> (c as usize % 64) & 1 == 1,
        None => c.is_alphanumeric(),
    }
}

/// The bitset of [`is_alphanumeric`]. [`Lexicon::load`](super::Lexicon::load) builds
/// it, so that with preloading the postmaster does, not every backend on its first call.
pub(super) fn alphanumeric_bmp() -> &'static [u64; 1024] {
    static BMP: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    BMP.get_or_init(|| {
        let mut t = Box::new([0u64; 1024]);
        for c in (0..0x10000).filter_map(char::from_u32).filter(|c| c.is_alphanumeric()) {
            t[c as usize / 64] |= 1 << (c as usize % 64);
        }
        t
    })
}

/// Han ideographs (CJK Unified Ideographs and extensions A–F, compatibility ideographs):
/// the script jieba segments with its dictionary.
#[inline]
pub(super) fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FA1F}')
}

/// The scripts definition 3 tells apart inside a glued non-Han word.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Script {
    Hiragana,
    Katakana,
    /// The prolonged sound mark and the kana iteration marks: part of the run they follow.
    Mark,
    Other,
}

#[inline]
pub(super) fn script(c: char) -> Script {
    match c {
        '\u{30FC}' | '\u{309D}' | '\u{309E}' | '\u{30FD}' | '\u{30FE}' => Script::Mark,
        '\u{3041}'..='\u{309F}' => Script::Hiragana,
        '\u{30A0}'..='\u{30FF}' | '\u{31F0}'..='\u{31FF}' | '\u{FF66}'..='\u{FF9F}' => Script::Katakana,
        _ => Script::Other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphanumeric_table_equals_std() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "{c:?}");
        }
    }
}
