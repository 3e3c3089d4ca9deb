//! Steps 2–4 of the pipeline: segment the normalized text, drop what is not a
//! feature, and weight the rest.

use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::OnceLock;

use crate::fingerprint::{hash_feature, Fold};
use crate::lexicon::{Entry, Lexicon};
use crate::options::{Definition, Options, Tokenizer, Weighting};

/// One distinct feature of a document, in order of first occurrence.
#[derive(Debug, Clone, PartialEq)]
pub struct Feature<'a> {
    pub text: Cow<'a, str>,
    pub hash: u64,
    pub count: u32,
    pub weight: f64,
}

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
    fn of(self, count: u32) -> f64 {
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
        };
        match o.definition {
            Definition::V0 => v0,
            // Chosen with `make quality` (README, "How similar is similar"): against 0.x's
            // rules, dropping numbers took recall on changed figures from 0.17 to 1.00, and
            // dropping single characters mean recall at k = 3 over 9 edits from 0.53 to 0.56
            // (paragraphs); saturating counts lost recall (1 + ln c: 0.48, BM25: 0.49,
            // sqrt: 0.50), as did jieba's HMM (0.47).
            Definition::V1 => Rules { numbers: Numbers::Drop, single_han: 0.0, ..v0 },
        }
    }
}

/// A token is a feature iff it holds at least one letter or digit
/// (`char::is_alphanumeric`): this drops whitespace and punctuation.
#[inline]
fn has_word_char(token: &str) -> bool {
    token.chars().any(is_word_char)
}

#[inline]
fn is_word_char(c: char) -> bool {
    // Han first: a range test, where `is_alphanumeric` binary-searches Unicode tables
    // for every non-ASCII character (4% of the time on Chinese text, measured with perf).
    is_han(c) || is_alphanumeric(c)
}

/// `char::is_alphanumeric`, from an 8 kB bitset for the BMP (built once per process,
/// 65k calls, ~1 ms): Chinese text has a punctuation token (`。` `、` `“`) for every
/// few words, and `is_alphanumeric` searched two Unicode tables for each of them, twice
/// (perf: 2.5% of `simhash_text` in `lookup_slow`).
#[inline]
fn is_alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    match alphanumeric_bmp().get(c as usize / 64) {
        Some(w) => w >> (c as usize % 64) & 1 == 1,
        None => c.is_alphanumeric(),
    }
}

/// The bitset of [`is_alphanumeric`]. [`Lexicon::load`] builds it, so that with
/// preloading the postmaster does, not every backend on its first call.
pub(crate) fn alphanumeric_bmp() -> &'static [u64; 1024] {
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
fn is_han(c: char) -> bool {
    matches!(c, '\u{3400}'..='\u{4DBF}' | '\u{4E00}'..='\u{9FFF}' | '\u{F900}'..='\u{FAFF}' | '\u{20000}'..='\u{2FA1F}')
}

/// What [`segment`] does with a token.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Kind {
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
enum Class {
    Word,
    SingleHan,
    Number,
}

/// A glued non-Han word made only of digits and `.` (`1998`, `4.3`, `٣`).
fn is_number(word: &str) -> bool {
    word.chars().all(|c| c == '.' || c.is_numeric())
}

/// One Han ideograph, the whole token.
fn is_single_han(word: &str) -> bool {
    let mut chars = word.chars();
    matches!((chars.next(), chars.next()), (Some(c), None) if is_han(c))
}

/// The [`Kind`] of a token, in one pass over its characters. A token that starts with
/// a Han ideograph (most of them in Chinese text) is a word without looking further.
/// This and the table in [`is_alphanumeric`] replaced up to three passes per token,
/// each testing every non-ASCII character with `char::is_alphanumeric`: 6-10 ms less
/// of the ~160-185 ms of `simhash_text` per corpus pass (throughput.rs
/// PROFILE_SIMHASH=12, five interleaved A/B runs).
#[inline]
fn kind(token: &str) -> Kind {
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

/// Features of an already [`normalize`](crate::normalize::normalize)d text, under `rules`.
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
/// (perf put the old accumulator at ~5% of `simhash_text`; within
/// the noise of this shared machine the end-to-end gain was not measurable on its own.)
/// The `Counts` buffers are the thread's, reused from one text to the next, where a
/// fresh zeroed table and feature list per text cost 0-8 ms (mostly 4) of the
/// ~140-156 ms of `simhash_text` per corpus pass (19,484 paragraphs; throughput.rs
/// PROFILE_SIMHASH=12, six interleaved A/B runs).
pub fn fingerprint_normalized(lexicon: &Lexicon, normalized: &str, rules: &Rules) -> Option<u64> {
    fingerprint_normalized_with(lexicon, normalized, rules, &mut || ())
}

/// [`fingerprint_normalized`], calling `tick` between the pieces of a long text
/// (see [`PIECE_BYTES`]): the SQL layer checks for query cancellation there.
pub fn fingerprint_normalized_with(
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
        let mut fold = Fold::default();
        let mut n = 0u32;
        fold.add_all(counts.feats.iter().filter_map(|&(hash, count, class)| {
            let w = weigher.weight(hash, count, class)?;
            n += 1;
            Some((hash, w))
        }));
        counts.release_if_huge();
        (n >= rules.min_features).then(|| fold.finish())
    })
}

