//! Folding weighted features into a 64-bit SimHash (Charikar 2002).

use xxhash_rust::xxh3::xxh3_64;

/// The 64-bit hash of one feature: xxh3_64 of its UTF-8 bytes, seed 0.
#[inline]
pub fn hash_feature(feature: &[u8]) -> u64 {
    xxh3_64(feature)
}

/// SimHash of weighted feature hashes.
///
/// Bit `i` (bit 0 is the least significant) of the result is set iff
/// `Σ w(f) over features whose hash has bit i set − Σ w(f) over the others > 0`,
/// summed in f64 in the order given. A tie, and so an empty input, gives 0.
pub fn fingerprint<I>(features: I) -> u64
where
    I: IntoIterator<Item = (u64, f64)>,
{
    let mut fold = Fold::default();
    fold.add_all(features.into_iter());
    fold.finish()
}

/// `NEGATE[v][j]` is the sign bit to XOR into a weight for bit `j` of byte value `v`:
/// 0 (add +w) where the bit is set, the f64 sign bit (add −w) where it is clear.
static NEGATE: [[u64; 8]; 256] = {
    let mut t = [[0u64; 8]; 256];
    let mut v = 0;
    while v < 256 {
        let mut j = 0;
        while j < 8 {
            if (v >> j) & 1 == 0 {
                t[v][j] = 1 << 63;
            }
            j += 1;
        }
        v += 1;
    }
    t
};

/// The running per-bit sums of [`fingerprint`], fed one feature at a time.
#[derive(Clone)]
pub struct Fold {
    /// `acc[byte][j]` is the sum for bit `8 * byte + j`.
    acc: [[f64; 8]; 8],
}

impl Default for Fold {
    fn default() -> Self {
        Fold { acc: [[0.0; 8]; 8] }
    }
}

impl Fold {
    /// Add `+weight` to the sum of every bit set in `hash`, `−weight` to the others.
    ///
    /// Flipping the sign bit gives exactly `−weight`, and `s + (−w)` is exactly `s − w`,
    /// so every sum sees the same f64 operations in the same order as the definition.
    /// A 16 kB table of sign masks per hash byte, rather than a shift and an int→float
    /// conversion per bit, several times faster (throughput.rs BREAKDOWN measures it).
    #[inline]
    pub fn add(&mut self, hash: u64, weight: f64) {
        let w = weight.to_bits();
        for (byte, lanes) in self.acc.iter_mut().enumerate() {
            let signs = &NEGATE[((hash >> (8 * byte)) & 0xFF) as usize];
            for (slot, &neg) in lanes.iter_mut().zip(signs) {
                *slot += f64::from_bits(w ^ neg);
            }
        }
    }

    /// [`add`](Self::add) every feature of `features`, in order: bit for bit the same
    /// sums, with AVX-512 when the CPU has it (throughput.rs BREAKDOWN
    /// `fold_ns_per_feature` measures it). An AVX2 version (16 ymm sums, which spill)
    /// gained too little to keep.
    #[inline]
    pub fn add_all(&mut self, features: impl Iterator<Item = (u64, f64)>) {
        #[cfg(target_arch = "x86_64")]
        if std::arch::is_x86_feature_detected!("avx512f") {
            // SAFETY: the CPU has AVX-512F, checked just above.
            return unsafe { self.add_all_avx512(features) };
        }
        for (hash, weight) in features {
            self.add(hash, weight);
        }
    }

