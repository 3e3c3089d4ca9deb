//! Cutting a normalized text into feature occurrences: jieba segmentation (in pieces for
//! a long text) with non-Han words glued back together, or character n-grams.

use std::borrow::Cow;
use std::ops::Range;

use super::chars::{is_alphanumeric, script, Script};
use super::fold::hash_feature;
use super::lexicon::Lexicon;
use super::options::Tokenizer;
use super::rules::{kind, Class, Kind, Rules};
use crate::text::find_from;

/// A normalized text longer than this is segmented in pieces of about this many bytes,
/// with a call to the caller's `tick` between two pieces: jieba's time grows with the
/// text, so a text of tens of megabytes would otherwise run long without a chance to
/// cancel. Shorter texts (all paragraphs and articles) take the one-piece path.
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
    find_from(text, start + piece, is_piece_end).map_or(text.len(), |(i, c)| i + c.len_utf8())
}

/// Where [`segment`] puts each feature occurrence.
pub(super) trait Sink<'a> {
    /// Start a text, with room for about `n` occurrences, forgetting any earlier ones:
    /// [`segment`] calls it first, once per text, on every path (the thread's counts
    /// are reused across texts).
    fn reserve(&mut self, n: usize);
    /// Room for about `n` more occurrences, keeping the earlier ones (the next piece).
    fn grow(&mut self, n: usize);
    /// One occurrence, at bytes `at` of the normalized text; `text` is only called for a
    /// feature not seen before.
    fn add(&mut self, hash: u64, class: Class, at: Range<usize>, text: impl FnOnce() -> Cow<'a, str>);
    /// The end of a sentence ([`is_sentence_end`]), `at` the byte of the normalized text
    /// right after its end mark; only the segment fingerprints (runs.rs) care.
    #[inline]
    fn sentence_end(&mut self, _at: usize) {}
}

/// Whether a jieba token ends a sentence: `。`, `!`, `?`, `;` (NFKC has made the full-width
/// forms ASCII), a line break, or white space right after a token ending in `.` (Latin
/// script). Each is a character jieba emits as a token of its own, outside the runs it
/// segments, so the tokens of a run of sentences are the tokens of its text alone.
#[inline]
fn is_sentence_end(token: &str, after_dot: bool) -> bool {
    match token {
        "\u{3002}" | "!" | "?" | ";" | "\n" | "\r\n" | "\r" => true,
        _ => after_dot && token.chars().all(char::is_whitespace) && !token.is_empty(),
    }
}

/// Tokenize and filter (see [`extract`](super::extract)), handing every feature
/// occurrence to `sink`. A text longer than `piece` bytes is cut by jieba in pieces
/// ([`piece_end`]), with a call to `tick` between two pieces; the tokens, and so the
/// features, are the same.
pub(super) fn segment<'a, S: Sink<'a>>(
    lexicon: &Lexicon,
    normalized: &'a str,
    rules: &Rules,
    sink: &mut S,
    piece: usize,
    tick: &mut dyn FnMut(),
) {
    match rules.tokenizer {
        Tokenizer::Jieba => {
            let one = |sink: &mut S, at: usize, word: &'a str, is_word: bool| {
                if let Some((class, feature)) = rules.feature(word, is_word) {
                    let hash = hash_feature(feature.as_bytes());
                    lexicon.prefetch(hash);
                    sink.add(hash, class, at..at + word.len(), || feature);
                }
            };
            // `at`: where `word` starts in `normalized`.
            let add = |sink: &mut S, at: usize, word: &'a str, is_word: bool| {
                // An ASCII word is one part: no kana to cut at.
                if rules.kana && !is_word && !word.is_ascii() {
                    for (offset, part) in kana_parts(word) {
                        one(sink, at + offset, part, false);
                    }
                } else {
                    one(sink, at, word, is_word);
                }
            };
            // jieba only keeps [a-zA-Z0-9] runs together, so "crème" comes out as
            // "cr" "è" "me": glue adjacent tokens that are letters/digits of any
            // non-Han script back into one word.
            // Offsets are into `normalized`, so a word is glued across two pieces too.
            let mut pending: Option<(usize, usize)> = None;
            let mut after_dot = false;
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
                    let dot = std::mem::replace(&mut after_dot, word.ends_with('.'));
                    // A "." continues a word only between letters/digits, as in "4.3".
                    if kind == Kind::NonHanWord || (word == "." && pending.is_some()) {
                        pending = match pending {
                            Some((start, end)) if end == byte_start => Some((start, byte_end)),
                            Some((start, end)) => {
                                add(sink, start, &normalized[start..end], false);
                                Some((byte_start, byte_end))
                            }
                            None => Some((byte_start, byte_end)),
                        };
                        continue;
                    }
                    if let Some((start, end)) = pending.take() {
                        add(sink, start, &normalized[start..end], false);
                    }
                    if kind == Kind::Word {
                        add(sink, byte_start, word, true);
                    } else if is_sentence_end(word, dot) {
                        sink.sentence_end(byte_end);
                    }
                }
                if end == normalized.len() {
                    break;
                }
                start = end;
            }
            if let Some((start, end)) = pending {
                add(sink, start, &normalized[start..end], false);
            }
        }
        Tokenizer::Ngram(n) => {
            // In one pass: the letters and digits (`kept`), where each starts in `kept`
            // (`bounds`, with the end), and the bytes of each in `normalized` (`spans`).
            let (mut kept, mut bounds, mut spans) = (String::new(), Vec::new(), Vec::new());
            for (i, c) in normalized.char_indices().filter(|&(_, c)| is_alphanumeric(c)) {
                bounds.push(kept.len());
                kept.push(c);
                spans.push((i, i + c.len_utf8()));
            }
            bounds.push(kept.len());
            let nchars = bounds.len() - 1;
            // Also with no letter or digit at all: reserve empties the thread's reused
            // counts, which would otherwise still hold the previous text's features.
            let windows = if nchars > 0 { nchars.saturating_sub(n) + 1 } else { 0 };
            sink.reserve(windows);
            for w in 0..windows {
                if w % (1 << 16) == (1 << 16) - 1 {
                    tick();
                }
                let end = (w + n).min(nchars);
                let gram = &kept[bounds[w]..bounds[end]];
                let at = spans[w].0..spans[end - 1].1;
                sink.add(hash_feature(gram.as_bytes()), Class::Word, at, || Cow::Owned(gram.to_owned()));
            }
        }
    }
}

