//! Scaling out over postgres_fdw shards (docs/scaling-out.md): the key-routing
//! functions `simhash_key_owner`, `simhash_key_owners` and `simhash_pair_owner`, whose
//! hash is a contract (`simhash_core::fingerprints::shard`), and `simhash_components(pairs)`, the
//! connected components of pairs gathered from every shard. The coordinator's trigger,
//! the repair function and the per-shard pair function are SQL (sql/fingerprints/shard.sql, on
//! the skeleton of sql/shard/shard.sql); the shards' dedup trigger is
//! `simhash_dedup_fp_trigger` (trigger.rs).

use pgrx::prelude::*;
use simhash_core::fingerprints::shard;
use simhash_core::Components;

use crate::shard::{bad, checked_shard};

/// `(k, shards)` checked, or ERROR 22023.
fn checked(func: &str, max_distance: i32, shards: i32) -> (u32, u32) {
    shard::check(max_distance as i64, shards as i64).unwrap_or_else(|e| bad(func, e))
}

/// The shard (0 ≤ result < shards) that owns key `block` (0..=max_distance) of `fp`: the
/// owner of the key rows of every fingerprint whose block `block` equals `fp`'s, when
/// fingerprints are cut into max_distance + 1 blocks.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_key_owner(fp: i64, block: i32, max_distance: i32, shards: i32) -> i32 {
    const F: &str = "simhash_key_owner";
    let (k, s) = checked(F, max_distance, shards);
    let j = shard::check_block(block as i64, k).unwrap_or_else(|e| bad(F, e));
    shard::key_owner(fp as u64, j, k, s) as i32
}

/// The shards that own some key of `fp`, ascending and distinct: where a copy of the
/// row's `(id, fp)` goes.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_key_owners(fp: i64, max_distance: i32, shards: i32) -> Vec<i32> {
    let (k, s) = checked("simhash_key_owners", max_distance, shards);
    shard::key_owners(fp as u64, k, s).into_iter().map(|o| o as i32).collect()
}

/// The shard that reports the pair `(fp1, fp2)` in a bulk run over the shards: the owner
/// of the first block on which they agree; NULL when they agree on none (then they are
/// more than max_distance apart).
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_pair_owner(fp1: i64, fp2: i64, max_distance: i32, shards: i32) -> Option<i32> {
    let (k, s) = checked("simhash_pair_owner", max_distance, shards);
    shard::pair_owner(fp1 as u64, fp2 as u64, k, s).map(|o| o as i32)
}

/// The pairs of `simhash_duplicates(fingerprints, max_distance)` that shard `shard` of
/// `shards` reports in a bulk run: those whose first agreeing block (of max_distance + 1)
/// is a key it owns (`simhash_pair_owner`). Run on every shard over its key rows, the
/// union has every pair once. A pair of fingerprints is decided once for all its rows,
/// before any is emitted; streamed like `simhash_duplicates` (called through
/// `simhash_owned_duplicates` in sql/fingerprints/shard.sql).
#[pg_extern(name = "simhash_owned_duplicates_stream", volatile, parallel_unsafe)]
fn simhash_owned_duplicates(
    fingerprints: &str,
    max_distance: i32,
    shard: i32,
    shards: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(distance, i32))> {
    const F: &str = "simhash_owned_duplicates";
    let (k, s) = checked(F, max_distance, shards);
    let owner = checked_shard(F, shard, s);
    let (rows, texts) = crate::fingerprints::pairs::read_rows(F, "fingerprints", fingerprints, crate::bulk::decision());
    let mut progress = crate::bulk::progress(F, None);
    let pairs = simhash_core::Duplicates::new(rows, k, &mut progress)
        .keeping(move |a, b| shard::pair_owner(a, b, k, s) == Some(owner));
    TableIterator::new(crate::fingerprints::pairs::stream(F, pairs, texts, progress))
}

/// Rows fetched per SPI batch.
const FETCH_ROWS: i64 = 50_000;

/// Connected components of the graph whose edges are the `(id1 bigint, id2 bigint)` rows of
/// `pairs`, numbered as `simhash_clusters` numbers them: `(id, cluster_id)` for every id
/// in a component of two or more, `cluster_id` the component's smallest id. ERROR 42804
/// unless the query returns two bigint columns; rows with a NULL are ignored. Memory is
/// about 60 bytes per distinct id (`simhash_core::fingerprints::shard::Components`).
#[pg_extern(volatile, parallel_unsafe)]
fn simhash_components(pairs: &str) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    const F: &str = "simhash_components";
    let mut c = Components::new();
    Spi::connect(|client| {
        let mut cursor = client.open_cursor(pairs, &[]);
        loop {
            let table = cursor.fetch(FETCH_ROWS).unwrap_or_else(|e| error!("{F}: {e}"));
            let ok = table.columns().is_ok_and(|n| n == 2)
                && (1..=2).all(|i| table.column_type_oid(i).is_ok_and(|t| t.value() == pg_sys::INT8OID));
            if !ok {
                ereport!(
                    ERROR,
                    PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
                    format!("{F}: the pairs query must return two bigint columns (id1, id2)")
                );
            }
            if table.is_empty() {
                break;
            }
            for row in table {
                let a = row.get::<i64>(1).unwrap_or_else(|e| error!("{F}: {e}"));
                let b = row.get::<i64>(2).unwrap_or_else(|e| error!("{F}: {e}"));
                if let (Some(a), Some(b)) = (a, b) {
                    c.add(a, b);
                }
            }
            check_for_interrupts!();
        }
    });
    TableIterator::new(c.into_sorted().into_iter().map(|(cluster, id)| (id, cluster)))
}

pgrx::extension_sql_file!(
    "../../sql/fingerprints/shard.sql",
    name = "fingerprints_shard",
    requires = [
        simhash_key_owner,
        simhash_key_owners,
        simhash_pair_owner,
        simhash_owned_duplicates,
        "trigger",
        "batch",
        "shard"
    ]
);
