//! The data every fingerprint depends on: jieba's dictionary, jieba's IDF table and the
//! stop-word lists. Loaded once per process (`Lexicon::global`), never per call.
//!
//! `data/jieba_idf.txt.gz` is jieba's `idf.txt` (MIT, as shipped in jieba-rs 0.11.0,
//! 270,131 words), kept here rather than read out of jieba-rs, which does not expose it,
//! and so that no dependency upgrade can change a stored fingerprint behind our back.

use std::io::Read;
use std::sync::{Mutex, OnceLock};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use jieba_rs::Jieba;

use super::chars::alphanumeric_bmp;
use super::fold::hash_feature;
use crate::text::normalize;

static IDF_GZ: &[u8] = include_bytes!("../../../data/jieba_idf.txt.gz");
/// Definition 3's IDF of English words (`tools/english_idf.py`, `make english-idf`: SymSpell's frequency list
/// from symspellpy 6.7.8, MIT, Google Books Ngram counts and SCOWL; 82,769 words).
static ENGLISH_GZ: &[u8] = include_bytes!("../../../data/english_idf.txt.gz");

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
    entries: Table,
    /// English words' IDF, for the words `entries` does not know ([`Lexicon::english_idf`]).
    english: Table,
    /// The lower median of the IDF table, given to words it does not list
    /// (jieba's own rule for unknown words).
    pub median_idf: f64,
}

/// The process-wide lexicon.
static GLOBAL: OnceLock<Lexicon> = OnceLock::new();
/// A load under way on a thread of its own ([`Lexicon::load_in_background`]).
static LOADER: Mutex<Option<JoinHandle<()>>> = Mutex::new(None);

