//! Step 1 of the decision: a text as the tokens a reader compares. The text is normalized as
//! the similarity measure normalizes it (NFKC, lowercase, traditional characters folded to
//! simplified: `normalize_folded`), read in the same pieces, and cut into:
//! - a **wide** token per Han, kana or hangul character (weight [`WIDE`]), since a CJK
//!   character is the unit a CJK reader substitutes ("黑色" → "白色");
//! - a **word** per run of other letters (weight: its characters), the unit a Latin reader
//!   substitutes ("black" → "brown");
//! - a **figure** per run of digits, with a `.` between two digits inside (`3.6`, `10.0.0.5`;
//!   a `,` separates, since "001,41" is a list as often as "1,234" is a number; weight: its
//!   digits).
//!
//! Everything else (punctuation, spaces, symbols) only separates tokens, so that a repost's
//! other punctuation, case or width never decides. A token is its hash (xxh3_64 of its
//! UTF-8 bytes) and where its characters sit in [`Tokens::text`], for explanations.

use xxhash_rust::xxh3::xxh3_64;

use crate::text::{is_wide, normalize_folded, pieces};

/// The weight of a wide character: as in a shingle (similarity/shingles.rs), two Latin
/// characters' worth.
pub const WIDE: u32 = 2;

/// What a token is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// One Han, kana or hangul character.
    Wide,
    /// A run of other letters.
    Word,
    /// A run of digits (with `.` or `,` between two of them).
    Figure,
}

/// One token: its hash, kind, weight, and its characters' byte range in [`Tokens::text`].
#[derive(Debug, Clone, Copy)]
pub struct Token {
    pub hash: u64,
    pub kind: Kind,
    pub weight: u32,
    pub start: u32,
    pub end: u32,
    /// A sentence ends after it: `。！？!?；;` or a line break follows, or a `.` that no
    /// letter or digit follows.
    pub sentence_end: bool,
    /// Punctuation follows it (a clause, list item or parenthesis may end there).
    pub clause_end: bool,
}

/// A text's tokens, in order, and their characters.
#[derive(Default, Debug)]
pub struct Tokens {
    pub tokens: Vec<Token>,
    /// The characters of every token, one after the other.
    pub text: String,
    /// An ellipsis (`…`, `...`, `⋯`) follows the last token: the writer cut the text there.
    pub cut: bool,
    /// Nothing follows the last token but white space: the text may have been cut inside it.
    pub bare_end: bool,
}

/// What a character makes: a figure's digit, a CJK character, a word's letter, or nothing
/// (punctuation, space). One Unicode lookup a character at most, none for ASCII and CJK
/// ideographs: the general lookups were half the time of a Chinese paragraph's tokens.
#[inline]
fn class(c: char) -> Option<Kind> {
    if c.is_ascii() {
        return if c.is_ascii_digit() {
            Some(Kind::Figure)
        } else if c.is_ascii_alphabetic() {
            Some(Kind::Word)
        } else {
            None
        };
    }
    if ('\u{4E00}'..='\u{9FFF}').contains(&c) {
        return Some(Kind::Wide); // unified ideographs: letters (Lo), none numeric
    }
    if crate::text::is_numeric(c) {
        Some(Kind::Figure)
    } else if c.is_alphanumeric() {
        Some(if is_wide(c) { Kind::Wide } else { Kind::Word })
    } else {
        None
    }
}