/// The parts of a glued non-Han word (definition 3's `kana` rule): its runs of one script,
/// hiragana runs left out, with their byte offsets. A prolonged sound mark or an iteration
/// mark continues the run it follows.
fn kana_parts(word: &str) -> impl Iterator<Item = (usize, &str)> {
    let mut parts = Vec::new();
    let mut start = 0;
    let mut current: Option<Script> = None;
    for (i, c) in word.char_indices() {
        let s = match (script(c), current) {
            (Script::Mark, Some(s)) => s,
            (s, _) => s,
        };
        if current.is_some_and(|cur| cur != s) {
            parts.push((start, current, &word[start..i]));
            start = i;
        }
        current = Some(s);
    }
    parts.push((start, current, &word[start..]));
    parts.into_iter().filter(|&(_, s, _)| s != Some(Script::Hiragana)).map(|(at, _, part)| (at, part))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprints::value::weight::{Counts, WithTexts};
    use crate::fingerprints::value::{extract, fingerprint_normalized, fingerprint_normalized_with, Options};
    use crate::text::normalize;

    fn texts(doc: &str, options: &Options) -> Vec<(String, u32)> {
        let norm = normalize(doc);
        extract(Lexicon::global(), &norm, &options.into()).into_iter().map(|f| (f.text.into_owned(), f.count)).collect()
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
    fn ngrams_skip_punctuation_and_short_texts_are_one_feature() {
        let o = Options::new(
            crate::fingerprints::value::Definition::V0,
            Tokenizer::Ngram(2),
            crate::fingerprints::value::Weighting::Tf,
        );
        assert_eq!(texts("ab, ab", &o), [("ab".to_string(), 2), ("ba".to_string(), 1)]);
        assert_eq!(texts("中", &o), [("中".to_string(), 1)]);
        assert!(texts("，。!", &o).is_empty());
    }

    #[test]
    fn no_features_for_punctuation_and_stop_words() {
        for o in [Options::v0(), Options::default()] {
            assert!(texts("", &o).is_empty());
            assert!(texts("，。！？ …", &o).is_empty());
            assert!(texts("的 了 the and", &o).is_empty());
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

    /// Every occurrence's bytes in the normalized text.
    struct Spans(Vec<Range<usize>>);

    impl<'a> Sink<'a> for Spans {
        fn reserve(&mut self, _: usize) {
            self.0.clear();
        }
        fn grow(&mut self, _: usize) {}
        fn add(&mut self, _: u64, _: Class, at: Range<usize>, _: impl FnOnce() -> Cow<'a, str>) {
            self.0.push(at);
        }
    }

    #[test]
    fn occurrences_know_their_bytes() {
        fn spans<'a>(doc: &'a str, o: &Options) -> Vec<&'a str> {
            let mut sink = Spans(Vec::new());
            segment(Lexicon::global(), doc, &Rules::from(o), &mut sink, usize::MAX, &mut || ());
            sink.0.into_iter().map(|r| &doc[r]).collect()
        }
        // An n-gram covers its first character to its last, punctuation between them included.
        let ngram = Options::new(
            crate::fingerprints::value::Definition::V0,
            Tokenizer::Ngram(2),
            crate::fingerprints::value::Weighting::Tf,
        );
        assert_eq!(spans("ab, cé", &ngram), ["ab", "b, c", "cé"]);
        // A word, a glued word, a katakana part of one.
        assert_eq!(spans("经济 crème ユーザーを", &Options::default()), ["经济", "crème", "ユーザー"]);
    }

    #[test]
    fn kana_runs_are_cut_by_script_and_hiragana_dropped() {
        let parts: Vec<(usize, &str)> = kana_parts("debianパッケージをinstallする").collect();
        assert_eq!(parts, [(0, "debian"), (6, "パッケージ"), (24, "install")]);
        // A prolonged sound mark continues its run; a word of hiragana alone makes nothing.
        assert_eq!(kana_parts("すごーい").count(), 0);
        assert_eq!(kana_parts("ユーザー").collect::<Vec<_>>(), [(0, "ユーザー")]);
        // Definition 3's features of a Japanese sentence: no particles, katakana words whole.
        let got = texts("パッケージをインストールするには、aptコマンドを使います。", &Options::default());
        let words: Vec<&str> = got.iter().map(|(t, _)| t.as_str()).collect();
        assert_eq!(words, ["パッケージ", "インストール", "apt", "コマンド"]);
        // Definition 2 glues the whole run and keeps the particles.
        let v2 = texts("パッケージをインストールするには、aptコマンドを使います。", &Options::v2());
        assert!(v2.iter().any(|(t, _)| t == "パッケージをインストールするには"), "{v2:?}");
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
}
