//! Step 1 of the similarity measure: a text's shingles, as a stream of 64-bit hashes.
//!
//! The text is normalized as definition 3's fingerprints normalize it (NFKC, lowercase,
//! traditional characters folded to simplified: [`normalize_folded`]); then only letters
//! and digits are kept (`char::is_alphanumeric`), so that punctuation, spaces and line
//! breaks never decide. Digits are what the two [`Version`]s of the measure differ in:
//! measure 2 keeps them as written (an invoice, a price, a date is content: two rows that
//! differ only in their figures are different rows), measure 1 (4.x) read every one as `0`.
//! A *shingle* is the shortest run of consecutive kept characters ending at each
//! character whose width is at least [`WIDTH`], a wide character (Han, kana, hangul)
//! counting [`WIDE`]: three Chinese or Japanese characters, five Latin letters or digits,
//! in one rule for mixed text. A changed character changes at most 5 shingles, in any script.
//! A text whose kept characters are narrower than one shingle is one shingle, the whole;
//! a text with none has none. A shingle's hash is xxh3_64 of its UTF-8 bytes.
//!
//! Measure 2 also reads a text's *figures* ([`Figures`]): each maximal run of digits in the
//! normalized text, with a `.` or `,` between two digits kept inside (`1,234.5`, `3.6`,
//! `2024`, `01` and `02` of `2024-01-02`), as the xxh3_64 of its UTF-8 bytes. How many of
//! them two texts share scales the measure (measure.rs): rows that differ only in their
//! figures are different rows, however much text they share.
//!
//! The text is read in pieces of about [`PIECE`] bytes, each cut before a character where
//! neither NFKC nor lowercasing looks across (see [`crate::text::is_cut`]), so that a long text never
//! has a normalized copy of its own: memory is a piece, whatever the text's length.

use xxhash_rust::xxh3::{xxh3_64, Xxh3Default};

use crate::text::{is_wide, normalize_folded, pieces};

/// The width of a shingle (module docs): `WIDTH` narrow characters, or `WIDTH / WIDE`
/// rounded up wide ones. Measured on `make quality`'s sets and the index's candidates
/// (docs/similarity.md, "Choosing the shingle"): 3-grams are the judge's own unit, but 36k
/// English paragraphs hold only 4,273 distinct letter trigrams, so an index on them draws
/// most of a table; 5 letters are selective, and 3 Han characters already are.
pub const WIDTH: u32 = 5;
/// The width of a wide character (module docs).
pub const WIDE: u32 = 2;
/// Shingles between two calls of the `tick` callback (a check for cancellation).
pub const TICK: u32 = 1 << 16;

/// The widest a shingle can be, in characters.
const MAX_CHARS: usize = WIDTH as usize;

/// A version of the measure: which shingles a text has. Both are contracts: a similarity,
/// an index key or a bulk pair of one version never changes (docs/similarity.md, "Measures").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// simhash 4.x's measure (`simhash_similarity_m1` and kin since 5.0.0): every digit read
    /// as `0`, so that rows differing only in their figures score 1.
    M1,
    /// simhash 5.0's measure: digits as written.
    M2,
}

impl Version {
    /// The kept form of a normalized character under this version: a digit as `0` (measure
    /// 1) or as written (measure 2), a letter as itself, `None` for anything else.
    #[inline]
    pub fn kept(self, c: char) -> Option<char> {
        if c.is_ascii() {
            return match c {
                '0'..='9' if self == Version::M1 => Some('0'),
                '0'..='9' | 'a'..='z' | 'A'..='Z' => Some(c),
                _ => None,
            };
        }
        if self == Version::M1 && crate::text::is_numeric(c) {
            Some('0')
        } else if crate::text::is_alphanumeric(c) {
            // The bitset, not `char::is_alphanumeric`: the same answer (its test), where std
            // searched two Unicode tables for each punctuation mark, 6.9% of a short dedup
            // insert at 1M rows (perf).
            Some(c)
        } else {
            None
        }
    }