/// A normalized text longer than this is segmented in pieces of about this many bytes,
/// with a call to the caller's `tick` between two pieces: jieba takes about 15 ms per MB
/// here, so a 50 MB text would otherwise run for most of a second without a chance to
/// cancel. Shorter texts (all paragraphs and articles) take the one-piece path, as before.
pub const PIECE_BYTES: usize = 64 * 1024;

/// Where jieba-rs `cut` would cut anyway: it splits its input into runs of characters of
/// its class `[CJK ideographs a-zA-Z0-9+#&._%-]`, which it segments with its dictionary,
/// and emits every other character as a token of its own (`\r\n` as one). So right after
/// a character outside that class, other than `\r`, the tokens of the text are the tokens
/// of the part before followed by those of the part after. These are the ones taken:
/// ASCII whitespace and punctuation outside the class, and the ideographic full stop.
#[inline]
fn is_piece_end(c: char) -> bool {
    match c {
        '\r' => false,
        '+' | '#' | '&' | '.' | '_' | '%' | '-' => false,
        '\u{3002}' => true,
        c => c.is_ascii_whitespace() || c.is_ascii_punctuation(),
    }
}

/// The end of the piece of `text` that starts at `start`: the end of the first piece end
/// character ([`is_piece_end`]) at or after `start + piece`, or the end of the text.
fn piece_end(text: &str, start: usize, piece: usize) -> usize {
    crate::normalize::find_from(text, start + piece, is_piece_end).map_or(text.len(), |(i, c)| i + c.len_utf8())
}

/// Where [`segment`] puts each feature occurrence.
trait Sink<'a> {
    /// Start a text, with room for about `n` occurrences, forgetting any earlier ones:
    /// [`segment`] calls it first, once per text, on every path (the thread's `Counts`
    /// are reused across texts).
    fn reserve(&mut self, n: usize);
    /// Room for about `n` more occurrences, keeping the earlier ones (the next piece).
    fn grow(&mut self, n: usize);
    /// One occurrence; `text` is only called for a feature not seen before.
    fn add(&mut self, hash: u64, class: Class, text: impl FnOnce() -> Cow<'a, str>);
}

