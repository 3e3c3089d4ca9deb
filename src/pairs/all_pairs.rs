//! All pairs (Manku's all-pairs mode): `simhash_duplicates(fingerprints, max_distance)`,
//! every pair of rows of one query within the bound, and `simhash_clusters(fingerprints,
//! max_distance)`, the connected components of those pairs. `simhash_duplicates` streams:
//! its search state lives in the SRF's multi-call memory context, whose deletion (end of
//! the scan, LIMIT reached, error) drops it.

use pgrx::prelude::*;
use simhash_core::{pairs, Duplicates, Progress};

use super::progress;
use super::rows::read_rows;

/// Every pair of rows of `fingerprints` (a query returning `(id bigint, fp bigint)`)
/// within Hamming distance `max_distance`, once, with `id1 < id2`, streamed in the
/// order of `Duplicates`. SQL calls it through the SQL function
/// `simhash_duplicates` (sql/pairs/pairs.sql), which calls this one in a select list, where
/// PostgreSQL asks a value-per-call function for one row at a time: in FROM it would
/// first put every row into a tuplestore (100,000 identical fingerprints: 5·10⁹ rows).
/// The Rust name keeps the C symbol `simhash_duplicates_wrapper` that the 0.x install
/// scripts name, so a database still at 0.x loads (and streams into its tuplestore).
#[pg_extern(name = "simhash_duplicates_stream", volatile, parallel_unsafe)]
fn simhash_duplicates(
    fingerprints: &str,
    max_distance: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(distance, i32))> {
    const F: &str = "simhash_duplicates";
    let k = super::max_distance(F, max_distance);
    let rows = read_rows(F, "fingerprints", fingerprints);
    let mut progress = progress(F);
    let pairs = Duplicates::new(rows, k, &mut progress);
    // Value per call, not a tuplestore: 100,000 identical fingerprints give their first
    // 10 rows in 0.023 s with the backend at 72 MB VmHWM (60 MB after SELECT 1), where a
    // tuplestore would take 5·10⁹ rows first (tests/bench/stream.sh).
    TableIterator::new(stream(pairs, progress))
}

/// The pairs of `pairs` one at a time, checking for cancellation before each.
pub(crate) fn stream(
    mut pairs: Duplicates,
    mut progress: impl FnMut(Progress) + 'static,
) -> impl Iterator<Item = (i64, i64, i32)> + 'static {
    std::iter::from_fn(move || {
        // Each row is cheap, but a consumer such as count(*) asks for billions of them.
        check_for_interrupts!();
        pairs.next_pair(&mut progress).map(|(a, b, d)| (a, b, d as i32))
    })
}

/// Connected components of the near-duplicate graph of `fingerprints`: `(id, cluster_id)`
/// for every row with at least one near-duplicate, `cluster_id` the component's smallest id.
#[pg_extern(volatile, parallel_unsafe)]
fn simhash_clusters(
    fingerprints: &str,
    max_distance: default!(i32, 3),
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    const F: &str = "simhash_clusters";
    let k = super::max_distance(F, max_distance);
    let rows = read_rows(F, "fingerprints", fingerprints);
    TableIterator::new(pairs::clusters(rows, k, &mut progress(F)))
}
