//! Resemblance and containment with segments matched within k bits (since 2.1.0, opt-in):
//! a segment of A counts as found in B when B has a segment at most `k` bits from it, and
//! the other way round. At k = 0 this is [`Overlap`]'s exact matching.
//!
//! A one-word change moves a segment's fingerprint by more than 3 bits as often as not, so
//! matching exactly misses copies with scattered character edits: with 3% of the
//! characters edited, resemblance ≥ 0.5 finds 0.44 of 1,000 paragraphs at k = 0 and 0.82
//! at k = 8, at a corpus precision of 79% against 86% (`make quality`, docs/quality.md).

use super::{common, set, Overlap};

/// Comparisons between two [`Near::of`] ticks: about a millisecond of XOR and popcount.
const TICK_PAIRS: usize = 1 << 20;

/// How two texts' distinct segments match within some distance: how many of A's find a
/// partner in B, and of B's in A (equal when matching exactly).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Near {
    pub a: usize,
    pub b: usize,
    pub found_a: usize,
    pub found_b: usize,
}

impl From<Overlap> for Near {
    fn from(o: Overlap) -> Near {
        Near { a: o.a, b: o.b, found_a: o.common, found_b: o.common }
    }
}

impl Near {
    /// The match of `a` and `b` within `k` bits, `k` in `0..=64`. `k = 0` merges the sorted
    /// sets; otherwise every pair is compared (`|A|·|B|` XORs), with a call to `tick`
    /// every [`TICK_PAIRS`] comparisons, so that a caller can cancel.
    pub fn of(a: &[u64], b: &[u64], k: u32, tick: &mut dyn FnMut()) -> Near {
        Near::of_sets(&set(a), &set(b), k, tick)
    }

    /// [`Near::of`] of two lists already sorted and without repeats.
    pub(super) fn of_sets(a: &[u64], b: &[u64], k: u32, tick: &mut dyn FnMut()) -> Near {
        if k == 0 {
            return Overlap { a: a.len(), b: b.len(), common: common(a, b) }.into();
        }
        if a.len() * b.len() <= TICK_PAIRS && b.len() <= 64 {
            // Bulk pairs compare millions of small candidates: no allocation, no tick (6.6M
            // candidates of 3.5 segments: 1.32 → 0.50 s against a Vec of flags).
            let (mut found_a, mut found_b) = (0, 0u64);
            for &x in a {
                let mut hits = 0u64;
                for (j, &y) in b.iter().enumerate() {
                    hits |= u64::from((x ^ y).count_ones() <= k) << j;
                }
                found_a += usize::from(hits != 0);
                found_b |= hits;
            }
            return Near { a: a.len(), b: b.len(), found_a, found_b: found_b.count_ones() as usize };
        }
        let mut found_b = vec![false; b.len()];
        let (mut found_a, mut since_tick) = (0, 0);
        for &x in a {
            let mut found = false;
            for (&y, seen) in b.iter().zip(found_b.iter_mut()) {
                if (x ^ y).count_ones() <= k {
                    found = true;
                    *seen = true;
                }
            }
            found_a += usize::from(found);
            since_tick += b.len();
            if since_tick >= TICK_PAIRS {
                since_tick = 0;
                tick();
            }
        }
        Near { a: a.len(), b: b.len(), found_a, found_b: found_b.iter().filter(|&&f| f).count() }
    }

    /// `(found in A + found in B) / (|A| + |B|)`: [`Overlap::resemblance`] at k = 0; 0 when
    /// both are empty.
    pub fn resemblance(&self) -> f64 {
        share(self.found_a + self.found_b, self.a + self.b)
    }

    /// The share of A's segments with a partner in B; 0 when A is empty.
    pub fn containment(&self) -> f64 {
        share(self.found_a, self.a)
    }

    /// The same match seen from B.
    pub fn flip(self) -> Near {
        Near { a: self.b, b: self.a, found_a: self.found_b, found_b: self.found_a }
    }
}