/// Tokenize and filter (see [`extract`]), handing every feature occurrence to `sink`.
/// A text longer than `piece` bytes is cut by jieba in pieces ([`piece_end`]), with a
/// call to `tick` between two pieces; the tokens, and so the features, are the same.
fn segment<'a, S: Sink<'a>>(
    lexicon: &Lexicon,
    normalized: &'a str,
    rules: &Rules,
    sink: &mut S,
    piece: usize,
    tick: &mut dyn FnMut(),
) {
    match rules.tokenizer {
        Tokenizer::Jieba => {
            let drop_single_han = rules.single_han == 0.0;
            // `is_word`: a jieba token known to have a letter or digit (trimming dots keeps
            // it); otherwise a glued run of non-Han tokens.
            let add = |sink: &mut S, word: &'a str, is_word: bool| {
                let word = word.trim_end_matches('.');
                let class = if is_word {
                    if is_single_han(word) {
                        Class::SingleHan
                    } else {
                        Class::Word
                    }
                } else if !has_word_char(word) {
                    return;
                } else if is_number(word) {
                    Class::Number
                } else {
                    Class::Word
                };
                let feature: Cow<'a, str> = match (class, rules.numbers) {
                    (Class::Number, Numbers::Drop) => return,
                    (Class::Number, Numbers::Shape) => {
                        Cow::Owned(word.chars().map(|c| if c == '.' { '.' } else { '0' }).collect())
                    }
                    (Class::SingleHan, _) if drop_single_han => return,
                    _ => Cow::Borrowed(word),
                };
                let hash = hash_feature(feature.as_bytes());
                lexicon.prefetch(hash);
                sink.add(hash, class, || feature);
            };
            // jieba only keeps [a-zA-Z0-9] runs together, so "crème" comes out as
            // "cr" "è" "me": glue adjacent tokens that are letters/digits of any
            // non-Han script back into one word.
            // Offsets are into `normalized`, so a word is glued across two pieces too.
            let mut pending: Option<(usize, usize)> = None;
            let mut start = 0;
            loop {
                let end =
                    if normalized.len() <= piece { normalized.len() } else { piece_end(normalized, start, piece) };
                let tokens = lexicon.jieba.cut(&normalized[start..end], rules.hmm);
                if start == 0 {
                    sink.reserve(tokens.len());
                } else {
                    tick();
                    sink.grow(tokens.len());
                }
                for token in tokens {
                    let word = token.word;
                    let (byte_start, byte_end) = (start + token.byte_start, start + token.byte_end);
                    let kind = kind(word);
                    // A "." continues a word only between letters/digits, as in "4.3".
                    if kind == Kind::NonHanWord || (word == "." && pending.is_some()) {
                        pending = match pending {
                            Some((start, end)) if end == byte_start => Some((start, byte_end)),
                            Some((start, end)) => {
                                add(sink, &normalized[start..end], false);
                                Some((byte_start, byte_end))
                            }
                            None => Some((byte_start, byte_end)),
                        };
                        continue;
                    }
                    if let Some((start, end)) = pending.take() {
                        add(sink, &normalized[start..end], false);
                    }
                    if kind == Kind::Word {
                        add(sink, word, true);
                    }
                }
                if end == normalized.len() {
                    break;
                }
                start = end;
            }
            if let Some((start, end)) = pending {
                add(sink, &normalized[start..end], false);
            }
        }
        Tokenizer::Ngram(n) => {
            let kept: String = normalized.chars().filter(|&c| is_alphanumeric(c)).collect();
            let bounds: Vec<usize> = kept.char_indices().map(|(i, _)| i).chain([kept.len()]).collect();
            let nchars = bounds.len() - 1;
            // Also with no letter or digit at all: reserve empties the thread's reused
            // Counts, which would otherwise still hold the previous text's features.
            let windows = if nchars > 0 { nchars.saturating_sub(n) + 1 } else { 0 };
            sink.reserve(windows);
            for w in 0..windows {
                if w % (1 << 16) == (1 << 16) - 1 {
                    tick();
                }
                let gram = &kept[bounds[w]..bounds[(w + n).min(nchars)]];
                sink.add(hash_feature(gram.as_bytes()), Class::Word, || Cow::Owned(gram.to_owned()));
            }
        }
    }
}

/// Occurrence counts of distinct feature hashes, in order of first occurrence.
///
/// An open-addressing table of indexes into `feats` rather than a `HashMap` beside a
/// `Vec<Feature>`: 16 bytes per feature instead of ~60, no text kept, no rehashing.
#[derive(Default)]
struct Counts {
    /// Linear probing on the low bits of the (xxh3, so well mixed) hash: 1 + the index
    /// in `feats`, 0 for an empty slot. A power of two, at least twice the occurrences.
    slots: Vec<u32>,
    feats: Vec<(u64, u32, Class)>,
}

impl Counts {
    /// Count one occurrence; true if the hash is new.
    #[inline]
    fn count(&mut self, hash: u64, class: Class) -> bool {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.feats.push((hash, 1, class));
                    self.slots[i] = self.feats.len() as u32;
                    return true;
                }
                s => {
                    let feat = &mut self.feats[s as usize - 1];
                    if feat.0 == hash {
                        feat.1 += 1;
                        return false;
                    }
                }
            }
            i = (i + 1) & mask;
        }
    }

    /// Room for `n` more distinct features: at least twice as many slots as features, as
    /// [`Sink::reserve`] makes. The slots are rebuilt from `feats`, whose order (of first
    /// occurrence, which the fold follows) does not change.
    fn grow_for(&mut self, n: usize) {
        let need = (2 * (self.feats.len() + n)).next_power_of_two().max(16);
        if self.slots.len() >= need {
            return;
        }
        self.slots.clear();
        self.slots.resize(need, 0);
        let mask = need - 1;
        for (f, &(hash, _, _)) in self.feats.iter().enumerate() {
            let mut i = hash as usize & mask;
            while self.slots[i] != 0 {
                i = (i + 1) & mask;
            }
            self.slots[i] = f as u32 + 1;
        }
    }

    /// Free the buffers after a very long text rather than keep them for the thread.
    fn release_if_huge(&mut self) {
        if self.slots.len() > 1 << 16 {
            *self = Counts::default();
        }
    }
}

