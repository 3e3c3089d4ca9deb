//! Step 4: what an index lookup asks for (the GIN operator class's extractQuery and
//! consistent functions, src/similarity/gin.rs), and what it guarantees.
//!
//! - **Similarity ≥ θ**: the query's bottom-k keys, of which a row must have
//!   [`required`](super::keys::required) (so that a row at similarity θ or more is kept with
//!   probability at least `1 − MISS`, 0.999, and at `1 − (1 − θ)^K` when one key is asked for).
//!   Below [`MIN_SIMILARITY`] even one key in 24 would miss more than `MISS` of the rows at
//!   the threshold, so the lookup reads every row and the recheck decides: exact, at the cost
//!   of a scan of the index.
//! - **Containment ≥ γ**, either way round: every index key of the query, of which a row must
//!   have [`CONTAINMENT_KEYS`] (or all the query has, if fewer). Winnowing selects the same
//!   key from the same window of shingles in both texts, so a row that shares a run of `2W`
//!   consecutive shingles with the query (about 50 characters) always has two of its keys:
//!   an excerpt, a merged text, a quoted passage. A row whose overlap with the query is
//!   shorter, or scattered, is found by chance (`make quality`: 0.9999 of the pairs at 0.8
//!   whose contained text has 24 shingles or more). Below [`MIN_CONTAINMENT`] the lookup
//!   reads every row: exact, at the cost of a scan of the index.
//! - **Containment ≥ γ of a short query** (fewer than [`SHORT_QUERY`] = `2W` shingles, about
//!   50 characters: a post, a title, a log line): the key of *every* shingle it has, of which
//!   a row must have [`CONTAINMENT_KEYS`] (fewer when a row at γ surely shares fewer); the
//!   frequent shingles' keys are left out where that loses no row that matters
//!   (`short_containment`). A row of up to `K` shingles has all of its shingles as keys (its
//!   bottom-k sketch is the whole set), so such a row holding the query is found, and one
//!   inside it too unless it is one shingle (a name, "谢谢") or boilerplate ("（附图片１张）");
//!   a longer row holding the query is found through its winnowed and bottom-k keys, by
//!   chance below a shared run of `W` shingles. Measured by `examples/short_containment`
//!   (brute force, 1,000 short queries at γ 0.8, either way): on 200k short Markov texts,
//!   rows of up to 24 shingles 60 of 60, longer rows 0.86, 193 candidates a query at 1M rows;
//!   on People's Daily sentences and paragraphs, 242 of 312 (the misses boilerplate rows and
//!   one-shingle names inside the query, but for two titles of frequent shingles alone),
//!   longer rows 0.91. Asking for every key with one
//!   required finds 0.95 of the longer rows at 7.5 times the candidates (docs/performance.md,
//!   "Short texts"). Measure 1's index (compatibility) reads every row for a short query, as
//!   5.x did.

use super::frequent::is_frequent;
use super::keys::{index_keys, key_set, required, sample, similarity_keys, KeyParams, K, W};
use super::measure::{shingle_set, Measure};
use super::shingles::Version;

/// The lowest similarity threshold answered from keys: `(1 − θ)^K ≤ MISS` for K = 24.
pub const MIN_SIMILARITY: f64 = 0.25;
/// The lowest containment threshold answered from keys.
pub const MIN_CONTAINMENT: f64 = 0.5;
/// Keys a containment lookup asks a row for: one more than the least, so that a row sharing
/// one key with a long query by chance (a key is 18 bits) is not a candidate. Measured on
/// `make quality`'s pairs at containment 0.8 whose contained text has 24 shingles or more:
/// 20 of 273,852 missed (docs/similarity.md, "The index").
pub const CONTAINMENT_KEYS: usize = 2;

/// A containment query with fewer distinct shingles reads every row (module docs).
pub const SHORT_QUERY: usize = 2 * W;

/// What a lookup asks the index for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lookup {
    /// Keys to look up, ascending, distinct.
    pub keys: Vec<i32>,
    /// How many of them a row must have to be a candidate (at least 1).
    pub required: usize,
    /// Every row is a candidate (a threshold too low for keys).
    pub scan_all: bool,
}

impl Lookup {
    /// Every row is a candidate.
    pub fn all() -> Lookup {
        Lookup { keys: Vec::new(), required: 1, scan_all: true }
    }

    /// The lookup for the rows either finds: every key of both, of which a row must have the
    /// fewer required (a row with `required` of one's keys has that many of the union); every
    /// row when either reads every row. The dedup trigger's containment either way: for a
    /// short query both ask for the same keys and count, and two scans read them twice.
    pub fn or(self, other: Lookup) -> Lookup {
        if self.scan_all || other.scan_all {
            return Lookup::all();
        }
        let mut keys = self.keys;
        keys.extend(other.keys);
        keys.sort_unstable();
        keys.dedup();
        Lookup { keys, required: self.required.min(other.required), scan_all: false }
    }
}

