//! Similarity across postgres_fdw shards (sql/similarity/shard.sql; docs/scaling-out.md,
//! "Similarity across shards"): where a text's copies go (`simhash_similarity_key_owner`,
//! `simhash_similarity_owners`, a contract: `simhash_core::similarity::shard`), and bulk
//! pairs over shards: a text's band keys as bytes (`simhash_similarity_band_keys`), and a
//! shard's run over its own rows with other shards' keys as foreign rows
//! (`simhash_similarity_home_pairs`), whose local pairs come measured and whose candidates
//! with foreign rows come unmeasured, for the SQL around it to fetch those few texts. Measure
//! 1's pairs over copies (`simhash_similarity_owned_pairs_m1`, 4.0.0's) keep the sketch-group
//! engine. The coordinator's trigger, the repair and the per-shard pair functions are SQL. Measure 1's are suffixed `_m1`,
//! on 4.0.0's symbols (`simhash_similarity_key_owner` serves both: a key's owner does not
//! depend on the measure).

use pgrx::prelude::*;
use simhash_core::similarity::bulk::slices::{slice, Candidates};
use simhash_core::similarity::bulk::{row_keys, Found};
use simhash_core::similarity::shard::{key_owner, text_owners, Owned};
use simhash_core::similarity::{SimilarityPairs, TextRows, Version};
use simhash_core::threshold::Bound;

use super::pairs::{for_each_text, start_run, FETCH_ROWS};
use super::{check_threshold, tick};
use crate::bulk::progress;
use crate::bulk::rows::for_each_value;
use crate::error::raise;
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
pub(crate) fn owners(body: &str, shards: i32, v: Version, func: &str) -> Vec<i32> {
    let s = checked_shards(func, shards);
    text_owners(body, v, s, &mut tick).into_iter().map(|o| o as i32).collect()
}

/// The shards a copy of `body` goes to: the owners of its `simhash_ops` index keys, or every
/// shard for a text of fewer than 48 shingles.
#[pg_extern(name = "simhash_similarity_owners", immutable, strict, parallel_safe)]
fn simhash_similarity_owners_m2(body: &str, shards: i32) -> Vec<i32> {
    owners(body, shards, Version::M2, "simhash_similarity_owners")
}

/// The pairs of `simhash_similarity_pairs_m1(query, min_similarity)` under version `v` that
/// shard `shard` of `shards` reports: those whose first shared key among the first 24 of both
/// sketches it owns. Run on every shard over the copies it holds, the union has every pair
/// once. Streamed like `simhash_similarity_pairs` (called through
/// `simhash_similarity_owned_pairs_m1`, sql/similarity/shard.sql).
pub(crate) fn owned_pairs(
    query: &str,
    min_similarity: f64,
    shard: i32,
    shards: i32,
    v: Version,
    func: &'static str,
) -> TableIterator<'static, (i64, i64, f64)> {
    let theta = sharded_threshold(min_similarity, MIN_SHARDED_SIMILARITY, func);
    let s = checked_shards(func, shards);
    let owned = Owned { shard: checked_shard(func, shard, s), shards: s };
    let mut rows = TextRows::new(theta, v);
    for_each_text(func, query, |id, text| rows.push(id, text, &mut tick));
    let mut progress = progress(func, None);
    let mut pairs = SimilarityPairs::owned(rows, theta, owned, &mut progress);
    TableIterator::new(std::iter::from_fn(move || {
        tick();
        let p = pairs.next_pair(&mut progress)?;
        Some((p.id1, p.id2, p.similarity))
    }))
}

/// The shards whose band keys shard `shard` of `shards` reads in a bulk run
/// (`simhash_similarity_shard_pairs`): the next `⌊shards / 2⌋` (mod `shards`), and for an
/// even number the opposite one only from the first half, so that every two shards meet once
/// and each reads about half of the others' keys.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_similarity_exchange(shard: i32, shards: i32) -> Vec<i32> {
    const F: &str = "simhash_similarity_exchange";
    let n = checked_shards(F, shards);
    let i = checked_shard(F, shard, n);
    (1..=n / 2).filter(|&d| 2 * d < n || i < n / 2).map(|d| ((i + d) % n) as i32).collect()
}

