//! Where a long text is cut to be normalized a piece at a time, with the same result as
//! the whole, and which characters are wide: what the similarity measure's shingles
//! (`similarity::shingles`) and the dedup decision's tokens (`decision::tokens`) both read.

/// Bytes of text normalized at a time (the cut comes at the next [`is_cut`] character).
pub const PIECE: usize = 64 * 1024;

/// Whether `c` counts two columns (a shingle's `WIDE`): CJK ideographs (with extensions and compatibility forms),
/// kana, hangul, bopomofo and CJK symbols, the characters East Asian text sets two
/// columns wide.
#[inline]
pub fn is_wide(c: char) -> bool {
    matches!(c as u32,
        0x1100..=0x115F            // hangul leading jamo
        | 0x2E80..=0x303E          // CJK radicals, symbols and punctuation
        | 0x3041..=0x33FF          // kana, bopomofo, hangul compatibility jamo, CJK compatibility
        | 0x3400..=0x4DBF          // extension A
        | 0x4E00..=0x9FFF          // unified ideographs
        | 0xA960..=0xA97F          // hangul jamo extended A
        | 0xAC00..=0xD7A3          // hangul syllables
        | 0xF900..=0xFAFF          // compatibility ideographs
        | 0xFE30..=0xFE4F          // CJK compatibility forms
        | 0x1B000..=0x1B16F        // kana supplement and extended
        | 0x20000..=0x3FFFD) // extensions B and on
}

/// Whether the text may be cut before `c`, given the character `prev` before it, with the
/// same normalized result as the whole: `c` is a starter that composes with nothing before
/// it (NFKC) and ends the context of the final-sigma rule (lowercasing). True of ASCII
/// white space, `。`, ideographs, kana and hangul syllables (none cased or case-ignorable),
/// and of an ASCII letter or digit after another (the sigma rule then has its cased letter
/// on each side of the cut already).
#[inline]
pub fn is_cut(prev: char, c: char) -> bool {
    matches!(c, ' ' | '\t' | '\n' | '\r' | '\u{3002}' | '\u{3041}'..='\u{3096}' | '\u{30A1}'..='\u{30FA}'
        | '\u{4E00}'..='\u{9FFF}' | '\u{AC00}'..='\u{D7A3}')
        || (c.is_ascii_alphanumeric() && prev.is_ascii_alphanumeric())
}

/// The pieces of `doc` to normalize one at a time: about [`PIECE`] bytes each, cut before
/// an [`is_cut`] character, and the rest whole when there is none.
pub(crate) fn pieces(doc: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    std::iter::from_fn(move || {
        if start >= doc.len() {
            return None;
        }
        let mut at = (start + PIECE).min(doc.len());
        while !doc.is_char_boundary(at) {
            at += 1;
        }
        let end = if at >= doc.len() {
            doc.len()
        } else {
            let mut prev = doc[..at].chars().next_back().unwrap_or(' ');
            doc[at..]
                .char_indices()
                .find(|&(_, c)| {
                    let cut = is_cut(prev, c);
                    prev = c;
                    cut
                })
                .map_or(doc.len(), |(i, _)| at + i)
        };
        let piece = &doc[start..end];
        start = end;
        Some(piece)
    })
}
