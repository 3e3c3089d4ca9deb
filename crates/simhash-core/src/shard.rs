//! What the sharded functions of every measure share: the checks of their shard arguments
//! ([`check_shards`], [`check_shard`]) and their errors. Each measure's routing is its own
//! (`fingerprints::shard`, `similarity::shard`).

use std::fmt;

/// Largest distance bound a fingerprint's keys can be cut for (`fingerprints::shard`): `k + 1`
/// blocks of at least one bit.
pub const MAX_KEY_DISTANCE: u32 = 63;

/// A bad argument of the shard functions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ShardError {
    MaxDistance(i64),
    Shards(i64),
    Shard { shard: i64, shards: u32 },
    Block { block: i64, blocks: u32 },
}

impl fmt::Display for ShardError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ShardError::MaxDistance(k) => {
                write!(f, "max_distance must be between 0 and {MAX_KEY_DISTANCE}, got {k}")
            }
            ShardError::Shards(s) => write!(f, "shards must be at least 1, got {s}"),
            ShardError::Shard { shard, shards } => {
                write!(f, "shard must be between 0 and {}, got {shard}", shards - 1)
            }
            ShardError::Block { block, blocks } => {
                write!(f, "block must be between 0 and {} for max_distance {}, got {block}", blocks - 1, blocks - 1)
            }
        }
    }
}

/// Checks a shard count as given in SQL (fingerprint keys and similarity copies alike).
pub fn check_shards(shards: i64) -> Result<u32, ShardError> {
    if shards < 1 || shards > u32::MAX as i64 {
        return Err(ShardError::Shards(shards));
    }
    Ok(shards as u32)
}

/// Checks a shard number against a checked shard count.
pub fn check_shard(shard: i64, shards: u32) -> Result<u32, ShardError> {
    if !(0..shards as i64).contains(&shard) {
        return Err(ShardError::Shard { shard, shards });
    }
    Ok(shard as u32)
}
