//! Decision 1 (5.x's: the measure alone decides), kept reachable as the `_d1` functions
//! (sql/compat/decision1.sql; docs/decision.md, "5.x's decision"): each entry point here is
//! current code called with `Decision::Measure`, on 5.x's C symbols, which a database not yet
//! updated from 5.x also calls under the unsuffixed names (docs/development.md, "Version
//! suffixes": a shipped symbol never changes).

use pgrx::prelude::*;
use simhash_core::similarity::Version;
use simhash_core::Definition;

use crate::trigger::Decision;

v1_function!(
    /// `simhash_dedup_trigger()` since 3.0.0 (definition 3 by default).
    pg_finfo_simhash_dedup_trigger_v3, simhash_dedup_trigger_v3 => crate::fingerprints::trigger::dedup_trigger, Definition::V3
);

v1_function!(
    /// `simhash_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) → text` (5.x's
    /// `simhash_dedup_query`): the check query `simhash_dedup_trigger_d1(trigger_args...)` runs
    /// on `tbl` for an INSERT (`$1` is the new fingerprint), after the same validation, e.g. to
    /// EXPLAIN it. Options in the arguments are validated as the current trigger does
    /// (definition 3 unless they name one; definitions 1 to 3 take the same options); the query
    /// does not depend on them.
    pg_finfo_simhash_dedup_query, simhash_dedup_query => crate::fingerprints::trigger::fp_dedup_query, Decision::Measure, "simhash_dedup_query_d1"
);

v1_function!(
    /// `simhash_segments_dedup_trigger_d1()` since 6.0.0, `simhash_segments_dedup_trigger()`
    /// of 3.x to 5.x: definition 3 by default, the measure alone decides.
    pg_finfo_simhash_segments_dedup_trigger_v3, simhash_segments_dedup_trigger_v3 => crate::segments::trigger::dedup_trigger, Definition::V3
);

v1_function!(
    /// `simhash_segments_dedup_query_d1(tbl, VARIADIC trigger_args)` since 6.0.0 (3.x to
    /// 5.x's `simhash_segments_dedup_query`): the query of `simhash_segments_dedup_trigger_d1`
    /// (definition 3 by default).
    pg_finfo_simhash_segments_dedup_query_v3, simhash_segments_dedup_query_v3 => crate::segments::trigger::dedup_query_body, Definition::V3
);

v1_function!(
    /// `simhash_similarity_dedup_trigger_d1()` (5.x's `simhash_similarity_dedup_trigger`): the
    /// most similar candidate is the duplicate.
    pg_finfo_simhash_similarity_dedup_trigger_m2, simhash_similarity_dedup_trigger_m2 => crate::similarity::trigger::dedup_trigger, Version::M2, Decision::Measure
);

v1_function!(
    /// `simhash_similarity_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) → text`
    /// (5.x's `simhash_similarity_dedup_query`): the check query
    /// `simhash_similarity_dedup_trigger_d1(trigger_args...)` runs on `tbl` for an INSERT (`$1`
    /// the new text, `$2` min_similarity, `$3` min_containment), after the same validation, with
    /// how it finds candidates and what it locks in a trailing comment.
    pg_finfo_simhash_similarity_dedup_query_m2, simhash_similarity_dedup_query_m2 => crate::similarity::trigger::query, Version::M2, Decision::Measure, "simhash_similarity_dedup_query_d1"
);

/// `simhash_similarity_pairs_d1`'s rows (measure 2, the measure alone: 5.x's
/// `simhash_similarity_pairs`), as the function above.
#[pg_extern(name = "simhash_similarity_pairs_stream_d1", volatile, parallel_unsafe)]
fn simhash_similarity_pairs_m2(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(similarity, f64))> {
    crate::similarity::pairs::pairs(query, min_similarity, Version::M2, None, "simhash_similarity_pairs_d1")
}

/// `simhash_similarity_clusters_d1` (measure 2, the measure alone: 5.x's
/// `simhash_similarity_clusters`).
#[pg_extern(name = "simhash_similarity_clusters_d1", volatile, parallel_unsafe)]
fn simhash_similarity_clusters_m2(
    query: &str,
    min_similarity: f64,
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    crate::similarity::pairs::clusters(query, min_similarity, Version::M2, "simhash_similarity_clusters_d1")
}

pgrx::extension_sql_file!(
    "../../sql/compat/decision1.sql",
    name = "decision1",
    requires = [
        "trigger",
        "segments_trigger",
        "similarity_trigger",
        "similarity_explain",
        "similarity_pairs",
        simhash_similarity_pairs_m2,
        simhash_similarity_clusters_m2
    ]
);
