//! Why two texts resemble each other: every segment of either text with its partner in the
//! other (`simhash_explain`, docs/segments.md). A segment of A is *exact* when B has it, else
//! *within k bits* when B has a segment at most k bits from it (its nearest, the first in B's
//! order on a tie), else it has none; the same for B's segments in A.
//!
//! These are the matches that [`Near`] counts, so the credits of the rows (1 exact, ½ within
//! k bits, 0 none) add up to [`Near::resemblance`] and [`Near::containment`]: the figures of
//! `simhash_resemblance` and `simhash_containment` on the same segments. The counts come
//! from the partners, the figures from [`Near`]'s own formulas, and the tests hold the
//! counts to [`Near::of`]'s.

use super::Near;

/// Comparisons between two [`explain`] ticks, as for [`Near::of`].
const TICK_PAIRS: usize = 1 << 20;

/// A segment's partner in the other text: the index of that text's segment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Partner {
    /// The other text has the same segment.
    Exact(usize),
    /// The other text has not, but has this segment within k bits, at this distance.
    Within(usize, u32),
    None,
}

impl Partner {
    /// What the segment adds to the resemblance and containment: 1 exact, ½ within k bits.
    pub fn credit(self) -> f64 {
        match self {
            Partner::Exact(_) => 1.0,
            Partner::Within(..) => 0.5,
            Partner::None => 0.0,
        }
    }
}

/// The partners of two texts' segments, and the [`Near`] counts they add up to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Explained {
    /// The partner in B of each segment of A, in A's order.
    pub a: Vec<Partner>,
    /// The partner in A of each segment of B, in B's order.
    pub b: Vec<Partner>,
    pub near: Near,
}

/// The partner of every segment of `a` in `b` and of `b` in `a`, segments matched within `k`
/// bits (0: exactly). `a` and `b` are distinct segments, as `simhash_segments` gives them
/// (a repeat would be counted twice). Calls `tick` every [`TICK_PAIRS`] comparisons.
pub fn explain(a: &[u64], b: &[u64], k: u32, tick: &mut dyn FnMut()) -> Explained {
    let mut since_tick = 0;
    let mut partners = |xs: &[u64], ys: &[u64]| -> Vec<Partner> {
        xs.iter()
            .map(|&x| {
                since_tick += ys.len();
                if since_tick >= TICK_PAIRS {
                    since_tick = 0;
                    tick();
                }
                partner(x, ys, k)
            })
            .collect()
    };
    let (pa, pb) = (partners(a, b), partners(b, a));
    let count = |p: &[Partner], exact: bool| {
        p.iter()
            .filter(|p| if exact { matches!(p, Partner::Exact(_)) } else { matches!(p, Partner::Within(..)) })
            .count()
    };
    let near =
        Near { a: a.len(), b: b.len(), common: count(&pa, true), near_a: count(&pa, false), near_b: count(&pb, false) };
    Explained { a: pa, b: pb, near }
}

/// `x`'s partner among `ys`: equal, else the nearest within `k` (the first on a tie), else none.
fn partner(x: u64, ys: &[u64], k: u32) -> Partner {
    let mut best: Option<(u32, usize)> = None;
    for (j, &y) in ys.iter().enumerate() {
        let d = (x ^ y).count_ones();
        if d == 0 {
            return Partner::Exact(j);
        }
        if d <= k && best.is_none_or(|(bd, _)| d < bd) {
            best = Some((d, j));
        }
    }
    best.map_or(Partner::None, |(d, j)| Partner::Within(j, d))
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The credits' sums, as `simhash_explain`'s rows add them up.
    fn sums(e: &Explained) -> (f64, f64, f64) {
        let sum = |p: &[Partner]| p.iter().map(|p| p.credit()).sum::<f64>();
        let share = |n: f64, d: usize| if d == 0 { 0.0 } else { n / d as f64 };
        let (sa, sb) = (sum(&e.a), sum(&e.b));
        (share(sa + sb, e.a.len() + e.b.len()), share(sa, e.a.len()), share(sb, e.b.len()))
    }

    #[test]
    fn values() {
        // 0 in both; 1 is 1 bit from 3 and from 0 (3 comes first); !0 has no partner within 2.
        let e = explain(&[0, 1, !0], &[3, 0], 2, &mut || {});
        assert_eq!(e.a, [Partner::Exact(1), Partner::Within(0, 1), Partner::None]);
        assert_eq!(e.b, [Partner::Within(1, 1), Partner::Exact(0)]);
        assert_eq!(e.near, Near { a: 3, b: 2, common: 1, near_a: 1, near_b: 1 });
        assert_eq!(sums(&e), (e.near.resemblance(), e.near.containment(), e.near.flip().containment()));
        assert_eq!(sums(&e), (3.0 / 5.0, 0.5, 0.75));
        // The nearest wins, the first on a tie; exactly, nothing is within.
        assert_eq!(partner(0, &[0b111, 0b11, 0b101], 3), Partner::Within(1, 2));
        assert_eq!(explain(&[0, 1], &[3], 0, &mut || {}).a, [Partner::None, Partner::None]);
        assert_eq!(sums(&explain(&[], &[], 5, &mut || {})), (0.0, 0.0, 0.0));
    }

    #[test]
    fn ticks_on_large_sets() {
        let a: Vec<u64> = (0..3000u64).map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15)).collect();
        let mut ticks = 0;
        let e = explain(&a, &a, 1, &mut || ticks += 1);
        assert_eq!((e.near.common, ticks), (3000, 2 * 3000 * 3000 / TICK_PAIRS));
    }

    proptest! {
        /// The partners count what [`Near::of`] counts, so their credits add up to the figures
        /// of `simhash_resemblance` and `simhash_containment`, at every k; B drawn near A.
        #[test]
        fn sums_equal_near(a in prop::collection::vec(any::<u64>(), 0..20),
                           flips in prop::collection::vec((0usize..20, 0u32..64, 0u32..64, any::<u64>()), 0..20),
                           k in 0u32..=64) {
            let mut a = a;
            let mut seen = std::collections::HashSet::new();
            a.retain(|x| seen.insert(*x));
            let mut b: Vec<u64> = flips.iter().map(|&(i, x, y, other)| {
                a.get(i).map_or(other, |&s| s ^ (1u64 << x) ^ (1u64 << y))
            }).collect();
            seen.clear();
            b.retain(|x| seen.insert(*x));
            let e = explain(&a, &b, k, &mut || {});
            prop_assert_eq!(e.near, Near::of(&a, &b, k, &mut || {}));
            prop_assert_eq!(sums(&e), (e.near.resemblance(), e.near.containment(), e.near.flip().containment()));
            prop_assert_eq!(e.near.resemblance(), crate::segments::Near::of(&b, &a, k, &mut || {}).resemblance());
            for (p, &x) in e.a.iter().zip(&a) {
                match *p {
                    Partner::Exact(j) => prop_assert_eq!(b[j], x),
                    Partner::Within(j, d) => prop_assert!(d == (x ^ b[j]).count_ones() && d > 0 && d <= k),
                    Partner::None => prop_assert!(b.iter().all(|&y| (x ^ y).count_ones() > k)),
                }
            }
        }
    }
}