/// The lookup for rows `r` with `measure(query, r) ≥ threshold` under version `v` (module docs).
pub fn lookup(query: &str, v: Version, measure: Measure, threshold: f64, tick: &mut dyn FnMut()) -> Lookup {
    if measure != Measure::Similarity {
        return containment(query, v, &[measure], threshold, tick);
    }
    if threshold.is_nan() || threshold < MIN_SIMILARITY {
        return Lookup::all();
    }
    // A similarity lookup needs only the sketch: no winnowing, so that a long query's keys
    // take no memory but the sketch's.
    let p = KeyParams { w: 0, ..KeyParams::of(v) };
    let s = sample(query, &p, tick);
    let keys = similarity_keys(&s, &p);
    Lookup { required: required(s.distinct, K, threshold).min(keys.len()).max(1), keys, scan_all: false }
}

/// The lookup for rows `r` with `containment(query, r) ≥ threshold` or `containment(r,
/// query) ≥ threshold` (`either_way`, the dedup trigger's): both lookups in one
/// ([`Lookup::or`]), the query sampled once.
pub fn lookup_either_way(query: &str, v: Version, threshold: f64, tick: &mut dyn FnMut()) -> Lookup {
    containment(query, v, &[Measure::QueryInRow, Measure::RowInQuery], threshold, tick)
}

/// The containment lookups of `measures` (each `QueryInRow` or `RowInQuery`), or-ed. A long
/// query asks for the same keys and count either way.
fn containment(query: &str, v: Version, measures: &[Measure], threshold: f64, tick: &mut dyn FnMut()) -> Lookup {
    if threshold.is_nan() || threshold < MIN_CONTAINMENT {
        return Lookup::all();
    }
    let p = KeyParams::of(v);
    let s = sample(query, &p, tick);
    if s.distinct < SHORT_QUERY {
        // Measure 1 (a compatibility index) keeps 5.x's exact scan.
        if v == Version::M1 {
            return Lookup::all();
        }
        return short_containment(query, &p, measures, threshold, tick);
    }
    let keys = index_keys(&s, &p);
    Lookup { required: CONTAINMENT_KEYS.min(keys.len()).max(1), keys, scan_all: false }
}

/// The containment lookup of a query of fewer than [`SHORT_QUERY`] shingles: the key of
/// every shingle it has (module docs, "short texts"), of which a row must hold
/// [`CONTAINMENT_KEYS`], or as many as a row at the threshold surely shares with it.
/// Frequent shingles (`super::frequent`), whose posting lists hold much of a table, are left
/// out when a row at the threshold surely shares `required` others (a row holding the query),
/// and for rows inside the query, but for a query of them alone: such a row made of
/// boilerplate is no post. Measured by `examples/short_containment` on 200k short Markov
/// texts at 0.8: 194 candidates a query at 1M rows instead of 436, 5.6k posting entries read
/// instead of 9.0k, the same short pairs found (60 of 60; at 0.5, 191 of 192).
/// Each of `measures` has its lookup, or-ed.
fn short_containment(
    query: &str,
    p: &KeyParams,
    measures: &[Measure],
    threshold: f64,
    tick: &mut dyn FnMut(),
) -> Lookup {
    let shingles = shingle_set(query, p.version, tick);
    let (rare, frequent): (Vec<u64>, Vec<u64>) = shingles.iter().partition(|&&h| !is_frequent(h, p.version));
    let (all, rare) = (key_set(&shingles, p), key_set(&rare, p));
    let one = |measure: Measure| {
        // A row holding this query shares ⌈θ·n⌉ of its n shingles, of which all but the
        // frequent ones are rare; a row inside it, ⌈θ·r⌉ of its own r, at least one.
        let sure = match measure {
            Measure::QueryInRow => (threshold * shingles.len() as f64).ceil() as usize,
            _ => CONTAINMENT_KEYS,
        };
        let required = CONTAINMENT_KEYS.min(sure).min(all.len()).max(1);
        let rare_enough = match measure {
            Measure::QueryInRow => sure.saturating_sub(frequent.len()) >= required,
            _ => rare.len() >= required,
        };
        let keys = if rare_enough { rare.clone() } else { all.clone() };
        Lookup { required: required.min(keys.len()).max(1), keys, scan_all: false }
    };
    measures.iter().map(|&m| one(m)).reduce(Lookup::or).expect("a containment measure")
}

#[cfg(test)]
mod tests {
    use super::*;

    const V: Version = Version::M2;

    /// A row's keys (as a set) pass a lookup: it has `required` of them, or it reads all.
    fn passes(l: &Lookup, row: &[i32]) -> bool {
        l.scan_all || l.keys.iter().filter(|k| row.contains(k)).count() >= l.required
    }

