//! Character classes of the normalized text: which characters make a word, and which
//! are Han ideographs. Below the lexicon and the features, which both use them.

pub(super) use crate::text::{alphanumeric_bmp, is_alphanumeric};

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
