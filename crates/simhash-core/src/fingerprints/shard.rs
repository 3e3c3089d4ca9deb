//! Scaling out over shards (docs/scaling-out.md): which shard owns a fingerprint's
//! pigeonhole block keys and which shard reports a pair (the connected components of
//! pairs gathered from every shard are `crate::bulk::Components`).
//!
//! **Key routing.** For a distance bound `k`, a fingerprint is cut into `k + 1` blocks
//! ([`search::block_bits`]); two fingerprints within `k` agree bit for bit on at least one
//! of them (pigeonhole). Key `j` of `fp` is `(j, block j of fp)`, and its owner is a fixed
//! hash of the key modulo the shard count ([`key_owner`]). A copy of `(id, fp)` goes to
//! the owner of each key ([`key_owners`], distinct shards), so any two fingerprints within
//! `k` both have a copy on the owner of a key they share: a shard's own dedup trigger,
//! checking only its local copies, sees every near pair that shares a key it owns. With
//! `s` shards a row has `s·(1 − (1 − 1/s)^(k+1))` copies on average: 3.64 for 16 shards and
//! k = 3 (3.75 at most 4), 2.31 for 3 shards.
//!
//! **Pair ownership.** A pair may meet on several shards; [`pair_owner`] names the one
//! that reports it: the owner of the first block (lowest `j`) on which the two agree.
//!
//! **The owner hash is a contract**, like the fingerprint: key rows are stored on the
//! shard it names, so changing it would strand every key row. It is
//! `xxh3_64([k + 1, j, value as 8 little-endian bytes]) mod shards` (10 bytes; XXH3, seed 0),
//! pinned by golden values in the tests below and in tests/pg_regress (shard.sql).

use crate::fingerprints::search;
use crate::shard::check_shards;
pub use crate::shard::{ShardError, MAX_KEY_DISTANCE};

/// Checks `k` and `shards` as given in SQL.
pub fn check(k: i64, shards: i64) -> Result<(u32, u32), ShardError> {
    if !(0..=MAX_KEY_DISTANCE as i64).contains(&k) {
        return Err(ShardError::MaxDistance(k));
    }
    Ok((k as u32, check_shards(shards)?))
}

/// Checks a block number against `k + 1` blocks.
pub fn check_block(block: i64, k: u32) -> Result<u32, ShardError> {
    if !(0..=k as i64).contains(&block) {
        return Err(ShardError::Block { block, blocks: k + 1 });
    }
    Ok(block as u32)
}

/// The shard that owns key `block` of `fp` under bound `k`, in `0..shards` (arguments
/// already checked).
pub fn key_owner(fp: u64, block: u32, k: u32, shards: u32) -> u32 {
    let m = k + 1;
    let mut buf = [0u8; 10];
    buf[0] = m as u8;
    buf[1] = block as u8;
    buf[2..10].copy_from_slice(&search::block_bits(fp, block, m).to_le_bytes());
    (xxhash_rust::xxh3::xxh3_64(&buf) % shards as u64) as u32
}

/// The shards owning some key of `fp`, ascending, without repeats: where `(id, fp)` is
/// copied, in the order an inserter should write them (so single-row inserters take
/// their locks in one global order).
pub fn key_owners(fp: u64, k: u32, shards: u32) -> Vec<u32> {
    let mut owners: Vec<u32> = (0..=k).map(|j| key_owner(fp, j, k, shards)).collect();
    owners.sort_unstable();
    owners.dedup();
    owners
}

