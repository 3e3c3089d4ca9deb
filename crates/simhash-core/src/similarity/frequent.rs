//! The shingles that are no index keys: the most frequent ones, whose posting lists would
//! hold a large part of a table (boilerplate, datelines, "the", 新华社).
//!
//! The list is the 1% of each reference corpus's distinct shingles that the most of its
//! paragraphs have (People's Daily, the English, Japanese and mixed corpora of `make
//! quality`), one per version of the measure, made by `make frequent-shingles`:
//! `data/frequent_shingles.txt.gz` (measure 1, 10,823 shingles; frozen with it) and
//! `data/frequent_shingles_m2.txt.gz` (measure 2). Leaving them out took the candidates of a similarity lookup from
//! 223 to 21 per million Chinese paragraphs and from 2,236 to 263 per million English
//! ones (docs/similarity.md, "Choosing the keys"). The list is part of the index keys,
//! not of the measure: changing it asks for a REINDEX, never changes a similarity.

use std::io::Read;
use std::sync::OnceLock;

use super::shingles::Version;

static M1_GZ: &[u8] = include_bytes!("../../data/frequent_shingles.txt.gz");
static M2_GZ: &[u8] = include_bytes!("../../data/frequent_shingles_m2.txt.gz");

/// A gzipped list, ascending.
fn read(gz: &[u8]) -> Vec<u64> {
    let mut text = String::new();
    flate2::read::GzDecoder::new(gz).read_to_string(&mut text).expect("the built-in list is gzipped UTF-8");
    let mut v: Vec<u64> =
        text.lines().map(|l| u64::from_str_radix(&l[..16], 16).expect("a hex hash opens every line")).collect();
    v.sort_unstable();
    v
}

/// The list of version `v`, ascending, read once per process.
fn list(v: Version) -> &'static [u64] {
    static M1: OnceLock<Vec<u64>> = OnceLock::new();
    static M2: OnceLock<Vec<u64>> = OnceLock::new();
    match v {
        Version::M1 => M1.get_or_init(|| read(M1_GZ)),
        Version::M2 => M2.get_or_init(|| read(M2_GZ)),
    }
}

/// Whether the shingle hash `h` is on version `v`'s frequent list.
#[inline]
pub fn is_frequent(h: u64, v: Version) -> bool {
    list(v).binary_search(&h).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::shingles::for_each_shingle;

    #[test]
    fn the_list_holds_boilerplate() {
        for v in [Version::M1, Version::M2] {
            assert!(list(v).len() > 10_000);
            let mut hs = Vec::new();
            for_each_shingle("新华社", v, &mut || (), |h| hs.push(h));
            assert!(hs.iter().all(|&h| is_frequent(h, v)));
        }
    }
}
