//! The data every fingerprint depends on: jieba's dictionary, jieba's IDF table and the
//! stop-word lists. Loaded once per process (`Lexicon::global`), never per call.
//!
//! `data/jieba_idf.txt.gz` is jieba's `idf.txt` (MIT, as shipped in jieba-rs 0.11.0,
//! 270,131 words), kept here rather than read out of jieba-rs, which does not expose it,
//! and so that no dependency upgrade can change a stored fingerprint behind our back.

use std::collections::HashMap;
use std::hash::{BuildHasherDefault, Hasher};
use std::io::Read;
use std::sync::OnceLock;

use jieba_rs::Jieba;

use crate::fingerprint::hash_feature;
use crate::normalize::normalize;

static IDF_GZ: &[u8] = include_bytes!("../data/jieba_idf.txt.gz");

/// Keys are already xxh3 hashes: use them as they are.
#[derive(Default)]
pub struct PassThrough(u64);
impl Hasher for PassThrough {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, _: &[u8]) {
        unreachable!("only u64 keys are hashed")
    }
    fn write_u64(&mut self, n: u64) {
        self.0 = n;
    }
}
pub type HashMapU64<V> = HashMap<u64, V, BuildHasherDefault<PassThrough>>;

/// What the lexicon knows of a token, looked up by the token's feature hash.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entry {
    Idf(f64),
    StopWord,
}

pub struct Lexicon {
    pub jieba: Jieba,
    /// Keyed by `hash_feature(word)`, so that one xxh3 per token serves the IDF
    /// lookup, the stop-word test and the fingerprint. The load test checks that
    /// no two entries collide.
    entries: HashMapU64<Entry>,
    /// The lower median of the IDF table, given to words it does not list
    /// (jieba's own rule for unknown words).
    pub median_idf: f64,
}

impl Lexicon {
    /// The process-wide lexicon, loaded on first use.
    pub fn global() -> &'static Lexicon {
        static GLOBAL: OnceLock<Lexicon> = OnceLock::new();
        GLOBAL.get_or_init(Lexicon::load)
    }

    /// Build a lexicon: decompress and parse the IDF table, add the stop words, load jieba.
    pub fn load() -> Lexicon {
        let mut text = String::with_capacity(6_400_000);
        flate2::read::GzDecoder::new(IDF_GZ)
            .read_to_string(&mut text)
            .expect("bundled IDF table is valid gzip UTF-8");
        let mut entries = HashMapU64::with_capacity_and_hasher(280_000, Default::default());
        let mut idfs = Vec::with_capacity(280_000);
        for line in text.lines() {
            let mut parts = line.split_whitespace();
            if let (Some(word), Some(Ok(idf))) = (parts.next(), parts.next().map(str::parse::<f64>)) {
                entries.insert(hash_feature(normalize(word).as_bytes()), Entry::Idf(idf));
                idfs.push(idf);
            }
        }
        let mid = idfs.len().saturating_sub(1) / 2;
        let median_idf = *idfs.select_nth_unstable_by(mid, f64::total_cmp).1;
        for word in stop_words::get("zh").iter().chain(stop_words::get("en")) {
            entries.insert(hash_feature(normalize(word).as_bytes()), Entry::StopWord);
        }
        Lexicon { jieba: Jieba::new(), entries, median_idf }
    }

    #[inline]
    pub fn lookup(&self, hash: u64) -> Option<Entry> {
        self.entries.get(&hash).copied()
    }

    /// IDF of a token hash, the median for unknown words.
    #[inline]
    pub fn idf(&self, hash: u64) -> f64 {
        self.idf_of(self.lookup(hash))
    }

    /// IDF given a lookup result, the median for unknown words.
    #[inline]
    pub fn idf_of(&self, entry: Option<Entry>) -> f64 {
        match entry {
            Some(Entry::Idf(v)) => v,
            _ => self.median_idf,
        }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loads_table_and_stop_words() {
        let lex = Lexicon::global();
        // 270,131 IDF lines plus the stop words, less the words in both lists.
        assert!(lex.len() > 270_000, "{}", lex.len());
        assert!((lex.median_idf - 11.0).abs() < 2.0, "median {}", lex.median_idf);
        assert_eq!(lex.lookup(hash_feature("的".as_bytes())), Some(Entry::StopWord));
        assert_eq!(lex.lookup(hash_feature(b"the")), Some(Entry::StopWord));
        assert!(matches!(lex.lookup(hash_feature("劳动防护".as_bytes())), Some(Entry::Idf(v)) if (v - 13.900677652).abs() < 1e-9));
    }

    #[test]
    fn no_hash_collisions_in_table() {
        // Distinct normalized words must get distinct keys, or one word would take another's IDF.
        let mut text = String::new();
        flate2::read::GzDecoder::new(IDF_GZ).read_to_string(&mut text).unwrap();
        let mut seen: HashMap<u64, String> = HashMap::new();
        for line in text.lines() {
            if let Some(word) = line.split_whitespace().next() {
                let norm = normalize(word).into_owned();
                if let Some(prev) = seen.insert(hash_feature(norm.as_bytes()), norm.clone()) {
                    assert_eq!(prev, norm, "xxh3 collision");
                }
            }
        }
    }
}
