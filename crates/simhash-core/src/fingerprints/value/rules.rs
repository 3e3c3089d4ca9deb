//! What a definition does with each kind of feature ([`Rules`]), and the token classes
//! the rules tell apart.

use std::borrow::Cow;

use crate::text::{in_pieces, normalize, normalize_folded};

use super::chars::{has_word_char, is_alphanumeric, is_han};
use super::options::{Definition, Options, Tokenizer, Weighting};

/// What a definition does with each kind of feature: the parameters behind
/// [`Options`]. `Rules::from(&options)` gives the ones of `options.definition`;
/// `make quality` (tests/quality) measures others against them.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Rules {
    pub tokenizer: Tokenizer,
    pub weighting: Weighting,
    pub tf: Tf,
    pub numbers: Numbers,
    /// Factor on the weight of a number that is kept ([`Numbers::Keep`], [`Numbers::Shape`]).
    pub number_weight: f64,
    /// The IDF enters weights raised to this power.
    pub idf_power: f64,
    /// Factor on the weight of a single Han character; 0 drops them.
    pub single_han: f64,
    /// The IDF of a word the table does not list; `None`: the table's median (jieba's rule).
    pub unknown_idf: Option<f64>,
    /// jieba's HMM for words its dictionary does not have (names, mostly).
    pub hmm: bool,
    /// Fewer distinct features than this: no fingerprint.
    pub min_features: u32,
    /// Normalization folds traditional-only characters to simplified ones (definition 2).
    pub fold_traditional: bool,
    /// Fold with exact integer sums ([`super::fold::exact_fingerprint`]), not f64 sums in
    /// feature order, so that a tie is a true tie and the order of features never matters
    /// (definition 3).
    pub exact_sums: bool,
    /// Latin-script words the IDF table does not list take their IDF from the English
    /// table (`data/english_idf.txt.gz`), not the median (definition 3).
    pub english_idf: bool,
    /// A glued run of non-Han letters is cut where hiragana, katakana and other letters
    /// meet, and its hiragana parts (Japanese particles, endings) are no feature
    /// (definition 3).
    pub kana: bool,
    /// How `simhash_segments` cuts a text (definition 3: winnowed feature shingles).
    pub segments: SegmentUnit,
    /// The term-frequency part of a non-Han word's weight ([`Tf::Raw`] but in definition 3).
    pub non_han_tf: Tf,
}

/// What a segment of `simhash_segments` is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SegmentUnit {
    /// A minimal run of sentences with `min_features` features, its simhash (definitions 1, 2).
    Runs,
    /// The hashes of `k` consecutive features that winnowing selects (Schleimer, Wilkerson
    /// and Aiken 2003), over a text of `min_features` or more: with a window of one shingle
    /// (every shingle) per `per` shingles of the text, at most `w` (`per` 0: always `w`).
    /// `sentences`: shingles and windows stay within a sentence (one shorter than `k`
    /// features joins the next): a candidate (`quality_fp --rules seg=winnow3:12:8:1`;
    /// docs/quality.md), in no definition.
    Winnow { k: u8, w: u8, per: u16, sentences: bool },
}

/// The term-frequency part of a weight, from a feature's occurrence count `c`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Tf {
    /// `c` (definition 0).
    Raw,
    /// `1 + ln c`.
    Log,
    /// `√c`.
    Sqrt,
    /// BM25's saturation `c (k1 + 1) / (c + k1)`, k1 = 1.2, without length normalization.
    Bm25,
    /// `c^p`.
    Pow(f64),
}

impl Tf {
    #[inline]
    pub(super) fn of(self, count: u32) -> f64 {
        let c = count as f64;
        match self {
            Tf::Raw => c,
            Tf::Log => 1.0 + c.ln(),
            Tf::Sqrt => c.sqrt(),
            Tf::Bm25 => c * 2.2 / (c + 1.2),
            Tf::Pow(p) => c.powf(p),
        }
    }
}

/// What becomes of a number: a token of digits (any script's, after NFKC) and `.`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Numbers {
    /// A feature like any word (definition 0): an unknown word, so the median IDF.
    Keep,
    /// Not a feature.
    Drop,
    /// Its shape: every digit replaced by `0` (`1998` → `0000`, `4.3` → `0.0`).
    Shape,
}

impl From<&Options> for Rules {
    fn from(o: &Options) -> Rules {
        let v0 = Rules {
            tokenizer: o.tokenizer,
            weighting: o.weighting,
            tf: Tf::Raw,
            numbers: Numbers::Keep,
            number_weight: 1.0,
            idf_power: 1.0,
            single_han: 1.0,
            unknown_idf: None,
            hmm: false,
            min_features: o.min_features,
            fold_traditional: false,
            exact_sums: false,
            english_idf: false,
            kana: false,
            segments: SegmentUnit::Runs,
            non_han_tf: Tf::Raw,
        };
        // Chosen with `make quality` (docs/quality.md): against 0.x's
        // rules, dropping numbers took recall on changed figures from 0.17 to 1.00, and
        // dropping single characters mean recall at k = 3 over 9 edits from 0.53 to 0.56
        // (paragraphs); saturating counts lost recall (1 + ln c: 0.48, BM25: 0.49,
        // sqrt: 0.50), as did jieba's HMM (0.47).
        let v1 = Rules { numbers: Numbers::Drop, single_han: 0.0, ..v0 };
        match o.definition {
            Definition::V0 => v0,
            Definition::V1 => v1,
            // Traditional reposts of mainland news were found at 0.00 (issue 19); folding
            // only traditional-only characters leaves simplified text's definition-1
            // fingerprint as it was (docs/fingerprint.md, "Definition 2").
            Definition::V2 => Rules { fold_traditional: true, ..v1 },
            // Chosen with `make quality`'s languages part (docs/quality.md, "Definition 3"):
            // dropping hiragana and saturating non-Han counts took Japanese corpus pairs
            // within 3 bits from 31 (2 near-duplicates) to 2 (2); shingles of 3 features
            // winnowed with one window per 8 shingles, at most 12, keep articles' storage at
            // 0.56x their text where every shingle costs 3.7x.
            Definition::V3 => Rules {
                fold_traditional: true,
                exact_sums: true,
                english_idf: true,
                kana: true,
                segments: SegmentUnit::Winnow { k: 3, w: 12, per: 8, sentences: false },
                non_han_tf: Tf::Log,
                ..v1
            },
        }
    }
}