/// The lowest threshold of band keys: below it a run has no banding (the texts in memory).
const MIN_BANDED_SIMILARITY: f64 = simhash_core::similarity::bulk::plan::MIN_THETA;

/// `threshold` checked for a run over shards: ERROR 22023 outside [`min`, 1] (the copies'
/// runs: [`MIN_SHARDED_SIMILARITY`]; banded runs: [`MIN_BANDED_SIMILARITY`]).
fn sharded_threshold(threshold: f64, min: f64, func: &str) -> f64 {
    const HINT: &str =
        "Below it, gather the texts on one node: simhash_similarity_pairs('SELECT id, body FROM docs', ...).";
    let theta = check_threshold(threshold, func);
    crate::threshold::checked(func, "min_similarity", theta, Bound::AtLeast(min), Some(HINT))
}

/// The band keys of `body` for a bulk run at `min_similarity` over shards (measure 2), as
/// bytes (`simhash_core::similarity::bulk::row_keys`: 270 at 0.5); NULL for a text without a
/// letter or digit, which is in no pair.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_similarity_band_keys(body: &str, min_similarity: f64) -> Option<Vec<u8>> {
    let theta = sharded_threshold(min_similarity, MIN_BANDED_SIMILARITY, "simhash_similarity_band_keys");
    row_keys(body, Version::M2, theta)
}

/// One shard's run (measure 2): the `(id bigint, body text)` rows of `local_query` and, as
/// foreign rows, the `(id bigint, keys bytea)` rows of `foreign_query` (other shards' band
/// keys at the same threshold). Its pairs of local rows, `id1 < id2`, with their similarity;
/// and its candidates of a local row (`id1`) and a foreign one (`id2`), similarity NULL, for
/// the caller to measure. Streamed, as `simhash_similarity_pairs`.
#[pg_extern(name = "simhash_similarity_home_pairs_stream", volatile, parallel_unsafe)]
fn simhash_similarity_home_pairs(
    local_query: &str,
    foreign_query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, Option<f64>))> {
    const F: &str = "simhash_similarity_home_pairs";
    let theta = sharded_threshold(min_similarity, MIN_BANDED_SIMILARITY, F);
    let (mut run, mut progress) = start_run(F, local_query, theta, Version::M2, None);
    let message = || {
        (
            format!("{F}: the foreign query must return a bigint and a bytea column (id, keys)"),
            "Select the band keys of simhash_similarity_band_keys(body, min_similarity), e.g. SELECT id, keys FROM doc_keys.",
        )
    };
    let mut foreign = 0u64;
    let (null_keys, bad) = for_each_bytes(F, "band keys", foreign_query, message, |id, bytes| {
        foreign += 1;
        run.push_foreign(id, bytes)
    });
    if let Some((id, e)) = bad {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{F}: the band keys of foreign row {id} are not this run's: {e}"),
            None,
            Some("Every shard's keys must come from simhash_similarity_band_keys(body, min_similarity) at this min_similarity."),
        );
    }
    notice!("{F}: read {foreign} foreign rows' band keys ({null_keys} NULL ignored)");
    TableIterator::new(std::iter::from_fn(move || {
        check_for_interrupts!();
        Some(match run.next(&mut progress)? {
            Found::Pair(p) => (p.id1, p.id2, Some(p.similarity)),
            Found::Foreign { local, foreign } => (local, foreign, None),
        })
    }))
}

