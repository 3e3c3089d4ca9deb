//! Hamming balls and shells of block values: what a probe looks up.
//!
//! The ball of radius `r` around a `w`-bit value holds every `w`-bit value within `r` bits
//! of it; the shell of radius `r` only those at exactly `r` bits. Range search (`blocks`)
//! probes whole balls; nearest-neighbour search (`nearest`) probes one shell at a time, as
//! the shells of radius 0, 1, ..., `r` partition the ball of radius `r`.

/// Binomial coefficient C(n, k), exact for `n <= 64` (every C(64, k) fits a `u64`; the
/// running product stays below 2^128). 0 when `k > n`. The one binomial of the crate: the
/// size of a shell, and the number of block combinations a pairs plan builds tables for.
pub(crate) fn binomial(n: u32, k: u32) -> u64 {
    if k > n {
        return 0;
    }
    let k = k.min(n - k);
    let mut c: u128 = 1;
    for i in 0..k {
        // Exact: c·(n−i) is C(n, i+1)·(i+1), a multiple of i+1.
        c = c * (n - i) as u128 / (i + 1) as u128;
    }
    c as u64
}

/// V(r, w): number of `w`-bit values within Hamming distance `r` of a given one.
pub fn ball_size(width: u32, radius: u32) -> u64 {
    (0..=radius.min(width)).map(|d| binomial(width, d)).sum()
}

/// Every `width`-bit value within Hamming distance `radius` of `center`, nearest first
/// (the center itself, then distance 1, ...). `width <= 32`.
pub fn ball(center: u32, width: u32, radius: u32) -> Vec<u32> {
    let mut out = Vec::with_capacity(ball_size(width, radius) as usize);
    for d in 0..=radius.min(width) {
        push_shell(&mut out, center, width, d);
    }
    out
}

/// Every `width`-bit value at exactly `radius` bits from `center`, by ascending mask of
/// flipped bits; empty when `radius > width`. `width <= 32`. (The shells of radius 0, 1,
/// ... make up the ball; exact nearest-neighbour search probes them one at a time.)
pub fn shell(center: u32, width: u32, radius: u32) -> Vec<u32> {
    let mut out = Vec::new();
    push_shell(&mut out, center, width, radius);
    out
}

fn push_shell(out: &mut Vec<u32>, center: u32, width: u32, radius: u32) {
    debug_assert!(width <= 32);
    if radius > width {
        return;
    }
    if radius == 0 {
        out.push(center);
        return;
    }
    // Gosper's hack: every `width`-bit mask with exactly `radius` bits set, ascending.
    let full: u64 = 1u64 << width;
    let mut mask: u64 = (1u64 << radius) - 1;
    while mask < full {
        out.push(center ^ mask as u32);
        let c = mask & mask.wrapping_neg();
        let r = mask + c;
        mask = (((r ^ mask) >> 2) / c) | r;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn ball_sizes() {
        assert_eq!(ball_size(16, 0), 1);
        assert_eq!(ball_size(16, 3), 1 + 16 + 120 + 560);
        assert_eq!(ball_size(16, 16), 1 << 16);
        assert_eq!(ball_size(16, 40), 1 << 16);
        assert_eq!(ball(5, 16, 16).len(), 1 << 16);
        assert_eq!(ball(0, 32, 1).len(), 33);
        assert_eq!(binomial(64, 32), 1_832_624_140_942_590_534);
        assert_eq!((binomial(22, 11), binomial(3, 4), binomial(0, 0)), (705_432, 0, 1));
    }

    #[test]
    fn shells_partition_the_ball() {
        for (width, center) in [(8u32, 0x5au32), (13, 0x1abc), (16, 0xffff)] {
            for r in 0..=width {
                let mut union: Vec<u32> = (0..=r).flat_map(|d| shell(center, width, d)).collect();
                let mut b = ball(center, width, r);
                union.sort_unstable();
                b.sort_unstable();
                assert_eq!(union, b);
                assert!(shell(center, width, r).iter().all(|&v| (v ^ center).count_ones() == r));
                assert_eq!(shell(center, width, r).len() as u64, binomial(width, r));
            }
            assert!(shell(center, width, width + 1).is_empty());
        }
    }

    proptest! {
        #[test]
        fn ball_matches_brute_force(center in 0u32..(1 << 10), width in 1u32..=10, radius in 0u32..=11) {
            let center = center & ((1u32 << width) - 1);
            let mut got = ball(center, width, radius);
            got.sort_unstable();
            let want: Vec<u32> = (0..(1u32 << width)).filter(|&v| (v ^ center).count_ones() <= radius).collect();
            prop_assert_eq!(got.len() as u64, ball_size(width, radius));
            prop_assert_eq!(got, want);
        }
    }
}
