//! What every measure's sharded functions share in the SQL layer: their shard arguments
//! checked (ERROR 22023), and the sharding skeleton `sql/shard/shard.sql` that each measure's
//! `shard.sql` fills in (the coordinator trigger's body, key rows written in ascending shard
//! order, the repair, a shard's key rows for its pairs).

use pgrx::prelude::*;
use simhash_core::shard::{self, ShardError};

use crate::error::raise;

/// ERROR 22023 for a bad argument of `func`.
pub(crate) fn bad(func: &str, e: ShardError) -> ! {
    raise(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("{func}: {e}"), None, None)
}

/// A shard count checked, or ERROR 22023.
pub(crate) fn checked_shards(func: &str, shards: i32) -> u32 {
    shard::check_shards(shards as i64).unwrap_or_else(|e| bad(func, e))
}

/// A shard number of a checked count, or ERROR 22023.
pub(crate) fn checked_shard(func: &str, shard: i32, shards: u32) -> u32 {
    shard::check_shard(shard as i64, shards).unwrap_or_else(|e| bad(func, e))
}

// The skeleton's helpers call simhash_components (fingerprints/shard.rs) to join the pairs
// gathered from the shards.
pgrx::extension_sql_file!("../sql/shard/shard.sql", name = "shard", requires = [simhash_components]);
