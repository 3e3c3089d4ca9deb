//! Similarity across postgres_fdw shards (sql/similarity/shard.sql; docs/scaling-out.md,
//! "Similarity across shards"): where a text's copies go (`simhash_similarity_key_owner`,
//! `simhash_similarity_owners`, a contract: `simhash_core::similarity::shard`), and the pairs
//! one shard reports in a bulk run (`simhash_similarity_owned_pairs`). The coordinator's
//! trigger, the repair and the per-shard pair function are SQL. Measure 1's are suffixed `_m1`,
//! on 4.0.0's symbols (`simhash_similarity_key_owner` serves both: a key's owner does not
//! depend on the measure).

use pgrx::prelude::*;
use simhash_core::similarity::shard::{key_owner, text_owners, Owned};
use simhash_core::similarity::{SimilarityPairs, TextRows, Version};

use super::pairs::for_each_text;
use super::{check_threshold, tick};
use crate::error::raise;
use crate::pairs::progress;
use crate::shard::{checked_shard, checked_shards};

/// The lowest threshold of a bulk run over shards: below it a pair whose texts share none
/// of their first 24 keys, which no shard reports, is more likely than 10⁻³.
const MIN_SHARDED_SIMILARITY: f64 = 0.25;

/// The shard (0 ≤ result < shards) owning a `simhash_ops` index key (`simhash_keys`).
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_similarity_key_owner(key: i32, shards: i32) -> i32 {
    key_owner(key, checked_shards("simhash_similarity_key_owner", shards)) as i32
}

/// The shards a copy of `body` goes to under version `v`, ascending and distinct.
fn owners(body: &str, shards: i32, v: Version, func: &str) -> Vec<i32> {
    let s = checked_shards(func, shards);
    text_owners(body, v, s, &mut tick).into_iter().map(|o| o as i32).collect()
}

/// The shards a copy of `body` goes to under measure 1 (4.0.0's symbol): the owners of its
/// `simhash_ops_m1` index keys, or every shard for a text of fewer than 48 shingles.
#[pg_extern(name = "simhash_similarity_owners_m1", immutable, strict, parallel_safe)]
fn simhash_similarity_owners(body: &str, shards: i32) -> Vec<i32> {
    owners(body, shards, Version::M1, "simhash_similarity_owners_m1")
}

/// The shards a copy of `body` goes to: the owners of its `simhash_ops` index keys, or every
/// shard for a text of fewer than 48 shingles.
#[pg_extern(name = "simhash_similarity_owners", immutable, strict, parallel_safe)]
fn simhash_similarity_owners_m2(body: &str, shards: i32) -> Vec<i32> {
    owners(body, shards, Version::M2, "simhash_similarity_owners")
}

/// The pairs of `simhash_similarity_pairs(query, min_similarity)` under version `v` that shard
/// `shard` of `shards` reports: those whose first shared key among the first 24 of both
/// sketches it owns. Run on every shard over the copies it holds, the union has every pair
/// once. Streamed like `simhash_similarity_pairs` (called through
/// `simhash_similarity_owned_pairs`, sql/similarity/shard.sql).
fn owned_pairs(
    query: &str,
    min_similarity: f64,
    shard: i32,
    shards: i32,
    v: Version,
    func: &'static str,
) -> TableIterator<'static, (i64, i64, f64)> {
    let theta = check_threshold(min_similarity, func);
    if theta < MIN_SHARDED_SIMILARITY {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: min_similarity must be at least {MIN_SHARDED_SIMILARITY} over shards, got {theta}"),
            None,
            Some("Below it, gather the texts on one node: simhash_similarity_pairs('SELECT id, body FROM docs', ...)."),
        );
    }
    let s = checked_shards(func, shards);
    let owned = Owned { shard: checked_shard(func, shard, s), shards: s };
    let mut rows = TextRows::new(theta, v);
    for_each_text(func, query, |id, text| rows.push(id, text, &mut tick));
    let mut progress = progress(func);
    let mut pairs = SimilarityPairs::owned(rows, theta, owned, &mut progress);
    TableIterator::new(std::iter::from_fn(move || {
        tick();
        let p = pairs.next_pair(&mut progress)?;
        Some((p.id1, p.id2, p.similarity))
    }))
}

/// `simhash_similarity_owned_pairs_m1`'s rows (measure 1; 4.0.0's symbol).
#[pg_extern(name = "simhash_similarity_owned_pairs_stream_m1", volatile, parallel_unsafe)]
fn simhash_similarity_owned_pairs(
    query: &str,
    min_similarity: f64,
    shard: i32,
    shards: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    owned_pairs(query, min_similarity, shard, shards, Version::M1, "simhash_similarity_owned_pairs_m1")
}

/// `simhash_similarity_owned_pairs`'s rows (measure 2).
#[pg_extern(name = "simhash_similarity_owned_pairs_stream", volatile, parallel_unsafe)]
fn simhash_similarity_owned_pairs_m2(
    query: &str,
    min_similarity: f64,
    shard: i32,
    shards: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    owned_pairs(query, min_similarity, shard, shards, Version::M2, "simhash_similarity_owned_pairs")
}

pgrx::extension_sql_file!(
    "../../sql/similarity/shard.sql",
    name = "similarity_shard",
    requires = [
        "similarity",
        simhash_similarity_owners,
        simhash_similarity_owners_m2,
        simhash_similarity_owned_pairs,
        simhash_similarity_owned_pairs_m2
    ]
);