impl<'a> Sink<'a> for Counts {
    fn reserve(&mut self, n: usize) {
        self.slots.clear();
        self.slots.resize((2 * n).next_power_of_two().max(16), 0);
        self.feats.clear();
        self.feats.reserve(n);
    }

    fn grow(&mut self, n: usize) {
        self.grow_for(n);
    }

    #[inline]
    fn add(&mut self, hash: u64, class: Class, _text: impl FnOnce() -> Cow<'a, str>) {
        self.count(hash, class);
    }
}

/// [`Counts`] plus the text of each distinct feature, for [`extract`].
struct WithTexts<'a> {
    counts: Counts,
    texts: Vec<Cow<'a, str>>,
}

impl<'a> Sink<'a> for WithTexts<'a> {
    fn reserve(&mut self, n: usize) {
        self.counts.reserve(n);
    }

    fn grow(&mut self, n: usize) {
        self.counts.grow_for(n);
    }

    #[inline]
    fn add(&mut self, hash: u64, class: Class, text: impl FnOnce() -> Cow<'a, str>) {
        if self.counts.count(hash, class) {
            self.texts.push(text());
        }
    }
}

/// Weights, and stop-word removal, with one lexicon lookup per distinct feature
/// rather than per token: the 270k-entry table is the one structure here that
/// misses the CPU cache. Measured on the People's Daily corpus, looking up per
/// token cost about as much time as jieba's `cut` itself.
struct Weigher<'l> {
    lexicon: &'l Lexicon,
    rules: Rules,
    drop_stop_words: bool,
}

impl<'l> Weigher<'l> {
    fn new(lexicon: &'l Lexicon, rules: &Rules) -> Self {
        Weigher { lexicon, rules: *rules, drop_stop_words: rules.tokenizer == Tokenizer::Jieba }
    }

