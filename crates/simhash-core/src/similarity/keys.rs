//! Step 3: the index keys of a text, and the keys a query looks up (the GIN operator class
//! `simhash_ops`, src/similarity/gin.rs).
//!
//! A text's keys are two samples of its shingles, each shingle's key the low [`KEY_BITS`]
//! bits of its hash:
//! - the [`K`] smallest hashes (a bottom-k sketch: Broder 1997; Cohen and Kaplan 2007).
//!   Two texts at similarity J share a key with probability at least `1 − (1 − J)^K`: the
//!   K smallest hashes of the union are a uniform sample of it, and any of them that is in
//!   both texts is among the K smallest of each;
//! - winnowed shingles (Schleimer, Wilkerson and Aiken 2003): of every [`W`] consecutive
//!   shingles, the one with the smallest hash. Every run of `W` shingles two texts share
//!   (`W + 4` characters or so) gives them a shared key, wherever it is in either text:
//!   what finds a short text inside a long one, which a fixed-size sample of the long
//!   text would miss.
//!
//! Shingles on the [`frequent`](super::frequent) list (boilerplate, "the", 新华社) are no
//! keys: their posting lists would hold most of a table.

use super::frequent::is_frequent;
use super::shingles::{for_each_shingle, Version};

/// Keys per text in the bottom-k sketch.
pub const K: usize = 24;
/// The winnowing window, in shingles.
pub const W: usize = 24;
/// Bits of a key: the hash's low bits.
pub const KEY_BITS: u32 = 18;

/// The parameters of key selection (the constants above; others in experiments), and the
/// version of the measure whose shingles (and frequent list) the keys are of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyParams {
    pub version: Version,
    pub k: usize,
    /// 0: no winnowing.
    pub w: usize,
    pub bits: u32,
    /// Whether frequent shingles are put last (no experiment turns it off but to measure it).
    pub frequent_last: bool,
}

impl KeyParams {
    /// The index's parameters for version `v`'s keys.
    pub fn of(v: Version) -> KeyParams {
        KeyParams { version: v, k: K, w: W, bits: KEY_BITS, frequent_last: true }
    }

    /// The key of a shingle hash.
    #[inline]
    pub fn key(&self, h: u64) -> i32 {
        let low = h as u32;
        (if self.bits >= 32 { low } else { low & ((1u32 << self.bits) - 1) }) as i32
    }
}

/// A text's two samples of shingle hashes (module docs), before they become keys.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The `k` smallest distinct hashes, ascending.
    pub bottom: Vec<u64>,
    /// The winnowed hashes, in text order (a hash selected twice in a row once).
    pub winnowed: Vec<u64>,
    /// How many distinct shingles the text has, counted up to [`COUNTED`].
    pub distinct: usize,
}

/// The most distinct shingles [`sample`] counts: past it, [`required`] assumes a large text.
pub const COUNTED: usize = 1024;

/// The order of shingles in a sketch: frequent ones last, then by hash. A text with fewer
/// than `k` shingles off the [frequent](super::frequent) list fills its sketch with
/// frequent ones, so that a short line of boilerplate (`（新华社北京１月１２日电）`, all
/// of whose shingles are frequent) still has keys, and finds its copies.
#[inline]
pub(crate) fn rank(h: u64, p: &KeyParams) -> (bool, u64) {
    (p.frequent_last && is_frequent(h, p.version), h)
}

