//! Similarity across shards (docs/scaling-out.md, "Similarity across shards"): where a
//! text's copies go, and which shard reports a pair in a bulk run.
//!
//! **Routing.** A text's copy (`id`, the text itself) goes to the owner of each of its index
//! keys ([`keys::index_keys`]: the bottom-k sketch and the winnowed shingles). A lookup for a
//! text finds only rows that share one of its index keys (`lookup`), so any two texts one of
//! which finds the other on one node both have a copy on the owner of a key they share, and
//! that shard's own `simhash_ops` index and dedup trigger, over the whole texts it holds,
//! decide as one node does. A text of fewer than [`SHORT_QUERY`] shingles goes to every
//! shard: its containment check reads every row (no key guarantees a meeting).
//!
//! **Pairs.** A pair is reported by the owner of the first shingle (in sketch order) among
//! the first [`K`] of both sketches: both texts have it among their bottom-k keys, so both
//! have a copy there. A pair sharing none of them is reported by nobody: probability at most
//! `(1 − J)^K` for a pair at similarity J (6·10⁻⁸ at 0.5), on top of one node's 10⁻⁹.
//!
//! **The owner hash is a contract**, like the fingerprint's key owner: copies live where it
//! says. It is `xxh3_64(b"SMSH" ++ (key >> 1) as 4 little-endian bytes) mod shards`, the key
//! without its lowest bit so that it can be read off a bulk run's sketch entries (which keep
//! a hash's upper 63 bits); golden values pin it.

use super::keys::{index_keys, sample, KeyParams, K, KEY_BITS};
use super::lookup::SHORT_QUERY;
use super::shingles::Version;

/// The shard owning an index key (a `simhash_ops` key, `0..2^18`).
pub fn key_owner(key: i32, shards: u32) -> u32 {
    owner_of_bits((key as u32) >> 1, shards)
}

/// The owner of a shingle hash's key bits above the lowest: `(h >> 1) & (2^17 − 1)`.
fn owner_of_bits(bits: u32, shards: u32) -> u32 {
    let mut buf = [0u8; 8];
    buf[..4].copy_from_slice(b"SMSH");
    buf[4..].copy_from_slice(&(bits & ((1 << (KEY_BITS - 1)) - 1)).to_le_bytes());
    (xxhash_rust::xxh3::xxh3_64(&buf) % shards.max(1) as u64) as u32
}

/// The shards a text's copies go to, ascending and distinct: the owners of its index keys,
/// or every shard for a text of fewer than [`SHORT_QUERY`] distinct shingles (one with no
/// shingle included: it has no key and is nobody's duplicate, but stays findable by a scan).
pub fn text_owners(doc: &str, v: Version, shards: u32, tick: &mut dyn FnMut()) -> Vec<u32> {
    let p = KeyParams::of(v);
    let s = sample(doc, &p, tick);
    if s.distinct < SHORT_QUERY {
        return (0..shards).collect();
    }
    let mut owners: Vec<u32> = index_keys(&s, &p).into_iter().map(|k| key_owner(k, shards)).collect();
    owners.sort_unstable();
    owners.dedup();
    owners
}

/// One shard's part of a bulk run over `shards` shards.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Owned {
    pub shard: u32,
    pub shards: u32,
}

impl Owned {
    /// The owner of a bulk run's sketch entry (`pairs::rows`: frequent bit, then the hash's
    /// upper 63 bits), the owner of the shingle's index key.
    #[inline]
    pub fn owner_of_ranked(&self, r: u64) -> u32 {
        owner_of_bits(r as u32, self.shards)
    }

    #[inline]
    pub fn owns_ranked(&self, r: u64) -> bool {
        self.owner_of_ranked(r) == self.shard
    }

    /// Whether this shard reports the pair of two sketches (ascending): the owner of the
    /// first entry both have among their first [`K`] is this shard.
    pub fn owns_pair(&self, x: &[u64], y: &[u64]) -> bool {
        let (x, y) = (&x[..x.len().min(K)], &y[..y.len().min(K)]);
        let (mut i, mut j) = (0, 0);
        while i < x.len() && j < y.len() {
            match x[i].cmp(&y[j]) {
                std::cmp::Ordering::Less => i += 1,
                std::cmp::Ordering::Greater => j += 1,
                std::cmp::Ordering::Equal => return self.owns_ranked(x[i]),
            }
        }
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_hash_is_pinned() {
        let got: Vec<u32> = [0, 1, 2, 3, 262_143, 123_456].iter().map(|&k| key_owner(k, 16)).collect();
        assert_eq!(got, GOLDEN_S16);
        assert_eq!(key_owner(123_456, 3), GOLDEN_S3);
        // A key and its neighbour without the lowest bit have one owner.
        assert_eq!(key_owner(2, 7), key_owner(3, 7));
    }
    const GOLDEN_S16: [u32; 6] = [9, 9, 11, 11, 0, 11];
    const GOLDEN_S3: u32 = 1;

    #[test]
    fn short_texts_go_everywhere_long_ones_to_their_keys() {
        assert_eq!(text_owners("国家主席江泽民发表新年讲话", Version::M2, 5, &mut || ()), vec![0, 1, 2, 3, 4]);
        let long = "中共中央总书记、国家主席江泽民发表1998年新年讲话。新年钟声即将敲响，人类社会就要进入新的一年。在这辞旧迎新的美好时刻，我代表中国共产党和中华人民共和国政府。";
        for v in [Version::M1, Version::M2] {
            let p = KeyParams::of(v);
            let keys = index_keys(&sample(long, &p, &mut || ()), &p);
            let mut want: Vec<u32> = keys.iter().map(|&k| key_owner(k, 64)).collect();
            want.sort_unstable();
            want.dedup();
            assert_eq!(text_owners(long, v, 64, &mut || ()), want);
            assert!(want.len() > 8 && want.len() < 64, "{want:?}");
        }
    }
}