    /// The weight of a feature seen `count` times, `None` for a dropped stop word.
    /// Definition 0's weights are `count × IDF` exactly: its factors are all 1.
    #[inline]
    fn weight(&self, hash: u64, count: u32, class: Class) -> Option<f64> {
        let entry = self.lexicon.lookup(hash);
        if self.drop_stop_words && entry == Some(Entry::StopWord) {
            return None;
        }
        let r = &self.rules;
        let idf = match (entry, r.unknown_idf) {
            (Some(Entry::Idf(v)), _) => v,
            (_, Some(v)) => v,
            _ => self.lexicon.median_idf,
        };
        let idf = if r.idf_power == 1.0 { idf } else { idf.powf(r.idf_power) };
        let w = match r.weighting {
            Weighting::Tfidf => r.tf.of(count) * idf,
            Weighting::Tf => r.tf.of(count),
            Weighting::Binary => 1.0,
        };
        Some(match class {
            Class::Word => w,
            Class::SingleHan => w * r.single_han,
            Class::Number => w * r.number_weight,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::normalize::normalize;

    fn texts(doc: &str, options: &Options) -> Vec<(String, u32)> {
        let norm = normalize(doc);
        extract(Lexicon::global(), &norm, &options.into()).into_iter().map(|f| (f.text.into_owned(), f.count)).collect()
    }

    fn weights(doc: &str, options: &Options) -> Vec<(String, f64)> {
        let norm = normalize(doc);
        extract(Lexicon::global(), &norm, &options.into())
            .into_iter()
            .map(|f| (f.text.into_owned(), f.weight))
            .collect()
    }

    #[test]
    fn jieba_words_latin_and_numbers() {
        let got = texts("我爱北京天安门，I love Beijing 2008！", &Options::v0());
        let words: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        // 我 and i are stop words; punctuation and spaces are dropped.
        assert_eq!(words, ["爱", "北京", "天安门", "love", "beijing", "2008"]);
    }

    #[test]
    fn accented_and_other_script_words_stay_whole() {
        let got = texts("Crème brûlée 和 Ünïcödé 4.3亿元 привет мир 2026.", &Options::v0());
        let words: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(words, ["crème", "brûlée", "ünïcödé", "4.3", "亿元", "привет", "мир", "2026"]);
    }

    #[test]
    fn counts_and_tfidf_weights() {
        let lex = Lexicon::global();
        let norm = normalize("经济 经济 发展");
        let f = extract(lex, &norm, &(&Options::v0()).into());
        assert_eq!(f[0].text, "经济");
        assert_eq!(f[0].count, 2);
        assert_eq!(f[0].weight, 2.0 * lex.idf(hash_feature("经济".as_bytes())));
        let binary = extract(lex, &norm, &(&Options { weighting: Weighting::Binary, ..Options::v0() }).into());
        assert!(binary.iter().all(|f| f.weight == 1.0));
    }

    #[test]
    fn definition_1_drops_numbers_and_single_characters() {
        let lex = Lexicon::global();
        let idf = |w: &str| lex.idf(hash_feature(w.as_bytes()));
        let got = weights("经济 经济 经济 发展 2008 4.3 爱 Ｂeijing", &Options::default());
        assert_eq!(
            got,
            [
                ("经济".to_string(), 3.0 * idf("经济")),
                ("发展".to_string(), idf("发展")),
                ("beijing".to_string(), lex.median_idf),
            ]
        );
        // Definition 0: numbers at the median IDF, single characters like any word.
        let v0 = weights("经济 经济 经济 2008 爱", &Options::v0());
        assert_eq!(
            v0,
            [
                ("经济".to_string(), 3.0 * idf("经济")),
                ("2008".to_string(), lex.median_idf),
                ("爱".to_string(), idf("爱")),
            ]
        );
        // The other rules `make quality` measured.
        let log = Rules { tf: Tf::Log, single_han: 0.5, ..(&Options::default()).into() };
        let norm = normalize("经济 经济 经济 爱");
        let got: Vec<f64> = extract(lex, &norm, &log).into_iter().map(|f| f.weight).collect();
        assert_eq!(got, [(1.0 + 3f64.ln()) * idf("经济"), 0.5 * idf("爱")]);
    }

    #[test]
    fn short_texts_have_no_fingerprint_under_definition_1() {
        let lex = Lexicon::global();
        let doc = "中国 经济 发展 改革 开放 合作";
        let six = crate::simhash_text(lex, doc, &Options::default());
        assert!(six.is_some());
        assert_eq!(crate::simhash_text(lex, "中国 经济 发展 改革 开放 2026 2027 年", &Options::default()), None);
        // min_features 0: every text, 0 for no features, as definition 0 gives.
        let all = Options { min_features: 0, ..Options::default() };
        assert_eq!(crate::simhash_text(lex, "，。！", &all), Some(0));
        assert_eq!(crate::simhash_text(lex, "，。！", &Options::v0()), Some(0));
        assert_eq!(crate::simhash_text(lex, "，。！", &Options::default()), None);
        // The fingerprint is the fold of the features extract reports.
        let norm = normalize(doc);
        let feats = extract(lex, &norm, &(&Options::default()).into());
        assert_eq!(six, Some(crate::fingerprint(feats.iter().map(|f| (f.hash, f.weight)))));
    }

    #[test]
    fn number_shapes() {
        let rules = Rules { numbers: Numbers::Shape, single_han: 1.0, ..(&Options::default()).into() };
        let norm = normalize("1998年 4.3亿 ١٩");
        let got: Vec<String> =
            extract(Lexicon::global(), &norm, &rules).into_iter().map(|f| f.text.into_owned()).collect();
        assert_eq!(got, ["0000", "年", "0.0", "亿", "00"]);
    }

    #[test]
    fn unknown_words_get_the_median_idf() {
        let lex = Lexicon::global();
        assert_eq!(lex.idf(hash_feature(b"qwxzvbnmunknown")), lex.median_idf);
    }

    #[test]
    fn ngrams_skip_punctuation_and_short_texts_are_one_feature() {
        let o = Options::new(crate::Definition::V0, Tokenizer::Ngram(2), Weighting::Tf);
        assert_eq!(texts("ab, ab", &o), [("ab".to_string(), 2), ("ba".to_string(), 1)]);
        assert_eq!(texts("中", &o), [("中".to_string(), 1)]);
        assert!(texts("，。!", &o).is_empty());
    }

    #[test]
    fn alphanumeric_table_equals_std() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "{c:?}");
        }
    }

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