/// The bottom-k sketch and the winnowed shingles of `doc` in one pass: a max-heap of the
/// `k` smallest (by [`rank`]), and the window's minima in a monotonic queue (at most `w`
/// entries). Frequent shingles are never winnowed: they take their place in the windows.
pub fn sample(doc: &str, p: &KeyParams, tick: &mut dyn FnMut()) -> Sample {
    let mut bottom = std::collections::BinaryHeap::with_capacity(p.k + 1);
    let mut winnowed = Vec::new();
    // (position, hash), hashes non-decreasing from the back: the window's candidates.
    let mut queue = std::collections::VecDeque::with_capacity(p.w + 1);
    let mut pos = 0usize;
    let mut last: Option<usize> = None;
    let mut counted = super::measure::HashSet64::default();
    for_each_shingle(doc, p.version, tick, |h| {
        if counted.len() < COUNTED {
            counted.insert(h);
        }
        let r = rank(h, p);
        if (bottom.len() < p.k || bottom.peek().is_some_and(|&top| r < top)) && !bottom.iter().any(|&x| x == r) {
            bottom.push(r);
            if bottom.len() > p.k {
                bottom.pop();
            }
        }
        if p.w > 0 && !r.0 {
            // The rightmost minimum: a later equal hash replaces an earlier one.
            while queue.back().is_some_and(|&(_, x)| x >= h) {
                queue.pop_back();
            }
            queue.push_back((pos, h));
        }
        if p.w > 0 {
            while queue.front().is_some_and(|&(i, _)| i + p.w <= pos) {
                queue.pop_front();
            }
            if pos + 1 >= p.w {
                if let Some(&(i, x)) = queue.front() {
                    if last != Some(i) {
                        last = Some(i);
                        winnowed.push(x);
                    }
                }
            }
        }
        pos += 1;
    });
    // A text of fewer than `w` shingles is one window.
    if p.w > 0 && pos < p.w {
        if let Some(&(_, x)) = queue.front() {
            winnowed.push(x);
        }
    }
    let mut bottom: Vec<u64> = bottom.into_iter().map(|(_, h)| h).collect();
    bottom.sort_unstable();
    Sample { bottom, winnowed, distinct: counted.len() }
}