/// `n / d`, 0 for `d = 0`.
pub(super) fn share(n: usize, d: usize) -> f64 {
    if d == 0 {
        0.0
    } else {
        n as f64 / d as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn near(a: &[u64], b: &[u64], k: u32) -> Near {
        Near::of(a, b, k, &mut || {})
    }

    /// Every pair compared, over distinct elements: what [`Near::of`] must equal.
    fn brute(a: &[u64], b: &[u64], k: u32) -> Near {
        let (a, b) = (set(a), set(b));
        let within = |x: u64, ys: &[u64]| ys.iter().any(|&y| (x ^ y).count_ones() <= k);
        Near {
            a: a.len(),
            b: b.len(),
            found_a: a.iter().filter(|&&x| within(x, &b)).count(),
            found_b: b.iter().filter(|&&y| within(y, &a)).count(),
        }
    }

    #[test]
    fn values() {
        assert_eq!(near(&[], &[], 3).resemblance(), 0.0);
        assert_eq!(near(&[], &[1], 3).containment(), 0.0);
        // 0b0111 is 3 bits from 0: found within 3, not within 2.
        assert_eq!(near(&[0, 1 << 40], &[0b0111], 3), Near { a: 2, b: 1, found_a: 1, found_b: 1 });
        assert_eq!(near(&[0, 1 << 40], &[0b0111], 2), Near { a: 2, b: 1, found_a: 0, found_b: 0 });
        // Two of A near one of B: both count on A's side, once on B's: (2 + 1) / (2 + 1).
        let n = near(&[0, 1], &[3], 2);
        assert_eq!((n.found_a, n.found_b, n.resemblance(), n.containment()), (2, 1, 1.0, 1.0));
        // Repeats count once; every segment is within 64 of every other.
        assert_eq!(near(&[5, 5, 6], &[!6, !6], 64), Near { a: 2, b: 1, found_a: 2, found_b: 1 });
    }

    #[test]
    fn both_paths_against_brute_force() {
        // Up to 64 of B's segments take the bitmask path, more the flags (and past 2^20
        // comparisons, the ticks): the same counts either way.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        for (na, nb) in [(40, 64), (40, 65), (64, 200), (1100, 1000)] {
            let a: Vec<u64> = (0..na).map(|_| next()).collect();
            let b: Vec<u64> =
                (0..nb).map(|i| if i < na { a[i] ^ (next() & next() & next()) } else { next() }).collect();
            for k in [1, 4, 9, 20] {
                assert_eq!(near(&a, &b, k), brute(&a, &b, k), "{na} × {nb}, k {k}");
            }
        }
    }

    #[test]
    fn ticks_on_large_sets() {
        let a: Vec<u64> = (0..3000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let mut ticks = 0;
        let n = Near::of(&a, &a, 1, &mut || ticks += 1);
        assert_eq!((n.found_a, n.found_b), (3000, 3000));
        // One tick per whole number of rows of 3,000 comparisons past TICK_PAIRS.
        assert_eq!(ticks, 3000 / TICK_PAIRS.div_ceil(3000));
    }

    proptest! {
        /// Against brute force, with B drawn near A's segments so that every distance occurs.
        #[test]
        fn equals_brute_force(a in prop::collection::vec(any::<u64>(), 0..24),
                              flips in prop::collection::vec((0usize..24, any::<u64>(), 0u32..12), 0..24),
                              k in 0u32..=64) {
            let b: Vec<u64> = flips.iter().map(|&(i, mask, bits)| {
                let base = a.get(i).copied().unwrap_or(mask);
                // Flip the `bits` lowest set bits of `mask`.
                let mut m = mask;
                let mut flip = 0;
                for _ in 0..bits { if m == 0 { break; } flip |= m & m.wrapping_neg(); m &= m - 1; }
                base ^ flip
            }).collect();
            let got = near(&a, &b, k);
            prop_assert_eq!(got, brute(&a, &b, k));
            prop_assert_eq!(near(&b, &a, k), got.flip());
            if k == 0 {
                prop_assert_eq!(got, Overlap::of(&a, &b).into());
                prop_assert_eq!(got.resemblance(), Overlap::of(&a, &b).resemblance());
            }
        }
    }
}