/// The shard that reports the pair `(a, b)`: the owner of the first block on which they
/// agree, None when they agree on none (then they are more than `k` apart).
pub fn pair_owner(a: u64, b: u64, k: u32, shards: u32) -> Option<u32> {
    let m = k + 1;
    (0..m).find(|&j| search::block_bits(a, j, m) == search::block_bits(b, j, m)).map(|j| key_owner(a, j, k, shards))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprints::search::hamming;
    use proptest::prelude::*;

    #[test]
    fn owner_hash_is_pinned() {
        // The contract: changing any of these strands every stored key row.
        let fp = 0x0123_4567_89ab_cdefu64;
        let got: Vec<u32> = (0..4).map(|j| key_owner(fp, j, 3, 16)).collect();
        assert_eq!(got, GOLDEN_K3_S16);
        assert_eq!(key_owner(fp, 0, 0, 1000), GOLDEN_K0_S1000);
        assert_eq!(key_owner(u64::MAX, 6, 6, 7), GOLDEN_K6_S7);
        // One shard owns everything.
        assert!((0..64).all(|j| key_owner(fp, j, 63, 1) == 0));
    }
    const GOLDEN_K3_S16: [u32; 4] = [14, 8, 4, 3];
    const GOLDEN_K0_S1000: u32 = 810;
    const GOLDEN_K6_S7: u32 = 3;

    #[test]
    fn checks() {
        use crate::shard::check_shard;
        assert_eq!(check(3, 16), Ok((3, 16)));
        assert_eq!(check(-1, 16), Err(ShardError::MaxDistance(-1)));
        assert_eq!(check(64, 16), Err(ShardError::MaxDistance(64)));
        assert_eq!(check(3, 0), Err(ShardError::Shards(0)));
        assert_eq!(check_shard(2, 3), Ok(2));
        assert_eq!(check_shard(3, 3), Err(ShardError::Shard { shard: 3, shards: 3 }));
        assert_eq!(check_shard(3, 3).unwrap_err().to_string(), "shard must be between 0 and 2, got 3");
        assert_eq!(check_block(3, 3), Ok(3));
        assert!(check_block(4, 3).is_err() && check_block(-1, 3).is_err());
        assert_eq!(
            ShardError::Block { block: 4, blocks: 4 }.to_string(),
            "block must be between 0 and 3 for max_distance 3, got 4"
        );
    }

    #[test]
    fn copies_per_row_match_the_formula() {
        // 16 shards, k = 3: s·(1 − (1 − 1/s)^4) = 3.64 copies per row.
        let n = 200_000u64;
        let total: usize =
            (0..n).map(|i| key_owners(crate::fingerprints::hash_feature(&i.to_le_bytes()), 3, 16).len()).sum();
        let mean = total as f64 / n as f64;
        let expected = 16.0 * (1.0 - (15.0f64 / 16.0).powi(4));
        assert!((mean - expected).abs() < 0.02, "mean copies {mean}, expected {expected}");
    }

    /// Each shard keeping the pairs it owns (`Duplicates::keeping`) reports, over all
    /// shards, every pair of the one-node search exactly once: clustered fingerprints,
    /// with identical ones, at k = 3 over 5 shards.
    #[test]
    fn owned_pairs_partition_the_pairs() {
        use crate::fingerprints::pairs::{duplicates, Duplicates};
        let mut rows = Vec::new();
        for c in 0..300u64 {
            let centre = crate::fingerprints::hash_feature(&c.to_le_bytes());
            for j in 0..6u64 {
                let flips = (crate::fingerprints::hash_feature(&(c * 100 + j).to_le_bytes()) >> 7) & 3;
                let fp = (0..flips).fold(centre, |x, f| x ^ (1 << ((c * 7 + j * 13 + f * 29) % 64)));
                rows.push(((c * 10 + j) as i64, fp));
            }
        }
        let (k, shards) = (3, 5);
        let all = duplicates(rows.clone(), k, &mut |_| {});
        assert!(all.len() > 1000, "{} pairs: too few to test", all.len());
        let mut union = Vec::new();
        for s in 0..shards {
            let mut d = Duplicates::new(rows.clone(), k, &mut |_| {})
                .keeping(move |a, b| pair_owner(a, b, k, shards) == Some(s));
            while let Some(p) = d.next_pair(&mut |_| {}) {
                union.push(p);
            }
        }
        union.sort_unstable();
        assert_eq!(union, all);
    }

    /// A fingerprint within `d` bits of `a`: the bits at `positions` (distinct) flipped.
    fn flip(a: u64, positions: &[u8]) -> u64 {
        positions.iter().fold(a, |x, &p| x ^ (1u64 << p))
    }

    proptest! {
        /// Every pair within k has a shared key: both have a copy on the pair's owner,
        /// which is the owner of the first agreeing block; pairs farther than k may or may
        /// not have one.
        #[test]
        fn near_pairs_meet_on_their_owner(a in any::<u64>(), k in 0u32..=12, shards in 1u32..=40,
                                         positions in proptest::collection::btree_set(0u8..64, 0..=12)) {
            let positions: Vec<u8> = positions.into_iter().take(k as usize).collect();
            let b = flip(a, &positions);
            prop_assert!(hamming(a, b) <= k);
            let owner = pair_owner(a, b, k, shards).expect("a pair within k shares a block");
            prop_assert!(owner < shards);
            prop_assert!(key_owners(a, k, shards).contains(&owner));
            prop_assert!(key_owners(b, k, shards).contains(&owner));
            prop_assert_eq!(pair_owner(b, a, k, shards), Some(owner));
        }

        #[test]
        fn owners_are_sorted_distinct_and_in_range(fp in any::<u64>(), k in 0u32..=63, shards in 1u32..=100) {
            let o = key_owners(fp, k, shards);
            prop_assert!(o.windows(2).all(|w| w[0] < w[1]));
            prop_assert!(o.iter().all(|&s| s < shards));
            prop_assert!(!o.is_empty() && o.len() <= (k + 1) as usize);
        }

    }
}
