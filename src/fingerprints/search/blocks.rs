//! `simhash_block(fp, block, nblocks)`, `simhash_probes(query, block, nblocks, max_distance)`
//! and `simhash_create_blocks(tbl, fp_column, nblocks)` (the latter in `sql/fingerprints/blocks.sql`).
//! The bit arithmetic is in `simhash_core::fingerprints::search`.

use pgrx::prelude::*;
use simhash_core::fingerprints::search::{self as blocks, BlockError};

/// Raises a block-argument error: 22023 for a bad argument, 54000 for a ball too large.
pub(crate) fn raise(err: BlockError) -> ! {
    let code = match err {
        BlockError::TooManyProbes { .. } => PgSqlErrorCode::ERRCODE_PROGRAM_LIMIT_EXCEEDED,
        _ => PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
    };
    ereport!(ERROR, code, format!("simhash: {err}"));
    #[allow(unreachable_code)]
    {
        unreachable!("ereport(ERROR) does not return")
    }
}

/// Bits `[block*64/nblocks, (block+1)*64/nblocks)` of `fp` as an unsigned integer. With
/// `nblocks = 2` a block has 32 bits; it is returned as the `int4` with the same bits.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_block(fp: i64, block: i32, nblocks: i32) -> i32 {
    blocks::check_block(block, nblocks).unwrap_or_else(|e| raise(e));
    blocks::block_value(fp as u64, block as u32, nblocks as u32) as i32
}

/// Every value of block `block` within Hamming radius `floor(max_distance / nblocks)` of
/// the query's block: a row within `max_distance` of `query` matches one of them in some block.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_probes(query: i64, block: i32, nblocks: i32, max_distance: i32) -> Vec<i32> {
    let probes = blocks::probes(query as u64, block, nblocks, max_distance, blocks::MAX_RUNTIME_PROBES)
        .unwrap_or_else(|e| raise(e));
    probes.into_iter().map(|v| v as i32).collect()
}

pgrx::extension_sql_file!("../../../sql/fingerprints/blocks.sql", name = "blocks", requires = [simhash_block]);