    /// The version's number, as SQL names it (`_m1`).
    pub fn number(self) -> u8 {
        match self {
            Version::M1 => 1,
            Version::M2 => 2,
        }
    }
}

/// The width of `c` in a shingle.
#[inline]
fn width(c: char) -> u32 {
    if is_wide(c) {
        WIDE
    } else {
        1
    }
}

/// Calls `each` with every kept character of `doc` under version `v` (module docs), in
/// order; `tick` after each piece and every [`TICK`] kept characters.
pub fn for_each_char(doc: &str, v: Version, tick: &mut dyn FnMut(), mut each: impl FnMut(char)) {
    for_each_item(doc, v, tick, |item| {
        if let Item::Char(c) = item {
            each(c);
        }
    });
}

/// What [`for_each_item`] reads of a text: a kept character, or a figure's hash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Item {
    Char(char),
    Figure(u64),
}

/// As [`for_each_char`], and, when `v` reads figures (measure 2; module docs), the hash of
/// each figure of `doc` as soon as it ends, in order, repeats included.
pub fn for_each_item(doc: &str, v: Version, tick: &mut dyn FnMut(), mut each: impl FnMut(Item)) {
    let mut figures = (v == Version::M2).then(Figures::default);
    scan(doc, v, tick, figures.as_mut(), |item, _| each(item));
}

/// [`for_each_item`] with the figures read by `figures` (none: no figure), whose text, if it
/// keeps it, comes with each ([`Figures::with_text`]; `""` with a character).
pub fn scan(
    doc: &str,
    v: Version,
    tick: &mut dyn FnMut(),
    figures: Option<&mut Figures>,
    each: impl FnMut(Item, &str),
) {
    scan_normalized(doc, v, tick, figures, each, |_| ());
}

/// [`for_each_item`], and `normalized` with every character of the normalized text, kept or
/// not (the dedup decision's text: `crate::decision::tokens` reads it as it reads the text).
pub fn for_each_item_normalized(
    doc: &str,
    v: Version,
    tick: &mut dyn FnMut(),
    mut each: impl FnMut(Item),
    normalized: impl FnMut(char),
) {
    let mut figures = (v == Version::M2).then(Figures::default);
    scan_normalized(doc, v, tick, figures.as_mut(), |item, _| each(item), normalized);
}

/// [`scan`], with `normalized` called with every character of the normalized text first.
fn scan_normalized(
    doc: &str,
    v: Version,
    tick: &mut dyn FnMut(),
    mut figures: Option<&mut Figures>,
    mut each: impl FnMut(Item, &str),
    mut normalized: impl FnMut(char),
) {
    let mut n = 0u32;
    for piece in pieces(doc) {
        for c in normalize_folded(piece).chars() {
            normalized(c);
            if let Some(f) = figures.as_deref_mut() {
                f.push(c, &mut |h, text| each(Item::Figure(h), text));
            }
            let Some(c) = v.kept(c) else { continue };
            each(Item::Char(c), "");
            n += 1;
            if n == TICK {
                n = 0;
                tick();
            }
        }
        tick();
    }
    if let Some(f) = figures {
        f.finish(&mut |h, text| each(Item::Figure(h), text));
    }
}

/// The figures of a stream of normalized characters (module docs): a digit is a character
/// with `char::is_numeric`, as measure 1 reads digits; a `.` or `,` between two digits belongs
/// to the figure. Each is hashed as it streams past (xxh3 of its UTF-8 bytes, computed
/// incrementally), so that a text of a million digits takes no more memory than one of two;
/// [`Figures::with_text`] also keeps each figure's text (`simhash_explain`).
#[derive(Default)]
pub struct Figures {
    /// The figure being read, if any.
    hash: Option<Xxh3Default>,
    /// A `.` or `,` after the figure's last digit, kept only if a digit follows.
    separator: Option<char>,
    /// The figure's text, when kept.
    text: Option<String>,
}