impl Rules {
    /// The feature a word of the jieba tokenizer makes under these rules, with its class;
    /// `None` when it makes none. `is_word`: a jieba token known to have a letter or digit
    /// (trimming dots keeps it); otherwise a glued run of non-Han tokens.
    #[inline]
    pub(super) fn feature<'a>(&self, word: &'a str, is_word: bool) -> Option<(Class, Cow<'a, str>)> {
        let word = word.trim_end_matches('.');
        let class = if is_word {
            if is_single_han(word) {
                Class::SingleHan
            } else {
                Class::Word
            }
        } else if !has_word_char(word) {
            return None;
        } else if is_number(word) {
            Class::Number
        } else {
            Class::NonHan
        };
        let feature = match (class, self.numbers) {
            (Class::Number, Numbers::Drop) => return None,
            (Class::Number, Numbers::Shape) => {
                Cow::Owned(word.chars().map(|c| if c == '.' { '.' } else { '0' }).collect())
            }
            (Class::SingleHan, _) if self.single_han == 0.0 => return None,
            _ => Cow::Borrowed(word),
        };
        Some((class, feature))
    }
}

/// What [`segment`](fn@super::segment::segment) does with a token.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(super) enum Kind {
    /// A feature of its own.
    Word,
    /// Letters and digits (plus the `.` of "4.3") outside the Han script, with at
    /// least one letter or digit: glued to adjacent tokens of the same kind.
    NonHanWord,
    /// No letter or digit: not a feature.
    Other,
}

/// What [`Rules`] tell apart among features.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Class {
    Word,
    /// A glued run of non-Han letters (Latin, kana, other scripts): a [`Class::Word`] but
    /// for definition 3's English IDFs and `non_han_tf`.
    NonHan,
    SingleHan,
    Number,
}

/// A glued non-Han word made only of digits and `.` (`1998`, `4.3`, `٣`).
fn is_number(word: &str) -> bool {
    word.chars().all(|c| c == '.' || crate::text::is_numeric(c))
}

/// One Han ideograph, the whole token.
fn is_single_han(word: &str) -> bool {
    let mut chars = word.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if is_han(c))
}

/// The [`Kind`] of a token, in one pass over its characters. A token that starts with
/// a Han ideograph (most of them in Chinese text) is a word without looking further.
/// This and the table in [`is_alphanumeric`] replaced up to three passes per token,
/// each testing every non-ASCII character with `char::is_alphanumeric`
/// (throughput.rs PROFILE_SIMHASH measures it).
#[inline]
pub(super) fn kind(token: &str) -> Kind {
    match token.chars().next() {
        Some(c) if is_han(c) => return Kind::Word,
        None => return Kind::Other,
        Some(_) => {}
    }
    let (mut all_non_han, mut any_word) = (true, false);
    for c in token.chars() {
        if c != '.' {
            let han = is_han(c);
            let word = han || is_alphanumeric(c);
            any_word |= word;
            all_non_han &= word && !han;
        }
    }
    match (any_word, all_non_han) {
        (false, _) => Kind::Other,
        (true, true) => Kind::NonHanWord,
        (true, false) => Kind::Word,
    }
}

/// The normalized text of `doc` under `rules` ([`normalize_folded`](crate::text::normalize_folded) when they fold
/// traditional characters, else [`normalize`]), in pieces of about `piece` bytes with
/// `tick` after each (see [`normalize_pieces`](crate::text::normalize_pieces)); `usize::MAX`: in one piece.
pub fn normalize_for<'a>(doc: &'a str, rules: &Rules, piece: usize, tick: &mut dyn FnMut()) -> Cow<'a, str> {
    let normalize_one = if rules.fold_traditional { normalize_folded } else { normalize };
    in_pieces(doc, piece, tick, normalize_one)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprints::value::{extract, Lexicon};
    use crate::text::normalize;

    /// The token tests as they were before [`kind`], kept to prove the two equal.
    fn kind_by_definition(token: &str) -> Kind {
        let word_char = |c: char| is_han(c) || c.is_alphanumeric();
        let has_word_char = token.chars().any(word_char);
        if token.chars().all(|c| c == '.' || (!is_han(c) && c.is_alphanumeric())) && has_word_char {
            Kind::NonHanWord
        } else if has_word_char {
            Kind::Word
        } else {
            Kind::Other
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(5000))]
        #[test]
        fn kind_equals_definition(token in "[a-z0-9.中文\u{3400}\u{F900}\u{20000}éüжя٣〇々。、“”,\\- %+_]{0,6}") {
            proptest::prop_assert_eq!(kind(&token), kind_by_definition(&token));
        }
    }

    #[test]
    fn number_shapes() {
        let rules = Rules { numbers: Numbers::Shape, single_han: 1.0, ..(&Options::v1()).into() };
        let norm = normalize("1998年 4.3亿 ١٩");
        let got: Vec<String> =
            extract(Lexicon::global(), &norm, &rules).into_iter().map(|f| f.text.into_owned()).collect();
        assert_eq!(got, ["0000", "年", "0.0", "亿", "00"]);
    }
}
