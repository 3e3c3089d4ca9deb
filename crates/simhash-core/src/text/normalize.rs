//! A text's normal form, step 1 of every measure's pipeline: Unicode NFKC, then lowercase, then (definition 2) the fold of
//! traditional-only characters to simplified ones ([`simplified`]).
//!
//! NFKC folds full-width forms (`１９９８` → `1998`, `ＡＢＣ` → `abc` after lowercasing,
//! `，` → `,`), which Chinese text is full of, so that the same words hash alike.

use std::borrow::Cow;
use std::sync::OnceLock;

use unicode_normalization::char::{canonical_combining_class, decompose_compatible};
use unicode_normalization::{is_nfkc_quick, IsNormalized, UnicodeNormalization};

use super::traditional::simplified;

/// [`Classes`] entries that are not a character (surrogates never are).
const FULL: u16 = 0xD800;
const NOT_BOUNDARY: u16 = 0xD801;

/// Per-character facts for the fast path of [`normalize`], for the BMP: 128 kB, built
/// once per process (throughput.rs `normalize_init_cpu_ms`), a small part of what
/// loading the lexicon takes.
///
/// A character `c` is a *boundary* when the first character of its NFKD form has
/// canonical combining class 0 and NFKC_Quick_Check=Yes: nothing before `c` can then
/// reorder past it or compose with it (the characters that can be the second of a
/// composition are exactly the QC=Maybe ones), so NFKC of a text is NFKC of the part
/// before `c` followed by NFKC of the part from `c` on (UAX #15, boundaries before a
/// starter; ICU's `hasBoundaryBefore`). This takes in `，` and `１`, whose NFKD forms
/// start with plain ASCII. Hangul LV syllables are boundaries before them, but compose
/// with a following T jamo; T and V jamo, like every character that can compose
/// backwards, are QC=Maybe and never boundaries.
///
/// For a boundary, the entry is the character that NFKC then lowercasing turn it into
/// on its own, when that is one BMP character other than `Σ` (whose lowercase depends
/// on its neighbours), [`FULL`] when it is not; [`NOT_BOUNDARY`] for the others.
struct Classes([u16; 0x10000]);

fn is_starter_yes(c: char) -> bool {
    canonical_combining_class(c) == 0 && is_nfkc_quick(std::iter::once(c)) == IsNormalized::Yes
}

fn is_boundary(c: char) -> bool {
    let mut first = None;
    decompose_compatible(c, |d| {
        first.get_or_insert(d);
    });
    is_starter_yes(first.unwrap_or(c))
}

/// The entry of `c` in [`Classes`] (for any `c`, the table holding only the BMP).
fn class(c: char) -> u16 {
    if !is_boundary(c) {
        return NOT_BOUNDARY;
    }
    // A QC=Yes character is its own NFKC form: no NFKC iterator for most of the table.
    let single = if is_starter_yes(c) { only(c.to_lowercase()) } else { only(c.nfkc().flat_map(char::to_lowercase)) };
    match single {
        Some(m) if c.nfkc().ne(['Σ']) && (m as u32) < 0x10000 => m as u16,
        _ => FULL,
    }
}

/// The one item of `it`, if it has exactly one.
fn only(mut it: impl Iterator<Item = char>) -> Option<char> {
    match (it.next(), it.next()) {
        (Some(c), None) => Some(c),
        _ => None,
    }
}

fn classes() -> &'static Classes {
    static CLASSES: OnceLock<Box<Classes>> = OnceLock::new();
    CLASSES.get_or_init(|| {
        let mut t = Box::new(Classes([NOT_BOUNDARY; 0x10000]));
        for c in (0..0x10000).filter_map(char::from_u32) {
            t.0[c as usize] = class(c);
        }
        t
    })
}

/// [`classes`] with every character entry folded by [`simplified`], for [`normalize_folded`]:
/// a second 128 kB table, built on the first folded text, so that folding costs the fast
/// path one lookup per ideograph. An entry whose simplified form is outside the BMP
/// becomes [`FULL`], and [`push_segment`] folds it.
fn folded_classes() -> &'static Classes {
    static FOLDED: OnceLock<Box<Classes>> = OnceLock::new();
    FOLDED.get_or_init(|| {
        let mut t = Box::new(Classes(classes().0));
        for e in t.0.iter_mut() {
            *e = folded(*e);
        }
        t
    })
}