/// The keys of shingle hashes `hs`, ascending, distinct.
pub fn key_set<'a>(hs: impl IntoIterator<Item = &'a u64>, p: &KeyParams) -> Vec<i32> {
    let mut keys: Vec<i32> = hs.into_iter().map(|&h| p.key(h)).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The index keys of a sample: every key of both parts, ascending, distinct.
pub fn index_keys(s: &Sample, p: &KeyParams) -> Vec<i32> {
    key_set(s.bottom.iter().chain(&s.winnowed), p)
}

/// The index keys of `doc` under version `v`, with the index's parameters: what a `simhash_ops`
/// index holds for it.
pub fn text_keys(doc: &str, v: super::shingles::Version, tick: &mut dyn FnMut()) -> Vec<i32> {
    let p = KeyParams::of(v);
    index_keys(&sample(doc, &p, tick), &p)
}

/// The keys a similarity query looks up: its bottom-k sketch's, ascending, distinct.
pub fn similarity_keys(s: &Sample, p: &KeyParams) -> Vec<i32> {
    key_set(&s.bottom, p)
}

/// The per-pair miss probability a lookup allows itself when it asks for more than one
/// shared key (see [`required`]).
pub const MISS: f64 = 1e-3;

/// How many of a similarity query's keys a row must share for a lookup at threshold `theta`
/// to keep it, for a query of `q` distinct shingles ([`COUNTED`] or more: a large text) and `k` keys in a sketch: the largest `m ≥ 1` such that a row at similarity
/// `J ≥ θ` shares fewer than `m` keys with probability at most [`MISS`].
///
/// For such a row R, with U = Q ∪ R and I = Q ∩ R, every shingle of I among the `k`
/// smallest of U is in both sketches, and how many there are is hypergeometric:
/// `min(k, |U|)` drawn from |U| without replacement, |I| ≥ ⌈θ|U|⌉ of them marked. As
/// `|I| ≤ q`, `|U|` is at most `q / θ`; the miss probability is largest for the largest |U|
/// and the fewest marked, which is what is bounded. A short query thus asks for most of its
/// keys (all its shingles are keys, and so are most of a similar row's), a long one for
/// what a Binomial(k, θ) keeps above its lower tail (the limit of large |U|).
pub fn required(q: usize, k: usize, theta: f64) -> usize {
    let n = q.min(k);
    if n == 0 || theta <= 0.0 {
        return 1;
    }
    let theta = theta.min(1.0);
    // The largest union a row at similarity θ can make with the query.
    let union = if q >= COUNTED { usize::MAX } else { ((q as f64 / theta) + 1e-9).floor() as usize };
    // Past 4k the hypergeometric tail is within a hair of the binomial's, which bounds it
    // (Hoeffding 1963: sampling without replacement is the more concentrated).
    let exact_to = union.min(4 * k);
    let tail = |m: usize| -> f64 {
        let small = (q.max(1)..=exact_to)
            .map(|big| {
                // The fewest shared shingles a union of this size holds.
                let marked = ((theta * big as f64) - 1e-9).ceil() as usize;
                hypergeometric_below(big, marked.min(big), k.min(big), m)
            })
            .fold(0.0, f64::max);
        let large = if union > exact_to { (0..m).map(|i| binomial(k, i, theta)).sum() } else { 0.0 };
        small.max(large)
    };
    let mut m = 1;
    while m < n && tail(m + 1) <= MISS {
        m += 1;
    }
    m
}

/// `P(X < m)` for X hypergeometric: `draws` drawn from `total` without replacement, of which
/// `marked` are marked.
fn hypergeometric_below(total: usize, marked: usize, draws: usize, m: usize) -> f64 {
    // P(X = i) = C(marked, i) C(total − marked, draws − i) / C(total, draws), in logs.
    let ln_c = |n: usize, r: usize| -> f64 {
        if r > n {
            return f64::NEG_INFINITY;
        }
        ln_factorial(n) - ln_factorial(r) - ln_factorial(n - r)
    };
    let denom = ln_c(total, draws);
    (0..m.min(draws + 1)).map(|i| (ln_c(marked, i) + ln_c(total - marked, draws - i) - denom).exp()).sum()
}

/// ln(n!), exactly summed below 256 and by Stirling's series above.
fn ln_factorial(n: usize) -> f64 {
    // The sums below 256, each made once per process: `required` asks for them for every
    // union size and count, and summing them again per call put a quarter of a short
    // containment check's time into ln (perf, 100,000 short texts: 23% in log). Kept, a dedup
    // check's query took 0.80 ms with containment (1.3–1.6) and 0.19 ms without (0.79–0.86).
    static SMALL: std::sync::OnceLock<[f64; 256]> = std::sync::OnceLock::new();
    if n < 256 {
        return SMALL.get_or_init(|| std::array::from_fn(ln_factorial_summed))[n];
    }
    let x = n as f64;
    x * x.ln() - x + 0.5 * (2.0 * std::f64::consts::PI * x).ln() + 1.0 / (12.0 * x) - 1.0 / (360.0 * x * x * x)
}

/// ln(n!) summed term by term, as [`ln_factorial`] keeps it below 256.
fn ln_factorial_summed(n: usize) -> f64 {
    (2..=n).map(|i| (i as f64).ln()).sum()
}

/// `P(X = i)` for `X ~ Binomial(n, p)`.
fn binomial(n: usize, i: usize, p: f64) -> f64 {
    let mut c = 1.0f64;
    for j in 0..i {
        c = c * (n - j) as f64 / (j + 1) as f64;
    }
    c * p.powi(i as i32) * (1.0 - p).powi((n - i) as i32)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The kept sums are the sums, to the bit.
    #[test]
    fn ln_factorial_table_is_the_sum() {
        for n in 0..256 {
            assert_eq!(ln_factorial(n).to_bits(), ln_factorial_summed(n).to_bits(), "{n}");
        }
    }

    #[test]
    fn required_keys() {
        // A long query: P(Bin(16, 0.5) < 2) = 2.6e-4, < 3: 2.1e-3.
        assert_eq!(required(COUNTED, 16, 0.5), 2);
        assert_eq!(required(COUNTED, 16, 0.0), 1);
        assert_eq!(required(1, 16, 0.9), 1);
        assert!(required(COUNTED, 16, 0.9) > required(COUNTED, 16, 0.6));
        // A query of 10 shingles: a row at 0.5 makes a union of at most 20, of which the
        // 16 drawn hold at least 16 − 10 = 6 shared.
        assert!(required(10, 16, 0.5) >= 5, "{}", required(10, 16, 0.5));
    }
}
