//! Hamming distance between two 64-bit fingerprints.

/// Number of differing bits: the popcount of `a XOR b`, in `0..=64`.
/// Compiles to one `popcnt` where the target has it.
#[inline]
pub fn hamming(a: u64, b: u64) -> u32 {
    (a ^ b).count_ones()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn golden() {
        assert_eq!(hamming(0, 0), 0);
        assert_eq!(hamming(0, u64::MAX), 64);
        assert_eq!(hamming(0b1011, 0b0001), 2);
        assert_eq!(hamming(i64::MIN as u64, 0), 1);
    }

    proptest! {
        #[test]
        fn is_a_metric(a: u64, b: u64, c: u64) {
            prop_assert_eq!(hamming(a, b), hamming(b, a));
            prop_assert_eq!(hamming(a, a), 0);
            prop_assert!(hamming(a, c) <= hamming(a, b) + hamming(b, c));
            // Bit by bit, the slow way.
            let slow = (0..64).filter(|i| (a >> i) & 1 != (b >> i) & 1).count() as u32;
            prop_assert_eq!(hamming(a, b), slow);
        }
    }
}
