//! Bulk pairs by similarity (sql/similarity/pairs.sql; docs/similarity.md, "Bulk pairs and
//! clusters"): `simhash_similarity_pairs(query, min_similarity)`, every pair of rows of a
//! query returning `(id bigint, body text)` at similarity `min_similarity` or more, with its
//! similarity, and `simhash_similarity_clusters(...)`, their connected components. Measure 1's
//! are `simhash_similarity_pairs_m1` and `simhash_similarity_clusters_m1`, on 4.0.0's symbols.
//!
//! The rows go into `simhash_core::similarity::bulk::BulkPairs`: worker threads (at most
//! `simhash.bulk_threads`, started with the backend's signals blocked, never calling into the
//! server) shingle and sketch them, spill each row's record to a temporary file under
//! `base/pgsql_tmp` (unlinked at once: nothing is left by a crash or a cancel), find the
//! candidates by MinHash banding and measure each exactly. The backend reads the rows through
//! a cursor and hands out the pairs one at a time, so memory is a fixed number of bytes a row,
//! never the texts nor the pairs. The run lives in the SRF's multi-call memory context, whose
//! deletion (the end, LIMIT, an error, a cancel) drops it, stopping and joining the workers.

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;
use simhash_core::bulk::Stars;
use simhash_core::decision::Rule;
use simhash_core::similarity::bulk::{self, BulkPairs, Config};
use simhash_core::similarity::Version;
use simhash_core::Progress;

use super::check_threshold;
use crate::bulk::rows::for_each_value;
use crate::bulk::{progress, with_signals_blocked};
use crate::error::raise;
use crate::text::text_datum_to_utf8;

/// Rows fetched per SPI batch: bounds the tuples (and detoasted texts) held at once.
pub(super) const FETCH_ROWS: i64 = 1000;

/// `simhash.bulk_threads`: worker threads of the bulk similarity functions. 2 by default: the
/// machines here have 2 cores (1M texts at 0.5: 30-64 s with 2, docs/performance.md).
static BULK_THREADS: GucSetting<i32> = GucSetting::<i32>::new(2);

pub(crate) fn register_gucs() {
    GucRegistry::define_int_guc(
        c"simhash.bulk_threads",
        c"Worker threads of simhash_similarity_pairs, simhash_similarity_clusters and their shard forms.",
        c"They shingle, sketch and measure the texts inside the backend and never call into the server; the backend reads the rows and hands out the pairs.",
        &BULK_THREADS,
        1,
        64,
        GucContext::Userset,
        GucFlags::default(),
    );
}

/// A run at `theta` under version `v`, its workers started, handing out only the pairs the
/// dedup decision calls the same passage when `decide`. ERROR 53000-class out of resources
/// when neither threads nor the temporary file can be had.
fn new_run(func: &str, theta: f64, v: Version, decide: Option<Rule>) -> BulkPairs {
    let dir = std::path::PathBuf::from("base/pgsql_tmp");
    let config = Config {
        theta,
        version: v,
        threads: BULK_THREADS.get().max(1) as usize,
        // Never the system's temporary directory: a file there is outside the cluster's disk
        // accounting. Without base/pgsql_tmp the run fails with 53000 below.
        spill_dir: {
            let _ = std::fs::create_dir_all(&dir);
            Some(dir)
        },
        decide,
        templates: crate::bulk::templates(decide),
    };
    // SAFETY: BulkPairs::new starts plain Rust threads and makes a file; neither calls into
    // PostgreSQL, and the threads never do.
    match unsafe { with_signals_blocked(|| BulkPairs::new(&config)) } {
        Ok(run) => run,
        Err(e) => raise(
            PgSqlErrorCode::ERRCODE_INSUFFICIENT_RESOURCES,
            format!("{func}: could not start the run: {e}"),
            None,
            Some("It needs its worker threads and a temporary file under base/pgsql_tmp."),
        ),
    }
}

/// Runs `query` and calls `each` with its `(id, text)` rows; the number of rows. ERROR 42804
/// unless it returns exactly a bigint and a text (or varchar) column, 22004 on a NULL id;
/// rows with a NULL text are skipped, and said so.
pub(super) fn for_each_text(func: &str, query: &str, mut each: impl FnMut(i64, &str)) -> u64 {
    let message = || {
        (
            format!("{func}: the query must return a bigint and a text column (id, body)"),
            "Cast them, e.g. SELECT id::bigint, body::text FROM t.",
        )
    };
    let types = [pg_sys::TEXTOID, pg_sys::VARCHAROID];
    let mut rows = 0u64;
    let null_rows = for_each_value(func, "texts", query, FETCH_ROWS, &types, message, |id, v| {
        // SAFETY: a non-NULL text (or varchar) datum (the column's type was checked).
        each(id, &unsafe { text_datum_to_utf8(v) });
        rows += 1;
        true
    });
    notice!("{func}: read {rows} rows ({null_rows} with a NULL text ignored)");
    rows
}