/// Reads the `(id bigint, bytes bytea)` rows of `query` into `each` (ERROR 42804 with
/// `message` for other columns, 22004 for a NULL id); NULL bytes are passed over and counted.
/// After the first row `each` refuses, the others are read and not handed on; that row's id
/// and error come back beside the count, for the caller's ERROR.
fn for_each_bytes(
    func: &str,
    what: &str,
    query: &str,
    message: impl Fn() -> (String, &'static str),
    mut each: impl FnMut(i64, &[u8]) -> Result<(), String>,
) -> (u64, Option<(i64, String)>) {
    let mut bad = None;
    let nulls = for_each_value(func, what, query, FETCH_ROWS, &[pg_sys::BYTEAOID], message, |id, v| {
        if bad.is_some() {
            return false;
        }
        // SAFETY: a non-NULL bytea datum (the column's type was checked); detoasting yields a
        // varlena in the current memory context, read before `each` returns.
        let bytes = unsafe { pgrx::varlena::varlena_to_byte_slice(pg_sys::pg_detoast_datum_packed(v.cast_mut_ptr())) };
        if let Err(e) = each(id, bytes) {
            bad = Some((id, e));
        }
        bad.is_none()
    });
    (nulls, bad)
}

/// Shard `shard`'s slice of a document's band keys `keys` (`simhash_similarity_band_keys`),
/// the document living on shard `home`, of `shards`: the bands the shard owns, the codes and
/// the set size (`simhash_core::similarity::bulk::slices`; 54 + 4·⌊b/shards⌋ or so bytes).
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_similarity_band_slice(keys: &[u8], home: i32, shard: i32, shards: i32) -> Vec<u8> {
    const F: &str = "simhash_similarity_band_slice";
    let n = checked_shards(F, shards);
    let (home, shard) = (checked_shard(F, home, n), checked_shard(F, shard, n));
    slice(keys, home, shard as usize, n as usize).unwrap_or_else(|e| {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{F}: {e}"),
            None,
            Some("Slice the bytes of simhash_similarity_band_keys(body, min_similarity)."),
        )
    })
}

/// One shard's candidates over band ranges (measure 2): the `(id bigint, slice bytea)` rows of
/// `slice_query` (every document's slice for this shard, `simhash_similarity_band_slice`);
/// the pairs colliding in its bands that pass one node's filters, each once, as `(home of
/// id1, id1, id2)`, `id1 < id2`, unmeasured. Streamed, as `simhash_similarity_pairs`.
#[pg_extern(name = "simhash_similarity_band_candidates_stream", volatile, parallel_unsafe)]
fn simhash_similarity_band_candidates(
    slice_query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(home, i32), name!(id1, i64), name!(id2, i64))> {
    const F: &str = "simhash_similarity_band_candidates";
    let theta = sharded_threshold(min_similarity, MIN_BANDED_SIMILARITY, F);
    let mut c = Candidates::new(theta, Version::M2).unwrap_or_else(|e| error!("{F}: {e}"));
    let message = || {
        (
            format!("{F}: the slice query must return a bigint and a bytea column (id, slice)"),
            "Select this shard's slices, e.g. SELECT id, slice FROM all_band_slices WHERE shard = 0.",
        )
    };
    let (nulls, bad) = for_each_bytes(F, "band slices", slice_query, message, |id, bytes| c.push(id, bytes));
    if let Some((id, e)) = bad {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{F}: the slice of row {id} is not this run's: {e}"),
            None,
            Some("Every row must be this shard's slice of simhash_similarity_band_keys(body, min_similarity) at this min_similarity."),
        );
    }
    notice!("{F}: read {} rows' slices ({nulls} NULL ignored), {} bytes a row", c.rows(), c.bytes_per_row());
    let mut run = c.run(Box::new(tick));
    TableIterator::new(std::iter::from_fn(move || {
        check_for_interrupts!();
        run.next().map(|(home, id1, id2)| (home as i32, id1, id2))
    }))
}

pgrx::extension_sql_file!(
    "../../sql/similarity/shard.sql",
    name = "similarity_shard",
    requires = [
        "similarity",
        "similarity_trigger",
        simhash_similarity_owners,
        simhash_similarity_owners_m2,
        simhash_similarity_exchange,
        simhash_similarity_band_keys,
        simhash_similarity_home_pairs,
        simhash_similarity_band_slice,
        simhash_similarity_band_candidates,
        "shard"
    ]
);
