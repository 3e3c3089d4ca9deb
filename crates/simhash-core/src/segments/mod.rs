//! Comparing texts by their segment fingerprints ([`segments`](crate::fingerprints::segments)):
//! how much two texts share, as sets of segments (docs/segments.md).
//!
//! - *Resemblance* is the share of both texts' segments that find a partner in the other,
//!   `2|A∩B| / (|A|+|B|)`: reposts with a sentence dropped, added or cut score high.
//!   It is Dice's coefficient; Broder's resemblance (1997) is the Jaccard index
//!   `J = |A∩B| / |A∪B|`, and the two order pairs alike (`R = 2J / (1 + J)`).
//! - *Containment* of A in B is the share of A's segments found in B, `|A∩B| / |A|`
//!   (Broder's containment): an excerpt of B, or a text merged into B, is contained in B.
//!
//! Both are over distinct segments: a segment repeated in a text counts once.
//! [`Near`] matches segments within k bits instead of exactly (opt-in, since 2.1.0).
//! [`explain`] names the partner of every segment, which is what those figures count.
//!
//! [`SegmentPairs`] and [`segment_clusters`] find every pair of rows by resemblance in bulk
//! (module `pairs`, over the postings of module `postings`). [`trigger`] holds the
//! PostgreSQL-free half of `simhash_segments_dedup_trigger`.

mod explain;
mod pairs;
mod postings;
pub mod trigger;
mod within;

pub use explain::{explain, Explained, Partner};
pub use pairs::{segment_clusters, segment_pairs, SegmentPair, SegmentPairs};
pub use postings::SegmentRows;
pub use within::Near;

use crate::similarity::measure::{common, share};

/// The distinct values of `a`, sorted.
fn set(a: &[u64]) -> Vec<u64> {
    let mut v = a.to_vec();
    v.sort_unstable();
    v.dedup();
    v
}

/// How two texts' segments overlap: the distinct segments of each and how many they share.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Overlap {
    pub a: usize,
    pub b: usize,
    pub common: usize,
}

impl Overlap {
    pub fn of(a: &[u64], b: &[u64]) -> Overlap {
        let (a, b) = (set(a), set(b));
        Overlap { a: a.len(), b: b.len(), common: common(&a, &b) }
    }

    /// `2|A∩B| / (|A|+|B|)`; 0 when both are empty.
    pub fn resemblance(&self) -> f64 {
        share(2 * self.common, self.a + self.b)
    }

    /// `|A∩B| / |A|`, the share of A's segments found in B; 0 when A is empty.
    pub fn containment(&self) -> f64 {
        share(self.common, self.a)
    }

    /// The same overlap seen from B.
    pub fn flip(self) -> Overlap {
        Overlap { a: self.b, b: self.a, common: self.common }
    }
}

/// [`Overlap::resemblance`] of two lists of segments.
pub fn resemblance(a: &[u64], b: &[u64]) -> f64 {
    Overlap::of(a, b).resemblance()
}

/// [`Overlap::containment`]: the share of `a`'s segments found in `b`.
pub fn containment(a: &[u64], b: &[u64]) -> f64 {
    Overlap::of(a, b).containment()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values() {
        assert_eq!(resemblance(&[], &[]), 0.0);
        assert_eq!(containment(&[], &[1]), 0.0);
        assert_eq!(resemblance(&[1, 2, 3, 4], &[1, 2, 3, 4]), 1.0);
        // One of four dropped: 3 shared, 2·3 / (4 + 3).
        assert_eq!(resemblance(&[1, 2, 3, 4], &[1, 2, 3]), 6.0 / 7.0);
        assert_eq!(containment(&[1, 2, 3], &[1, 2, 3, 4]), 1.0);
        assert_eq!(containment(&[1, 2, 3, 4], &[1, 2, 3]), 0.75);
        // Repeats count once.
        assert_eq!(Overlap::of(&[5, 5, 6], &[6, 6]), Overlap { a: 2, b: 1, common: 1 });
        assert_eq!(Overlap::of(&[1, 2], &[2, 3, 4]).flip(), Overlap::of(&[2, 3, 4], &[1, 2]));
    }

    proptest::proptest! {
        /// Against sets built the obvious way; symmetric, and related to Jaccard.
        #[test]
        fn against_hash_sets(a in proptest::collection::vec(0u64..20, 0..15), b in proptest::collection::vec(0u64..20, 0..15)) {
            use std::collections::HashSet;
            let (sa, sb): (HashSet<u64>, HashSet<u64>) = (a.iter().copied().collect(), b.iter().copied().collect());
            let n = sa.intersection(&sb).count();
            let o = Overlap::of(&a, &b);
            proptest::prop_assert_eq!(o, Overlap { a: sa.len(), b: sb.len(), common: n });
            proptest::prop_assert_eq!(resemblance(&a, &b), resemblance(&b, &a));
            let union = sa.union(&sb).count();
            if union > 0 {
                let j = n as f64 / union as f64;
                proptest::prop_assert!((resemblance(&a, &b) - 2.0 * j / (1.0 + j)).abs() < 1e-12);
            }
        }
    }
}