impl Lexicon {
    /// The process-wide lexicon, loaded on first use.
    pub fn global() -> &'static Lexicon {
        GLOBAL.get_or_init(Lexicon::load)
    }

    /// The process-wide lexicon if it is loaded.
    pub fn loaded() -> Option<&'static Lexicon> {
        GLOBAL.get()
    }

    /// Starts loading the process-wide lexicon on a thread of its own, unless it is loaded
    /// or loading, and returns at once; [`Lexicon::wait`] takes it. The load is about 0.2 s,
    /// uninterrupted: a caller that waits for it in short steps can answer a cancel
    /// meanwhile (issue 55: a session's first `simhash()` of a 47 MB text ended 0.24 s
    /// after a 300 ms timeout, all but 0.02 s of it in the load). A thread that cannot be
    /// started leaves the load to [`Lexicon::wait`], in the caller's thread.
    pub fn load_in_background() {
        let mut loader = LOADER.lock().unwrap_or_else(|e| e.into_inner());
        if GLOBAL.get().is_none() && loader.is_none() {
            let spawned = std::thread::Builder::new().name("simhash lexicon".into()).spawn(|| {
                let _ = GLOBAL.set(Lexicon::load());
            });
            *loader = spawned.ok();
        }
    }

    /// The process-wide lexicon if it is loaded within `timeout`; `None` while a load started
    /// by [`Lexicon::load_in_background`] goes on. With no load under way (none started,
    /// or it failed), it loads here, and a failed load's panic comes from here.
    pub fn wait(timeout: Duration) -> Option<&'static Lexicon> {
        let until = Instant::now() + timeout;
        loop {
            if let Some(lexicon) = GLOBAL.get() {
                // The loader is done: its thread is joined, so that it leaves nothing behind.
                if let Some(done) = LOADER.lock().unwrap_or_else(|e| e.into_inner()).take() {
                    let _ = done.join();
                }
                return Some(lexicon);
            }
            let finished = LOADER.lock().unwrap_or_else(|e| e.into_inner()).as_ref().is_none_or(|h| h.is_finished());
            if finished && GLOBAL.get().is_none() {
                return Some(Lexicon::global());
            }
            if Instant::now() >= until {
                return None;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    /// Build a lexicon: decompress and parse the IDF table, add the stop words, load jieba.
    pub fn load() -> Lexicon {
        // In file order, stop words last: for a key given twice the last entry wins.
        let idfs = read_table(IDF_GZ, 280_000);
        let mut entries: Vec<(u64, Entry)> = idfs.iter().map(|&(key, idf)| (key, Entry::Idf(idf))).collect();
        let mut values: Vec<f64> = idfs.iter().map(|&(_, idf)| idf).collect();
        let mid = values.len().saturating_sub(1) / 2;
        let median_idf = *values.select_nth_unstable_by(mid, f64::total_cmp).1;
        for word in stop_words::get("zh").iter().chain(stop_words::get("en")) {
            entries.push((hash_feature(normalize(word).as_bytes()), Entry::StopWord));
        }
        let entries = Table::new(&entries);
        let english: Vec<(u64, Entry)> =
            read_table(ENGLISH_GZ, 83_000).into_iter().map(|(key, idf)| (key, Entry::Idf(idf))).collect();
        let english = Table::new(&english);
        // Built here, with the rest of the per-process data (and so, with preloading, once
        // in the postmaster): normalize's character table is, by the `normalize` calls above.
        alphanumeric_bmp();
        Lexicon { jieba: Jieba::new(), entries, english, median_idf }
    }

    /// The English table's IDF of a word hash (definition 3, for words `lookup` finds no
    /// entry for).
    #[inline]
    pub fn english_idf(&self, hash: u64) -> Option<f64> {
        match self.english.get(hash) {
            Some(Entry::Idf(v)) => Some(v),
            _ => None,
        }
    }

    #[inline]
    pub fn lookup(&self, hash: u64) -> Option<Entry> {
        self.entries.get(hash)
    }

    /// Start loading the table slot of `hash` into the cache, so that a later
    /// [`lookup`](Self::lookup) finds it there. See `Table::prefetch` (private).
    #[inline]
    pub fn prefetch(&self, hash: u64) {
        self.entries.prefetch(hash)
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
        self.entries.len() == 0
    }
}

/// The `(hash, IDF)` pairs of a gzipped "word idf" table, in file order.
fn read_table(gz: &[u8], capacity: usize) -> Vec<(u64, f64)> {
    let mut text = String::with_capacity(capacity * 24);
    flate2::read::GzDecoder::new(gz).read_to_string(&mut text).expect("bundled table is valid gzip UTF-8");
    let mut pairs = Vec::with_capacity(capacity);
    for line in text.lines() {
        let mut parts = line.split_whitespace();
        if let (Some(word), Some(Ok(idf))) = (parts.next(), parts.next().map(str::parse::<f64>)) {
            pairs.push((hash_feature(normalize(word).as_bytes()), idf));
        }
    }
    pairs
}

/// The lexicon's map from feature hash to [`Entry`]: open addressing with linear
/// probing, one 16-byte slot per entry, so a lookup is usually one cache line where a
/// `HashMap<u64, Entry>` touched its control bytes and then a 24-byte bucket.
struct Table {
    /// A power of two, at most half full.
    slots: Vec<Slot>,
    /// `64 - log2(slots.len())`: the home slot of a key is its top bits.
    shift: u32,
    len: usize,
}

#[derive(Clone, Copy)]
struct Slot {
    key: u64,
    /// An IDF's f64 bits, or [`STOP_WORD`], or [`EMPTY`].
    value: u64,
}

/// NaNs with payloads that no `str::parse::<f64>` produces (it gives the canonical NaN).
const STOP_WORD: u64 = 0x7FF8_5354_4F50_0001;
const EMPTY: u64 = 0x7FF8_5354_4F50_0000;

impl Table {
    /// From `(key, entry)` pairs; where a key repeats, the last pair wins.
    fn new(pairs: &[(u64, Entry)]) -> Table {
        let n = (2 * pairs.len()).next_power_of_two().max(2);
        let mut t = Table { slots: vec![Slot { key: 0, value: EMPTY }; n], shift: 64 - n.trailing_zeros(), len: 0 };
        for &(key, entry) in pairs {
            let value = match entry {
                Entry::Idf(v) => v.to_bits(),
                Entry::StopWord => STOP_WORD,
            };
            assert!(
                value != EMPTY && (value != STOP_WORD || entry == Entry::StopWord),
                "IDF with a reserved NaN payload"
            );
            let mut i = t.home(key);
            while t.slots[i].value != EMPTY && t.slots[i].key != key {
                i = (i + 1) & (n - 1);
            }
            t.len += (t.slots[i].value == EMPTY) as usize;
            t.slots[i] = Slot { key, value };
        }
        t
    }

    #[inline]
    fn home(&self, key: u64) -> usize {
        (key >> self.shift) as usize
    }

    #[inline]
    fn get(&self, key: u64) -> Option<Entry> {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = self.slots[i];
            match slot.value {
                EMPTY => return None,
                v if slot.key == key => {
                    return Some(if v == STOP_WORD { Entry::StopWord } else { Entry::Idf(f64::from_bits(v)) })
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Start loading the home slot of `key` into the cache. [`segment`] calls this for
    /// every feature occurrence as it hashes it, so the misses on this 16 MB table
    /// overlap the rest of the token loop, and the weighing after it finds the slots
    /// in cache (`get` waits on one miss before the next). The x86 prefetch hint
    /// neither waits for the line nor holds up retirement. It replaced touching every
    /// distinct feature's slot (`black_box` loads) between the token loop and the
    /// weighing, whose stalls perf showed (throughput.rs PROFILE_SIMHASH measures the
    /// difference). Elsewhere a plain load, as before.
    ///
    /// [`segment`]: fn@super::segment::segment
    #[inline]
    fn prefetch(&self, key: u64) {
        let slot = &self.slots[self.home(key)];
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            // SAFETY: SSE is part of the x86_64 baseline, and a prefetch is only a hint:
            // it reads nothing into the program and never faults (the address is a live
            // slot's anyway).
            unsafe { _mm_prefetch::<_MM_HINT_T0>((slot as *const Slot).cast()) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        std::hint::black_box(slot.key);
    }

    fn len(&self) -> usize {
        self.len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    /// A load in the background ends in the process-wide lexicon, whoever loaded it first,
    /// and leaves no thread behind it (the SQL layer's first call waits this way).
    #[test]
    fn background_load_is_the_global_lexicon() {
        Lexicon::load_in_background();
        let lex = loop {
            if let Some(lex) = Lexicon::wait(Duration::from_millis(5)) {
                break lex;
            }
        };
        assert!(std::ptr::eq(lex, Lexicon::global()));
        assert!(LOADER.lock().unwrap().is_none(), "the loader's thread was not joined");
        // Loaded: nothing more starts.
        Lexicon::load_in_background();
        assert!(LOADER.lock().unwrap().is_none());
        assert!(std::ptr::eq(Lexicon::wait(Duration::ZERO).unwrap(), lex));
    }

    #[test]
    fn loads_table_and_stop_words() {
        let lex = Lexicon::global();
        // 270,131 IDF lines plus the stop words, less the words in both lists.
        assert!(lex.len() > 270_000, "{}", lex.len());
        assert!((lex.median_idf - 11.0).abs() < 2.0, "median {}", lex.median_idf);
        assert_eq!(lex.lookup(hash_feature("的".as_bytes())), Some(Entry::StopWord));
        assert_eq!(lex.lookup(hash_feature(b"the")), Some(Entry::StopWord));
        assert!(
            matches!(lex.lookup(hash_feature("劳动防护".as_bytes())), Some(Entry::Idf(v)) if (v - 13.900677652).abs() < 1e-9)
        );
    }

    #[test]
    fn english_table() {
        let lex = Lexicon::global();
        // tools/english_idf.py: ln(total / count) shifted to jieba's median.
        assert_eq!(lex.english_idf(hash_feature(b"library")), Some(5.3949));
        assert_eq!(lex.english_idf(hash_feature(b"debian")), Some(7.6870));
        assert_eq!(lex.english_idf(hash_feature(b"qwxzvbnmunknown")), None);
        // Definition 3 weighs by it; definition 2 gives every Latin word the median.
        let norm = normalize("library library debian qwxzvbnmunknown");
        let w = |o: &super::super::Options| -> Vec<f64> {
            super::super::extract(lex, &norm, &o.into()).iter().map(|f| f.weight).collect()
        };
        assert_eq!(w(&super::super::Options::default()), [(1.0 + 2f64.ln()) * 5.3949, 7.6870, lex.median_idf]);
        assert_eq!(w(&super::super::Options::v2()), [2.0 * lex.median_idf, lex.median_idf, lex.median_idf]);
    }

    #[test]
    fn unknown_words_get_the_median_idf() {
        let lex = Lexicon::global();
        assert_eq!(lex.idf(hash_feature(b"qwxzvbnmunknown")), lex.median_idf);
    }

    #[test]
    fn table_equals_a_hash_map_with_last_insert_winning() {
        let mut pairs: Vec<(u64, Entry)> = Vec::new();
        let mut map = HashMap::new();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..20_000u64 {
            x = x.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            // Repeated keys, keys sharing a home slot (same top bits), key 0, NaN and ±0 IDFs.
            let key = match i % 11 {
                0 => pairs.get(i as usize / 2).map_or(x, |&(k, _)| k),
                1 => x & 0xFFFF_0000_0000_0000 | i,
                2 if i < 100 => 0,
                _ => x,
            };
            let entry = match i % 13 {
                0 => Entry::StopWord,
                1 => Entry::Idf(f64::NAN),
                2 => Entry::Idf(-0.0),
                _ => Entry::Idf((i % 97) as f64 * 0.25),
            };
            pairs.push((key, entry));
            map.insert(key, entry);
        }
        let table = Table::new(&pairs);
        assert_eq!(table.len(), map.len());
        let same = |a: Option<Entry>, b: Option<Entry>| match (a, b) {
            (Some(Entry::Idf(x)), Some(Entry::Idf(y))) => x.to_bits() == y.to_bits(),
            _ => a == b,
        };
        for (&k, &e) in &map {
            assert!(same(table.get(k), Some(e)), "{k:x}");
            for other in [k ^ 1 << 63, k ^ 1 << 20, k.wrapping_add(1)] {
                assert!(same(table.get(other), map.get(&other).copied()), "{other:x}");
            }
        }
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
