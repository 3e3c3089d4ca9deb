//! Step 4, the second way: what a `simhash_band_ops` index holds and what its lookups ask for
//! (src/similarity/band_gin.rs), the bulk engine's MinHash bands (`super::bulk`) as GIN keys.
//!
//! - **Keys.** A text's `b` band keys of the bulk plan at θ = [`BAND_THETA`]: `r = 3`
//!   one-permutation MinHash values hashed together per band, 56 bands (`bulk::plan`). Two
//!   texts at Jaccard index `J` of their shingle sets share a band with probability
//!   `1 − (1 − J³)^56`; unrelated texts almost never do (`E[J³] = 6.7·10⁻⁸` over random
//!   pairs of the Markov corpus), so a key's posting list holds a text's near-duplicates and
//!   does not grow with the table. `simhash_ops`' keys are a sample of shingles, whose posting
//!   lists do grow: at 1M rows its lookup p50 was 3.29× that at 100k (docs/performance.md).
//! - **Similarity ≥ θ, θ ≥ [`BAND_THETA`]**: the query's first [`bands_needed`] band keys (all
//!   56 at 0.5, 18 at 0.7), of which a row must have one. Measure 2 is the shingles' Jaccard
//!   index times the figures' agreement (at most 1), so a row at similarity θ has `J ≥ θ` and
//!   is missed with probability at most `(1 − θ³)^b` for the `b` bands asked: 6·10⁻⁴ at 0.5
//!   and at most that above ([`band_miss`]), within the 10⁻³ that `simhash_ops` lookups
//!   allow (`lookup`).
//! - **Anything else** (containment, which bands do not bound, or θ below 0.5): every row is
//!   a candidate, and the recheck decides; the planner prefers a `simhash_ops` index or a
//!   sequential scan for those, by cost.
//! - A text without shingles has no key, and a measure of 0 with every text: a lookup for it
//!   finds nothing.

use std::sync::OnceLock;

use super::bulk::band_keys_of;
use super::bulk::plan::{plan, Plan};
use super::lookup::Lookup;
use super::measure::Measure;
use super::shingles::Version;

/// The threshold the keys are banded for, and the lowest a lookup answers from keys.
/// 0.5: the trigger's and the docs' usual threshold, at 56 keys a row; 0.6 would need 31,
/// 0.4 would need 113 (`bulk::plan`'s table).
pub const BAND_THETA: f64 = 0.5;

/// The banding of the index keys: the bulk plan at [`BAND_THETA`], computed once (extractValue
/// asks for it once a row).
pub fn band_plan() -> Plan {
    static PLAN: OnceLock<Plan> = OnceLock::new();
    *PLAN.get_or_init(|| plan(BAND_THETA).expect("a plan at 0.5"))
}

/// The keys a `simhash_band_ops` index holds for `text` under version `v`: its band keys as
/// int4, ascending, distinct; none for a text without shingles. `tick` runs as the shingles
/// are read.
pub fn band_index_keys(text: &str, v: Version, tick: &mut dyn FnMut()) -> Vec<i32> {
    first_band_keys(text, v, band_plan().b, tick)
}

