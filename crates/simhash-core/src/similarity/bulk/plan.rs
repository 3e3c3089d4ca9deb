//! The banding of a bulk run at θ (`super`): `b` bands of `r` MinHash values, and the
//! filter a colliding pair must pass before it is measured, with the probability that a pair
//! at similarity exactly θ is missed.
//!
//! A band of `r` values of a pair at Jaccard index `J` is equal with probability `J^r`
//! (each value is equal with probability `J`: one-permutation hashing with optimal
//! densification, `sketch.rs`), so a pair at θ is in no band with probability `(1 − θ^r)^b`.
//! The plan asks that to be at most [`LSH_MISS`], with `r ≥ 3` (fewer values draw too many
//! unrelated pairs of a bounded vocabulary: over 8M random pairs of the Markov corpus,
//! `E[J²] = 8.7·10⁻⁶` and `E[J³] = 6.7·10⁻⁸`), and takes the largest `r` whose `b` stays
//! within `max(b(3), 16)` bands; below the θ where `r = 3` needs more than [`MAX_BANDS`]
//! bands it takes `r = 2`; below [`MIN_THETA`] there is no plan (`super`'s fallback).
//!
//! The filter: a pair that collides in a band is measured only if its two-bit codes (the
//! lowest two bits of each of the first [`CODES`] bins' minimum) agree in at least
//! [`Plan::codes_needed`] places. A bin's codes agree with probability `J + (1 − J)/4`, so
//! the count is at least `Binomial(CODES, θ + (1 − θ)/4)` for a pair at θ; `codes_needed`
//! is the most for which that falls short with probability at most [`FILTER_MISS`]. An
//! unrelated pair (`J` about 0.002 here) passes with probability below 10⁻¹².

/// The probability a pair at θ collides in no band (module docs).
/// 6·10⁻⁴ and not 10⁻³: small sets miss more than the formula says (`MIN_BINS`), and the
/// code filter adds its share.
pub const LSH_MISS: f64 = 6e-4;
/// The probability a pair at θ that collides fails the code filter.
pub const FILTER_MISS: f64 = 1e-5;
/// The fewest shingles both rows of a collision need for the code filter to apply. A smaller
/// set fills the 128 code bins from so few shingles that its bins agree with another's all
/// or nothing, not one by one: at θ = 0.5 the filter dropped 5.4% of the pairs of 1 and 2
/// shingles, 2.3% of 2 and 4, 0.9% of 3 and 6, 3·10⁻³ of 4 and 8, 2·10⁻⁴ of 8 and 16, 2·10⁻⁵
/// of 16 and 32 (20,000 to 100,000 pairs each, planted as in `tests.rs`). Measuring such a small pair
/// costs little, and the length bound drops it beside a long text first.
pub const CODED_MIN: usize = 16;
/// Bands allowed for `r = 3`; more and the plan takes `r = 2`.
pub const MAX_BANDS: usize = 128;
/// Below this θ no banding is both cheap and safe: at 0.3, `r = 2` needs 75 bands.
pub const MIN_THETA: f64 = 0.3;
/// Two-bit codes per row: the first `CODES` bins, 32 bytes.
pub const CODES: usize = 128;
/// The fewest bins a signature spreads shingles over. Two elements of a pair's union in one
/// bin make the share of equal bins differ from J for that pair, and for small sets that
/// raises the miss above the formula: over 100,000 pairs of sets of 3 at J = 0.5 (θ = 0.5,
/// 53 bands, formula 8.4·10⁻⁴), 3.1·10⁻³ missed with 159 bins, 1.3·10⁻³ with 1,024.
pub const MIN_BINS: usize = 2048;
/// The most values per band (θ = 1 needs one band of any width).
const MAX_R: usize = 24;

/// A run's banding (module docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plan {
    /// Values per band.
    pub r: usize,
    /// Bands.
    pub b: usize,
    /// MinHash bins a row's shingles are spread over: at least [`MIN_BINS`].
    pub bins: usize,
    /// The bins read (densified): `max(r·b, CODES)`, the first of `bins`.
    pub used: usize,
    /// Agreeing codes a colliding pair needs to be measured.
    pub codes_needed: u32,
}