    #[test]
    fn or_finds_what_either_finds() {
        let texts = [
            "国家主席江泽民发表新年讲话",
            "江泽民发表新年讲话",
            "For an explanation of the terms used in this section",
            "中共中央总书记、国家主席江泽民发表１９９８年新年讲话《迈向充满希望的新世纪》，新华社记者兰红光摄。\
             同胞们、朋友们、女士们、先生们：在１９９８年来临之际，我十分高兴地通过中国国际广播电台、中央人民广播电台\
             和中央电视台，向全国各族人民，向香港特别行政区同胞、澳门和台湾同胞、海外侨胞，向世界各国的朋友们，致以诚挚的问候和良好的祝愿！",
        ];
        // The last is a long query (its index keys), the others short (every shingle's key).
        assert!(sample(texts[3], &KeyParams::of(V), &mut || ()).distinct >= SHORT_QUERY);
        assert!(sample(texts[2], &KeyParams::of(V), &mut || ()).distinct < SHORT_QUERY);
        let mut rng = 0x9e37_79b9_7f4a_7c15u64;
        for q in texts {
            for t in [0.5, 0.8, 1.0, 0.3] {
                let (a, b) = (
                    lookup(q, V, Measure::QueryInRow, t, &mut || ()),
                    lookup(q, V, Measure::RowInQuery, t, &mut || ()),
                );
                let either = a.clone().or(b.clone());
                let pool: Vec<i32> = a.keys.iter().chain(&b.keys).copied().chain([7, 11, 13]).collect();
                // Random rows drawn from both lookups' keys and others: brute force over 2,000.
                for _ in 0..2000 {
                    let row: Vec<i32> = pool
                        .iter()
                        .filter(|_| {
                            rng ^= rng << 13;
                            rng ^= rng >> 7;
                            rng ^= rng << 17;
                            rng.is_multiple_of(3)
                        })
                        .copied()
                        .collect();
                    if passes(&a, &row) || passes(&b, &row) {
                        assert!(passes(&either, &row), "{q} at {t}: {row:?} passes one lookup, not their or");
                    }
                }
                assert_eq!(either.scan_all, a.scan_all || b.scan_all);
                // The one-sample form is the or of both lookups.
                assert_eq!(lookup_either_way(q, V, t, &mut || ()), either, "{q} at {t}");
            }
        }
    }

    #[test]
    fn low_thresholds_read_everything() {
        let l = lookup("abcdefgh", V, Measure::Similarity, 0.1, &mut || ());
        assert!(l.scan_all && l.keys.is_empty());
        let l = lookup("abcdefgh", V, Measure::QueryInRow, 0.3, &mut || ());
        assert!(l.scan_all);
        // A containment query shorter than two windows asks for all its shingles' keys (of
        // measure 1, reads everything); a longer one for its index keys.
        let short = "国家主席江泽民发表新年讲话";
        let l = lookup(short, V, Measure::QueryInRow, 0.8, &mut || ());
        let all = key_set(&shingle_set(short, V, &mut || ()), &KeyParams::of(V));
        assert!(!l.scan_all && l.keys.iter().all(|k| all.contains(k)) && l.required == CONTAINMENT_KEYS, "{l:?}");
        // Frequent shingles are left out only when a row at the threshold surely shares two
        // others: a byline of them keeps its keys.
        let byline = "（新华社北京１月１２日电）";
        let l = lookup(byline, V, Measure::QueryInRow, 0.8, &mut || ());
        assert_eq!(l.keys.len(), shingle_set(byline, V, &mut || ()).len(), "{l:?}");
        assert!(lookup(short, Version::M1, Measure::QueryInRow, 0.8, &mut || ()).scan_all);
        // One shingle: one key, and one is enough either way round.
        for m in [Measure::QueryInRow, Measure::RowInQuery] {
            let l = lookup("谢谢", V, m, 0.8, &mut || ());
            assert!(!l.scan_all && l.keys.len() == 1 && l.required == 1, "{l:?}");
        }
        // Two shingles at 0.5: a row holding the query surely shares one of them.
        let l = lookup("谢谢你们", V, Measure::QueryInRow, 0.5, &mut || ());
        assert!(l.keys.len() == 2 && l.required == 1, "{l:?}");
        assert_eq!(lookup("谢谢你们", V, Measure::QueryInRow, 0.8, &mut || ()).required, 2);
        let long = "中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻。";
        assert!(!lookup(long, V, Measure::RowInQuery, 0.8, &mut || ()).scan_all);
        let l = lookup("中共中央总书记、国家主席江泽民发表新年讲话", V, Measure::Similarity, 0.6, &mut || ());
        assert!(!l.scan_all && !l.keys.is_empty() && l.required >= 1 && l.required <= l.keys.len());
        // No shingle: no key, nothing to find above the lowest threshold.
        let l = lookup("，。", V, Measure::Similarity, 0.6, &mut || ());
        assert!(!l.scan_all && l.keys.is_empty());
    }
}