/// The keys of `text`'s first `bands` bands, as [`band_index_keys`] gives them.
fn first_band_keys(text: &str, v: Version, bands: usize, tick: &mut dyn FnMut()) -> Vec<i32> {
    let keys = band_keys_of(text, v, band_plan(), tick).unwrap_or_default();
    let mut keys: Vec<i32> = keys.into_iter().take(bands).map(|k| k as i32).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// What a band lookup asks for (module docs); `required` is 1 whenever there are keys.
pub fn band_lookup(query: &str, v: Version, measure: Measure, threshold: f64, tick: &mut dyn FnMut()) -> Lookup {
    if measure != Measure::Similarity || threshold.is_nan() || threshold < BAND_THETA {
        return Lookup::all();
    }
    Lookup { keys: first_band_keys(query, v, bands_needed(threshold), tick), required: 1, scan_all: false }
}

/// The first bands a lookup at `threshold` (≥ [`BAND_THETA`]) asks for: the fewest whose miss
/// at `threshold`, `(1 − θ³)^b`, is within the plan's at [`BAND_THETA`]. A row at θ or more
/// shares one of them as often as a row at 0.5 shares one of all 56: 56 bands at 0.5, 31 at
/// 0.6, 18 at 0.7, 11 at 0.8 (fewer descents of the index).
pub fn bands_needed(threshold: f64) -> usize {
    let plan = band_plan();
    let allowed = plan.band_miss(BAND_THETA);
    let p = threshold.min(1.0).powi(plan.r as i32);
    if p >= 1.0 {
        return 1;
    }
    ((allowed.ln() / (1.0 - p).ln()).ceil() as usize).clamp(1, plan.b)
}

/// The probability that a band lookup at `threshold` misses a row whose similarity is
/// `threshold` (module docs): `(1 − θ³)^b` over the [`bands_needed`] it asks for, at most
/// 6·10⁻⁴; 0 below [`BAND_THETA`], where the lookup reads every row.
pub fn band_miss(threshold: f64) -> f64 {
    if threshold.is_nan() || threshold < BAND_THETA {
        return 0.0;
    }
    let r = band_plan().r as i32;
    (1.0 - threshold.min(1.0).powi(r)).powi(bands_needed(threshold) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::measure::{similarity, Sets};

    const V: Version = Version::M2;

    #[test]
    fn keys_are_the_plans_bands() {
        let p = band_plan();
        assert_eq!((p.r, p.b), (3, 56));
        let text = "中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。";
        let keys = band_index_keys(text, V, &mut || ());
        assert!(keys.len() >= 55 && keys.len() <= 56, "{}", keys.len());
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        // The same shingles, the same keys; none for a text without shingles.
        assert_eq!(band_index_keys(&format!("{text}  "), V, &mut || ()), keys);
        assert!(band_index_keys("，。", V, &mut || ()).is_empty());
        assert!(band_miss(0.5) <= 6e-4 && band_miss(0.5) > 1e-4);
        assert!(band_miss(0.7) <= band_miss(0.5) && band_miss(0.7) > 1e-4);
        assert_eq!(band_miss(0.4), 0.0);
    }

    #[test]
    fn lookups_answer_similarity_from_one_half() {
        let text = "新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻。";
        for (m, t) in [(Measure::Similarity, 0.49), (Measure::QueryInRow, 0.9), (Measure::RowInQuery, 0.9)] {
            let l = band_lookup(text, V, m, t, &mut || ());
            assert!(l.scan_all && l.keys.is_empty(), "{m:?} {t}");
        }
        assert!(band_lookup(text, V, Measure::Similarity, f64::NAN, &mut || ()).scan_all);
        let l = band_lookup(text, V, Measure::Similarity, 0.5, &mut || ());
        assert!(!l.scan_all && l.required == 1 && l.keys == band_index_keys(text, V, &mut || ()));
        // Higher thresholds ask for the first bands only, as many as keep the miss at 0.5's.
        assert_eq!([0.5, 0.6, 0.7, 0.8, 1.0].map(bands_needed), [56, 31, 18, 11, 1]);
        let all = band_index_keys(text, V, &mut || ());
        let l = band_lookup(text, V, Measure::Similarity, 0.7, &mut || ());
        assert!(l.keys.len() == 18 && l.keys.iter().all(|k| all.contains(k)));
        for t in [0.5, 0.6, 0.7, 0.8, 0.9, 0.99] {
            let b = band_plan();
            let miss = (1.0 - f64::powi(t, b.r as i32)).powi(bands_needed(t) as i32);
            assert!(miss <= b.band_miss(BAND_THETA) * 1.000_001, "{t}");
        }
        let l = band_lookup("，。", V, Measure::Similarity, 0.8, &mut || ());
        assert!(!l.scan_all && l.keys.is_empty());
    }

    /// Against brute force: of random edits of texts, every pair at similarity 0.5 or more
    /// shares a key but for the stated miss (a fixed corpus, checked once for all); a text and
    /// its characters reversed (the same characters, other shingles) almost never do.
    #[test]
    fn pairs_at_the_threshold_share_a_key() {
        let base = "中共中央总书记国家主席江泽民发表新年讲话新年钟声即将敲响人类社会就要进入新的一年在这辞旧迎新的美好时刻我代表中共中央国务院向全国各族人民致以新年的祝贺";
        let chars: Vec<char> = base.chars().collect();
        let mut state = 7u64;
        let mut next = |n: usize| {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            ((state >> 33) % n as u64) as usize
        };
        let keys = |t: &str| band_index_keys(t, V, &mut || ());
        let share = |a: &[i32], b: &[i32]| a.iter().any(|k| b.binary_search(k).is_ok());
        let (mut at_least, mut missed, mut unrelated, mut reversed) = (0, 0, 0, 0);
        for _ in 0..4000 {
            // A text of 30 to 70 characters of the base, and an edit of it.
            let start = next(chars.len() - 70);
            let a: Vec<char> = chars[start..start + 30 + next(40)].to_vec();
            let mut b = a.clone();
            for _ in 0..next(12) {
                let i = next(b.len());
                b[i] = ['某', '甲', '乙', '丙'][next(4)];
            }
            let r: String = a.iter().rev().collect();
            let (a, b): (String, String) = (a.into_iter().collect(), b.into_iter().collect());
            let ka = keys(&a);
            if similarity(&Sets::of(&a, V, &mut || ()), &Sets::of(&b, V, &mut || ())) >= BAND_THETA {
                at_least += 1;
                missed += usize::from(!share(&ka, &keys(&b)));
            }
            if similarity(&Sets::of(&a, V, &mut || ()), &Sets::of(&r, V, &mut || ())) < 0.05 {
                unrelated += 1;
                reversed += usize::from(share(&ka, &keys(&r)));
            }
        }
        assert!(at_least > 1000, "{at_least}");
        assert!(missed as f64 <= 1e-3 * at_least as f64 + 1.0, "{missed} of {at_least}");
        assert!(unrelated > 1000 && reversed * 100 < unrelated, "{reversed} of {unrelated}");
    }
}