/// A [`Classes`] entry with its character folded by [`simplified`].
fn folded(e: u16) -> u16 {
    // The sentinels are surrogates, no `char`: they stay.
    let Some(c) = char::from_u32(e as u32) else { return e };
    match simplified(c) {
        s if (s as u32) < 0x10000 => s as u32 as u16,
        _ => FULL,
    }
}

impl Classes {
    /// The entry of `c`; outside the BMP computed, and folded when `FOLD` (`🈚` is `無`
    /// after NFKC, so `无`).
    #[inline]
    fn get<const FOLD: bool>(&self, c: char) -> u16 {
        match self.0.get(c as usize) {
            Some(&e) => e,
            None if FOLD => folded(class(c)),
            None => class(c),
        }
    }
}

/// How to emit the segment being scanned (from one boundary to the next).
#[derive(Clone, Copy, PartialEq)]
enum Segment {
    /// One character that is its own NFKC form and lowercase: copied through.
    Copy,
    /// One character that NFKC and lowercasing turn into this one.
    Mapped(char),
    /// Anything else: NFKC of the segment, then lowercase.
    Full,
}

/// NFKC, then Unicode default lowercase (`str::to_lowercase`). Equal, by
/// construction and by the tests below, to `doc.nfkc().collect::<String>().to_lowercase()`.
///
/// Not exactly idempotent: lowercasing can make a letter and a following mark composable
/// (`T` + U+0308 has no precomposed form, `t` + U+0308 is `ẗ`), or put the U+0307 of `İ`
/// (lowercase `i` + U+0307) before a mark of lower combining class (`"İ\u{316}"`); a
/// second pass then composes or reorders them into a canonically equivalent text. It
/// changes nothing when the first pass left no combining mark (tests/fuzz.rs).
///
/// The text is cut before every NFKC boundary (see `Classes`). A segment that is a
/// single character is copied through (ASCII, ideographs, most CJK punctuation) or
/// mapped by table (`，` → `,`, `１` → `1`, `A` → `a`); any other segment (a letter
/// and its combining marks, `…`) is normalized on its own. Lowercasing character by
/// character is `str::to_lowercase` except for the final-sigma rule, which looks at
/// the context of a `Σ`: a text whose NFKC form has one goes the whole-string way.
/// Splitting the text at ideographs only ran the NFKC iterator and allocated a
/// lowercase String for every punctuation mark; the boundary table, then the byte
/// shortcuts below, each made it markedly faster (throughput.rs BREAKDOWN measures it).
pub fn normalize(doc: &str) -> Cow<'_, str> {
    normalize_with::<false>(doc)
}

/// [`normalize`], then every traditional-only character folded to its simplified form
/// ([`simplified`]; definition 2), in the same pass.
pub fn normalize_folded(doc: &str) -> Cow<'_, str> {
    normalize_with::<true>(doc)
}

/// [`normalize`] (`FOLD` false) or [`normalize_folded`]: one body, the fold decided at
/// compile time, so that definition 1's path does not test it.
fn normalize_with<const FOLD: bool>(doc: &str) -> Cow<'_, str> {
    if doc.is_ascii() {
        // ASCII is its own NFKC form.
        return if doc.bytes().any(|b| b.is_ascii_uppercase()) {
            Cow::Owned(doc.to_ascii_lowercase())
        } else {
            Cow::Borrowed(doc)
        };
    }
    let classes = if FOLD { folded_classes() } else { classes() };
    let bytes = doc.as_bytes();
    let mut out = String::with_capacity(doc.len());
    let mut scratch = String::new();
    // doc[..copied] is in `out`; the current segment starts at `start`.
    let (mut copied, mut start, mut segment, mut i) = (0, 0, Segment::Full, 0);
    while i < bytes.len() {
        // Bytes first: ASCII and U+4000..=U+9FFF (lead bytes E4..=E9: ideographs, and
        // the Yijing hexagrams, all copied through) are most of Chinese text.
        let (kind, len) = match bytes[i] {
            b @ b'A'..=b'Z' => (Segment::Mapped(b.to_ascii_lowercase() as char), 1),
            0..=0x7F => (Segment::Copy, 1),
            // Folding: traditional characters are there too, so the table decides.
            0xE4..=0xE9 if !FOLD => (Segment::Copy, 3),
            _ => {
                let c = doc[i..].chars().next().unwrap_or_default();
                let kind = match classes.get::<FOLD>(c) {
                    NOT_BOUNDARY => {
                        // Part of the current segment.
                        segment = Segment::Full;
                        i += c.len_utf8();
                        continue;
                    }
                    FULL => Segment::Full,
                    m if m as u32 == c as u32 => Segment::Copy,
                    // The table holds only characters and the two sentinels.
                    m => Segment::Mapped(char::from_u32(m as u32).unwrap_or_default()),
                };
                (kind, c.len_utf8())
            }
        };
        if segment != Segment::Copy && i > 0 {
            out.push_str(&doc[copied..start]);
            if !push_segment::<FOLD>(&mut out, &mut scratch, &doc[start..i], segment) {
                return Cow::Owned(slow::<FOLD>(doc));
            }
            copied = i;
        }
        (start, segment) = (i, kind);
        i += len;
    }
    if segment == Segment::Copy {
        out.push_str(&doc[copied..]);
    } else {
        out.push_str(&doc[copied..start]);
        if !push_segment::<FOLD>(&mut out, &mut scratch, &doc[start..], segment) {
            return Cow::Owned(slow::<FOLD>(doc));
        }
    }
    Cow::Owned(out)
}