    /// [`add_all`](Self::add_all) with the 64 sums in eight 512-bit registers: per
    /// feature and hash byte, one XOR of the broadcast weight with the byte's sign
    /// masks and one vector add, the same f64 additions in the same order as
    /// [`add`](Self::add).
    #[cfg(target_arch = "x86_64")]
    #[target_feature(enable = "avx512f")]
    fn add_all_avx512(&mut self, features: impl Iterator<Item = (u64, f64)>) {
        use std::arch::x86_64::*;
        let mut acc = [_mm512_setzero_pd(); 8];
        for (lanes, sums) in acc.iter_mut().zip(&self.acc) {
            // SAFETY: `sums` is eight f64s, the 64 bytes read.
            *lanes = unsafe { _mm512_loadu_pd(sums.as_ptr()) };
        }
        for (hash, weight) in features {
            let w = _mm512_set1_epi64(weight.to_bits() as i64);
            for (byte, lanes) in acc.iter_mut().enumerate() {
                let signs = &NEGATE[((hash >> (8 * byte)) & 0xFF) as usize];
                // SAFETY: `signs` is eight u64s, the 64 bytes read.
                let signs = unsafe { _mm512_loadu_si512(signs.as_ptr().cast()) };
                *lanes = _mm512_add_pd(*lanes, _mm512_castsi512_pd(_mm512_xor_si512(w, signs)));
            }
        }
        for (lanes, sums) in acc.iter().zip(&mut self.acc) {
            // SAFETY: `sums` is eight f64s, the 64 bytes written.
            unsafe { _mm512_storeu_pd(sums.as_mut_ptr(), *lanes) };
        }
    }

    /// Bit `i` set iff the sum for bit `i` is positive.
    pub fn finish(&self) -> u64 {
        self.acc
            .as_flattened()
            .iter()
            .enumerate()
            .fold(0u64, |fp, (bit, &v)| if v > 0.0 { fp | (1u64 << bit) } else { fp })
    }
}

/// Weights enter [`ExactFold`] as integers: `round(w · 2^24)`.
const EXACT_SCALE: f64 = 16_777_216.0;

/// [`fingerprint`] with the per-bit sums in exact integer arithmetic: each weight is rounded
/// once to a multiple of 2^-24 and then added or subtracted as an integer, so neither the
/// sums nor their ties (a sum of exactly 0 leaves the bit clear) depend on the order of the
/// features. A prototype for issue 29 behind `Rules::exact_sums`; no definition uses it.
pub fn exact_fingerprint<I>(features: I) -> u64
where
    I: IntoIterator<Item = (u64, f64)>,
{
    let mut fold = ExactFold::default();
    features.into_iter().for_each(|(hash, weight)| fold.add(hash, weight));
    fold.finish()
}

/// The running per-bit sums of [`exact_fingerprint`]. i128: no count of features or weight
/// a text can have overflows them (a weight saturates at i64's range when rounded).
#[derive(Clone)]
pub struct ExactFold {
    acc: [i128; 64],
}

impl Default for ExactFold {
    fn default() -> Self {
        ExactFold { acc: [0; 64] }
    }
}

impl ExactFold {
    /// Add `+weight` to the sum of every bit set in `hash`, `−weight` to the others.
    pub fn add(&mut self, hash: u64, weight: f64) {
        let w = i128::from((weight * EXACT_SCALE).round() as i64);
        for (bit, sum) in self.acc.iter_mut().enumerate() {
            if (hash >> bit) & 1 == 1 {
                *sum += w;
            } else {
                *sum -= w;
            }
        }
    }