/// Bands of `r` values that a pair at `theta` misses all of with probability ≤ [`LSH_MISS`].
fn bands(theta: f64, r: usize) -> usize {
    let p = theta.powi(r as i32);
    if p >= 1.0 {
        return 1;
    }
    (LSH_MISS.ln() / (1.0 - p).ln()).ceil().max(1.0) as usize
}

/// The plan at `theta`, or None below [`MIN_THETA`] (or for a θ that is no number).
pub fn plan(theta: f64) -> Option<Plan> {
    if theta.is_nan() || theta < MIN_THETA {
        return None;
    }
    let theta = theta.min(1.0);
    let (r, b) = if bands(theta, 3) > MAX_BANDS {
        (2, bands(theta, 2))
    } else {
        let cap = bands(theta, 3).max(16);
        let r = (3..=MAX_R).take_while(|&r| bands(theta, r) <= cap).last().unwrap_or(3);
        (r, bands(theta, r))
    };
    let used = (r * b).max(CODES);
    Some(Plan { r, b, bins: used.max(MIN_BINS), used, codes_needed: codes_needed(theta) })
}

/// The most `m` with `P(Binomial(CODES, θ + (1 − θ)/4) < m) ≤ FILTER_MISS`.
fn codes_needed(theta: f64) -> u32 {
    let p = theta + (1.0 - theta) / 4.0;
    if p >= 1.0 {
        return CODES as u32;
    }
    // P(X = i) for i = 0.., summed while it stays within the allowance.
    let (mut tail, mut term, mut m) = (0.0f64, (1.0 - p).powi(CODES as i32), 0u32);
    for i in 0..CODES {
        tail += term;
        if tail > FILTER_MISS {
            break;
        }
        m = i as u32 + 1;
        term *= (CODES - i) as f64 / (i + 1) as f64 * p / (1.0 - p);
    }
    m
}

impl Plan {
    /// The probability that a pair at similarity `j` collides in no band: `(1 − j^r)^b`.
    pub fn band_miss(&self, j: f64) -> f64 {
        (1.0 - j.powi(self.r as i32)).powi(self.b as i32)
    }

    /// The documented miss bound at θ: no band, or a collision the code filter drops.
    pub fn miss(&self, theta: f64) -> f64 {
        self.band_miss(theta) + FILTER_MISS
    }

    /// Bytes per row of band keys and codes.
    pub fn key_bytes(&self) -> usize {
        4 * self.b + CODES / 4
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_of_the_docs() {
        // θ: (r, b, bytes per row held).
        let table = [
            (0.3, 2, 79, 380),
            (0.4, 3, 113, 516),
            (0.5, 3, 56, 288),
            (0.6, 3, 31, 188),
            (0.7, 3, 18, 136),
            (0.8, 4, 15, 124),
            (0.85, 6, 16, 128),
            (0.9, 9, 16, 128),
            (0.95, 19, 16, 128),
        ];
        for (t, r, b, bytes) in table {
            let p = plan(t).expect("a plan");
            assert_eq!((p.r, p.b, super::super::bytes_per_row(&p)), (r, b, bytes), "{t}");
        }
    }

    #[test]
    fn plans_by_threshold() {
        let rb = |t: f64| plan(t).map(|p| (p.r, p.b));
        assert_eq!(rb(0.29), None);
        assert_eq!(rb(0.3), Some((2, 79)));
        assert_eq!(rb(0.5), Some((3, 56)));
        assert_eq!(rb(1.0).map(|p| p.1), Some(1));
        for t in [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 1.0] {
            let p = plan(t).expect("a plan");
            assert!(p.miss(t) <= 1e-3, "{t}: {p:?}");
            assert!(p.b <= MAX_BANDS);
            // From 0.5 on, an unrelated pair (J = 0.02) is 4 standard deviations short.
            if t >= 0.5 {
                assert!(p.codes_needed as f64 > (0.02 + 0.98 / 4.0) * CODES as f64 + 20.0, "{t}: {p:?}");
            }
        }
    }
}
