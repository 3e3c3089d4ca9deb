//! The advisory-lock keys that make concurrent inserts of near-duplicates contend.
//!
//! Before looking for an existing near-duplicate, an inserter locks a set of keys derived
//! from its new fingerprint and holds them until commit. Two fingerprints within distance
//! `k` must always share at least one key, whatever `k`: then the second inserter waits for
//! the first to commit and its check sees the first row. Pigeonhole gives this with `k + 1`
//! blocks: `k` differing bits touch at most `k` of the `k + 1` blocks, so at least one block
//! is bit-for-bit identical in both, and the key of (block index, block value) is the same.
//! `k = 0` is one block (the whole fingerprint); `k = 64` matches every pair, so it is one
//! constant key (inserts serialize).
//!
//! Keys are hashed with the table, the fingerprint column and `k`, so unrelated triggers do
//! not contend; a hash collision only adds a needless wait, it can never hide a duplicate.
//! An inserter takes its keys in ascending order, so two single-row inserters never wait
//! for each other in a cycle.

use crate::fingerprints::search::block_bits;
use crate::trigger::key_hash;
#[cfg(test)]
use crate::trigger::table_lock_key;

/// Number of blocks the lock keys cut a fingerprint into for distance bound `k`:
/// `k + 1` (pigeonhole), one for `k = 64` (the constant key).
pub fn lock_blocks(k: u32) -> u32 {
    if k >= 64 {
        1
    } else {
        k + 1
    }
}

/// The advisory-lock keys of fingerprint `fp` for a check within distance `k` on column
/// `attnum` of table `relid`, ascending and without repeats (the order to lock them in).
pub fn lock_keys(relid: u32, attnum: i16, k: u32, fp: u64) -> Vec<u64> {
    let m = lock_blocks(k);
    let mut keys: Vec<u64> = (0..m)
        .map(|i| {
            // k = 64: every fingerprint gets the same single key.
            let value = if k >= 64 { 0 } else { block_bits(fp, i, m) };
            let mut payload = [0u8; 12];
            payload[0..4].copy_from_slice(&i.to_le_bytes());
            payload[4..12].copy_from_slice(&value.to_le_bytes());
            key_hash(relid, attnum, [k as u8, m as u8], &payload)
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fingerprints::search::{block_range, hamming};
    use proptest::prelude::*;

    /// The keys' bytes are a contract between backends that may run different library
    /// builds during a package upgrade: golden values.
    #[test]
    fn keys_are_stable() {
        assert_eq!(
            lock_keys(16384, 3, 3, 0x0123_4567_89ab_cdef),
            [9815188284699966602, 10652883501766361374, 13259001694597486821, 14004016914913275741]
        );
        assert_eq!(lock_keys(16384, 3, 64, 42), [13543192021923494208]);
        assert_eq!(table_lock_key(16384, 3, 3), 15317213355336866575);
    }

    fn shares_key(relid: u32, k: u32, a: u64, b: u64) -> bool {
        let (ka, kb) = (lock_keys(relid, 3, k, a), lock_keys(relid, 3, k, b));
        ka.iter().any(|x| kb.binary_search(x).is_ok())
    }

    /// A deterministic generator (splitmix64), so the brute-force test needs no seed.
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn near_fingerprints_share_a_key_for_every_k() {
        // For every k: random pairs at every distance d <= k, plus the adversarial flips that
        // put one differing bit into each of the first d blocks (the worst case for pigeonhole).
        let mut s = 42;
        for k in 0..=64u32 {
            let m = lock_blocks(k);
            for d in 0..=k {
                for _ in 0..40 {
                    // d distinct random bits (a partial Fisher-Yates shuffle of 0..64).
                    let a = splitmix(&mut s);
                    let mut bits: Vec<u32> = (0..64).collect();
                    let mut b = a;
                    for j in 0..d as usize {
                        let pick = j + (splitmix(&mut s) % (64 - j as u64)) as usize;
                        bits.swap(j, pick);
                        b ^= 1 << bits[j];
                    }
                    assert_eq!(hamming(a, b), d);
                    assert!(shares_key(7, k, a, b), "k={k} d={d} {a:#x} {b:#x}");
                }
                let a = splitmix(&mut s);
                let mut b = a;
                for i in 0..d.min(m) {
                    b ^= 1 << block_range(i, m).0;
                }
                if hamming(a, b) <= k {
                    assert!(shares_key(7, k, a, b), "adversarial k={k} d={d}");
                }
            }
        }
    }

    #[test]
    fn keys_are_sorted_distinct_and_k_plus_one() {
        for k in [0u32, 1, 3, 10, 63, 64] {
            let keys = lock_keys(1, 2, k, 0x0123_4567_89ab_cdef);
            assert!(keys.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(keys.len() as u32, if k == 64 { 1 } else { k + 1 });
        }
        // k = 64: one key for every fingerprint.
        assert_eq!(lock_keys(1, 2, 64, 0), lock_keys(1, 2, 64, u64::MAX));
        // The table key is none of the block keys, and differs per table, column and k.
        let t = table_lock_key(1, 2, 3);
        assert!(!lock_keys(1, 2, 3, 0x0123_4567_89ab_cdef).contains(&t));
        assert_ne!(t, table_lock_key(2, 2, 3));
        assert_ne!(t, table_lock_key(1, 3, 3));
        assert_ne!(t, table_lock_key(1, 2, 4));
    }

    #[test]
    fn unrelated_tables_and_far_fingerprints_rarely_contend() {
        // k = 3: four 16-bit blocks, so two random fingerprints share a key with
        // probability about 4/65536; other tables or columns never share keys.
        let mut s = 7;
        let mut shared = 0;
        for _ in 0..20_000 {
            let (a, b) = (splitmix(&mut s), splitmix(&mut s));
            shared += shares_key(1, 3, a, b) as u32;
        }
        assert!(shared <= 10, "{shared} of 20000 random pairs share a key");
        let a = 0xdead_beef_u64;
        let other_table = lock_keys(2, 3, 3, a);
        assert!(lock_keys(1, 3, 3, a).iter().all(|k| !other_table.contains(k)));
        let other_column = lock_keys(1, 4, 3, a);
        assert!(lock_keys(1, 3, 3, a).iter().all(|k| !other_column.contains(k)));
    }

    proptest! {
        #[test]
        fn prop_within_k_share_a_key(a: u64, flips in proptest::collection::vec(0u32..64, 0..64), k in 0u32..=64) {
            let mut b = a;
            for f in flips {
                if hamming(a, b ^ (1 << f)) <= k {
                    b ^= 1 << f;
                }
            }
            prop_assert!(hamming(a, b) <= k);
            prop_assert!(shares_key(99, k, a, b));
        }
    }
}