    /// Bit `i` set iff the sum for bit `i` is positive.
    pub fn finish(&self) -> u64 {
        self.acc.iter().enumerate().fold(0u64, |fp, (bit, &v)| if v > 0 { fp | (1u64 << bit) } else { fp })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn empty_is_zero() {
        assert_eq!(fingerprint(std::iter::empty()), 0);
    }

    #[test]
    fn one_feature_is_its_hash() {
        let h = hash_feature("新闻".as_bytes());
        assert_eq!(fingerprint([(h, 1.0)]), h);
        // A negative weight flips every bit.
        assert_eq!(fingerprint([(h, -2.5)]), !h);
    }

    #[test]
    fn ties_are_zero() {
        // Two features with complementary hashes and equal weight cancel out exactly.
        assert_eq!(fingerprint([(0xF0F0, 1.0), (!0xF0F0u64, 1.0)]), 0);
    }

    #[test]
    fn xxh3_golden() {
        // Pins the hash function: changing it would silently change every stored fingerprint.
        assert_eq!(hash_feature(b""), 0x2D06800538D394C2);
        assert_eq!(hash_feature("中国".as_bytes()), hash_feature("中国".as_bytes()));
    }

    /// The fold as it was before the sign table, kept to prove the two bit-identical.
    fn fingerprint_shift_convert(features: &[(u64, f64)]) -> u64 {
        let mut acc = [0f64; 64];
        for &(hash, weight) in features {
            for (bit, slot) in acc.iter_mut().enumerate() {
                let sign = ((hash >> bit) & 1) as f64 * 2.0 - 1.0;
                *slot += sign * weight;
            }
        }
        acc.iter().enumerate().fold(0u64, |fp, (bit, &v)| if v > 0.0 { fp | (1u64 << bit) } else { fp })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn sign_table_equals_shift_convert(feats in proptest::collection::vec(
            (any::<u64>(), prop_oneof![-1e3f64..1e3, (1u32..20, 5.0f64..15.0).prop_map(|(c, i)| c as f64 * i), Just(0.0), Just(-0.0)]),
            0..60,
        )) {
            prop_assert_eq!(fingerprint(feats.iter().copied()), fingerprint_shift_convert(&feats));
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2000))]
        #[test]
        fn add_all_equals_add(feats in proptest::collection::vec(
            (any::<u64>(), prop_oneof![-1e3f64..1e3, any::<f64>().prop_filter("finite", |w| w.is_finite()), Just(0.0), Just(-0.0)]),
            0..60,
        )) {
            let mut one_by_one = Fold::default();
            for &(hash, weight) in &feats {
                one_by_one.add(hash, weight);
            }
            let mut all = Fold::default();
            all.add_all(feats.iter().copied());
            for (a, b) in one_by_one.acc.as_flattened().iter().zip(all.acc.as_flattened()) {
                prop_assert_eq!(a.to_bits(), b.to_bits());
            }
        }
    }

    proptest! {
        #[test]
        fn matches_bitwise_definition(feats in proptest::collection::vec((any::<u64>(), -100.0f64..100.0), 0..40)) {
            let fp = fingerprint(feats.iter().copied());
            for bit in 0..64 {
                let mut s = 0.0f64;
                for &(h, w) in &feats {
                    if (h >> bit) & 1 == 1 { s += w } else { s -= w }
                }
                prop_assert_eq!((fp >> bit) & 1 == 1, s > 0.0, "bit {}", bit);
            }
        }

        #[test]
        fn scale_invariant(feats in proptest::collection::vec((any::<u64>(), 1u32..50), 0..40), scale in 1u32..8) {
            // Integer weights keep the sums exact, so scaling cannot change a sign.
            let a = fingerprint(feats.iter().map(|&(h, w)| (h, w as f64)));
            let b = fingerprint(feats.iter().map(|&(h, w)| (h, (w * scale) as f64)));
            prop_assert_eq!(a, b);
        }
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(500))]
        #[test]
        fn exact_sums_ignore_order(
            feats in proptest::collection::vec((any::<u64>(), prop_oneof![-1e3f64..1e3, Just(0.1), Just(0.2), Just(0.3)]), 0..40),
            key in any::<u64>(),
        ) {
            // Any permutation: sorted by a keyed mix of each feature's hash and position.
            let mut permuted: Vec<(usize, (u64, f64))> = feats.iter().copied().enumerate().collect();
            permuted.sort_by_key(|&(i, (h, _))| (h ^ key).wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ i as u64);
            let a = exact_fingerprint(feats.iter().copied());
            let b = exact_fingerprint(permuted.into_iter().map(|(_, f)| f));
            prop_assert_eq!(a, b);
        }

        #[test]
        fn exact_sums_equal_f64_sums_of_small_integers(feats in proptest::collection::vec((any::<u64>(), -50i32..50), 0..40)) {
            // Sums of small integers are exact in f64 too: the two folds agree, ties included.
            let f = feats.iter().map(|&(h, w)| (h, f64::from(w)));
            prop_assert_eq!(exact_fingerprint(f.clone()), fingerprint(f));
        }
    }

    #[test]
    fn exact_ties_do_not_depend_on_order() {
        // 0.1 + 0.2 − 0.3 is 5.6e-17 in f64, and −0.3 + 0.2 + 0.1 is 2.8e-17: both set
        // the bit. Rounded to integers the sum is 0 either way, a tie, and the bit is clear.
        let feats = [(u64::MAX, 0.1), (u64::MAX, 0.2), (0, 0.3)];
        assert_eq!(exact_fingerprint(feats), 0);
        assert_eq!(exact_fingerprint(feats.into_iter().rev()), 0);
    }
}
