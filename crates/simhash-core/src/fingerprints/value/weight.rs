//! Counting the occurrences of each distinct feature, and weighing it (TF-IDF and the
//! other weightings), dropping stop words.

use std::borrow::Cow;
use std::ops::Range;

use super::lexicon::{Entry, Lexicon};
use super::options::{Tokenizer, Weighting};
use super::rules::{Class, Rules};
use super::segment::Sink;

/// Occurrence counts of distinct feature hashes, in order of first occurrence.
///
/// An open-addressing table of indexes into `feats` rather than a `HashMap` beside a
/// `Vec<Feature>`: 16 bytes per feature instead of ~60, no text kept, no rehashing.
#[derive(Default)]
pub(super) struct Counts {
    /// Linear probing on the low bits of the (xxh3, so well mixed) hash: 1 + the index
    /// in `feats`, 0 for an empty slot. A power of two, at least twice the occurrences.
    slots: Vec<u32>,
    /// `(hash, count, class)` of each distinct feature.
    pub(super) feats: Vec<(u64, u32, Class)>,
}

impl Counts {
    /// Count one occurrence; true if the hash is new.
    #[inline]
    fn count(&mut self, hash: u64, class: Class) -> bool {
        self.insert(hash, class).1
    }

    /// Count one occurrence: the feature's index in `feats`, and whether it is new.
    #[inline]
    pub(super) fn insert(&mut self, hash: u64, class: Class) -> (u32, bool) {
        let mask = self.slots.len() - 1;
        let mut i = hash as usize & mask;
        loop {
            match self.slots[i] {
                0 => {
                    self.feats.push((hash, 1, class));
                    self.slots[i] = self.feats.len() as u32;
                    return (self.feats.len() as u32 - 1, true);
                }
                s => {
                    let feat = &mut self.feats[s as usize - 1];
                    if feat.0 == hash {
                        feat.1 += 1;
                        return (s - 1, false);
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
    pub(super) fn release_if_huge(&mut self) {
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
    fn add(&mut self, hash: u64, class: Class, _at: Range<usize>, _text: impl FnOnce() -> Cow<'a, str>) {
        self.count(hash, class);
    }
}

/// [`Counts`] plus the text of each distinct feature, for [`extract`](super::extract).
pub(super) struct WithTexts<'a> {
    pub(super) counts: Counts,
    pub(super) texts: Vec<Cow<'a, str>>,
}

impl<'a> Sink<'a> for WithTexts<'a> {
    fn reserve(&mut self, n: usize) {
        self.counts.reserve(n);
    }

    fn grow(&mut self, n: usize) {
        self.counts.grow_for(n);
    }

    #[inline]
    fn add(&mut self, hash: u64, class: Class, _at: Range<usize>, text: impl FnOnce() -> Cow<'a, str>) {
        if self.counts.count(hash, class) {
            self.texts.push(text());
        }
    }
}

/// Weights, and stop-word removal, with one lexicon lookup per distinct feature
/// rather than per token: the 270k-entry table is the one structure here that
/// misses the CPU cache. Measured on the People's Daily corpus, looking up per
/// token cost about as much time as jieba's `cut` itself.
pub(super) struct Weigher<'l> {
    lexicon: &'l Lexicon,
    rules: Rules,
    drop_stop_words: bool,
}

impl<'l> Weigher<'l> {
    pub(super) fn new(lexicon: &'l Lexicon, rules: &Rules) -> Self {
        Weigher { lexicon, rules: *rules, drop_stop_words: rules.tokenizer == Tokenizer::Jieba }
    }

    /// The weight of a feature seen `count` times, `None` for a dropped stop word.
    /// Definition 0's weights are `count × IDF` exactly: its factors are all 1.
    #[inline]
    pub(super) fn weight(&self, hash: u64, count: u32, class: Class) -> Option<f64> {
        let entry = self.lexicon.lookup(hash);
        if self.drop_stop_words && entry == Some(Entry::StopWord) {
            return None;
        }
        let r = &self.rules;
        let idf = match (entry, r.unknown_idf) {
            (Some(Entry::Idf(v)), _) => v,
            (None, _) if r.english_idf && class == Class::NonHan => {
                self.lexicon.english_idf(hash).or(r.unknown_idf).unwrap_or(self.lexicon.median_idf)
            }
            (_, Some(v)) => v,
            _ => self.lexicon.median_idf,
        };
        let idf = if r.idf_power == 1.0 { idf } else { idf.powf(r.idf_power) };
        let tf = if class == Class::NonHan { r.non_han_tf } else { r.tf };
        let w = match r.weighting {
            Weighting::Tfidf => tf.of(count) * idf,
            Weighting::Tf => tf.of(count),
            Weighting::Binary => 1.0,
        };
        Some(match class {
            Class::Word | Class::NonHan => w,
            Class::SingleHan => w * r.single_han,
            Class::Number => w * r.number_weight,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprints::value::rules::Tf;
    use crate::fingerprints::value::{extract, hash_feature, Options};
    use crate::text::normalize;

    fn weights(doc: &str, options: &Options) -> Vec<(String, f64)> {
        let norm = normalize(doc);
        extract(Lexicon::global(), &norm, &options.into())
            .into_iter()
            .map(|f| (f.text.into_owned(), f.weight))
            .collect()
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
        let got = weights("经济 经济 经济 发展 2008 4.3 爱 Ｂeijing", &Options::v1());
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
        let log = Rules { tf: Tf::Log, single_han: 0.5, ..(&Options::v1()).into() };
        let norm = normalize("经济 经济 经济 爱");
        let got: Vec<f64> = extract(lex, &norm, &log).into_iter().map(|f| f.weight).collect();
        assert_eq!(got, [(1.0 + 3f64.ln()) * idf("经济"), 0.5 * idf("爱")]);
    }
}