/// A run at `theta` under version `v` ([`new_run`]) with its progress callback, the
/// `(id, text)` rows of `query` pushed into it ([`for_each_text`]).
pub(super) fn start_run(
    func: &'static str,
    query: &str,
    theta: f64,
    v: Version,
    decide: Option<Rule>,
) -> (BulkPairs, impl FnMut(Progress)) {
    let mut run = new_run(func, theta, v, decide);
    let counters = run.counters();
    let mut progress = progress(func, Some(Box::new(move || counters.summary())));
    for_each_text(func, query, |id, text| run.push(id, text, &mut progress));
    // Below 0.3 the engine says what it does instead.
    if let Some(p) = run.plan() {
        notice!("{func}: {} bands of {} MinHash values, {} bytes a row", p.b, p.r, bulk::bytes_per_row(&p));
    }
    (run, progress)
}

/// A row of the bulk pairs: id1, id2, similarity.
type PairRow = (i64, i64, f64);

/// Every pair of rows of `query` with similarity ≥ `min_similarity` under version `v`, once,
/// `id1 < id2`, with its similarity, in no particular order; with `decide`, only the pairs
/// the dedup decision calls the same passage by that rule.
pub(crate) fn pairs(
    query: &str,
    min_similarity: f64,
    v: Version,
    decide: Option<Rule>,
    func: &'static str,
) -> TableIterator<'static, PairRow> {
    let theta = check_threshold(min_similarity, func);
    let (mut run, mut progress) = start_run(func, query, theta, v, decide);
    TableIterator::new(std::iter::from_fn(move || {
        check_for_interrupts!();
        let p = run.next_pair(&mut progress)?;
        Some((p.id1, p.id2, p.similarity))
    }))
}

/// `simhash_similarity_pairs_d2`'s rows (6.0.0's `simhash_similarity_pairs`): the pairs decision
/// 2 calls the same passage, as the function above, on 6.0.0's symbol.
#[pg_extern(name = "simhash_similarity_pairs_stream_d2", volatile, parallel_unsafe)]
fn simhash_similarity_pairs_d2(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    pairs(query, min_similarity, Version::M2, Some(Rule::D2), "simhash_similarity_pairs_d2")
}

/// `simhash_similarity_pairs`'s rows since 7.0.0: the pairs the dedup decision calls the same
/// passage by `simhash.decision` (decision 3, balanced by default; none: the measure alone).
#[pg_extern(name = "simhash_similarity_pairs_stream", volatile, parallel_unsafe)]
fn simhash_similarity_pairs_d3(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    pairs(query, min_similarity, Version::M2, crate::bulk::decision(), "simhash_similarity_pairs")
}

/// Connected components of the pairs of `simhash_similarity_pairs` under version `v` (the
/// measure alone): `(id, cluster_id)` for every row in at least one pair, `cluster_id` the
/// component's smallest id, sorted.
pub(crate) fn clusters(
    query: &str,
    min_similarity: f64,
    v: Version,
    func: &'static str,
) -> TableIterator<'static, (i64, i64)> {
    let theta = check_threshold(min_similarity, func);
    let (run, mut progress) = start_run(func, query, theta, v, None);
    TableIterator::new(bulk::clusters(run, &mut progress))
}

/// The star clusters (`simhash_core::bulk::Stars`) of the pairs rule `decide` calls the same
/// passage, so that every row a DELETE of `id <> cluster_id` removes has its near-duplicate
/// among the kept rows; without a rule, of the measure's pairs.
fn star_clusters(
    query: &str,
    min_similarity: f64,
    decide: Option<Rule>,
    func: &'static str,
) -> TableIterator<'static, (i64, i64)> {
    let theta = check_threshold(min_similarity, func);
    let (mut run, mut progress) = start_run(func, query, theta, Version::M2, decide);
    let mut stars = Stars::new();
    while let Some(p) = run.next_pair(&mut progress) {
        stars.add(p.id1, p.id2, p.similarity);
    }
    notice!("{func}: {}", run.counters().summary());
    TableIterator::new(stars.clusters(&mut super::tick))
}

/// `simhash_similarity_clusters_d2` (6.0.0's `simhash_similarity_clusters`): the star clusters
/// of decision 2's pairs, on 6.0.0's symbol.
#[pg_extern(name = "simhash_similarity_clusters_d2", volatile, parallel_unsafe)]
fn simhash_similarity_clusters_d2(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    star_clusters(query, min_similarity, Some(Rule::D2), "simhash_similarity_clusters_d2")
}

/// `simhash_similarity_clusters` since 7.0.0: the star clusters of the pairs the dedup
/// decision calls the same passage by `simhash.decision`.
#[pg_extern(name = "simhash_similarity_clusters", volatile, parallel_unsafe)]
fn simhash_similarity_clusters_d3(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    star_clusters(query, min_similarity, crate::bulk::decision(), "simhash_similarity_clusters")
}

pgrx::extension_sql_file!(
    "../../sql/similarity/pairs.sql",
    name = "similarity_pairs",
    requires = [
        "similarity",
        simhash_similarity_pairs,
        simhash_similarity_pairs_d2,
        simhash_similarity_pairs_d3,
        simhash_similarity_clusters,
        simhash_similarity_clusters_m2,
        simhash_similarity_clusters_d3
    ]
);
