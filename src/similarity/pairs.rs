//! Bulk pairs by similarity (sql/similarity/pairs.sql; docs/similarity.md, "Bulk pairs and
//! clusters"): `simhash_similarity_pairs(query, min_similarity)`, every pair of rows of a
//! query returning `(id bigint, body text)` at similarity `min_similarity` or more, with its
//! similarity, and `simhash_similarity_clusters(...)`, their connected components. The rows
//! become `simhash_core::similarity::TextRows` (the kept characters and a sketch per text);
//! the pairs stream out one at a time, so memory is the texts, never the pairs. Measure 1's
//! are `simhash_similarity_pairs_m1` and `simhash_similarity_clusters_m1`, on 4.0.0's symbols.

use pgrx::prelude::*;
use simhash_core::similarity::{similarity_clusters, SimilarityPairs, TextRows, Version};
use simhash_core::Progress;

use super::{check_threshold, tick};
use crate::fingerprint::text_datum_to_utf8;
use crate::pairs::{for_each_value, progress};

/// Rows fetched per SPI batch: bounds the tuples (and detoasted texts) held at once.
const FETCH_ROWS: i64 = 1000;

/// Runs `query` and reads its `(id, text)` rows. ERROR 42804 unless it returns exactly a
/// bigint and a text (or varchar) column, 22004 on a NULL id; rows with a NULL text are
/// skipped.
pub(super) fn read_texts(func: &str, query: &str, theta: f64, v: Version) -> TextRows {
    let mut rows = TextRows::new(theta, v);
    let message = || {
        (
            format!("{func}: the query must return a bigint and a text column (id, body)"),
            "Cast them, e.g. SELECT id::bigint, body::text FROM t.",
        )
    };
    let types = [pg_sys::TEXTOID, pg_sys::VARCHAROID];
    let null_rows = for_each_value(func, "texts", query, FETCH_ROWS, &types, message, |id, v| {
        // SAFETY: a non-NULL text (or varchar) datum (the column's type was checked).
        rows.push(id, &unsafe { text_datum_to_utf8(v) }, &mut tick);
    });
    notice!("{func}: read {} rows ({null_rows} with a NULL text ignored)", rows.len());
    rows
}

/// Every pair of rows of `query` with similarity ≥ `min_similarity` under version `v`, once,
/// `id1 < id2`, with its similarity, in no particular order.
fn pairs(query: &str, min_similarity: f64, v: Version, func: &'static str) -> TableIterator<'static, PairRow> {
    let theta = check_threshold(min_similarity, func);
    let rows = read_texts(func, query, theta, v);
    let mut progress = progress(func);
    let pairs = SimilarityPairs::new(rows, theta, &mut progress);
    stream(pairs, progress)
}

/// A row of the bulk pairs: id1, id2, similarity.
type PairRow = (i64, i64, f64);

/// `simhash_similarity_pairs_m1`'s rows (measure 1; 4.0.0's symbol). Value per call, called
/// through the SQL function (sql/similarity/m1.sql) in a select list, so LIMIT stops it early.
#[pg_extern(name = "simhash_similarity_pairs_stream_m1", volatile, parallel_unsafe)]
fn simhash_similarity_pairs(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    pairs(query, min_similarity, Version::M1, "simhash_similarity_pairs_m1")
}

/// `simhash_similarity_pairs`'s rows (measure 2), as the function above.
#[pg_extern(name = "simhash_similarity_pairs_stream", volatile, parallel_unsafe)]
fn simhash_similarity_pairs_m2(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    pairs(query, min_similarity, Version::M2, "simhash_similarity_pairs")
}

/// The rows of a bulk run, one pair a call (for this function and shard.rs's).
pub(super) fn stream(
    mut pairs: SimilarityPairs,
    mut progress: impl FnMut(Progress) + 'static,
) -> TableIterator<'static, PairRow> {
    TableIterator::new(std::iter::from_fn(move || {
        tick();
        let p = pairs.next_pair(&mut progress)?;
        Some((p.id1, p.id2, p.similarity))
    }))
}

/// Connected components of the pairs of `simhash_similarity_pairs` under version `v`:
/// `(id, cluster_id)` for every row in at least one pair, `cluster_id` the component's
/// smallest id, sorted.
fn clusters(query: &str, min_similarity: f64, v: Version, func: &'static str) -> TableIterator<'static, (i64, i64)> {
    let theta = check_threshold(min_similarity, func);
    let rows = read_texts(func, query, theta, v);
    TableIterator::new(similarity_clusters(rows, theta, &mut progress(func)))
}

/// `simhash_similarity_clusters_m1` (measure 1; 4.0.0's symbol).
#[pg_extern(name = "simhash_similarity_clusters_m1", volatile, parallel_unsafe)]
fn simhash_similarity_clusters(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    clusters(query, min_similarity, Version::M1, "simhash_similarity_clusters_m1")
}

/// `simhash_similarity_clusters` (measure 2).
#[pg_extern(name = "simhash_similarity_clusters", volatile, parallel_unsafe)]
fn simhash_similarity_clusters_m2(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    clusters(query, min_similarity, Version::M2, "simhash_similarity_clusters")
}

pgrx::extension_sql_file!(
    "../../sql/similarity/pairs.sql",
    name = "similarity_pairs",
    requires = [
        "similarity",
        simhash_similarity_pairs,
        simhash_similarity_pairs_m2,
        simhash_similarity_clusters,
        simhash_similarity_clusters_m2
    ]
);
