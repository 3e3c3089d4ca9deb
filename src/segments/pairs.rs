//! Bulk pairs by resemblance (sql/segments/pairs.sql; docs/segments-pairs.md):
//! `simhash_segment_pairs(segments, min_resemblance, max_rows, max_distance)`, every pair of rows of a
//! query returning `(id bigint, segments bigint[])` whose resemblance is at least
//! `min_resemblance` and that share a segment at most `max_rows` rows have, and
//! `simhash_segment_clusters(...)`, the connected components of those pairs. The rows
//! become `simhash_core::segments::SegmentPairs`' postings; the pairs stream out of it one
//! at a time, so memory is the postings, never the pairs.

use pgrx::prelude::*;
use simhash_core::segments::{segment_clusters, SegmentPairs, SegmentRows};
use simhash_core::threshold::Bound;

use crate::bulk::progress;
use crate::bulk::rows::for_each_value;

/// Rows fetched per SPI batch: bounds the tuples (and detoasted arrays) held at once.
const FETCH_ROWS: i64 = 20_000;

/// `min_resemblance`, `max_rows` and `max_distance` checked (ERROR 22023), as the core's.
fn arguments(func: &str, min_resemblance: f64, max_rows: i32, max_distance: i32) -> (usize, u32) {
    crate::threshold::checked(func, "min_resemblance", min_resemblance, Bound::Share, None);
    if max_rows < 1 {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: max_rows must be at least 1, got {max_rows}")
        );
    }
    (max_rows as usize, crate::fingerprints::pairs::max_distance(func, max_distance))
}

/// Runs `query` and returns its `(id, segments)` rows, NULL elements left out. ERROR 42804
/// unless it returns exactly a bigint and a bigint[] column, 22004 on a NULL id; rows with
/// NULL segments are skipped.
fn read_segment_rows(func: &str, query: &str) -> SegmentRows {
    let mut rows = SegmentRows::new();
    let message = || {
        (
            format!("{func}: the segments query must return a bigint and a bigint[] column (id, segments)"),
            "Cast them, e.g. SELECT id::bigint, body_segments FROM t.",
        )
    };
    let null_rows = for_each_value(func, "segments", query, FETCH_ROWS, &[pg_sys::INT8ARRAYOID], message, |id, v| {
        // SAFETY: a non-NULL bigint[] datum (the column's type was checked).
        let a = unsafe { Array::<i64>::from_datum(v, false) }.expect("a non-NULL array");
        // The elements in place when there is no NULL (the common case).
        match a.as_slice() {
            Ok(s) => rows.push(id, s.iter().map(|&v| v as u64)),
            Err(_) => rows.push(id, a.iter().flatten().map(|v| v as u64)),
        }
        true
    });
    notice!("{func}: read {} rows ({null_rows} with NULL segments ignored)", rows.len());
    rows
}

/// Every pair of rows of `segments` with resemblance ≥ `min_resemblance` sharing a segment
/// at most `max_rows` rows have, once, `id1 < id2`, by `id1` then `id2`, with containment
/// both ways; segments matched within `max_distance` bits (0: exactly). Value per call,
/// called through the SQL function `simhash_segment_pairs` (sql/segments/pairs.sql) in a
/// select list, so LIMIT stops it early.
#[pg_extern(name = "simhash_segment_pairs_stream", volatile, parallel_unsafe)]
fn simhash_segment_pairs(
    segments: &str,
    min_resemblance: f64,
    max_rows: i32,
    max_distance: i32,
) -> TableIterator<
    'static,
    (name!(id1, i64), name!(id2, i64), name!(resemblance, f64), name!(id1_in_id2, f64), name!(id2_in_id1, f64)),
> {
    const F: &str = "simhash_segment_pairs";
    let (max_rows, k) = arguments(F, min_resemblance, max_rows, max_distance);
    let rows = read_segment_rows(F, segments);
    let mut progress = progress(F, None);
    let mut pairs = SegmentPairs::new(rows, min_resemblance, max_rows, k, &mut progress);
    TableIterator::new(std::iter::from_fn(move || {
        // Each row is cheap, but a consumer such as count(*) asks for millions of them.
        check_for_interrupts!();
        let p = pairs.next_pair(&mut progress)?;
        Some((p.id1, p.id2, p.near.resemblance(), p.near.containment(), p.near.flip().containment()))
    }))
}

/// Connected components of the pairs of `simhash_segment_pairs`: `(id, cluster_id)` for
/// every row in at least one pair, `cluster_id` the component's smallest id.
#[pg_extern(volatile, parallel_unsafe)]
fn simhash_segment_clusters(
    segments: &str,
    min_resemblance: f64,
    max_rows: default!(i32, 1000),
    max_distance: default!(i32, 0),
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    const F: &str = "simhash_segment_clusters";
    let (max_rows, k) = arguments(F, min_resemblance, max_rows, max_distance);
    let rows = read_segment_rows(F, segments);
    TableIterator::new(segment_clusters(rows, min_resemblance, max_rows, k, &mut progress(F, None)))
}

pgrx::extension_sql_file!(
    "../../sql/segments/pairs.sql",
    name = "segment_pairs",
    requires = [simhash_segment_pairs, simhash_segment_clusters]
);
