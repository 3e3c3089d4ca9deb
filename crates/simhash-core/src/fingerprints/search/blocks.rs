//! Block decomposition of a 64-bit fingerprint for exact Hamming search through btree
//! indexes (Manku, Jain, Das Sarma, WWW 2007; Norouzi et al., Multi-Index Hashing, CVPR 2012).
//!
//! A fingerprint is cut into `n` contiguous bit ranges ("blocks"); block `i` covers bits
//! `[i*64/n, (i+1)*64/n)` (integer division, bit 0 = least significant). If two
//! fingerprints differ in at most `k` bits, the differing bits fall into `n` blocks, so by
//! pigeonhole some block differs in at most `r = floor(k/n)` bits. Probing every block with
//! every value within Hamming radius `r` of the query's block therefore finds every row
//! within distance `k`: the search is exact, the final `hamming(fp, q) <= k` only removes
//! false candidates.
//!
//! This file holds the arithmetic of the blocks, their checks and the choice of a block
//! set; the values probed around a block are Hamming balls (`ball`).

use std::fmt;

use super::ball::{ball, ball_size};

/// Smallest and largest number of blocks a fingerprint may be cut into.
pub const MIN_BLOCKS: i32 = 2;
pub const MAX_BLOCKS: i32 = 16;

/// Largest Hamming ball put into a plan as a constant array (query and k known when
/// planning). Every block of a set with `n >= 4` has at most 16 bits, so its ball (at most
/// 2^16 values) is always within this limit.
pub const MAX_PROBES: u64 = 1 << 16;

/// Largest Hamming ball `simhash_probes` computes at execution (k known only then). Blocks
/// of sets with `n >= 3` have at most 22 bits, so every ball of theirs fits and such sets
/// serve every k at run time. Lists this long (16 MB) occur only from k = 18 with 3 blocks,
/// where a lookup costs as much as a scan anyway; up to k = 17 a 3-block list stays at or
/// below 35,443 values. Serving 3 blocks at run time is worth it: at k = 7, say, their
/// wider blocks fetch several times fewer candidates than 4 blocks do ([`candidate_fraction`];
/// tests/bench/search.sh measures it).
pub const MAX_RUNTIME_PROBES: u64 = 1 << 22;

/// Invalid arguments, named after the SQL argument at fault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum BlockError {
    /// `nblocks` outside `MIN_BLOCKS..=MAX_BLOCKS`.
    NBlocks(i32),
    /// `block` outside `0..nblocks`.
    Block { block: i32, nblocks: i32 },
    /// `max_distance` outside `0..=64`.
    MaxDistance(i32),
    /// The Hamming ball of one block would exceed [`MAX_PROBES`] values.
    TooManyProbes { nblocks: i32, max_distance: i32, probes: u64, limit: u64 },
}

impl fmt::Display for BlockError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BlockError::NBlocks(n) => write!(f, "nblocks must be between {MIN_BLOCKS} and {MAX_BLOCKS}, got {n}"),
            BlockError::Block { block, nblocks } => {
                write!(f, "block must be between 0 and {}, got {block}", nblocks - 1)
            }
            BlockError::MaxDistance(k) => write!(f, "max_distance must be between 0 and 64, got {k}"),
            BlockError::TooManyProbes { nblocks, max_distance, probes, limit } => write!(
                f,
                "max_distance {max_distance} with {nblocks} blocks needs {probes} probes per block (limit {limit})"
            ),
        }
    }
}

/// Checks `block` and `nblocks`.
pub fn check_block(block: i32, nblocks: i32) -> Result<(), BlockError> {
    if !(MIN_BLOCKS..=MAX_BLOCKS).contains(&nblocks) {
        return Err(BlockError::NBlocks(nblocks));
    }
    if !(0..nblocks).contains(&block) {
        return Err(BlockError::Block { block, nblocks });
    }
    Ok(())
}

/// Checks a Hamming distance bound.
pub fn check_max_distance(k: i32) -> Result<(), BlockError> {
    if !(0..=64).contains(&k) {
        return Err(BlockError::MaxDistance(k));
    }
    Ok(())
}

/// Bit range `[lo, hi)` of block `block` of `nblocks` (arguments already checked).
pub fn block_range(block: u32, nblocks: u32) -> (u32, u32) {
    (block * 64 / nblocks, (block + 1) * 64 / nblocks)
}