impl Figures {
    /// A reader that also keeps each figure's text.
    pub fn with_text() -> Figures {
        Figures { text: Some(String::new()), ..Figures::default() }
    }

    /// Takes the next normalized character; calls `out` with a figure that ends before it.
    #[inline]
    pub fn push(&mut self, c: char, out: &mut impl FnMut(u64, &str)) {
        let mut buf = [0u8; 4];
        if crate::text::is_numeric(c) {
            let h = self.hash.get_or_insert_with(Xxh3Default::new);
            for c in self.separator.take().into_iter().chain([c]) {
                h.update(c.encode_utf8(&mut buf).as_bytes());
                if let Some(t) = self.text.as_mut() {
                    t.push(c);
                }
            }
        } else if (c == '.' || c == ',') && self.hash.is_some() && self.separator.is_none() {
            self.separator = Some(c);
        } else {
            self.finish(out);
        }
    }

    /// Ends the figure being read, if any.
    #[inline]
    pub fn finish(&mut self, out: &mut impl FnMut(u64, &str)) {
        self.separator = None;
        if let Some(h) = self.hash.take() {
            out(h.digest(), self.text.as_deref().unwrap_or(""));
            if let Some(t) = self.text.as_mut() {
                t.clear();
            }
        }
    }
}

/// The shingles of a stream of kept characters: a window of the last [`MAX_CHARS`]
/// characters and their widths, narrowed to the shortest suffix of width [`WIDTH`].
#[derive(Default)]
pub struct Window {
    chars: [char; MAX_CHARS],
    /// Characters in the window (at most `MAX_CHARS`), the newest at `chars[len - 1]`.
    len: usize,
    /// Every kept character so far.
    seen: u64,
    /// The characters of a text narrower than a shingle, until it is one.
    whole: String,
}

impl Window {
    /// Takes the next kept character; the hash of the shingle ending at it, if there is one.
    #[inline]
    pub fn push(&mut self, c: char) -> Option<u64> {
        if self.len == MAX_CHARS {
            self.chars.copy_within(1.., 0);
            self.len -= 1;
        }
        self.chars[self.len] = c;
        self.len += 1;
        self.seen += 1;
        let (from, wide_enough) = self.suffix();
        if !wide_enough {
            self.whole.push(c);
            return None;
        }
        self.whole.clear();
        Some(hash_chars(&self.chars[from..self.len]))
    }

    /// The start in `chars` of the shortest suffix of width `WIDTH`, and whether there is one.
    #[inline]
    fn suffix(&self) -> (usize, bool) {
        let mut w = 0;
        for i in (0..self.len).rev() {
            w += width(self.chars[i]);
            if w >= WIDTH {
                return (i, true);
            }
        }
        (0, false)
    }

    /// At the end of the text: the one shingle of a text narrower than a shingle, if it has
    /// any kept character.
    pub fn finish(&mut self) -> Option<u64> {
        let whole = std::mem::take(&mut self.whole);
        (self.seen > 0 && self.seen as usize == whole.chars().count()).then(|| xxh3_64(whole.as_bytes()))
    }

    /// The characters of the current shingle (after a `push` that returned one).
    pub fn current(&self) -> String {
        let (from, _) = self.suffix();
        self.chars[from..self.len].iter().collect()
    }
}

/// xxh3_64 of the UTF-8 bytes of `chars`.
#[inline]
fn hash_chars(chars: &[char]) -> u64 {
    let mut buf = [0u8; 4 * MAX_CHARS];
    let mut n = 0;
    for c in chars {
        n += c.encode_utf8(&mut buf[n..]).len();
    }
    xxh3_64(&buf[..n])
}