    /// Every feature occurrence of `normalized` with jieba pieces of `piece` bytes, and the
    /// number of ticks.
    fn occurrences(normalized: &str, rules: &Rules, piece: usize) -> (Vec<(u64, u32, Class)>, Vec<String>, usize) {
        let mut acc = WithTexts { counts: Counts::default(), texts: Vec::new() };
        let mut ticks = 0;
        segment(Lexicon::global(), normalized, rules, &mut acc, piece, &mut || ticks += 1);
        (acc.counts.feats, acc.texts.into_iter().map(Cow::into_owned).collect(), ticks)
    }

    #[test]
    fn long_texts_are_cut_in_pieces_with_the_same_features() {
        let para = "中共中央总书记、国家主席江泽民发表1998年新年讲话。Crème brûlée 4.3亿元, привет\r\n";
        let text = para.repeat(4000);
        let doc = normalize(&text);
        assert!(doc.len() > 4 * PIECE_BYTES);
        for o in [Options::default(), Options::v0()] {
            let rules = Rules::from(&o);
            let (whole, texts, none) = occurrences(&doc, &rules, usize::MAX);
            let (pieces, texts2, ticks) = occurrences(&doc, &rules, PIECE_BYTES);
            assert_eq!(none, 0);
            assert!(ticks >= 4, "{ticks}");
            assert_eq!((whole, texts), (pieces, texts2));
            let mut n = 0;
            let fp = fingerprint_normalized_with(Lexicon::global(), &doc, &rules, &mut || n += 1);
            assert_eq!(fp, fingerprint_normalized(Lexicon::global(), &doc, &rules));
            assert_eq!(n, ticks);
        }
    }

    /// The whole People's Daily corpus as one 5.5 MB text (when `make corpus` has fetched
    /// it): 85 pieces, the same features as one `cut`.
    #[test]
    fn corpus_as_one_text_in_pieces() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../../target/corpus/peoples_daily_199801.txt");
        let Ok(text) = std::fs::read_to_string(path) else { return };
        let doc = normalize(&text);
        for o in [Options::default(), Options::v0()] {
            let rules = Rules::from(&o);
            let (whole, texts, _) = occurrences(&doc, &rules, usize::MAX);
            let (pieces, texts2, ticks) = occurrences(&doc, &rules, PIECE_BYTES);
            assert!(ticks > 50, "{ticks}");
            assert!(whole == pieces && texts == texts2);
        }
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(3000))]
        /// Cutting at any piece size gives jieba's tokens, glued words and counts of the
        /// whole text, so the same fingerprint bit for bit.
        #[test]
        fn pieces_do_not_change_features(
            doc in "[a-zA-Z0-9中国经济发展改革开放的了人民日报新华社讲话江泽民é ü ж。，,.!?;:+#&_%\\-\t\r\n 　]{0,80}",
            piece in 1usize..24,
            v0: bool,
        ) {
            let doc = normalize(&doc);
            let rules = Rules::from(&if v0 { Options::v0() } else { Options::default() });
            let (whole, texts, _) = occurrences(&doc, &rules, usize::MAX);
            let (pieces, texts2, _) = occurrences(&doc, &rules, piece);
            proptest::prop_assert_eq!(&whole, &pieces);
            proptest::prop_assert_eq!(texts, texts2);
        }
    }

    #[test]
    fn no_features_for_punctuation_and_stop_words() {
        for o in [Options::v0(), Options::default()] {
            assert!(texts("", &o).is_empty());
            assert!(texts("，。！？ …", &o).is_empty());
            assert!(texts("的 了 the and", &o).is_empty());
        }
    }

    /// A text without letters or digits, under ngram, right after another text on the
    /// same thread: no features, not the previous text's (the reused Counts were not
    /// emptied; found by tests/fuzz.rs).
    #[test]
    fn ngram_text_without_letters_after_another_text() {
        let lex = Lexicon::global();
        for o in [Options::v0(), Options { min_features: 0, ..Options::default() }] {
            let o = Options { tokenizer: Tokenizer::Ngram(3), ..o };
            for empty in ["", "，。！？ …", "\u{200b}"] {
                assert_ne!(crate::simhash_text(lex, "中共中央总书记、国家主席江泽民发表1998年新年讲话", &o), Some(0));
                assert_eq!(crate::simhash_text(lex, empty, &o), Some(0), "{empty:?} under {o:?}");
            }
        }
    }
}