/// Number of bits of block `block` of `nblocks`.
pub fn block_width(block: u32, nblocks: u32) -> u32 {
    let (lo, hi) = block_range(block, nblocks);
    hi - lo
}

/// Bits `[block*64/nblocks, (block+1)*64/nblocks)` of `fp`, for any `nblocks` in
/// `1..=64` (the trigger's lock keys cut into up to 64 blocks, one of 64 bits).
pub fn block_bits(fp: u64, block: u32, nblocks: u32) -> u64 {
    let (lo, hi) = block_range(block, nblocks);
    let width = hi - lo;
    let mask = if width == 64 { u64::MAX } else { (1u64 << width) - 1 };
    (fp >> lo) & mask
}

/// The bits of block `block` of `nblocks`, as an unsigned integer (at most 32 bits, as
/// `nblocks >= MIN_BLOCKS`).
pub fn block_value(fp: u64, block: u32, nblocks: u32) -> u32 {
    block_bits(fp, block, nblocks) as u32
}

/// Radius each block is probed with for distance bound `k`: some block of a row within
/// distance `k` differs from the query's in at most `floor(k/n)` bits (pigeonhole).
pub fn probe_radius(k: u32, nblocks: u32) -> u32 {
    k / nblocks
}

/// Probe values of block `block` of `nblocks` for a query and distance bound `k`, at most
/// `limit` of them ([`MAX_PROBES`] or [`MAX_RUNTIME_PROBES`]).
pub fn probes(query: u64, block: i32, nblocks: i32, k: i32, limit: u64) -> Result<Vec<u32>, BlockError> {
    check_block(block, nblocks)?;
    check_max_distance(k)?;
    let (b, n) = (block as u32, nblocks as u32);
    let (width, radius) = (block_width(b, n), probe_radius(k as u32, n));
    let size = ball_size(width, radius);
    if size > limit {
        return Err(BlockError::TooManyProbes { nblocks, max_distance: k, probes: size, limit });
    }
    Ok(ball(block_value(query, b, n), width, radius))
}

/// Whether every block's ball for bound `k` stays within `limit`.
pub fn probes_fit(nblocks: u32, k: u32, limit: u64) -> bool {
    let r = probe_radius(k, nblocks);
    (0..nblocks).all(|b| ball_size(block_width(b, nblocks), r) <= limit)
}

/// Whether the set can serve a k known only at execution: every ball for every `k` in
/// `0..=64` within [`MAX_RUNTIME_PROBES`]. True exactly when every block has at most 22
/// bits (`nblocks >= 3`).
pub fn probes_fit_any_k(nblocks: u32) -> bool {
    (0..=64).all(|k| probes_fit(nblocks, k, MAX_RUNTIME_PROBES))
}

/// Expected fraction of uniformly random rows a probe of `nblocks` blocks at bound `k`
/// returns as candidates: the sum over blocks of V(r, w_i) / 2^w_i (for equal widths,
/// n·V(r, 64/n)/2^(64/n)), capped at 1.
pub fn candidate_fraction(nblocks: u32, k: u32) -> f64 {
    let r = probe_radius(k, nblocks);
    let sum: f64 = (0..nblocks)
        .map(|b| {
            let w = block_width(b, nblocks);
            ball_size(w, r) as f64 / (1u64 << w) as f64
        })
        .sum();
    sum.min(1.0)
}

/// Index of the block count among `sets` with the smallest expected candidate fraction at
/// bound `k`, among those whose probes fit a constant array; ties go to the earlier entry.
pub fn choose_block_set(sets: &[u32], k: u32) -> Option<usize> {
    cheapest(sets.iter().map(|&n| probes_fit(n, k, MAX_PROBES).then(|| candidate_fraction(n, k))))
}