/// The hash of a one-character CJK token: its code point, mixed (a bijection, so no two
/// characters collide; a word's or figure's xxh3 may equal it with probability 2⁻⁶⁴).
#[inline]
fn wide_hash(c: char) -> u64 {
    (c as u64 ^ 0x5749_4445).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// [`Tokens`] being read, a normalized character at a time.
struct Builder {
    t: Tokens,
    run: Option<Kind>,
    /// A `.` after a figure's digit, kept only if a digit follows.
    separator: Option<char>,
    /// A `.` after the last token: a sentence end unless a letter or digit follows.
    dot: bool,
    /// The punctuation after the last token (the last few characters of it).
    tail: String,
}

impl Builder {
    fn new(len: usize) -> Builder {
        let mut t = Tokens::default();
        t.text.reserve(len);
        t.tokens.reserve(len / 3);
        Builder { t, run: None, separator: None, dot: false, tail: String::new() }
    }

    #[inline]
    fn push(&mut self, c: char) {
        let t = &mut self.t;
        let class = class(c);
        if class.is_some() {
            self.tail.clear();
        } else if self.tail.len() < 16 {
            self.tail.push(c);
        }
        if self.dot && class.is_none() {
            t.end_sentence();
        }
        self.dot = false;
        let kind = match class {
            None if c == '_' && self.run == Some(Kind::Word) => Some(Kind::Word),
            k => k,
        };
        match kind {
            Some(Kind::Figure) if self.run == Some(Kind::Figure) => {
                if let Some(s) = self.separator.take() {
                    t.text.push(s);
                }
                t.text.push(c);
            }
            Some(Kind::Word) if self.run == Some(Kind::Word) => t.text.push(c),
            Some(Kind::Wide) => {
                t.close(&mut self.run);
                if self.separator.take().is_some() {
                    t.end_clause();
                }
                t.wide(c);
            }
            Some(k) => {
                t.close(&mut self.run);
                if self.separator.take().is_some() {
                    t.end_clause();
                }
                t.open(k, c);
                self.run = Some(k);
            }
            None if c == '.' && self.run == Some(Kind::Figure) && self.separator.is_none() => {
                self.separator = Some(c);
            }
            None => {
                t.close(&mut self.run);
                // A figure's trailing `.` or `,` is punctuation after all, and `c` follows it.
                let trailing = self.separator.take();
                if trailing.is_some() || !c.is_whitespace() {
                    t.end_clause();
                }
                self.dot = c == '.';
                if trailing == Some('.') || matches!(c, '。' | '!' | '?' | '！' | '？' | ';' | '；' | '\n') {
                    t.end_sentence();
                }
            }
        }
    }

    fn finish(mut self) -> Tokens {
        let t = &mut self.t;
        t.close(&mut self.run);
        t.end_sentence();
        // NFKC makes `…` three dots.
        t.cut = self.tail.contains("...") || self.tail.contains('⋯');
        t.bare_end = self.tail.chars().all(char::is_whitespace);
        self.t
    }
}

impl Tokens {
    /// The tokens of `doc`; `tick` after every piece (a check for cancellation).
    pub fn of(doc: &str, tick: &mut dyn FnMut()) -> Tokens {
        let mut b = Builder::new(doc.len());
        for piece in pieces(doc) {
            for c in normalize_folded(piece).chars() {
                b.push(c);
            }
            tick();
        }
        b.finish()
    }

    /// The tokens of `doc` as decision 3 reads it: normalized, list markers read past and
    /// Chinese numerals read as digits (`super::reading`); `tick` after every piece.
    pub fn of_read(doc: &str, tick: &mut dyn FnMut()) -> Tokens {
        let mut b = Builder::new(doc.len());
        for piece in pieces(doc) {
            for c in super::reading::read(&normalize_folded(piece)).chars() {
                b.push(c);
            }
            tick();
        }
        b.finish()
    }

    /// [`Tokens::of_read`] of a text already normalized (a bulk run's spilled text).
    pub fn of_normalized_read(text: &str, tick: &mut dyn FnMut()) -> Tokens {
        let mut b = Builder::new(text.len());
        for piece in pieces(text) {
            for c in super::reading::read(piece).chars() {
                b.push(c);
            }
            tick();
        }
        b.finish()
    }

    /// The tokens of a text already normalized as [`Tokens::of`] normalizes (the bulk runs'
    /// spilled texts: the pieces' normalized forms one after the other): the same tokens as
    /// of the text it came from, without normalizing again (a fifth of the time).
    pub fn of_normalized(text: &str, tick: &mut dyn FnMut()) -> Tokens {
        let mut b = Builder::new(text.len());
        for piece in pieces(text) {
            for c in piece.chars() {
                b.push(c);
            }
            tick();
        }
        b.finish()
    }

    /// Marks the last token, if any, as ending a sentence (and so a clause).
    fn end_sentence(&mut self) {
        if let Some(t) = self.tokens.last_mut() {
            t.sentence_end = true;
            t.clause_end = true;
        }
    }

    /// Marks the last token, if any, as ending a clause.
    fn end_clause(&mut self) {
        if let Some(t) = self.tokens.last_mut() {
            t.clause_end = true;
        }
    }

    /// Starts a token of kind `k` with the character `c`.
    fn open(&mut self, k: Kind, c: char) {
        let start = self.text.len() as u32;
        self.text.push(c);
        self.tokens.push(Token {
            hash: 0,
            kind: k,
            weight: 0,
            start,
            end: start,
            sentence_end: false,
            clause_end: false,
        });
    }

    /// A token of one CJK character: its hash from the character itself (xxh3 of the bytes of
    /// each such token was a fifth of the time of a Chinese paragraph's tokens).
    fn wide(&mut self, c: char) {
        let start = self.text.len() as u32;
        self.text.push(c);
        self.tokens.push(Token {
            hash: wide_hash(c),
            kind: Kind::Wide,
            weight: WIDE,
            start,
            end: self.text.len() as u32,
            sentence_end: false,
            clause_end: false,
        });
    }

    /// Ends the token being read, if any.
    fn close(&mut self, run: &mut Option<Kind>) {
        if run.take().is_none() {
            return;
        }
        let t = self.tokens.last_mut().expect("an open token");
        t.end = self.text.len() as u32;
        let s = &self.text[t.start as usize..t.end as usize];
        t.hash = xxh3_64(s.as_bytes());
        t.weight = match t.kind {
            Kind::Wide => WIDE,
            Kind::Word => s.chars().count() as u32,
            Kind::Figure => s.chars().filter(|&c| crate::text::is_numeric(c)).count() as u32,
        };
    }

    /// The characters of token `i`.
    pub fn str(&self, i: usize) -> &str {
        let t = &self.tokens[i];
        &self.text[t.start as usize..t.end as usize]
    }

    /// The token ranges of the text's sentences, in order (each ends at a sentence end).
    pub fn sentences(&self) -> Vec<(usize, usize)> {
        let mut out = Vec::new();
        let mut start = 0;
        for (i, t) in self.tokens.iter().enumerate() {
            if t.sentence_end {
                out.push((start, i + 1));
                start = i + 1;
            }
        }
        if start < self.tokens.len() {
            out.push((start, self.tokens.len()));
        }
        out
    }

    /// One hash of the tokens `r`, in order (equal runs of tokens hash equal).
    pub fn run_hash(&self, r: std::ops::Range<usize>) -> u64 {
        self.tokens[r].iter().fold(0u64, |h, x| h.rotate_left(5) ^ x.hash.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// The tokens' hashes, in order.
    pub fn hashes(&self) -> Vec<u64> {
        self.tokens.iter().map(|t| t.hash).collect()
    }

    /// The text's distinct figures, ascending.
    fn figure_set(&self) -> Vec<u64> {
        let mut f: Vec<u64> = self.tokens.iter().filter(|t| t.kind == Kind::Figure).map(|t| t.hash).collect();
        f.sort_unstable();
        f.dedup();
        f
    }

    /// How many distinct figures the text has.
    pub fn distinct_figures(&self) -> u32 {
        self.figure_set().len() as u32
    }

    /// How many distinct figures both texts have.
    pub fn shared_figures(&self, other: &Tokens) -> u32 {
        let (a, b) = (self.figure_set(), other.figure_set());
        a.iter().filter(|h| b.binary_search(h).is_ok()).count() as u32
    }

    /// The sum of the tokens' weights.
    pub fn weight(&self) -> u64 {
        self.tokens.iter().map(|t| u64::from(t.weight)).sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(doc: &str) -> Vec<(String, Kind, u32)> {
        let t = Tokens::of(doc, &mut || ());
        (0..t.tokens.len()).map(|i| (t.str(i).to_owned(), t.tokens[i].kind, t.tokens[i].weight)).collect()
    }

    #[test]
    fn kinds_and_weights() {
        use Kind::*;
        let s = |x: &str| x.to_owned();
        assert_eq!(
            strs("Leather case for iPhone 13, BLACK"),
            [
                (s("leather"), Word, 7),
                (s("case"), Word, 4),
                (s("for"), Word, 3),
                (s("iphone"), Word, 6),
                (s("13"), Figure, 2),
                (s("black"), Word, 5)
            ]
        );
        assert_eq!(
            strs("小米手環７ NFC版"),
            [
                (s("小"), Wide, 2),
                (s("米"), Wide, 2),
                (s("手"), Wide, 2),
                (s("环"), Wide, 2),
                (s("7"), Figure, 1),
                (s("nfc"), Word, 3),
                (s("版"), Wide, 2)
            ]
        );
        // Separators inside figures, as measure 2's figures; a trailing one ends the figure.
        assert_eq!(
            strs("total 1,234.50 EUR, due 2024-01-02."),
            [
                (s("total"), Word, 5),
                (s("1"), Figure, 1),
                (s("234.50"), Figure, 5),
                (s("eur"), Word, 3),
                (s("due"), Word, 3),
                (s("2024"), Figure, 4),
                (s("01"), Figure, 2),
                (s("02"), Figure, 2)
            ]
        );
        assert!(strs("，。 — !").is_empty());
    }

    #[test]
    fn pieces_make_the_same_tokens() {
        let unit = "Straße 中國 ﾃｽﾄ 3.5 ";
        let doc = unit.repeat(crate::text::PIECE / unit.len() * 3);
        let t = Tokens::of(&doc, &mut || ());
        let one = Tokens::of(unit, &mut || ());
        assert_eq!(t.tokens.len(), one.tokens.len() * (doc.len() / unit.len()));
    }
}