/// [`normalize`] of a long text in pieces of about `piece` bytes, calling `tick` after
/// each, with the same result. A piece ends before an ASCII space, tab or line break or
/// an ideographic full stop `。`: each is an NFKC boundary (a starter that nothing
/// composes with or reorders past), neither cased nor case-ignorable, so neither NFKC
/// nor the final-sigma rule of lowercasing looks across it.
pub fn normalize_pieces<'a>(doc: &'a str, piece: usize, tick: &mut dyn FnMut()) -> Cow<'a, str> {
    in_pieces(doc, piece, tick, normalize)
}

/// `normalize_one` of `doc`, in pieces (see [`normalize_pieces`]; the fold of
/// traditional characters, one character at a time, looks across no cut either).
pub(crate) fn in_pieces<'a>(
    doc: &'a str,
    piece: usize,
    tick: &mut dyn FnMut(),
    normalize_one: fn(&str) -> Cow<'_, str>,
) -> Cow<'a, str> {
    if doc.len() <= piece {
        return normalize_one(doc);
    }
    let mut out = String::with_capacity(doc.len());
    let mut start = 0;
    while start < doc.len() {
        let end = find_from(doc, start + piece, |c| matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{3002}'))
            .map_or(doc.len(), |(i, _)| i);
        out.push_str(&normalize_one(&doc[start..end]));
        tick();
        start = end;
    }
    Cow::Owned(out)
}

/// The first character of `text` at or after byte `at` (rounded up to a character
/// boundary) for which `is_cut` holds, with its byte offset; `None` if there is none.
/// Where the long-text pieces of [`normalize_pieces`] and of jieba's segmentation
/// (`segment::piece_end`) end.
pub(crate) fn find_from(text: &str, mut at: usize, is_cut: impl Fn(char) -> bool) -> Option<(usize, char)> {
    if at >= text.len() {
        return None;
    }
    while !text.is_char_boundary(at) {
        at += 1;
    }
    text[at..].char_indices().find(|&(_, c)| is_cut(c)).map(|(i, c)| (at + i, c))
}

/// Append the NFKC lowercase (and with `FOLD`, folded) form of one segment that is not
/// [`Segment::Copy`]; false if its NFKC form has a `Σ`.
#[inline]
fn push_segment<const FOLD: bool>(out: &mut String, scratch: &mut String, seg: &str, segment: Segment) -> bool {
    if let Segment::Mapped(m) = segment {
        out.push(m);
        return true;
    }
    scratch.clear();
    scratch.extend(seg.nfkc());
    for c in scratch.chars() {
        if c == 'Σ' {
            return false;
        }
        out.extend(c.to_lowercase().map(|l| if FOLD { simplified(l) } else { l }));
    }
    true
}

/// The definition, for texts the fast path leaves to it.
fn slow<const FOLD: bool>(doc: &str) -> String {
    let lower = doc.nfkc().collect::<String>().to_lowercase();
    if FOLD {
        lower.chars().map(simplified).collect()
    } else {
        lower
    }
}

#[cfg(test)]
#[path = "normalize_tests.rs"]
mod tests;