/// Calls `each` with the hash of every shingle of `doc` under version `v`, in text order,
/// repeats included; `tick` after every piece and every [`TICK`] kept characters (as
/// [`for_each_char`]).
pub fn for_each_shingle(doc: &str, v: Version, tick: &mut dyn FnMut(), mut each: impl FnMut(u64)) {
    let mut window = Window::default();
    for_each_char(doc, v, tick, |c| {
        if let Some(h) = window.push(c) {
            each(h);
        }
    });
    if let Some(h) = window.finish() {
        each(h);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn widths_and_short_texts() {
        let shingles = |doc: &str| {
            let mut w = Window::default();
            let mut out = Vec::new();
            for_each_char(doc, Version::M2, &mut || (), |c| {
                if w.push(c).is_some() {
                    out.push(w.current());
                }
            });
            (out, w.finish().is_some())
        };
        // 3 Han characters, 5 letters, mixed runs by width; punctuation and case dropped.
        assert_eq!(shingles("新年讲话").0, ["新年讲", "年讲话"]);
        assert_eq!(shingles("Hello, World!").0, ["hello", "ellow", "llowo", "lowor", "oworl", "world"]);
        // The shortest run of width 5 ending at each character: "ab中国" has one, "b中国".
        assert_eq!(shingles("ab中国").0, ["b中国"]);
        assert_eq!(shingles("a中国b").0, ["a中国", "中国b"]);
        // Narrower than one shingle: the whole is one; no letter or digit: none.
        assert_eq!(shingles("abc"), (vec![], true));
        assert_eq!(shingles("，。 "), (vec![], false));
    }

    #[test]
    fn pieces_normalize_as_the_whole() {
        // Pieces end before spaces, ideographs, kana, hangul and between ASCII letters: the
        // kept characters are those of the whole text normalized at once, whatever the cuts.
        let unit = "ΑΣ Σ'b ｶﾞ Straße İstanbul 中國 ﾃｽﾄ 한국어 ΣΑΣ. ";
        let doc = unit.repeat(crate::text::PIECE / unit.len() * 3);
        let mut kept = String::new();
        for_each_char(&doc, Version::M2, &mut || (), |c| kept.push(c));
        let whole: String = normalize_folded(&doc).chars().filter_map(|c| Version::M2.kept(c)).collect();
        assert_eq!(kept, whole);
        assert!(pieces(&doc).count() > 2);
    }

    #[test]
    fn figures() {
        let figures = |doc: &str| {
            let mut out = Vec::new();
            for_each_item(doc, Version::M2, &mut || (), |i| {
                if let Item::Figure(h) = i {
                    out.push(h);
                }
            });
            out
        };
        let h = |s: &str| xxh3_64(s.as_bytes());
        // Separators inside a figure; a trailing one, a hyphen or a second one end it;
        // full-width digits and stops are read as NFKC makes them.
        assert_eq!(figures("total 1,234.50 EUR, due 2024-01-02."), [h("1,234.50"), h("2024"), h("01"), h("02")]);
        assert_eq!(figures("上证指数１１３７．５３，version 3.6.. x"), [h("1137.53"), h("3.6")]);
        assert_eq!(figures("1.2.3 4"), [h("1.2.3"), h("4")]);
        assert!(figures("没有数字 no figures").is_empty());
        // Measure 1 reads none; long runs of digits are one figure, whatever their length.
        let mut none = 0;
        for_each_item("2024", Version::M1, &mut || (), |i| none += usize::from(matches!(i, Item::Figure(_))));
        assert_eq!(none, 0);
        let long = "7".repeat(crate::text::PIECE * 3);
        assert_eq!(figures(&long), [h(&long)]);
    }

    #[test]
    fn long_texts_tick() {
        // No cut in 2 MB of Greek: one piece, and a tick every TICK characters within it.
        let doc = "αβγδ".repeat(1 << 18);
        let mut ticks = 0;
        let mut n = 0;
        for_each_shingle(&doc, Version::M2, &mut || ticks += 1, |_| n += 1);
        assert_eq!(pieces(&doc).count(), 1);
        assert!(ticks >= n / TICK as usize, "{ticks} ticks for {n} shingles");
    }
}