/// Position of the smallest cost among `costs` (None: not a choice); ties go to the
/// earlier entry. Serves the planner's choice of a block set and the dedup trigger's.
pub fn cheapest(costs: impl Iterator<Item = Option<f64>>) -> Option<usize> {
    let mut best: Option<(usize, f64)> = None;
    for (i, cost) in costs.enumerate() {
        if let Some(c) = cost {
            if best.is_none_or(|(_, bc)| c < bc) {
                best = Some((i, c));
            }
        }
    }
    best.map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprints::search::hamming;
    use proptest::prelude::*;

    #[test]
    fn ranges() {
        assert_eq!((0..4).map(|b| block_range(b, 4)).collect::<Vec<_>>(), [(0, 16), (16, 32), (32, 48), (48, 64)]);
        assert_eq!((0..3).map(|b| block_width(b, 3)).collect::<Vec<_>>(), [21, 21, 22]);
        assert_eq!((0..5).map(|b| block_width(b, 5)).collect::<Vec<_>>(), [12, 13, 13, 13, 13]);
        for n in 2..=16 {
            assert_eq!((0..n).map(|b| block_width(b, n)).sum::<u32>(), 64);
        }
    }

    #[test]
    fn values() {
        let fp = 0x0123_4567_89ab_cdef_u64;
        assert_eq!((0..4).map(|b| block_value(fp, b, 4)).collect::<Vec<_>>(), [0xcdef, 0x89ab, 0x4567, 0x0123]);
        assert_eq!(block_value(u64::MAX, 1, 2), u32::MAX);
        assert_eq!(block_value(u64::MAX, 1, 2) as i32, -1);
    }

    #[test]
    fn checks() {
        assert_eq!(check_block(0, 1), Err(BlockError::NBlocks(1)));
        assert_eq!(check_block(0, 17), Err(BlockError::NBlocks(17)));
        assert_eq!(check_block(4, 4), Err(BlockError::Block { block: 4, nblocks: 4 }));
        assert_eq!(check_block(-1, 4), Err(BlockError::Block { block: -1, nblocks: 4 }));
        assert!(check_block(15, 16).is_ok());
        assert_eq!(check_max_distance(65), Err(BlockError::MaxDistance(65)));
        assert_eq!(check_max_distance(-1), Err(BlockError::MaxDistance(-1)));
        assert!(matches!(probes(0, 0, 2, 64, MAX_RUNTIME_PROBES), Err(BlockError::TooManyProbes { .. })));
        assert!(matches!(probes(0, 0, 3, 18, MAX_PROBES), Err(BlockError::TooManyProbes { .. })));
        assert_eq!(probes(0, 2, 3, 17, MAX_PROBES).unwrap().len(), 35_443);
        assert_eq!(probes(0, 2, 3, 64, MAX_RUNTIME_PROBES).unwrap().len(), (1 << 22) - 1);
        // r = 21 of 22 bits
    }

    #[test]
    fn fits_any_k_iff_three_or_more_blocks() {
        assert!(!probes_fit_any_k(2));
        for n in 3..=16 {
            assert!(probes_fit_any_k(n));
        }
        assert!(probes_fit(2, 3, MAX_PROBES));
        assert!(!probes_fit(3, 18, MAX_PROBES), "constant arrays stay small");
        assert!((4..=16).all(|n| (0..=64).all(|k| probes_fit(n, k, MAX_PROBES))));
    }

    #[test]
    fn fractions_and_choice() {
        // k = 3: 4 blocks probe radius 0: 4 / 2^16.
        assert!((candidate_fraction(4, 3) - 4.0 / 65536.0).abs() < 1e-15);
        // k = 0: fewer, wider blocks probe fewer candidates.
        assert_eq!(choose_block_set(&[4, 2], 0), Some(1));
        assert_eq!(choose_block_set(&[2, 4], 64), Some(1), "2 blocks cannot be probed at k=64");
        assert_eq!(choose_block_set(&[], 3), None);
        let k = 7;
        let best = choose_block_set(&[2, 3, 4, 8], k).unwrap();
        let all = [2u32, 3, 4, 8].map(|n| candidate_fraction(n, k));
        assert!(all.iter().all(|&f| all[best] <= f));
        assert_eq!(candidate_fraction(4, 64), 1.0);
    }

    proptest! {
        #[test]
        fn blocks_reassemble(fp: u64, n in 2u32..=16) {
            let mut back = 0u64;
            for b in 0..n {
                back |= (block_value(fp, b, n) as u64) << block_range(b, n).0;
            }
            prop_assert_eq!(back, fp);
        }

        /// The probes find every fingerprint within distance k (pigeonhole), for random
        /// neighbours at exactly distance <= k.
        #[test]
        fn probes_are_exact(q: u64, flips in proptest::collection::vec(0u32..64, 0..13), n in 4i32..=8) {
            let mut fp = q;
            for f in &flips {
                fp ^= 1u64 << f;
            }
            let k = hamming(fp, q) as i32;
            let found = (0..n).any(|b| {
                let p = probes(q, b, n, k, MAX_PROBES).unwrap();
                p.contains(&block_value(fp, b as u32, n as u32))
            });
            prop_assert!(found);
        }
    }
}
