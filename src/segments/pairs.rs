//! Bulk pairs by resemblance (sql/segments/pairs.sql; docs/segments-pairs.md):
//! `simhash_segment_pairs(segments, min_resemblance, max_rows, max_distance)`, every pair of rows of a
//! query returning `(id bigint, segments bigint[])` whose resemblance is at least
//! `min_resemblance` and that share a segment at most `max_rows` rows have, and
//! `simhash_segment_clusters(...)`, the connected components of those pairs. The rows
//! become `simhash_core::segments::SegmentPairs`' postings; the pairs stream out of it one
//! at a time, so memory is the postings, never the pairs.

use pgrx::prelude::*;
use pgrx::PgMemoryContexts;
use simhash_core::segments::{segment_clusters, SegmentPairs, SegmentRows};

use crate::pairs::{check_columns, null_id, progress};

/// Rows fetched per SPI batch: bounds the tuples (and detoasted arrays) held at once.
const FETCH_ROWS: i64 = 20_000;

/// `min_resemblance`, `max_rows` and `max_distance` checked (ERROR 22023), as the core's.
fn arguments(func: &str, min_resemblance: f64, max_rows: i32, max_distance: i32) -> (usize, u32) {
    if !(0.0..=1.0).contains(&min_resemblance) {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: min_resemblance must be between 0 and 1, got {min_resemblance}")
        );
    }
    if max_rows < 1 {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: max_rows must be at least 1, got {max_rows}")
        );
    }
    (max_rows as usize, crate::pairs::max_distance(func, max_distance))
}

/// Runs `query` and returns its `(id, segments)` rows, NULL elements left out. ERROR 42804
/// unless it returns exactly a bigint and a bigint[] column, 22004 on a NULL id; rows with
/// NULL segments are skipped. Each fetch's arrays are detoasted in a context reset after it.
fn read_segment_rows(func: &str, query: &str) -> SegmentRows {
    Spi::connect(|client| {
        let mut cursor = client.open_cursor(query, &[]);
        let mut cx = PgMemoryContexts::new("simhash segment rows");
        let (mut rows, mut null_rows, mut checked) = (SegmentRows::new(), 0u64, false);
        loop {
            let n = cursor.fetch(FETCH_ROWS).unwrap_or_else(|e| error!("{func}: {e}")).len();
            // SAFETY: as in pairs::rows::take_fetched: the fetch just set SPI_tuptable to a
            // table of `n` tuples with the portal's descriptor; its SpiTupleTable is gone, we
            // free it here (before any ERROR we raise while it is live) and nothing else does.
            // heap_deform_tuple writes one value and flag per attribute: two (checked on the
            // first fetch; every fetch of a portal has its descriptor). The arrays detoasted
            // in `cx` are copied into Rust vectors before it is reset.
            unsafe {
                let table = pg_sys::SPI_tuptable;
                if table.is_null() {
                    break;
                }
                let desc = (*table).tupdesc;
                if !checked {
                    check_columns(table, pg_sys::INT8ARRAYOID, || {
                        (
                            format!(
                                "{func}: the segments query must return a bigint and a bigint[] column (id, segments)"
                            ),
                            "Cast them, e.g. SELECT id::bigint, body_segments FROM t.",
                        )
                    });
                    checked = true;
                }
                let (mut values, mut nulls) = ([pg_sys::Datum::from(0usize); 2], [false; 2]);
                cx.switch_to(|_| {
                    for &tuple in std::slice::from_raw_parts((*table).vals, n) {
                        pg_sys::heap_deform_tuple(tuple, desc, values.as_mut_ptr(), nulls.as_mut_ptr());
                        if nulls[0] {
                            null_id(table, func, "segments");
                        }
                        if nulls[1] {
                            null_rows += 1;
                            continue;
                        }
                        let a = Array::<i64>::from_datum(values[1], false).expect("a non-NULL array");
                        let id = values[0].value() as i64;
                        // The elements in place when there is no NULL (the common case).
                        match a.as_slice() {
                            Ok(s) => rows.push(id, s.iter().map(|&v| v as u64)),
                            Err(_) => rows.push(id, a.iter().flatten().map(|v| v as u64)),
                        }
                    }
                });
                pg_sys::SPI_freetuptable(table);
                cx.reset();
            }
            if n == 0 {
                break;
            }
            check_for_interrupts!();
        }
        notice!("{func}: read {} rows ({null_rows} with NULL segments ignored)", rows.len());
        rows
    })
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
    let mut progress = progress(F);
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
    TableIterator::new(segment_clusters(rows, min_resemblance, max_rows, k, &mut progress(F)))
}

pgrx::extension_sql_file!(
    "../../sql/segments/pairs.sql",
    name = "segment_pairs",
    requires = [simhash_segment_pairs, simhash_segment_clusters]
);
