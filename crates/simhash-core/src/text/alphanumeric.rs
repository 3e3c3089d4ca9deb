//! `char::is_alphanumeric` from a bitset, and `char::is_numeric` through it: the letters and digits that words (the
//! fingerprints' features) and shingles (the similarity measure) are made of.

use std::sync::OnceLock;

/// `char::is_alphanumeric`, from an 8 kB bitset for the BMP (built once per process):
/// Chinese text has a punctuation token (`。` `、` `“`) for every few words, and
/// `is_alphanumeric` searched two Unicode tables for each of them, twice (perf found
/// the time in `lookup_slow`).
#[inline]
pub fn is_alphanumeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_alphanumeric();
    }
    match alphanumeric_bmp().get(c as usize / 64) {
        Some(w) => w >> (c as usize % 64) & 1 == 1,
        None => c.is_alphanumeric(),
    }
}

/// `char::is_numeric`, without std's table search for the characters Chinese text is made of:
/// a digit is alphanumeric, and no CJK unified ideograph is numeric (category Lo). std's search
/// for each character a figure reader looked at was 5.7% of a short dedup insert with
/// containment at 1M rows (perf, `lookup_slow`).
#[inline]
pub fn is_numeric(c: char) -> bool {
    if c.is_ascii() {
        return c.is_ascii_digit();
    }
    if !is_alphanumeric(c) || ('\u{4E00}'..='\u{9FFF}').contains(&c) {
        return false;
    }
    c.is_numeric()
}

/// The bitset of [`is_alphanumeric`]. [`Lexicon::load`](crate::Lexicon::load) builds
/// it, so that with preloading the postmaster does, not every backend on its first call.
pub fn alphanumeric_bmp() -> &'static [u64; 1024] {
    static BMP: OnceLock<Box<[u64; 1024]>> = OnceLock::new();
    BMP.get_or_init(|| {
        let mut t = Box::new([0u64; 1024]);
        for c in (0..0x10000).filter_map(char::from_u32).filter(|c| c.is_alphanumeric()) {
            t[c as usize / 64] |= 1 << (c as usize % 64);
        }
        t
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alphanumeric_and_numeric_equal_std() {
        for c in (0..=0x10FFFF).filter_map(char::from_u32) {
            assert_eq!(is_alphanumeric(c), c.is_alphanumeric(), "{c:?}");
            assert_eq!(is_numeric(c), c.is_numeric(), "{c:?}");
        }
    }
}
