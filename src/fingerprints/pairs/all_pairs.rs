//! All pairs (Manku's all-pairs mode): `simhash_duplicates(fingerprints, max_distance)`,
//! every pair of rows of one query within the bound, and `simhash_clusters(fingerprints,
//! max_distance)`, their clusters. With a third, text column in the query, a pair is one only
//! when the dedup decision calls its texts the same passage (6.0.0; docs/decision.md), and
//! the clusters are star clusters a DELETE can trust; without it, every pair within the bound
//! and its connected components, as in 5.x. `simhash_duplicates` streams: its search state
//! lives in the SRF's multi-call memory context, whose deletion (end of the scan, LIMIT
//! reached, error) drops it.

use pgrx::prelude::*;
use simhash_core::bulk::Stars;
use simhash_core::decision::Rule;
use simhash_core::fingerprints::pairs::{self, Texts};
use simhash_core::{Duplicates, Progress};

use super::rows::read_rows;
use crate::bulk::progress;

/// Every pair of rows of `fingerprints` (a query returning `(id bigint, fp bigint)`)
/// within Hamming distance `max_distance`, once, with `id1 < id2`, streamed in the
/// order of `Duplicates`. SQL calls it through the SQL function
/// `simhash_duplicates` (sql/fingerprints/pairs.sql), which calls this one in a select list, where
/// PostgreSQL asks a value-per-call function for one row at a time: in FROM it would
/// first put every row into a tuplestore (100,000 identical fingerprints: 5·10⁹ rows).
/// The Rust name keeps the C symbol `simhash_duplicates_wrapper` that the 0.x install
/// scripts name, so a database still at 0.x loads (and streams into its tuplestore); since
/// 7.0.0 it is `simhash_duplicates_d2`'s, deciding by decision 2 (6.0.0's).
#[pg_extern(name = "simhash_duplicates_stream_d2", volatile, parallel_unsafe)]
fn simhash_duplicates(
    fingerprints: &str,
    max_distance: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(distance, i32))> {
    duplicates(fingerprints, max_distance, Some(Rule::D2), "simhash_duplicates_d2")
}

/// `simhash_duplicates_stream` since 7.0.0: the same, deciding by `simhash.decision` (decision
/// 3, balanced by default).
#[pg_extern(name = "simhash_duplicates_stream", volatile, parallel_unsafe)]
fn simhash_duplicates_d3(
    fingerprints: &str,
    max_distance: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(distance, i32))> {
    duplicates(fingerprints, max_distance, crate::bulk::decision(), "simhash_duplicates")
}

/// The pairs of `fingerprints` within `max_distance`, decided by `rule` when it has texts.
fn duplicates(
    fingerprints: &str,
    max_distance: i32,
    rule: Option<Rule>,
    func: &'static str,
) -> TableIterator<'static, (i64, i64, i32)> {
    let k = super::max_distance(func, max_distance);
    let (rows, texts) = read_rows(func, "fingerprints", fingerprints, rule);
    let mut progress = progress(func, None);
    let pairs = Duplicates::new(rows, k, &mut progress);
    // Value per call, not a tuplestore: 100,000 identical fingerprints give their first
    // 10 rows in 0.023 s with the backend at 72 MB VmHWM (60 MB after SELECT 1), where a
    // tuplestore would take 5·10⁹ rows first (tests/bench/stream.sh).
    TableIterator::new(stream(func, pairs, texts, progress))
}

/// The pairs of `pairs` one at a time, checking for cancellation before each; with `texts`,
/// only those the dedup decision calls the same passage.
pub(crate) fn stream(
    func: &'static str,
    mut pairs: Duplicates,
    mut texts: Option<Texts>,
    mut progress: impl FnMut(Progress) + 'static,
) -> impl Iterator<Item = (i64, i64, i32)> + 'static {
    std::iter::from_fn(move || loop {
        // Each row is cheap, but a consumer such as count(*) asks for billions of them.
        check_for_interrupts!();
        let (a, b, d) = pairs.next_pair(&mut progress)?;
        if same_passage(func, texts.as_mut(), a, b) {
            return Some((a, b, d as i32));
        }
    })
}

/// Whether rows `a` and `b` are a pair: always without texts, else when the dedup decision
/// calls their texts the same passage.
pub(crate) fn same_passage(func: &str, texts: Option<&mut Texts>, a: i64, b: i64) -> bool {
    texts.is_none_or(|t| {
        t.same_passage(a, b, &mut crate::error::tick).unwrap_or_else(|e| crate::bulk::rows::spill_error(func, e))
    })
}

/// The clusters of `fingerprints`' pairs: `(id, cluster_id)` for every row with at least one
/// near-duplicate. With a text column, the star clusters of the pairs the dedup decision
/// calls the same passage (nearest first: `cluster_id` a kept row within the bound of it);
/// without, the connected components, `cluster_id` the component's smallest id (5.x's). This
/// symbol is `simhash_clusters_d2`'s since 7.0.0 (decision 2, 6.0.0's).
#[pg_extern(name = "simhash_clusters_d2", volatile, parallel_unsafe)]
fn simhash_clusters(
    fingerprints: &str,
    max_distance: default!(i32, 3),
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    clusters(fingerprints, max_distance, Some(Rule::D2), "simhash_clusters_d2")
}

/// `simhash_clusters` since 7.0.0: as above, deciding by `simhash.decision` (decision 3,
/// balanced by default; `none`: the star clusters of every pair within the bound).
#[pg_extern(name = "simhash_clusters", volatile, parallel_unsafe)]
fn simhash_clusters_d3(
    fingerprints: &str,
    max_distance: default!(i32, 3),
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    clusters(fingerprints, max_distance, crate::bulk::decision(), "simhash_clusters")
}

/// The clusters of `fingerprints`' pairs, decided by `rule` when it has texts.
fn clusters(
    fingerprints: &str,
    max_distance: i32,
    rule: Option<Rule>,
    func: &'static str,
) -> TableIterator<'static, (i64, i64)> {
    let k = super::max_distance(func, max_distance);
    let (rows, texts) = read_rows(func, "fingerprints", fingerprints, rule);
    let mut progress = progress(func, None);
    let Some(mut texts) = texts else {
        return TableIterator::new(pairs::clusters(rows, k, &mut progress));
    };
    let mut all = Duplicates::new(rows, k, &mut progress);
    let mut stars = Stars::new();
    while let Some((a, b, d)) = all.next_pair(&mut progress) {
        if same_passage(func, Some(&mut texts), a, b) {
            stars.add(a, b, -f64::from(d));
        }
    }
    TableIterator::new(stars.clusters(&mut crate::error::tick))
}
